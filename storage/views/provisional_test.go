package views

import (
	"context"
	"testing"

	"github.com/padd/padd/model"
	"github.com/padd/padd/storage"
	"github.com/padd/padd/storage/syncstate"
)

// An unlinked workspace numbers items as it always did; a linked one
// gives items made here provisional refs until the remote numbers them,
// and items pulled from the remote the remote's numbers.
func TestProvisionalRefsAndAdoption(t *testing.T) {
	s, _ := openTest(t)
	ws := mustWorkspace(t, s, "Provisional")
	island := mustWorkspace(t, s, "Island")
	if a, b := mustCreate(t, s, island.Slug, "tasks", "one", nil), mustCreate(t, s, island.Slug, "tasks", "two", nil); a.Ref != "TASK-1" || b.Ref != "TASK-2" {
		t.Fatalf("unlinked refs = %s, %s", a.Ref, b.Ref)
	}
	before := mustCreate(t, s, ws.Slug, "tasks", "numbered before the link", nil)
	if before.Ref != "TASK-1" {
		t.Fatalf("ref before linking = %s", before.Ref)
	}
	mustSyncLink(t, s, ws.Slug)
	p1 := mustCreate(t, s, ws.Slug, "tasks", "made offline", nil)
	p2 := mustCreate(t, s, ws.Slug, "ideas", "also offline", nil)
	if p1.Ref != "TASK-L1" || p2.Ref != "IDEA-L2" || p1.Number != -1 {
		t.Fatalf("provisional refs = %s (%d), %s", p1.Ref, p1.Number, p2.Ref)
	}
	// A provisional ref resolves like any ref, in any case, and as a
	// relation value and a parent.
	for _, ref := range []string{"TASK-L1", "task-l1"} {
		if v, err := Of(s).GetItem(ws.Slug, ref); err != nil || v.ID != p1.ID {
			t.Fatalf("GetItem(%s) = %+v %v", ref, v, err)
		}
	}
	child, err := s.CreateItem(ws.Slug, storage.ItemCreate{Collection: "tasks", Title: "child", Parent: "TASK-L1"}, user)
	if err != nil || child.Item.ParentRef != "TASK-L1" {
		t.Fatalf("child of a provisional item: %+v %v", child, err)
	}

	// The remote numbers the item: its ref becomes the server's and the
	// provisional one keeps resolving.
	v, err := s.AdoptRemoteRef(ws.Slug, p1.ID, 7)
	if err != nil || v.Ref != "TASK-7" || v.Number != 7 {
		t.Fatalf("adopt: %+v %v", v, err)
	}
	for _, ref := range []string{"TASK-7", "TASK-L1", p1.ID} {
		if v, err := Of(s).GetItem(ws.Slug, ref); err != nil || v.ID != p1.ID || v.Ref != "TASK-7" {
			t.Fatalf("GetItem(%s) after adoption = %+v %v", ref, v, err)
		}
	}
	if c, _ := Of(s).GetItem(ws.Slug, child.Item.ID); c.ParentRef != "TASK-7" {
		t.Fatalf("child's parent ref after adoption = %s", c.ParentRef)
	}
	// Adopting the same number again changes nothing.
	head, _ := Of(s).Head(ws.Slug)
	if _, err := s.AdoptRemoteRef(ws.Slug, "TASK-L1", 7); err != nil {
		t.Fatal(err)
	}
	if h, _ := Of(s).Head(ws.Slug); h != head {
		t.Fatalf("a second adoption wrote: head %d -> %d", head, h)
	}
	// The renumbering is in the change log (readers see the new ref) and
	// the activity feed, and is not queued for push.
	acts, err := Of(s).ListActivity(context.Background(), ws.Slug, ActivityQuery{ItemRef: p1.ID, Limit: 1})
	if err != nil || len(acts.Entries) != 1 || acts.Entries[0].Action != "updated" {
		t.Fatalf("activity after adoption: %+v %v", acts, err)
	}
	for _, ch := range mustOutbox(t, s, ws.Slug) {
		if ch.Actor.Source == model.SourceSync {
			t.Fatalf("the adoption was queued for push: %+v", ch)
		}
	}

	// A move keeps the provisional ref and the server's number resolving.
	if _, err := s.MoveItem(ws.Slug, "IDEA-L2", storage.MoveInput{Target: "tasks"}, user); err != nil {
		t.Fatal(err)
	}
	if _, err := s.AdoptRemoteRef(ws.Slug, p2.ID, 8); err != nil {
		t.Fatal(err)
	}
	for _, ref := range []string{"IDEA-L2", "TASK-L2", "TASK-8"} {
		if v, err := Of(s).GetItem(ws.Slug, ref); err != nil || v.ID != p2.ID {
			t.Fatalf("GetItem(%s) after move and adoption = %+v %v", ref, v, err)
		}
	}

	// An item pulled from the remote takes the remote's number. One that
	// holds that number locally (numbered before the link) gets a
	// provisional number: the remote's numbering wins.
	var pulled *storage.ItemResult
	if err := s.SyncApply(ws.Slug, syncActor, func(tx *storage.SyncTx) (err error) {
		pulled, err = tx.CreateItem(storage.ItemCreate{Collection: "tasks", Title: "from the team"}, 1)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if pulled.Item.Ref != "TASK-1" {
		t.Fatalf("pulled item's ref = %s", pulled.Item.Ref)
	}
	moved, err := Of(s).GetItem(ws.Slug, before.ID)
	if err != nil || moved.Ref != "TASK-L4" {
		t.Fatalf("the item that held TASK-1 is now %+v %v", moved, err)
	}
	if v, _ := Of(s).GetItem(ws.Slug, "TASK-1"); v.ID != pulled.Item.ID {
		t.Fatalf("TASK-1 names %s, want the pulled item", v.ID)
	}
	wantCode(t, s.SyncApply(ws.Slug, syncActor, func(tx *storage.SyncTx) error {
		_, err := tx.CreateItem(storage.ItemCreate{Collection: "tasks", Title: "no number"}, 0)
		return err
	}), model.CodeValidation)

	// Unlinked again, the workspace numbers on past every number it took.
	if err := syncstate.Of(s).UnlinkSync(ws.Slug); err != nil {
		t.Fatal(err)
	}
	if after := mustCreate(t, s, ws.Slug, "tasks", "after unlinking", nil); after.Ref != "TASK-9" {
		t.Fatalf("ref after unlinking = %s, want TASK-9", after.Ref)
	}
	if v, err := Of(s).GetItem(ws.Slug, "TASK-L1"); err != nil || v.ID != p1.ID {
		t.Fatalf("provisional ref after unlinking: %+v %v", v, err)
	}
	checkListIndex(t, s, ws.ID)
	checkViewData(t, s, ws.ID)
}

func mustOutbox(t testing.TB, s *storage.Store, ws string) []model.Change {
	t.Helper()
	out, err := syncstate.Of(s).Outbox(ws, 0, 1000)
	if err != nil {
		t.Fatal(err)
	}
	return out
}
