package storage

import (
	"sort"
	"strings"

	"github.com/padd/padd/model"
)

// Playbook reads (Pad's PB-01/02). Playbooks are the items of the
// collections holding the playbook kind (see kindCollections).

// fieldStream is the index prefix of a collection's live items holding
// value in field key.
func fieldStream(collID, key, value string) []byte {
	return cat([]byte{kindField}, mustID(collID), lstr(key), lstr(value), []byte{lifeLive})
}

// eachInStreams visits the live items of index streams in the default
// list order (pinned, then most recently updated); fn returning false
// stops. Callers pick streams of live collections.
func eachInStreams(b *wsb, prefixes [][]byte, withContent bool, fn func(*model.Item) (bool, error)) error {
	m := newMerged(b.index(), prefixes)
	for {
		suffix, _ := m.next()
		if suffix == nil {
			return nil
		}
		it, err := getItem(b, suffix[9:], withContent)
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

func strField(fields map[string]any, key string) string {
	s, _ := fields[key].(string)
	return s
}

// playbookMeta projects a playbook without its body (the summary is
// read from it).
func playbookMeta(it *model.Item, c *model.Collection) model.PlaybookMeta {
	return model.PlaybookMeta{Ref: refOf(c, it.Number), Seq: it.Seq, Title: it.Title, Slug: it.Slug,
		InvocationSlug: strField(it.Fields, "invocation_slug"), Trigger: strField(it.Fields, "trigger"),
		Scope: strField(it.Fields, "scope"), Status: strField(it.Fields, model.DoneField(c.Schema, c.Settings)),
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

// playbooksOf lists the live playbooks among the collections cs, drafts
// and deprecated ones included (listing is not permission to run),
// keeping those keep accepts.
func playbooksOf(b *wsb, cs []*model.Collection, keep func(*model.Item) bool) ([]model.PlaybookMeta, error) {
	out := []model.PlaybookMeta{}
	for _, c := range ofKind(cs, model.KindPlaybook) {
		err := eachInStreams(b, [][]byte{collPrefix(mustID(c.ID), lifeLive)}, true, func(it *model.Item) (bool, error) {
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

// ListPlaybooks lists the workspace's playbooks as metadata.
func (s *Store) ListPlaybooks(ws string) ([]model.PlaybookMeta, error) {
	var out []model.PlaybookMeta
	err := s.read(ws, func(r *rtx) error {
		cs, err := collectionsOf(r.ws)
		if err != nil {
			return err
		}
		out, err = playbooksOf(r.ws, cs, nil)
		return err
	})
	return out, err
}

// resolvePlaybook finds a live playbook by invocation slug first (what
// people type), then by ref, slug or id. An item that is not in a
// playbook collection is not a playbook.
func resolvePlaybook(b *wsb, ref string) (*model.Item, *model.Collection, error) {
	ref = strings.TrimSpace(ref)
	cs, err := kindCollections(b, model.KindPlaybook)
	if err != nil {
		return nil, nil, err
	}
	if len(cs) == 0 {
		return nil, nil, model.NotFound("playbook %q not found: this workspace has no playbook collection", ref).With("ref", ref)
	}
	for _, c := range cs {
		var hit *model.Item
		err := eachInStreams(b, [][]byte{fieldStream(c.ID, "invocation_slug", ref)}, true, func(it *model.Item) (bool, error) {
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
	id := findItem(b, ref)
	if id == nil {
		return nil, nil, model.NotFound("playbook %q not found", ref).With("ref", ref)
	}
	it, err := getItem(b, id, true)
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

// GetPlaybook reads one playbook by invocation slug, ref, slug or id.
func (s *Store) GetPlaybook(ws, ref string) (*Playbook, error) {
	var out *Playbook
	err := s.read(ws, func(r *rtx) error {
		it, c, err := resolvePlaybook(r.ws, ref)
		if err != nil {
			return err
		}
		v, err := view(r.ws, it, map[string]*model.Collection{c.ID: c})
		if err != nil {
			return err
		}
		out = &Playbook{Item: v, Status: strField(it.Fields, model.DoneField(c.Schema, c.Settings))}
		return nil
	})
	return out, err
}

// PlaybookRun is a run request: arguments as an object and as CLI
// tokens, and whether a non-active playbook may run.
type PlaybookRun struct {
	Args       map[string]any
	RawArgs    []string
	AllowDraft bool
}

// PlaybookRunResult is a run's answer: the playbook, its declared
// arguments and the binding.
type PlaybookRunResult struct {
	Playbook
	Arguments []model.ArgSpec
	Binding   *model.ArgBinding
}

// RunPlaybook binds a run's arguments against the playbook. It stores
// nothing: the agent is the one who runs the steps. A playbook whose
// status is not active is refused (409 playbook_not_active) unless the
// run allows drafts.
func (s *Store) RunPlaybook(ws, ref string, in PlaybookRun) (*PlaybookRunResult, error) {
	pb, err := s.GetPlaybook(ws, ref)
	if err != nil {
		return nil, err
	}
	raw, allowDraft := model.AllowDraftToken(in.RawArgs)
	if !strings.EqualFold(pb.Status, "active") && !(in.AllowDraft || allowDraft) {
		return nil, model.PlaybookNotActive(pb.Item.Ref, pb.Status)
	}
	specs, err := model.ParseArgSpecs(pb.Item.Fields["arguments"])
	if err != nil {
		return nil, err
	}
	bind, err := model.BindArgs(specs, in.Args, raw)
	if err != nil {
		return nil, err
	}
	if specs == nil {
		specs = []model.ArgSpec{}
	}
	return &PlaybookRunResult{Playbook: *pb, Arguments: specs, Binding: bind}, nil
}
