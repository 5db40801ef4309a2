package syncer_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/padd/padd/api"
	"github.com/padd/padd/internal/testwait"
	"github.com/padd/padd/storage"
	"github.com/padd/padd/storage/views"
)

// purgingRemote is the remote behind a proxy that answers 404 for the
// items it is told are gone: an item deleted for good there (Pad's
// delete archives; a purge removes).
type purgingRemote struct {
	*testRemote
	mu   sync.Mutex
	gone map[string]bool // remote item ids and refs
}

func startPurging(t *testing.T) (*purgingRemote, string) {
	r := &purgingRemote{testRemote: startRemote(t), gone: map[string]bool{}}
	target, _ := url.Parse(r.URL)
	rp := httputil.NewSingleHostReverseProxy(target)
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, q *http.Request) {
		if i := strings.Index(q.URL.Path, "/items/"); i >= 0 {
			rest := q.URL.Path[i+len("/items/"):]
			ref, _, _ := strings.Cut(rest, "/")
			r.mu.Lock()
			gone := r.gone[ref]
			r.mu.Unlock()
			if gone {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusNotFound)
				fmt.Fprintf(w, `{"error":{"code":"not_found","message":"Item not found: %s"}}`, ref)
				return
			}
		}
		rp.ServeHTTP(w, q)
	}))
	t.Cleanup(proxy.Close)
	return r, proxy.URL
}

func (r *purgingRemote) purge(it *api.Item) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.gone[it.ID], r.gone[it.Ref] = true, true
}

// Delete against edit: an item gone for good on the remote and untouched
// here is archived here; one edited here lives on, is made on the remote
// again, and the user is told (a conflict on "deleted").
func TestDeletedForGoodOnTheRemote(t *testing.T) {
	ctx := context.Background()
	r, proxyURL := startPurging(t)
	if _, err := r.API.CreateWorkspace(ctx, api.WorkspaceCreate{Name: "Team", Slug: "team"}); err != nil {
		t.Fatal(err)
	}
	untouched, err := r.API.CreateItem(ctx, "team", "tasks", api.ItemCreate{Title: "untouched here"})
	if err != nil {
		t.Fatal(err)
	}
	edited, err := r.API.CreateItem(ctx, "team", "tasks", api.ItemCreate{Title: "edited here"})
	if err != nil {
		t.Fatal(err)
	}
	l := startLocal(t)
	if _, err := l.M.Clone(ctx, api.SyncClone{URL: proxyURL, RemoteWorkspace: "team", SyncToken: api.SyncToken{Token: r.Token}}); err != nil {
		t.Fatal(err)
	}
	l.synced(t, "team")
	if _, err := l.M.Pause("team"); err != nil {
		t.Fatal(err)
	}
	content := "my offline notes\n"
	if _, err := l.Store.UpdateItem("team", edited.Ref, storage.ItemUpdate{Content: &content}, user); err != nil {
		t.Fatal(err)
	}
	// Each is changed on the remote (so the seq feed names it), then gone.
	for _, it := range []*api.Item{untouched, edited} {
		title := it.Title + " (last words)"
		if _, err := r.API.UpdateItem(ctx, "team", it.Ref, api.ItemUpdate{Title: &title}); err != nil {
			t.Fatal(err)
		}
		r.purge(it)
	}
	if _, err := l.M.Resume("team"); err != nil {
		t.Fatal(err)
	}
	testwait.UntilOK(t, func() error {
		v, err := views.Of(l.Store).GetItem("team", untouched.Ref)
		if err != nil {
			return err
		}
		if v.DeletedAt == nil {
			return fmt.Errorf("%s is not archived here", untouched.Ref)
		}
		return nil
	})
	var again *api.Item
	testwait.UntilOK(t, func() error {
		items, _, err := r.API.ListItems(ctx, "team", "tasks", api.ItemQuery{})
		if err != nil {
			return err
		}
		for i := range items {
			if items[i].ID != edited.ID && items[i].Content == content {
				again = &items[i]
				return nil
			}
		}
		return fmt.Errorf("the edited item is not on the remote again")
	})
	l.synced(t, "team")
	v, err := views.Of(l.Store).GetItem("team", edited.Ref)
	if err != nil || v.DeletedAt != nil || v.Content != content {
		t.Fatalf("the edited item here: %+v, %v", v, err)
	}
	if v.Ref != again.Ref {
		t.Errorf("padd calls it %s, the remote %s", v.Ref, again.Ref)
	}
	cs, err := l.M.Conflicts("team", false)
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 1 || cs[0].Part != "deleted" {
		t.Errorf("conflicts = %+v, want one on deleted", cs)
	}
}
