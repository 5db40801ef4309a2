package syncer_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"testing"

	"github.com/padd/padd/api"
	"github.com/padd/padd/internal/testwait"
	"github.com/padd/padd/storage/views"
)

// A server without the seq feed (/items-changes, /items-index: Pad
// before it had them) is followed by its time feed, /changes.
func TestServerWithoutSeqFeed(t *testing.T) {
	ctx := context.Background()
	r := startRemote(t)
	if _, err := r.API.CreateWorkspace(ctx, api.WorkspaceCreate{Name: "Team", Slug: "team"}); err != nil {
		t.Fatal(err)
	}
	first, err := r.API.CreateItem(ctx, "team", "tasks", api.ItemCreate{Title: "before the clone"})
	if err != nil {
		t.Fatal(err)
	}
	target, _ := url.Parse(r.URL)
	rp := httputil.NewSingleHostReverseProxy(target)
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, q *http.Request) {
		if strings.HasSuffix(q.URL.Path, "/items-changes") || strings.HasSuffix(q.URL.Path, "/items-index") {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprint(w, `{"error":{"code":"not_found","message":"Not found"}}`)
			return
		}
		rp.ServeHTTP(w, q)
	}))
	t.Cleanup(proxy.Close)

	l := startLocal(t)
	if _, err := l.M.Clone(ctx, api.SyncClone{URL: proxy.URL, RemoteWorkspace: "team", SyncToken: api.SyncToken{Token: r.Token}}); err != nil {
		t.Fatal(err)
	}
	l.synced(t, "team")
	if _, err := views.Of(l.Store).GetItem("team", first.Ref); err != nil {
		t.Fatalf("the cloned item: %v", err)
	}
	title := "edited on the remote"
	if _, err := r.API.UpdateItem(ctx, "team", first.Ref, api.ItemUpdate{Title: &title}); err != nil {
		t.Fatal(err)
	}
	second, err := r.API.CreateItem(ctx, "team", "tasks", api.ItemCreate{Title: "after the clone"})
	if err != nil {
		t.Fatal(err)
	}
	testwait.UntilOK(t, func() error {
		v, err := views.Of(l.Store).GetItem("team", first.Ref)
		if err != nil {
			return err
		}
		if v.Title != title {
			return fmt.Errorf("the edit has not arrived: %q", v.Title)
		}
		_, err = views.Of(l.Store).GetItem("team", second.Ref)
		return err
	})
}
