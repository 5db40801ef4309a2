package syncer_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/padd/padd/api"
	"github.com/padd/padd/internal/testremote"
	"github.com/padd/padd/internal/testwait"
	"github.com/padd/padd/storage"
	"github.com/padd/padd/storage/views"
	"github.com/padd/padd/syncer"
)

// cloned is a local padd that cloned the remote's workspace "team".
func cloned(t *testing.T, r *testremote.Remote) *local {
	t.Helper()
	ctx := context.Background()
	if _, err := r.API().CreateWorkspace(ctx, api.WorkspaceCreate{Name: "Team", Slug: "team"}); err != nil {
		t.Fatal(err)
	}
	l := startLocal(t)
	if _, err := l.M.Clone(ctx, api.SyncClone{URL: r.URL(), RemoteWorkspace: "team", SyncToken: api.SyncToken{Token: r.Token()}}); err != nil {
		t.Fatal(err)
	}
	l.synced(t, "team")
	return l
}

// madeThere creates items on the remote's workspace "team" and waits
// until padd has them (the remote's event brings them).
func (l *local) madeThere(t *testing.T, r *testremote.Remote, items ...api.ItemCreate) []*api.Item {
	t.Helper()
	var made []*api.Item
	for _, in := range items {
		it, err := r.API().CreateItem(context.Background(), "team", "tasks", in)
		if err != nil {
			t.Fatal(err)
		}
		made = append(made, it)
	}
	testwait.UntilOK(t, func() error {
		for _, it := range made {
			if _, err := views.Of(l.Store).GetItem("team", it.Ref); err != nil {
				return err
			}
		}
		return nil
	})
	return made
}

func (l *local) state(t *testing.T, want string) api.SyncStatus {
	t.Helper()
	var st api.SyncStatus
	testwait.UntilOK(t, func() error {
		s, err := l.M.Status("team")
		if err != nil {
			return err
		}
		if st = s[0]; st.State != want {
			return fmt.Errorf("sync is %s (%q), want %s", st.State, st.LastError, want)
		}
		return nil
	})
	return st
}

func (l *local) write(t *testing.T, title string) {
	t.Helper()
	if _, err := l.Store.CreateItem("team", storage.ItemCreate{Collection: "tasks", Title: title}, user); err != nil {
		t.Fatal(err)
	}
}

// Offline is normal: while the remote cannot be reached the status says
// offline, with when it will try next, and local work queues; `sync now`
// once it is back sends it at once.
func TestOfflineThenNow(t *testing.T) {
	r := testremote.Start(t, testremote.Options{})
	l := cloned(t, r)
	r.SetFault(func(*http.Request) testremote.Fault { return testremote.Fault{Kind: testremote.DropBefore} })
	l.write(t, "written offline")
	st := l.state(t, api.SyncOffline)
	if st.OfflineSince == nil || st.NextTry == nil || st.Pending == 0 {
		t.Errorf("offline status lacks what the user needs: %+v", st)
	}
	r.SetFault(nil)
	if _, err := l.M.Now("team"); err != nil {
		t.Fatal(err)
	}
	l.synced(t, "team")
	items, _, err := r.API().ListItems(context.Background(), "team", "tasks", api.ItemQuery{})
	if err != nil || len(items) != 1 || items[0].Title != "written offline" {
		t.Fatalf("the remote's tasks = %+v, %v", items, err)
	}
}

// A change of the machine's network ends the backoff of a workspace whose
// remote was unreachable: it tries again at once (here the backoff is an
// hour, so only the change can end it).
func TestNetworkChangeEndsTheBackoff(t *testing.T) {
	r := testremote.Start(t, testremote.Options{})
	l := cloned(t, r)
	syncer.SetBackoff(l.M, func(int) time.Duration { return time.Hour })
	r.SetFault(func(*http.Request) testremote.Fault { return testremote.Fault{Kind: testremote.DropBefore} })
	l.write(t, "written offline")
	st := l.state(t, api.SyncOffline)
	if st.NextTry == nil || time.Until(*st.NextTry) < 30*time.Minute {
		t.Fatalf("the next try is not the hour away the test set: %+v", st)
	}
	r.SetFault(nil)
	l.M.NetworkChanged()
	l.synced(t, "team")
	items, _, err := r.API().ListItems(context.Background(), "team", "tasks", api.ItemQuery{})
	if err != nil || len(items) != 1 || items[0].Title != "written offline" {
		t.Fatalf("the remote's tasks = %+v, %v", items, err)
	}
}

// A token the remote refuses stops the sync until the user gives a new
// one (`sync link` again); nothing is retried meanwhile.
func TestTokenRefusedUntilRelinked(t *testing.T) {
	r := testremote.Start(t, testremote.Options{})
	l := cloned(t, r)
	if err := os.Remove(filepath.Join(r.DataDir(), "token")); err != nil {
		t.Fatal(err)
	}
	r.Restart(t) // a new token: the one padd holds is refused
	l.write(t, "waits for a token")
	if _, err := l.M.Now("team"); err != nil {
		t.Fatal(err)
	}
	l.state(t, api.SyncTokenRefused)
	r.ResetStats()
	if _, err := l.M.Link(context.Background(), api.SyncLink{Workspace: "team", URL: r.URL(), RemoteWorkspace: "team",
		SyncToken: api.SyncToken{Token: r.Token()}}); err != nil {
		t.Fatal(err)
	}
	l.synced(t, "team")
	if s := r.Stats(); s.TotalTooMany() > 0 {
		t.Errorf("429s: %v", s.TooMany)
	}
}

// A remote workspace deleted under a link stops the sync with a state
// that says so; unlinking keeps the local data.
func TestRemoteGoneThenUnlink(t *testing.T) {
	r := testremote.Start(t, testremote.Options{})
	l := cloned(t, r)
	l.write(t, "kept")
	l.synced(t, "team")
	if err := r.API().DeleteWorkspace(context.Background(), "team"); err != nil {
		t.Fatal(err)
	}
	l.write(t, "after the remote went")
	l.state(t, api.SyncRemoteGone)
	if err := l.M.Unlink("team"); err != nil {
		t.Fatal(err)
	}
	if _, err := l.M.Status("team"); err == nil {
		t.Error("an unlinked workspace still has a sync status")
	}
	idx, err := views.Of(l.Store).ItemsIndex(t.Context(), "team", "", true)
	if err != nil || len(idx.Items) != 2 {
		t.Fatalf("after unlink the local workspace has %d items (%v), want 2", len(idx.Items), err)
	}
}

// A linked, idle padd makes no requests beyond its event stream: no
// polling while the stream is connected. (The one wait of fixed length
// here is the window idleness is observed over.)
func TestIdleLinkMakesNoRequests(t *testing.T) {
	r := testremote.Start(t, testremote.Options{})
	l := cloned(t, r)
	l.write(t, "one write, then quiet")
	l.synced(t, "team")
	testwait.UntilOK(t, func() error {
		s := l.synced(t, "team")
		if !s.Live {
			return fmt.Errorf("the sync is not live: %+v", s)
		}
		return nil
	})
	r.ResetStats()
	time.Sleep(2 * time.Second)
	if s := r.Stats(); s.Total() != 0 {
		t.Errorf("an idle linked padd made %d requests in 2 s: %v", s.Total(), s.Requests)
	}
}
