package storage

import (
	"strings"

	"github.com/padd/padd/model"
	"github.com/padd/padd/storage/internal/records"
)

// Playbook is records.Playbook, the type storage's callers name.
type Playbook = records.Playbook

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
	pb, err := records.ReadPlaybook(&s.base, ws, ref)
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
