package storage

import (
	"testing"

	"github.com/padd/padd/model"
)

// An item the sync engine pulls is written as the remote has it: its
// reserved metadata (which no door writes) as the system's, on create
// and on a later update (a nil value removes it), and no default fills
// a field it lacks. Reserved metadata of another shape is refused.
func TestSyncTxTakesTheRemotesReservedMetadata(t *testing.T) {
	s, _ := openTest(t)
	ws := mustWorkspace(t, s, "Reserved").Slug
	mustSyncLink(t, s, ws)
	note := []any{map[string]any{"id": "n1", "summary": "did it", "created_by": "agent"}}
	pr := map[string]any{"number": 7.0, "url": "https://example.com/o/r/pull/7"}
	var id string
	err := s.SyncApply(ws, syncActor, func(tx *SyncTx) error {
		r, err := tx.CreateItem(ItemCreate{Collection: "tasks", Title: "from the team",
			Fields: map[string]any{"status": "open", model.FieldImplementationNotes: note}}, 41)
		if r != nil {
			id = r.Item.ID
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	it, err := rd(s).GetItem(ws, "TASK-41")
	if err != nil {
		t.Fatal(err)
	}
	if !model.EqualJSON(it.Fields[model.FieldImplementationNotes], note) {
		t.Errorf("notes after the pulled create: %v", it.Fields)
	}
	if _, has := it.Fields["priority"]; has {
		t.Errorf("the pulled create filled priority's default: %v", it.Fields)
	}

	decisions := []any{map[string]any{"id": "d1", "decision": "keep it"}}
	err = s.SyncApply(ws, syncActor, func(tx *SyncTx) error {
		_, err := tx.UpdateItem(id, ItemUpdate{FieldsPatch: map[string]any{"status": "done",
			model.FieldDecisionLog: decisions, model.FieldGitHubPR: pr, model.FieldImplementationNotes: nil}})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	it, _ = rd(s).GetItem(ws, "TASK-41")
	if it.Fields["status"] != "done" || !model.EqualJSON(it.Fields[model.FieldDecisionLog], decisions) ||
		!model.EqualJSON(it.Fields[model.FieldGitHubPR], pr) || it.Fields[model.FieldImplementationNotes] != nil {
		t.Errorf("fields after the pulled update: %v", it.Fields)
	}

	err = s.SyncApply(ws, syncActor, func(tx *SyncTx) error {
		_, err := tx.UpdateItem(id, ItemUpdate{FieldsPatch: map[string]any{model.FieldConvention: "must"}})
		return err
	})
	wantCode(t, err, model.CodeValidation)
	// A door still refuses them.
	_, err = s.UpdateItem(ws, id, ItemUpdate{FieldsPatch: map[string]any{model.FieldDecisionLog: decisions}}, user)
	wantCode(t, err, model.CodeValidation)
}
