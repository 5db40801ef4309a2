package storage

import (
	"strings"

	"github.com/padd/padd/model"
	"github.com/padd/padd/storage/internal/records"
)

// Playbook reads (Pad's PB-01/02). Playbooks are the items of the
// collections holding the playbook kind (see kindCollections).

// ListPlaybooks lists the workspace's playbooks as metadata.
func (s *Store) ListPlaybooks(ws string) ([]model.PlaybookMeta, error) {
	var out []model.PlaybookMeta
	err := s.base.Read(ws, func(r *records.Rtx) error {
		cs, err := records.CollectionsOf(r.WS)
		if err != nil {
			return err
		}
		out, err = records.PlaybooksOf(r.WS, cs, nil)
		return err
	})
	return out, err
}

// resolvePlaybook finds a live playbook by invocation slug first (what
// people type), then by ref, slug or id. An item that is not in a
// playbook collection is not a playbook.
func resolvePlaybook(b *records.Wsb, ref string) (*model.Item, *model.Collection, error) {
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
		err := records.EachInStreams(b, [][]byte{records.FieldStream(c.ID, "invocation_slug", ref)}, true, func(it *model.Item) (bool, error) {
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
	id := records.FindItem(b, ref)
	if id == nil {
		return nil, nil, model.NotFound("playbook %q not found", ref).With("ref", ref)
	}
	it, err := records.GetItem(b, id, true)
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
	err := s.base.Read(ws, func(r *records.Rtx) error {
		it, c, err := resolvePlaybook(r.WS, ref)
		if err != nil {
			return err
		}
		v, err := records.View(r.WS, it, map[string]*model.Collection{c.ID: c})
		if err != nil {
			return err
		}
		out = &Playbook{Item: v, Status: records.StrField(it.Fields, model.DoneField(c.Schema, c.Settings))}
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
