package syncer_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/padd/padd/api"
	"github.com/padd/padd/internal/testremote"
	"github.com/padd/padd/internal/testwait"
	"github.com/padd/padd/storage"
	"github.com/padd/padd/storage/views"
)

// TestUnseenRemoteEditIsNotOverwritten: a line written on the remote
// just before padd pushes a local edit of another line of the same item,
// before padd has heard of it. Both lines end on both sides.
//
// Against the Pad of August 2026 the guard of an update is
// expected_updated_at in whole seconds, so a write there in the base's
// second passes it: padd reads the item before it writes. With a move
// (its answer is the remote's item, other writers' edits included),
// the update after it must not take that answer as the base it was made
// on, on either server.
func TestUnseenRemoteEditIsNotOverwritten(t *testing.T) {
	for _, tc := range []struct {
		name       string
		aug2026    bool
		move       bool
		sameSecond bool // the remote's edit must share the base's second
	}{
		{"aug2026", true, false, true},
		{"aug2026 with a move", true, true, true},
		{"current with a move", false, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			r := testremote.Start(t, testremote.Options{Aug2026: tc.aug2026})
			l := cloned(t, r)
			// The remote's edit must land in the base's second for the
			// whole-second guard to miss it; an attempt where the clock
			// crossed a second in between proves nothing and is made
			// again on a new item.
			for attempt := 0; ; attempt++ {
				if attempt == 8 {
					t.Fatal("no attempt kept the remote's two writes in one second")
				}
				if tc.sameSecond {
					time.Sleep(time.Until(time.Now().Truncate(time.Second).Add(time.Second + 20*time.Millisecond)))
				}
				made := l.madeThere(t, r, api.ItemCreate{Title: "Shared", Content: "line 1\nline 2\nline 3\n"})[0]
				local, err := views.Of(l.Store).GetItem("team", made.Ref)
				if err != nil {
					t.Fatal(err)
				}

				// The first request padd makes about the item after the
				// local edit meets a remote write made just before it.
				var armed atomic.Bool
				var theirs atomic.Pointer[api.Item]
				r.SetFault(func(q *http.Request) testremote.Fault {
					if !strings.Contains(q.URL.Path, "/items/"+made.ID) || !armed.CompareAndSwap(true, false) {
						return testremote.Fault{}
					}
					c := "line 1 there\nline 2\nline 3\n"
					it, err := r.API().UpdateItem(ctx, "team", made.ID, api.ItemUpdate{Content: &c})
					if err != nil {
						t.Error(err)
					}
					theirs.Store(it)
					return testremote.Fault{}
				})
				armed.Store(true)
				if tc.move {
					if _, err := l.Store.MoveItem("team", local.ID, storage.MoveInput{Target: "ideas", Force: true}, user); err != nil {
						t.Fatal(err)
					}
				}
				c := "line 1\nline 2\nline 3 here\n"
				if _, err := l.Store.UpdateItem("team", local.ID, storage.ItemUpdate{Content: &c}, user); err != nil {
					t.Fatal(err)
				}
				l.synced(t, "team")
				r.SetFault(nil)
				if armed.Load() || theirs.Load() == nil {
					t.Fatal("padd pushed without a request about the item")
				}
				if tc.sameSecond && !theirs.Load().UpdatedAt.Truncate(time.Second).Equal(made.UpdatedAt.Truncate(time.Second)) {
					t.Logf("attempt %d: the remote's edit fell in the next second; again", attempt)
					continue
				}
				want := "line 1 there\nline 2\nline 3 here\n"
				got, err := r.API().GetItem(ctx, "team", made.ID)
				if err != nil {
					t.Fatal(err)
				}
				if got.Content != want {
					t.Errorf("remote content = %q, want %q", got.Content, want)
				}
				testwait.UntilOK(t, func() error {
					v, err := views.Of(l.Store).GetItem("team", local.ID)
					if err != nil {
						return err
					}
					if v.Content != want {
						return fmt.Errorf("local content = %q, want %q", v.Content, want)
					}
					return nil
				})
				return
			}
		})
	}
}

// TestCoveredBaseIsNotReadAgain: against the Pad of August 2026 an
// update is sent without reading the item first when a read of the
// feed that began a second or more after padd took its base has passed
// (the base's second had ended: the read would have brought any write
// made in it). A backlog pushed after a reconnect, a resume or a restart
// costs no extra reads: the base keeps when it was recorded.
func TestCoveredBaseIsNotReadAgain(t *testing.T) {
	for _, restarted := range []bool{false, true} {
		t.Run(fmt.Sprintf("restarted=%v", restarted), func(t *testing.T) {
			ctx := context.Background()
			r := testremote.Start(t, testremote.Options{Aug2026: true})
			l := cloned(t, r)
			made := l.madeThere(t, r, api.ItemCreate{Title: "Shared", Content: "line 1\n"})[0]
			took := time.Now()
			// A feed read that begins more than a second after the base
			// was taken: a write on another item wakes one (restarted:
			// the first pull of an engine started after the base was
			// recorded).
			time.Sleep(time.Until(took.Add(1100 * time.Millisecond)))
			if restarted {
				l.stop()
			} else {
				other, err := r.API().CreateItem(ctx, "team", "tasks", api.ItemCreate{Title: "Other"})
				if err != nil {
					t.Fatal(err)
				}
				testwait.UntilOK(t, func() error { _, err := views.Of(l.Store).GetItem("team", other.Ref); return err })
				l.synced(t, "team")
			}

			r.ResetStats()
			c := "line 1 here\n"
			if _, err := l.Store.UpdateItem("team", made.Ref, storage.ItemUpdate{Content: &c}, user); err != nil {
				t.Fatal(err)
			}
			if restarted {
				l.run(t)
			}
			l.synced(t, "team")
			st := r.Stats()
			if n := st.Requests["PATCH /api/v1/workspaces/{ws}/items/{ref}"]; n != 1 {
				t.Fatalf("%d patches of the item, want 1 (requests: %v)", n, st.Requests)
			}
			if n := st.Requests["GET /api/v1/workspaces/{ws}/items/{ref}"]; n != 0 {
				t.Errorf("%d reads of the item before its update, want 0 (requests: %v)", n, st.Requests)
			}
			if got, err := r.API().GetItem(ctx, "team", made.ID); err != nil || got.Content != c {
				t.Errorf("remote content = %v, %v", got, err)
			}
		})
	}
}

// TestSameMoveOnBothSides: the remote moves an item just before padd
// pushes the same move (with an edit). The remote refuses a move to the
// collection the item is in; padd takes it as made, pushes the edit,
// and sets nothing aside.
func TestSameMoveOnBothSides(t *testing.T) {
	for _, aug2026 := range []bool{true, false} {
		t.Run(fmt.Sprintf("aug2026=%v", aug2026), func(t *testing.T) {
			ctx := context.Background()
			r := testremote.Start(t, testremote.Options{Aug2026: aug2026})
			l := cloned(t, r)
			made := l.madeThere(t, r, api.ItemCreate{Title: "Moved twice", Content: "line 1\n"})[0]
			local, err := views.Of(l.Store).GetItem("team", made.Ref)
			if err != nil {
				t.Fatal(err)
			}
			armed := movedThereFirst(t, r, made.ID, "")
			if _, err := l.Store.MoveItem("team", local.ID, storage.MoveInput{Target: "ideas", Force: true}, user); err != nil {
				t.Fatal(err)
			}
			c := "line 1 here\n"
			if _, err := l.Store.UpdateItem("team", local.ID, storage.ItemUpdate{Content: &c}, user); err != nil {
				t.Fatal(err)
			}
			st := l.synced(t, "team")
			r.SetFault(nil)
			if armed.Load() {
				t.Fatal("padd pushed without a request about the item")
			}
			if st.SetAside > 0 || st.Conflicts > 0 {
				cs, _ := l.M.Conflicts("team", true)
				t.Fatalf("%d set aside, %d conflicts: %+v", st.SetAside, st.Conflicts, cs)
			}
			got, err := r.API().GetItem(ctx, "team", made.ID)
			if err != nil {
				t.Fatal(err)
			}
			if got.Content != c || got.CollectionSlug != "ideas" {
				t.Errorf("remote: content %q in %q, want %q in ideas", got.Content, got.CollectionSlug, c)
			}
		})
	}
}

// TestRemoteMoveJustBeforeAPush: the remote moves an item just before
// padd pushes a local archive or move of it, before padd has heard of
// the remote's move. Moves and archives carry no guard on either
// server: padd reads the item first, and the merge rules hold as if it
// had heard. Against the archive, the move is an edit: the item stays
// alive in the remote's collection (a conflict on archived). Against
// the local move, the remote's collection wins (conflicts on the
// collection and on the status each move migrated).
//
// A move made between that read and the archive cannot be told from
// one made after the archive: both sides end archived in the remote's
// collection, with no conflict (before, padd took its archive's answer
// as in the collection it was sent from: the sides differed, or padd's
// validation set the next merge aside).
func TestRemoteMoveJustBeforeAPush(t *testing.T) {
	for _, tc := range []struct {
		name      string
		aug2026   bool
		move      bool // the local write is a move to docs; else an archive
		atWrite   bool // the remote's move meets the archive, after padd's read
		conflicts int
	}{
		{"aug2026, archive", true, false, false, 1},
		{"current, archive", false, false, false, 1},
		{"aug2026, move", true, true, false, 2},
		{"current, move", false, true, false, 2},
		{"aug2026, archive after the read", true, false, true, 0},
		{"current, archive after the read", false, false, true, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			r := testremote.Start(t, testremote.Options{Aug2026: tc.aug2026})
			l := cloned(t, r)
			made := l.madeThere(t, r, api.ItemCreate{Title: "Moved there", Content: "line 1\n"})[0]
			local, err := views.Of(l.Store).GetItem("team", made.Ref)
			if err != nil {
				t.Fatal(err)
			}
			method := ""
			if tc.atWrite {
				method = http.MethodDelete
			}
			armed := movedThereFirst(t, r, made.ID, method)
			if tc.move {
				_, err = l.Store.MoveItem("team", local.ID, storage.MoveInput{Target: "docs", Force: true}, user)
			} else {
				_, err = l.Store.DeleteItem("team", local.ID, user)
			}
			if err != nil {
				t.Fatal(err)
			}
			st := l.synced(t, "team")
			r.SetFault(nil)
			if armed.Load() {
				t.Fatal("padd pushed without a request about the item")
			}
			if st.SetAside > 0 || st.Conflicts != tc.conflicts {
				cs, _ := l.M.Conflicts("team", true)
				t.Errorf("%d set aside, %d conflicts, want 0 and %d: %+v", st.SetAside, st.Conflicts, tc.conflicts, cs)
			}
			got, err := r.API().GetItem(ctx, "team", made.ID)
			if err != nil {
				t.Fatal(err)
			}
			if got.CollectionSlug != "ideas" || (got.DeletedAt != nil) != tc.atWrite {
				t.Errorf("remote: in %q, archived %v; want ideas, archived %v", got.CollectionSlug, got.DeletedAt != nil, tc.atWrite)
			}
			testwait.UntilOK(t, func() error {
				v, err := views.Of(l.Store).GetItem("team", local.ID)
				if err != nil {
					return err
				}
				if v.Collection.Slug != "ideas" || (v.DeletedAt != nil) != tc.atWrite {
					return fmt.Errorf("local: in %q, archived %v; want ideas, archived %v", v.Collection.Slug, v.DeletedAt != nil, tc.atWrite)
				}
				return nil
			})
		})
	}
}

// movedThereFirst has the remote move its item id to ideas just before
// the first request padd makes about it (with method, if not ""). The
// flag it returns is cleared once that request came.
func movedThereFirst(t *testing.T, r *testremote.Remote, id, method string) *atomic.Bool {
	var armed atomic.Bool
	armed.Store(true)
	r.SetFault(func(q *http.Request) testremote.Fault {
		if !strings.Contains(q.URL.Path, "/items/"+id) || (method != "" && q.Method != method) || !armed.CompareAndSwap(true, false) {
			return testremote.Fault{}
		}
		if _, err := r.API().MoveItem(context.Background(), "team", id, api.ItemMove{TargetCollection: "ideas", Force: true}); err != nil {
			t.Error(err)
		}
		return testremote.Fault{}
	})
	return &armed
}
