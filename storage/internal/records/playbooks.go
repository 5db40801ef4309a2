package records

import (
	"sort"
	"strings"

	"github.com/padd/padd/model"
)

// Playbook reads (Pad's PB-01/02). Playbooks are the items of the
// collections holding the playbook kind (see KindCollections).

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

// ResolvePlaybook finds a live playbook by invocation slug first (what
// people type), then by ref, slug or id. An item that is not in a
// playbook collection is not a playbook.
func ResolvePlaybook(b *Wsb, ref string) (*model.Item, *model.Collection, error) {
	ref = strings.TrimSpace(ref)
	cs, err := KindCollections(b, model.KindPlaybook)
	if err != nil {
		return nil, nil, err
	}
	if len(cs) == 0 {
		return nil, nil, model.NotFound("playbook %q not found: this workspace has no playbook collection", ref).With("ref", ref)
	}
	for _, c := range cs {
		var hit *model.Item
		err := EachInStreams(b, [][]byte{FieldStream(c.ID, "invocation_slug", ref)}, true, func(it *model.Item) (bool, error) {
			hit = it
			return false, nil
		})
		if err != nil {
			return nil, nil, err
		}
		if hit != nil {
			return hit, c, nil
		}
	}
	id := FindItem(b, ref)
	if id == nil {
		return nil, nil, model.NotFound("playbook %q not found", ref).With("ref", ref)
	}
	it, err := GetItem(b, id, true)
	if err != nil {
		return nil, nil, err
	}
	for _, c := range cs {
		if it != nil && it.CollectionID == c.ID && it.DeletedAt == nil {
			return it, c, nil
		}
	}
	return nil, nil, model.NotFound("%s is not a playbook", ref).With("ref", ref)
}

// Playbook is a playbook with its status (its done field's value).
type Playbook struct {
	Item   *ItemView
	Status string
}

// ReadPlaybooks lists the workspace's playbooks as metadata.
func ReadPlaybooks(b *Base, ws string) ([]model.PlaybookMeta, error) {
	var out []model.PlaybookMeta
	err := b.Read(ws, func(r *Rtx) error {
		cs, err := CollectionsOf(r.WS)
		if err != nil {
			return err
		}
		out, err = PlaybooksOf(r.WS, cs, nil)
		return err
	})
	return out, err
}

// ReadPlaybook reads one playbook by invocation slug, ref, slug or id.
func ReadPlaybook(b *Base, ws, ref string) (*Playbook, error) {
	var out *Playbook
	err := b.Read(ws, func(r *Rtx) error {
		it, c, err := ResolvePlaybook(r.WS, ref)
		if err != nil {
			return err
		}
		v, err := View(r.WS, it, map[string]*model.Collection{c.ID: c})
		if err != nil {
			return err
		}
		out = &Playbook{Item: v, Status: StrField(it.Fields, model.DoneField(c.Schema, c.Settings))}
		return nil
	})
	return out, err
}
