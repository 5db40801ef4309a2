package storage

import (
	"testing"

	"github.com/padd/padd/storage/internal/records"
)

// The in-flight record and the cursors are in the log once acknowledged:
// a padd killed mid-request finds them at start. A write the engine was
// told had failed, once set aside and acknowledged, never comes back into
// the outbox, and a sync write torn by the kill leaves the state before it.
func TestSyncStateSurvivesCrash(t *testing.T) {
	s := openHeld(t)
	ws := mustWorkspace(t, s, "Crash sync")
	mustSyncLink(t, s, ws.Slug)
	if err := s.Checkpoint(); err != nil {
		t.Fatal(err)
	}
	for _, title := range []string{"refused by the remote", "second", "third"} {
		mustCreate(t, s, ws.Slug, "tasks", title, nil)
	}
	queued := mustOutbox(t, s, ws.Slug)
	if len(queued) != 3 {
		t.Fatalf("outbox = %+v", queued)
	}
	first := queued[0].Seq
	mustSyncWrite(t, s, ws.Slug, func(b *records.Wsb) error {
		return records.SetInFlight(b, SyncInFlight{OutboxSeq: first, OpKey: "padd-x-1", LocalID: "x", CursorBefore: 10})
	})
	var pulledID string
	if err := s.SyncApply(ws.Slug, syncActor, func(tx *SyncTx) error {
		r, err := tx.CreateItem(ItemCreate{Collection: "tasks", Title: "pulled"}, 20)
		if err != nil {
			return err
		}
		pulledID = r.Item.ID
		return records.FirstErr(tx.MapID(SyncItem, pulledID, "r-20"), tx.SetCursors(SyncCursors{ItemsChangesSeq: 11}))
	}); err != nil {
		t.Fatal(err)
	}
	if !s.base.DB.BatchOpen() {
		t.Fatal("the writes were checkpointed: the test would not exercise the log")
	}

	// Killed while the request was out.
	r := reopen(t, crashCopy(t, s))
	mustSyncRead(t, r, ws.Slug, func(b *records.Wsb) error {
		var f SyncInFlight
		if ok, err := records.SyncRecord(b, records.KInFlight, &f); err != nil || !ok || f.OutboxSeq != first || f.OpKey != "padd-x-1" || f.CursorBefore != 10 {
			t.Fatalf("in flight after the crash = %+v %v", f, err)
		}
		var c SyncCursors
		if _, err := records.SyncRecord(b, records.KCursors, &c); err != nil || c.ItemsChangesSeq != 11 {
			t.Fatalf("cursors after the crash = %+v %v", c, err)
		}
		if l, _ := records.LocalIDOf(b, SyncItem, "r-20"); l != pulledID {
			t.Fatalf("id map after the crash: %q, want %q", l, pulledID)
		}
		return nil
	})
	if got := mustOutbox(t, r, ws.Slug); len(got) != 3 {
		t.Fatalf("outbox after the crash has %d entries, want 3", len(got))
	}
	checkListIndex(t, r, ws.ID)

	// The remote refused the first write: it is set aside and acknowledged
	// in one write, with the in-flight record cleared.
	if err := s.SyncApply(ws.Slug, syncActor, func(tx *SyncTx) error {
		_, err := tx.AddConflict(SyncConflict{Kind: EntrySetAside, OutboxSeq: first, Reason: "remote refused: validation_error"})
		return records.FirstErr(err, tx.AckOutbox(first), tx.ClearInFlight())
	}); err != nil {
		t.Fatal(err)
	}
	before := crashCopy(t, s)
	// Killed while the next in-flight record was being logged.
	mustSyncWrite(t, s, ws.Slug, func(b *records.Wsb) error {
		return records.SetInFlight(b, SyncInFlight{OutboxSeq: queued[1].Seq, OpKey: "padd-x-2", LocalID: "x"})
	})
	path := crashCopy(t, s)
	tearLastRecord(t, before, path)

	r = reopen(t, path)
	mustSyncRead(t, r, ws.Slug, func(b *records.Wsb) error {
		var f SyncInFlight
		if ok, _ := records.SyncRecord(b, records.KInFlight, &f); ok {
			t.Fatalf("a torn in-flight record was kept: %+v", f)
		}
		return nil
	})
	got := mustOutbox(t, r, ws.Slug)
	if len(got) != 2 || got[0].Seq != queued[1].Seq || got[1].Seq != queued[2].Seq {
		t.Fatalf("outbox after the second crash = %+v", got)
	}
	mustSyncRead(t, r, ws.Slug, func(b *records.Wsb) error {
		if aside, err := records.GetConflict(b, 1); err != nil || aside.State != ConflictOpen || aside.OutboxSeq != first ||
			b.SyncConfl().Get(records.U64(2)) != nil {
			t.Fatalf("set-aside entry after the crash = %+v %v", aside, err)
		}
		return nil
	})
	// Acknowledging through the last entry empties the queue.
	mustSyncWrite(t, r, ws.Slug, func(b *records.Wsb) error { return records.AckOutbox(b, queued[2].Seq) })
	if got := mustOutbox(t, r, ws.Slug); len(got) != 0 {
		t.Fatalf("outbox after acknowledging all = %+v", got)
	}
}

// Layout 6 adds the sync buckets to a layout-5 database; layout 5's link
// flag named no remote, so it goes with the outbox it kept.
func TestMigrateSyncState(t *testing.T) {
	s, _ := openTest(t)
	ws := mustWorkspace(t, s, "Layout five")
	mustSyncLink(t, s, ws.Slug)
	it := mustCreate(t, s, ws.Slug, "tasks", "queued under layout 5", nil)
	mustSyncWrite(t, s, ws.Slug, func(b *records.Wsb) error { // syncstate's UnlinkSync
		for _, bk := range []*records.Bucket{b.Outbox(), b.Sync(), b.SyncIDs(), b.SyncBase(), b.SyncConfl()} {
			if err := records.ClearBucket(bk); err != nil {
				return err
			}
		}
		return nil
	})
	if err := s.base.Update(func(tx *records.Txn) error {
		root := tx.Bucket(records.BWS).Bucket(records.MustID(ws.ID))
		for _, name := range [][]byte{records.BSync, records.BSyncIDs, records.BSyncBase, records.BSyncConflicts} {
			if err := root.DeleteBucket(name); err != nil {
				return err
			}
		}
		if err := root.Put(kSyncLinkedV5, []byte{1}); err != nil {
			return err
		}
		if err := root.Bucket(records.BOutbox).Put(records.SeqKey(1), []byte("x")); err != nil {
			return err
		}
		return tx.Bucket(records.BMeta).Put(kSchemaVersion, records.U64(5))
	}); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if err := s.base.Update(s.migrate); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.base.View(func(tx *records.Txn) error {
		root := tx.Bucket(records.BWS).Bucket(records.MustID(ws.ID))
		for _, name := range [][]byte{records.BSync, records.BSyncIDs, records.BSyncBase, records.BSyncConflicts} {
			if root.Bucket(name) == nil {
				t.Errorf("no %s bucket after the migration", name)
			}
		}
		if root.Get(kSyncLinkedV5) != nil {
			t.Error("layout 5's link flag is still there")
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	mustSyncRead(t, s, ws.Slug, func(b *records.Wsb) error {
		if records.Linked(b) {
			t.Fatal("migrated workspace is linked")
		}
		return nil
	})
	if got := mustOutbox(t, s, ws.Slug); len(got) != 0 {
		t.Fatalf("outbox after the migration = %+v", got)
	}
	if v, err := rd(s).GetItem(ws.Slug, it.Ref); err != nil || v.ID != it.ID {
		t.Fatalf("item after the migration: %+v %v", v, err)
	}
}
