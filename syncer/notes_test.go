package syncer_test

import (
	"context"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/padd/padd/api"
	"github.com/padd/padd/internal/testremote"
	"github.com/padd/padd/internal/testwait"
	"github.com/padd/padd/model"
	"github.com/padd/padd/storage"
	"github.com/padd/padd/storage/views"
)

// noteTeam is a remote (padd as it is, or the Pad of August 2026) with
// a workspace "team" holding TASK-1, and a padd that cloned it.
func noteTeam(t *testing.T, aug bool) (*testremote.Remote, *local) {
	t.Helper()
	ctx := context.Background()
	r := testremote.Start(t, testremote.Options{Aug2026: aug})
	if _, err := r.API().CreateWorkspace(ctx, api.WorkspaceCreate{Name: "Team", Slug: "team"}); err != nil {
		t.Fatal(err)
	}
	if _, err := r.API().CreateItem(ctx, "team", "tasks", api.ItemCreate{Title: "Noted"}); err != nil {
		t.Fatal(err)
	}
	l := startLocal(t)
	if _, err := l.M.Clone(ctx, api.SyncClone{URL: r.URL(), RemoteWorkspace: "team", SyncToken: api.SyncToken{Token: r.Token()}}); err != nil {
		t.Fatal(err)
	}
	l.synced(t, "team")
	return r, l
}

// remoteEntries is the list key of the remote's item ref.
func remoteEntries(t *testing.T, r *testremote.Remote, ref, key string) []map[string]any {
	t.Helper()
	it, err := r.API().GetItem(context.Background(), "team", ref)
	if err != nil {
		t.Fatal(err)
	}
	return entriesOf(t, it.Fields, key)
}

func entriesOf(t *testing.T, fields, key string) []map[string]any {
	t.Helper()
	m, err := api.DecodeObject(fields)
	if err != nil {
		t.Fatal(err)
	}
	list, _ := m[key].([]any)
	out := make([]map[string]any, 0, len(list))
	for _, e := range list {
		out = append(out, e.(map[string]any))
	}
	return out
}

func localEntries(t *testing.T, l *local, ref, key string) []map[string]any {
	t.Helper()
	v, err := views.Of(l.Store).GetItem("team", ref)
	if err != nil {
		t.Fatal(err)
	}
	list, _ := v.Fields[key].([]any)
	out := make([]map[string]any, 0, len(list))
	for _, e := range list {
		out = append(out, e.(map[string]any))
	}
	return out
}

var claude = model.Actor{Kind: model.ActorAgent, Name: "claude", Source: model.SourceCLI}

// A note and a decision written here reach the remote the way it takes
// them (padd: appends, keyed, with the agent that wrote them; the Pad of
// August 2026, which ignores appends: the whole fields written back with
// them added, kept as written), on an item the remote has, beside a
// title edit, and on one made here. Nothing is set aside (they were
// pushed as a field change, which both servers refuse) and both sides
// end with the same entries.
func TestNotesAndDecisionsReachTheRemote(t *testing.T) {
	for _, aug := range []bool{false, true} {
		t.Run(fmt.Sprintf("aug2026=%v", aug), func(t *testing.T) {
			r, l := noteTeam(t, aug)
			if _, err := l.M.Pause("team"); err != nil {
				t.Fatal(err)
			}
			title := "Noted, and renamed"
			if _, err := l.Store.UpdateItem("team", "TASK-1", storage.ItemUpdate{Title: &title,
				AppendNote: &storage.Note{Summary: "did it", Details: "this way"}}, claude); err != nil {
				t.Fatal(err)
			}
			if _, err := l.Store.UpdateItem("team", "TASK-1", storage.ItemUpdate{AppendDecision: &storage.Decision{Decision: "keep it", Rationale: "it works"}}, user); err != nil {
				t.Fatal(err)
			}
			made, err := l.Store.CreateItem("team", storage.ItemCreate{Collection: "tasks", Title: "Made with a note"}, user)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := l.Store.UpdateItem("team", made.Item.ID, storage.ItemUpdate{AppendNote: &storage.Note{Summary: "born noted"}}, user); err != nil {
				t.Fatal(err)
			}
			localNote := localEntries(t, l, "TASK-1", model.FieldImplementationNotes)[0]
			if _, err := l.M.Resume("team"); err != nil {
				t.Fatal(err)
			}
			l.synced(t, "team")

			if n := l.conflicts(t); n != 0 {
				cs, _ := l.M.Conflicts("team", true)
				t.Fatalf("%d entries set aside or in conflict: %+v", n, cs)
			}
			notes := remoteEntries(t, r, "TASK-1", model.FieldImplementationNotes)
			decisions := remoteEntries(t, r, "TASK-1", model.FieldDecisionLog)
			if len(notes) != 1 || notes[0]["summary"] != "did it" || notes[0]["details"] != "this way" ||
				notes[0]["created_by"] != model.ActorAgent || notes[0]["agent"] != "claude" {
				t.Errorf("the remote's notes: %v", notes)
			}
			if len(decisions) != 1 || decisions[0]["decision"] != "keep it" || decisions[0]["rationale"] != "it works" || decisions[0]["created_by"] != model.ActorUser {
				t.Errorf("the remote's decisions: %v", decisions)
			}
			if aug && (len(notes) != 1 || !reflect.DeepEqual(notes[0], localNote)) {
				t.Errorf("the Pad of August 2026 keeps a note as written: %v, padd wrote %v", notes, localNote)
			}
			v, err := views.Of(l.Store).GetItem("team", made.Item.ID)
			if err != nil {
				t.Fatal(err)
			}
			if got := remoteEntries(t, r, v.Ref, model.FieldImplementationNotes); len(got) != 1 || got[0]["summary"] != "born noted" {
				t.Errorf("the note of the item made here: %v", got)
			}
			for _, ref := range []string{"TASK-1", v.Ref} {
				for _, k := range model.EntryLists() {
					if mine, theirs := localEntries(t, l, ref, k), remoteEntries(t, r, ref, k); !reflect.DeepEqual(mine, theirs) {
						t.Errorf("%s %s: here %v, there %v", ref, k, mine, theirs)
					}
				}
			}
			l.equalNow(t)
		})
	}
}

// A note whose answer is lost (the remote wrote it, padd never heard)
// is not written twice: padd reads the remote before it sends an entry
// again, and the merge knows padd's own entry come back (with keys, the
// resend is answered by the first). Then the same with padd stopped
// while it reads the item back, and started again.
func TestLostNoteAnswerMakesNoDuplicate(t *testing.T) {
	isPatch := func(q *http.Request) bool { return q.Method == "PATCH" && strings.Contains(q.URL.Path, "/items/") }
	for _, aug := range []bool{false, true} {
		t.Run(fmt.Sprintf("aug2026=%v", aug), func(t *testing.T) {
			r, l := noteTeam(t, aug)
			r.SetFault(testremote.Once(isPatch, testremote.Fault{Kind: testremote.DropAfter}))
			if _, err := l.Store.UpdateItem("team", "TASK-1", storage.ItemUpdate{AppendNote: &storage.Note{Summary: "said once"},
				AppendDecision: &storage.Decision{Decision: "decided once"}}, user); err != nil {
				t.Fatal(err)
			}
			l.synced(t, "team")
			r.SetFault(nil)
			if n, d := remoteEntries(t, r, "TASK-1", model.FieldImplementationNotes), remoteEntries(t, r, "TASK-1", model.FieldDecisionLog); len(n) != 1 || len(d) != 1 {
				t.Errorf("after a lost answer the remote holds notes %v and decisions %v, want one of each", n, d)
			}
			if n := l.conflicts(t); n != 0 {
				t.Errorf("%d conflicts or set-aside entries", n)
			}
			l.equalNow(t)
		})
	}
	// Without keys, padd stopped while it reads the item back after the
	// lost answer: the padd started again pushes the outbox entry anew
	// and finds the note there.
	t.Run("stopped", func(t *testing.T) {
		r, l := noteTeam(t, true)
		var dropped atomic.Bool
		reading := make(chan struct{}, 1)
		r.SetFault(func(q *http.Request) testremote.Fault {
			switch {
			case isPatch(q) && dropped.CompareAndSwap(false, true):
				return testremote.Fault{Kind: testremote.DropAfter}
			case dropped.Load() && q.Method == "GET" && strings.Contains(q.URL.Path, "/items/"):
				select {
				case reading <- struct{}{}:
				default:
				}
				return testremote.Fault{Kind: testremote.DropBefore, Delay: time.Hour} // held until padd gives up
			}
			return testremote.Fault{}
		})
		if _, err := l.Store.UpdateItem("team", "TASK-1", storage.ItemUpdate{AppendNote: &storage.Note{Summary: "said once"}}, user); err != nil {
			t.Fatal(err)
		}
		testwait.Recv(t, "padd to read the item back after the lost answer", reading)
		l.stop()
		r.SetFault(nil)
		l.run(t)
		l.synced(t, "team")
		if n := remoteEntries(t, r, "TASK-1", model.FieldImplementationNotes); len(n) != 1 {
			t.Errorf("after a lost answer and a restart the remote holds notes %v, want one", n)
		}
		if n := l.conflicts(t); n != 0 {
			t.Errorf("%d conflicts or set-aside entries", n)
		}
		l.equalNow(t)
	})
}

// A note and a decision added on both sides while they do not exchange
// are all kept, the remote's first: no conflict.
func TestNotesOnBothSidesAreAllKept(t *testing.T) {
	for _, aug := range []bool{false, true} {
		t.Run(fmt.Sprintf("aug2026=%v", aug), func(t *testing.T) {
			ctx := context.Background()
			r, l := noteTeam(t, aug)
			if _, err := l.M.Pause("team"); err != nil {
				t.Fatal(err)
			}
			if _, err := l.Store.UpdateItem("team", "TASK-1", storage.ItemUpdate{AppendNote: &storage.Note{Summary: "noted here"}}, user); err != nil {
				t.Fatal(err)
			}
			// There, as a teammate's client would: an append where the
			// server takes one, else the whole fields with it added.
			it, err := r.API().GetItem(ctx, "team", "TASK-1")
			if err != nil {
				t.Fatal(err)
			}
			if aug {
				fields, err := api.DecodeObject(it.Fields)
				if err != nil {
					t.Fatal(err)
				}
				fields[model.FieldImplementationNotes] = []any{map[string]any{"id": "note-there", "summary": "noted there",
					"created_at": "2026-12-07T18:00:00Z", "created_by": "user"}}
				_, err = r.API().UpdateItem(ctx, "team", "TASK-1", api.ItemUpdate{Fields: api.FlexOf(fields)})
				if err != nil {
					t.Fatal(err)
				}
			} else if _, err := r.API().UpdateItem(ctx, "team", "TASK-1", api.ItemUpdate{AppendImplementationNote: &api.NoteEntry{Summary: "noted there"}}); err != nil {
				t.Fatal(err)
			}
			if _, err := l.M.Resume("team"); err != nil {
				t.Fatal(err)
			}
			l.synced(t, "team")
			var got []string
			for _, n := range remoteEntries(t, r, "TASK-1", model.FieldImplementationNotes) {
				got = append(got, n["summary"].(string))
			}
			if strings.Join(got, "|") != "noted there|noted here" {
				t.Errorf("the remote's notes %q, want the remote's then padd's", got)
			}
			if n := l.conflicts(t); n != 0 {
				t.Errorf("%d conflicts or set-aside entries", n)
			}
			l.equalNow(t)
		})
	}
}

// An entry padd's list lost against the base cannot be said to a server
// (neither lets a client remove one): the change is set aside, naming
// the entry, and the rest of the item's change still goes. No door of
// padd edits or removes an entry; the test makes the base hold one
// padd's item does not.
func TestRemovedNoteIsSetAside(t *testing.T) {
	r, l := noteTeam(t, false)
	if _, err := l.Store.UpdateItem("team", "TASK-1", storage.ItemUpdate{AppendNote: &storage.Note{Summary: "kept"}}, user); err != nil {
		t.Fatal(err)
	}
	l.synced(t, "team")
	v, err := views.Of(l.Store).GetItem("team", "TASK-1")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.M.Pause("team"); err != nil {
		t.Fatal(err)
	}
	if err := l.Store.SyncApply("team", model.UserActor(model.SourceSync), func(tx *storage.SyncTx) error {
		b, err := tx.Base(v.ID)
		if err != nil || b == nil {
			return fmt.Errorf("base %v, %v", b, err)
		}
		list := append([]any{}, b.Fields[model.FieldImplementationNotes].([]any)...)
		b.Fields[model.FieldImplementationNotes] = append(list, map[string]any{"id": "gone", "summary": "removed here"})
		return tx.SetBase(*b)
	}); err != nil {
		t.Fatal(err)
	}
	title := "Renamed"
	if _, err := l.Store.UpdateItem("team", "TASK-1", storage.ItemUpdate{Title: &title}, user); err != nil {
		t.Fatal(err)
	}
	if _, err := l.M.Resume("team"); err != nil {
		t.Fatal(err)
	}
	testwait.UntilOK(t, func() error {
		cs, err := l.M.Conflicts("team", false)
		if err != nil {
			return err
		}
		for _, c := range cs {
			if c.Kind == string(storage.EntrySetAside) && c.Part == "fields."+model.FieldImplementationNotes &&
				strings.Contains(string(c.Base), "removed here") && strings.Contains(c.Reason, "cannot be sent") {
				return nil
			}
		}
		return fmt.Errorf("no set-aside entry for the removed note: %+v", cs)
	})
	testwait.UntilOK(t, func() error {
		it, err := r.API().GetItem(context.Background(), "team", "TASK-1")
		if err != nil {
			return err
		}
		if it.Title != "Renamed" {
			return fmt.Errorf("the remote's title is %q", it.Title)
		}
		return nil
	})
	if n := remoteEntries(t, r, "TASK-1", model.FieldImplementationNotes); len(n) != 1 || n[0]["summary"] != "kept" {
		t.Errorf("the remote's notes %v, want the one kept", n)
	}
}
