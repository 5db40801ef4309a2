package syncer_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/padd/padd/api"
	"github.com/padd/padd/internal/procstat"
	"github.com/padd/padd/internal/testwait"
	"github.com/padd/padd/remote"
	"github.com/padd/padd/storage"
	"github.com/padd/padd/storage/syncstate"
	"github.com/padd/padd/storage/views"
)

// trickleReader gives one byte every 20 ms until ctx ends: a remote that
// answers, but never finishes.
type trickleReader struct{ ctx context.Context }

func (r trickleReader) Read(p []byte) (int, error) {
	select {
	case <-r.ctx.Done():
		return 0, r.ctx.Err()
	case <-time.After(20 * time.Millisecond):
	}
	if len(p) == 0 {
		return 0, nil
	}
	p[0] = 'a'
	return 1, nil
}

// tricklingWhere is a proxy to the remote at remoteURL that trickles the
// answer to every GET (but the event stream's) that slow says to.
func tricklingWhere(t *testing.T, remoteURL string, slow func(r *http.Request, body []byte) bool) *httptest.Server {
	return rewriting(t, remoteURL, func(resp *http.Response, b []byte) io.Reader {
		if resp.Request.Method != "GET" || !slow(resp.Request, b) {
			return nil
		}
		return io.MultiReader(bytes.NewReader(b[:len(b)/2]), trickleReader{resp.Request.Context()})
	})
}

// A remote that trickles its answers (a byte every 20 ms, never ending)
// holds no call: the clone reads item by item when the export trickles,
// and each read that trickles ends at the client's timeout, so the status
// answers and says why; once the remote answers again, the held item
// arrives and what padd wrote meanwhile is pushed.
func TestTricklingRemoteHoldsNoCall(t *testing.T) {
	ctx := context.Background()
	r := startRemote(t)
	if _, err := r.API.CreateWorkspace(ctx, api.WorkspaceCreate{Name: "Team", Slug: "team"}); err != nil {
		t.Fatal(err)
	}
	first, err := r.API.CreateItem(ctx, "team", "tasks", api.ItemCreate{Title: "before"})
	if err != nil {
		t.Fatal(err)
	}
	// Every GET whose answer holds the marker, and the export, trickles,
	// until the remote "answers again" (answering set).
	var answering atomic.Bool
	proxy := tricklingWhere(t, r.URL, func(req *http.Request, body []byte) bool {
		return !answering.Load() && (bytes.Contains(body, []byte("zzslowzz")) || strings.HasSuffix(req.URL.Path, "/export"))
	})
	l := startLocalWith(t, remote.Options{Limits: remote.Limits{General: 1000, GeneralBurst: 1000, Search: 100, SearchBurst: 100},
		Timeout: time.Second})
	if _, err := l.M.Clone(ctx, api.SyncClone{URL: proxy.URL, RemoteWorkspace: "team", SyncToken: api.SyncToken{Token: r.Token}}); err != nil {
		t.Fatal(err)
	}
	l.synced(t, "team")
	if _, err := views.Of(l.Store).GetItem("team", first.Ref); err != nil {
		t.Fatalf("the clone did not read %s past the trickled export: %v", first.Ref, err)
	}

	// An item whose every read trickles.
	slow, err := r.API.CreateItem(ctx, "team", "tasks", api.ItemCreate{Title: "zzslowzz"})
	if err != nil {
		t.Fatal(err)
	}
	testwait.UntilOK(t, func() error {
		s, err := l.M.Status("team")
		if err != nil {
			return err
		}
		if !strings.Contains(s[0].LastError, "deadline exceeded") {
			return fmt.Errorf("no read has ended at its timeout yet: %+v", s[0])
		}
		return nil
	})
	l.write(t, "written while a read trickles")
	// The remote answers again: the held item arrives, the write is pushed.
	answering.Store(true)
	title := "answered at last"
	if _, err := r.API.UpdateItem(ctx, "team", slow.ID, api.ItemUpdate{Title: &title}); err != nil {
		t.Fatal(err)
	}
	if _, err := l.M.Now("team"); err != nil {
		t.Fatal(err)
	}
	testwait.UntilOK(t, func() error {
		it, err := views.Of(l.Store).GetItem("team", slow.Ref)
		if err != nil {
			return err
		}
		if it.Title != title {
			return fmt.Errorf("title %q", it.Title)
		}
		return nil
	})
	l.synced(t, "team")
	items, _, err := r.API.ListItems(ctx, "team", "tasks", api.ItemQuery{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(items, func(it api.Item) bool { return it.Title == "written while a read trickles" }) {
		t.Errorf("the local item did not reach the remote")
	}
}

// A remote item whose fields nest deep: nested 3,000 deep (6,000
// characters: a field value past its limit, as JSON text), the item is
// kept without that field, set aside; 100,000 deep (past what padd
// decodes at all), the item is set aside. The rest flows.
func TestDeepFieldsFromARemoteAreSetAside(t *testing.T) {
	ctx := context.Background()
	r := startRemote(t)
	if _, err := r.API.CreateWorkspace(ctx, api.WorkspaceCreate{Name: "Team", Slug: "team"}); err != nil {
		t.Fatal(err)
	}
	// The markers stand in the answers' fields, a JSON text in a string.
	proxy := oversized(t, r.URL, map[string]string{
		`\"zzdeepzz\"`:   strings.Repeat("[", 3000) + strings.Repeat("]", 3000),
		`\"zzdeeperzz\"`: strings.Repeat("[", 100_000) + strings.Repeat("]", 100_000),
	})
	var bombs []*api.Item
	for _, marker := range []string{"zzdeepzz", "zzdeeperzz"} {
		it, err := r.API.CreateItem(ctx, "team", "tasks", api.ItemCreate{Title: marker, Fields: api.Flex(`{"extra":"` + marker + `"}`)})
		if err != nil {
			t.Fatal(err)
		}
		bombs = append(bombs, it)
	}
	fine, err := r.API.CreateItem(ctx, "team", "tasks", api.ItemCreate{Title: "fine", Fields: api.Flex(`{"extra":[["a"]]}`)})
	if err != nil {
		t.Fatal(err)
	}
	l := startLocal(t)
	if _, err := l.M.Clone(ctx, api.SyncClone{URL: proxy.URL, RemoteWorkspace: "team", SyncToken: api.SyncToken{Token: r.Token}}); err != nil {
		t.Fatal(err)
	}
	st := l.synced(t, "team")
	if st.SetAside != 2 {
		t.Errorf("%d set aside, want 2: %+v", st.SetAside, st)
	}
	if v, err := views.Of(l.Store).GetItem("team", bombs[0].Ref); err != nil {
		t.Errorf("%s (%s) is not kept: %v", bombs[0].Ref, bombs[0].Title, err)
	} else if _, ok := v.Fields["extra"]; ok {
		t.Errorf("%s (%s) was stored with its deep field", bombs[0].Ref, bombs[0].Title)
	}
	wantEq(t, bombs[0].Ref+" set aside", heldParts(t, l, bombs[0].Ref), []string{"fields.extra"})
	if _, err := views.Of(l.Store).GetItem("team", bombs[1].Ref); err == nil {
		t.Errorf("%s (%s) was stored", bombs[1].Ref, bombs[1].Title)
	}
	if _, err := views.Of(l.Store).GetItem("team", fine.Ref); err != nil {
		t.Errorf("%s did not arrive: %v", fine.Ref, err)
	}
	if err := l.Store.Check(); err != nil {
		t.Fatal(err)
	}
}

// The heaviest remote values, a 20 MiB content and a 5 MiB
// comment (one word each), are set aside in bounded memory (the item is
// kept without its content, the comment not at all): the figure
// is the heap in use of this whole process, the remote padd and the
// proxy that swells the answers included. Before, the content was
// stored and Bleve's merger cycled padd from 1 to 7.5 GB.
func TestLargestRemoteValuesInBoundedMemory(t *testing.T) {
	const bound = 500 << 20
	ctx := context.Background()
	r := startRemote(t)
	if _, err := r.API.CreateWorkspace(ctx, api.WorkspaceCreate{Name: "Team", Slug: "team"}); err != nil {
		t.Fatal(err)
	}
	proxy := oversized(t, r.URL, map[string]string{
		"zzbigcontentzz": strings.Repeat("c", 20<<20),
		"zzbigcommentzz": strings.Repeat("m", 5<<20),
	})
	big, err := r.API.CreateItem(ctx, "team", "tasks", api.ItemCreate{Title: "big", Content: "zzbigcontentzz"})
	if err != nil {
		t.Fatal(err)
	}
	talked, err := r.API.CreateItem(ctx, "team", "tasks", api.ItemCreate{Title: "talked about"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.API.AddComment(ctx, "team", talked.Ref, api.CommentCreate{Body: "zzbigcommentzz"}); err != nil {
		t.Fatal(err)
	}
	l := startLocal(t)
	var st api.SyncStatus
	used := procstat.HeapPeak(func() {
		if _, err := l.M.Clone(ctx, api.SyncClone{URL: proxy.URL, RemoteWorkspace: "team", SyncToken: api.SyncToken{Token: r.Token}}); err != nil {
			t.Fatal(err)
		}
		st = l.synced(t, "team")
	})
	t.Logf("clone with a 20 MiB content and a 5 MiB comment: heap in use grew by at most %d MiB", used>>20)
	if st.SetAside != 2 {
		t.Errorf("%d set aside, want 2 (the content, the comment): %+v", st.SetAside, st)
	}
	if v, err := views.Of(l.Store).GetItem("team", big.Ref); err != nil {
		t.Errorf("%s is not kept: %v", big.Ref, err)
	} else if v.Content != "" {
		t.Errorf("the 20 MiB content was stored (%d bytes)", len(v.Content))
	}
	if _, err := views.Of(l.Store).GetItem("team", talked.Ref); err != nil {
		t.Errorf("%s did not arrive: %v", talked.Ref, err)
	}
	if used > bound {
		t.Errorf("heap in use grew by %d MiB; the bound is %d MiB", used>>20, bound>>20)
	}
}

// A remote item whose every read trickles, while the feed that names it
// and every other call answer: the pull tries it again for
// slowReadStrikes cycles, then goes on without that version, set aside
// with the reason, and the push is not held for good. The item is read
// again once the remote changes it and answers in time.
func TestAnItemTheRemoteCannotServeInTimeDoesNotHoldThePush(t *testing.T) {
	ctx := context.Background()
	r := startRemote(t)
	if _, err := r.API.CreateWorkspace(ctx, api.WorkspaceCreate{Name: "Team", Slug: "team"}); err != nil {
		t.Fatal(err)
	}
	var slowID atomic.Value
	slowID.Store("")
	proxy := tricklingWhere(t, r.URL, func(req *http.Request, _ []byte) bool {
		id := slowID.Load().(string)
		return id != "" && strings.HasSuffix(req.URL.Path, "/items/"+id)
	})
	l := startLocalWith(t, remote.Options{Limits: remote.Limits{General: 1000, GeneralBurst: 1000, Search: 100, SearchBurst: 100},
		Timeout: time.Second})
	if _, err := l.M.Clone(ctx, api.SyncClone{URL: proxy.URL, RemoteWorkspace: "team", SyncToken: api.SyncToken{Token: r.Token}}); err != nil {
		t.Fatal(err)
	}
	l.synced(t, "team")
	slow, err := r.API.CreateItem(ctx, "team", "tasks", api.ItemCreate{Title: "served too slowly"})
	if err != nil {
		t.Fatal(err)
	}
	slowID.Store(slow.ID)
	l.write(t, "written while one read never finishes")
	testwait.UntilOK(t, func() error {
		if _, err := l.M.Now("team"); err != nil {
			return err
		}
		items, _, err := r.API.ListItems(ctx, "team", "tasks", api.ItemQuery{})
		if err != nil {
			return err
		}
		if !slices.ContainsFunc(items, func(it api.Item) bool { return it.Title == "written while one read never finishes" }) {
			s, _ := l.M.Status("team")
			return fmt.Errorf("the local write has not reached the remote: %+v", s)
		}
		return nil
	})
	confl, err := syncstate.Of(l.Store).SyncConflicts("team", false)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(confl, func(c storage.SyncConflict) bool {
		return strings.Contains(c.Reason, slow.ID) && strings.Contains(c.Reason, "in time")
	}) {
		t.Fatalf("no set-aside entry names the slow item: %+v", confl)
	}
	// The remote answers again and changes it: it arrives.
	slowID.Store("")
	title := "served at last"
	if _, err := r.API.UpdateItem(ctx, "team", slow.ID, api.ItemUpdate{Title: &title}); err != nil {
		t.Fatal(err)
	}
	testwait.UntilOK(t, func() error {
		if _, err := l.M.Now("team"); err != nil {
			return err
		}
		it, err := views.Of(l.Store).GetItem("team", slow.Ref)
		if err != nil {
			return err
		}
		if it.Title != title {
			return fmt.Errorf("title %q", it.Title)
		}
		return nil
	})
	l.synced(t, "team")
}
