package syncstate

import (
	"slices"
	"testing"

	"github.com/padd/padd/model"
	"github.com/padd/padd/storage"
	"github.com/padd/padd/storage/internal/records"
	"github.com/padd/padd/storage/views"
)

// A base keeps the remote's relation values that wait for their items,
// and the items that wait are marked in the same write and listed after
// it.
func TestSyncRelationWaits(t *testing.T) {
	s, _ := openTest(t)
	ws := mustWorkspace(t, s, "Waits").Slug
	mustSyncLink(t, s, ws)
	var ids []string
	for range 3 {
		ids = append(ids, mustCreate(t, s, ws, "tasks", "waits", nil).ID)
	}
	apply := func(fn func(tx *storage.SyncTx) error) error { return s.SyncApply(ws, syncActor, fn) }
	it := ids[0]
	waiting := map[string]any{"see": "r-target", "also": []any{"r-one", "r-two"}}
	if err := apply(func(tx *storage.SyncTx) error {
		if err := tx.SetBase(storage.SyncBase{ItemID: it, Title: "waits", Fields: map[string]any{"see": ids[1]}, Waiting: waiting}); err != nil {
			return err
		}
		for _, id := range ids {
			if err := tx.SetRelationWait(id, true); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	b, err := Of(s).SyncBase(ws, it)
	if err != nil || b == nil || !model.EqualJSON(b.Waiting, waiting) || b.Fields["see"] != ids[1] {
		t.Fatalf("base = %+v, %v", b, err)
	}
	got, err := Of(s).SyncRelationWaits(ws)
	slices.Sort(got)
	want := slices.Sorted(slices.Values(ids))
	if err != nil || !slices.Equal(got, want) {
		t.Fatalf("waits = %v (%v), want %v", got, err, want)
	}
	// A base written again without them holds none; unmarking is one
	// write, and so is unmarking what is not marked.
	if err := apply(func(tx *storage.SyncTx) error {
		if err := tx.SetBase(storage.SyncBase{ItemID: it, Title: "waits"}); err != nil {
			return err
		}
		for _, id := range ids[1:] {
			if err := tx.SetRelationWait(id, false); err != nil {
				return err
			}
		}
		return tx.SetRelationWait(ids[1], false)
	}); err != nil {
		t.Fatal(err)
	}
	if b, _ := Of(s).SyncBase(ws, it); b.Waiting != nil {
		t.Errorf("waiting after a base without = %v", b.Waiting)
	}
	if got, _ := Of(s).SyncRelationWaits(ws); !slices.Equal(got, []string{it}) {
		t.Errorf("waits = %v, want %v", got, []string{it})
	}
	if on, _ := Of(s).SyncRelationWait(ws, it); !on {
		t.Error("the item left marked does not say so")
	}
	wantCode(t, apply(func(tx *storage.SyncTx) error { return tx.SetRelationWait(records.NewID(), true) }), model.CodeNotFound)
	wantCode(t, apply(func(tx *storage.SyncTx) error { return tx.SetRelationWait("TASK-1", true) }), model.CodeValidation)
}

// A sync write takes a relation value naming any item of the workspace
// by id, archived or in another collection, as the remote holds it; a
// user's write still names a live item of the field's collection.
func TestSyncWriteTakesTheRemotesRelations(t *testing.T) {
	s, _ := openTest(t)
	ws := mustWorkspace(t, s, "Relations").Slug
	mustSyncLink(t, s, ws)
	if _, err := s.CreateCollection(ws, storage.CollectionCreate{Name: "Specs", Prefix: "SPEC", FieldsDSL: "see:relation:specs; also:multi_relation:specs"}, user); err != nil {
		t.Fatal(err)
	}
	spec := mustCreate(t, s, ws, "specs", "spec", nil)
	task := mustCreate(t, s, ws, "tasks", "a task", nil)
	gone := mustCreate(t, s, ws, "specs", "archived", nil)
	if _, err := s.DeleteItem(ws, gone.Ref, user); err != nil {
		t.Fatal(err)
	}
	fields := map[string]any{"see": task.ID, "also": []any{gone.ID, spec.ID}}
	_, err := s.UpdateItem(ws, spec.Ref, storage.ItemUpdate{FieldsPatch: fields}, user)
	wantCode(t, err, model.CodeValidation)
	if err := s.SyncApply(ws, syncActor, func(tx *storage.SyncTx) error {
		_, err := tx.UpdateItem(spec.ID, storage.ItemUpdate{FieldsPatch: fields})
		if err != nil {
			return err
		}
		_, err = tx.CreateItem(storage.ItemCreate{Collection: "specs", Title: "pulled", Fields: fields}, 90)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	for _, ref := range []string{spec.ID, "SPEC-90"} {
		v, err := views.Of(s).GetItem(ws, ref)
		if err != nil || !model.EqualJSON(v.Fields["see"], task.ID) || !model.EqualJSON(v.Fields["also"], []any{gone.ID, spec.ID}) {
			t.Errorf("%s: %v (%v)", ref, v.Fields, err)
		}
	}
	// An id of no item is refused there too.
	err = s.SyncApply(ws, syncActor, func(tx *storage.SyncTx) error {
		_, err := tx.UpdateItem(spec.ID, storage.ItemUpdate{FieldsPatch: map[string]any{"see": records.NewID()}})
		return err
	})
	wantCode(t, err, model.CodeValidation)
}
