package syncstate

import (
	"slices"
	"testing"

	"github.com/padd/padd/model"
	"github.com/padd/padd/storage"
	"github.com/padd/padd/storage/internal/records"
)

// A base names the parts padd holds past its limits; their set-aside
// entries are recorded once per value (one the user settled keeping the
// remote's is not opened again), settled when the value goes; and
// releasing a held part makes the base differ from the item there and
// marks the item to be pushed, in the resolution's write.
func TestSyncHeldParts(t *testing.T) {
	s, _ := openTest(t)
	ws := mustWorkspace(t, s, "Held").Slug
	mustSyncLink(t, s, ws)
	it := mustCreate(t, s, ws, "tasks", "stand-in…", nil).ID
	apply := func(fn func(tx *storage.SyncTx) error) {
		t.Helper()
		if err := s.SyncApply(ws, syncActor, fn); err != nil {
			t.Fatal(err)
		}
	}
	open := func() map[string][]string {
		t.Helper()
		cs, err := Of(s).SyncConflicts(ws, true)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string][]string{}
		for _, c := range cs {
			out[c.Part] = append(out[c.Part], c.Reason)
		}
		return out
	}
	apply(func(tx *storage.SyncTx) error {
		return tx.SetBase(storage.SyncBase{ItemID: it, Title: "stand-in…", Fields: map[string]any{"status": "open"}, Held: []string{"title", "fields.note"}})
	})
	b, err := Of(s).SyncBase(ws, it)
	if err != nil || b == nil || !slices.Equal(b.Held, []string{"title", "fields.note"}) {
		t.Fatalf("base = %+v, %v", b, err)
	}
	// Recorded once, however often the same value comes.
	for range 2 {
		apply(func(tx *storage.SyncTx) error {
			return records.FirstErr(tx.HeldSetAside(it, "title", []string{"title one"}), tx.HeldSetAside(it, "fields.note", []string{"note one"}))
		})
	}
	if got := open(); len(got) != 2 || !slices.Equal(got["title"], []string{"title one"}) {
		t.Fatalf("open entries = %q", got)
	}
	// Another value settles the first; a value within the limits settles
	// what is open.
	apply(func(tx *storage.SyncTx) error {
		return records.FirstErr(tx.HeldSetAside(it, "title", []string{"title two"}), tx.HeldSetAside(it, "fields.note", nil))
	})
	if got := open(); len(got) != 1 || !slices.Equal(got["title"], []string{"title two"}) {
		t.Fatalf("open entries = %q", got)
	}
	// Settled keeping the remote's: the same value again is no news.
	cs, err := Of(s).SyncConflicts(ws, true)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Of(s).ResolveSyncConflict(ws, cs[0].ID, storage.ResolvedKeepRemote); err != nil {
		t.Fatal(err)
	}
	apply(func(tx *storage.SyncTx) error { return tx.HeldSetAside(it, "title", []string{"title two"}) })
	if got := open(); len(got) != 0 {
		t.Fatalf("open entries = %q, want none", got)
	}

	// Released: the part moves from Held to Released, the item is
	// marked; a part not held is no release.
	var released, again bool
	if _, err := s.ResolveSyncConflictWith(ws, cs[0].ID, storage.ResolvedKeepRemote, model.UserActor(model.SourceAPI), func(l *storage.LocalWrite) (err error) {
		if released, err = l.ReleaseHeld(it, "title"); err != nil {
			return err
		}
		again, err = l.ReleaseHeld(it, "title")
		return err
	}); err != nil {
		t.Fatal(err)
	}
	b, err = Of(s).SyncBase(ws, it)
	if err != nil || !released || again || slices.Contains(b.Held, "title") || !slices.Equal(b.Released, []string{"title"}) || b.Title != "stand-in…" {
		t.Fatalf("released %v, again %v; base = %+v, %v", released, again, b, err)
	}
	if marked, err := Of(s).SyncRelationWait(ws, it); err != nil || !marked {
		t.Fatalf("marked = %v, %v", marked, err)
	}
}
