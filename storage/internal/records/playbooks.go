package records

import (
	"sort"

	"github.com/padd/padd/model"
)

// Playbook reads (Pad's PB-01/02). Playbooks are the items of the
// collections holding the playbook kind (see kindCollections).

// FieldStream is the index prefix of a collection's live items holding
// value in field key.
func FieldStream(collID, key, value string) []byte {
	return Cat([]byte{KindField}, MustID(collID), Lstr(key), Lstr(value), []byte{LifeLive})
}

// EachInStreams visits the live items of index streams in the default
// list order (pinned, then most recently updated); fn returning false
// stops. Callers pick streams of live collections.
func EachInStreams(b *Wsb, prefixes [][]byte, withContent bool, fn func(*model.Item) (bool, error)) error {
	m := NewMerged(b.Index(), prefixes)
	for {
		suffix, _ := m.Next()
		if suffix == nil {
			return nil
		}
		it, err := GetItem(b, suffix[9:], withContent)
		if err != nil {
			return err
		}
		if it == nil {
			continue
		}
		more, err := fn(it)
		if err != nil || !more {
			return err
		}
	}
}

func StrField(fields map[string]any, key string) string {
	s, _ := fields[key].(string)
	return s
}

// playbookMeta projects a playbook without its body (the summary is
// read from it).
func playbookMeta(it *model.Item, c *model.Collection) model.PlaybookMeta {
	return model.PlaybookMeta{Ref: RefOf(c, it.Number), Seq: it.Seq, Title: it.Title, Slug: it.Slug,
		InvocationSlug: StrField(it.Fields, "invocation_slug"), Trigger: StrField(it.Fields, "trigger"),
		Scope: StrField(it.Fields, "scope"), Status: StrField(it.Fields, model.DoneField(c.Schema, c.Settings)),
		HasArguments: model.HasArguments(it.Fields["arguments"]), Summary: model.PlaybookSummary(it.Content)}
}

// sortPlaybooks puts directly invocable playbooks first, then by title.
func sortPlaybooks(ps []model.PlaybookMeta) {
	sort.SliceStable(ps, func(i, j int) bool {
		if a, b := ps[i].InvocationSlug != "", ps[j].InvocationSlug != ""; a != b {
			return a
		}
		if ps[i].Title != ps[j].Title {
			return ps[i].Title < ps[j].Title
		}
		return model.RefLess(ps[i].Ref, ps[j].Ref)
	})
}

// PlaybooksOf lists the live playbooks among the collections cs, drafts
// and deprecated ones included (listing is not permission to run),
// keeping those keep accepts.
func PlaybooksOf(b *Wsb, cs []*model.Collection, keep func(*model.Item) bool) ([]model.PlaybookMeta, error) {
	out := []model.PlaybookMeta{}
	for _, c := range OfKind(cs, model.KindPlaybook) {
		err := EachInStreams(b, [][]byte{CollPrefix(MustID(c.ID), LifeLive)}, true, func(it *model.Item) (bool, error) {
			if keep == nil || keep(it) {
				out = append(out, playbookMeta(it, c))
			}
			return true, nil
		})
		if err != nil {
			return nil, err
		}
	}
	sortPlaybooks(out)
	return out, nil
}
