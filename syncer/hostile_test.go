package syncer_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/padd/padd/api"
	"github.com/padd/padd/internal/testwait"
	"github.com/padd/padd/storage"
	"github.com/padd/padd/storage/views"
)

// A broken or hostile server cannot wedge the queue: an item whose answer
// padd cannot read, or whose fields are not JSON, is set aside with the
// reason, and the rest keeps flowing.
func TestBrokenRemoteItemsAreSetAside(t *testing.T) {
	ctx := context.Background()
	r := startRemote(t)
	if _, err := r.API.CreateWorkspace(ctx, api.WorkspaceCreate{Name: "Team", Slug: "team"}); err != nil {
		t.Fatal(err)
	}
	// The proxy breaks the answers of the two items by their titles, so
	// they are broken from the first read on, whenever the engine makes it.
	proxy := itemReadsRewritten(t, r.URL, func(id string, b []byte) []byte {
		switch {
		case bytes.Contains(b, []byte(`"title":"garbled answer"`)):
			return []byte(`{"id": "` + id + `", "title": `)
		case bytes.Contains(b, []byte(`"title":"fields not JSON"`)):
			return bytes.Replace(b, []byte(`"fields":"{`), []byte(`"fields":"{{not json`), 1)
		}
		return b
	})

	l := startLocal(t)
	if _, err := l.M.Clone(ctx, api.SyncClone{URL: proxy.URL, RemoteWorkspace: "team", SyncToken: api.SyncToken{Token: r.Token}}); err != nil {
		t.Fatal(err)
	}
	l.synced(t, "team")
	bad1, err := r.API.CreateItem(ctx, "team", "tasks", api.ItemCreate{Title: "garbled answer"})
	if err != nil {
		t.Fatal(err)
	}
	bad2, err := r.API.CreateItem(ctx, "team", "tasks", api.ItemCreate{Title: "fields not JSON"})
	if err != nil {
		t.Fatal(err)
	}
	good, err := r.API.CreateItem(ctx, "team", "tasks", api.ItemCreate{Title: "fine"})
	if err != nil {
		t.Fatal(err)
	}
	testwait.UntilOK(t, func() error {
		if _, err := views.Of(l.Store).GetItem("team", good.Ref); err != nil {
			return fmt.Errorf("the good item has not arrived: %v", err)
		}
		s, err := l.M.Status("team")
		if err != nil {
			return err
		}
		if s[0].SetAside != 2 {
			return fmt.Errorf("%d changes set aside, want 2 (state %s, %q)", s[0].SetAside, s[0].State, s[0].LastError)
		}
		return nil
	})
	for _, ref := range []string{bad1.Ref, bad2.Ref} {
		if _, err := views.Of(l.Store).GetItem("team", ref); err == nil {
			t.Errorf("%s was applied from a broken answer", ref)
		}
	}
	st := l.synced(t, "team")
	if st.SetAside != 2 {
		t.Errorf("status = %+v", st)
	}
	if err := l.Store.Check(); err != nil {
		t.Fatalf("the local database after the broken answers: %v", err)
	}
}

// An attachment whose bytes do not match what the remote lists is set
// aside, not kept; the others arrive.
func TestLyingAttachmentIsSetAside(t *testing.T) {
	ctx := context.Background()
	r := startRemote(t)
	if _, err := r.API.CreateWorkspace(ctx, api.WorkspaceCreate{Name: "Team", Slug: "team"}); err != nil {
		t.Fatal(err)
	}
	it, err := r.API.CreateItem(ctx, "team", "tasks", api.ItemCreate{Title: "Files"})
	if err != nil {
		t.Fatal(err)
	}
	for i, name := range []string{"honest.png", "lying.png"} {
		data := pngOf(t, 10+i)
		if _, err := r.API.UploadAttachment(ctx, "team", bytes.NewReader(data), int64(len(data)), name, it.Ref); err != nil {
			t.Fatal(err)
		}
	}
	target, _ := url.Parse(r.URL)
	rp := httputil.NewSingleHostReverseProxy(target)
	rp.ModifyResponse = func(resp *http.Response) error {
		if resp.Request.Method != "GET" || !strings.HasSuffix(resp.Request.URL.Path, "/attachments") {
			return nil
		}
		var list api.AttachmentList
		if err := json.NewDecoder(resp.Body).Decode(&list); err != nil {
			return err
		}
		resp.Body.Close()
		for i := range list.Attachments {
			if list.Attachments[i].Filename == "lying.png" {
				list.Attachments[i].ContentHash = strings.Repeat("0", 64)
			}
		}
		b, err := json.Marshal(list)
		if err != nil {
			return err
		}
		resp.Body = io.NopCloser(bytes.NewReader(b))
		resp.ContentLength = int64(len(b))
		resp.Header.Set("Content-Length", fmt.Sprint(len(b)))
		return nil
	}
	proxy := httptest.NewServer(rp)
	t.Cleanup(proxy.Close)

	l := startLocal(t)
	if _, err := l.M.Clone(ctx, api.SyncClone{URL: proxy.URL, RemoteWorkspace: "team", SyncToken: api.SyncToken{Token: r.Token}}); err != nil {
		t.Fatal(err)
	}
	st := l.synced(t, "team")
	page, err := views.Of(l.Store).ListAttachments("team", storage.AttachmentFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Attachments) != 1 || page.Attachments[0].Filename != "honest.png" {
		t.Errorf("padd has %+v, want honest.png only", page.Attachments)
	}
	if st.SetAside != 1 {
		t.Errorf("%d set aside, want 1 (lying.png)", st.SetAside)
	}
	if err := l.Store.Check(); err != nil {
		t.Fatal(err)
	}
}

// A remote version padd cannot read, met while it pushes an archive (it
// reads the item first: neither server guards an archive), is set aside
// with the archive; the queue behind it flows.
func TestUnreadableRemoteVersionDoesNotWedgeThePush(t *testing.T) {
	ctx := context.Background()
	r := startRemote(t)
	if _, err := r.API.CreateWorkspace(ctx, api.WorkspaceCreate{Name: "Team", Slug: "team"}); err != nil {
		t.Fatal(err)
	}
	proxy := itemReadsRewritten(t, r.URL, func(_ string, b []byte) []byte {
		if bytes.Contains(b, []byte(`"title":"unreadable there"`)) {
			return bytes.Replace(b, []byte(`"fields":"{`), []byte(`"fields":"{{not json`), 1)
		}
		return b
	})

	l := startLocal(t)
	if _, err := l.M.Clone(ctx, api.SyncClone{URL: proxy.URL, RemoteWorkspace: "team", SyncToken: api.SyncToken{Token: r.Token}}); err != nil {
		t.Fatal(err)
	}
	l.synced(t, "team")
	it, err := r.API.CreateItem(ctx, "team", "tasks", api.ItemCreate{Title: "readable"})
	if err != nil {
		t.Fatal(err)
	}
	testwait.UntilOK(t, func() error { _, err := views.Of(l.Store).GetItem("team", it.Ref); return err })
	if _, err := l.M.Pause("team"); err != nil {
		t.Fatal(err)
	}
	title := "unreadable there"
	if _, err := r.API.UpdateItem(ctx, "team", it.ID, api.ItemUpdate{Title: &title}); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Store.DeleteItem("team", it.Ref, user); err != nil {
		t.Fatal(err)
	}
	l.write(t, "after it")
	if _, err := l.M.Resume("team"); err != nil {
		t.Fatal(err)
	}
	st := l.synced(t, "team")
	if st.SetAside == 0 {
		t.Errorf("nothing set aside: %+v", st)
	}
	items, _, err := r.API.ListItems(ctx, "team", "tasks", api.ItemQuery{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(items, func(it api.Item) bool { return it.Title == "after it" }) {
		t.Errorf("the change behind the archive did not reach the remote")
	}
}

// itemReadsRewritten is a proxy to the remote at remoteURL that passes
// the answer to every read of an item (GET .../items/<id>) through
// rewrite, with the id the path names.
func itemReadsRewritten(t *testing.T, remoteURL string, rewrite func(id string, body []byte) []byte) *httptest.Server {
	t.Helper()
	target, err := url.Parse(remoteURL)
	if err != nil {
		t.Fatal(err)
	}
	rp := httputil.NewSingleHostReverseProxy(target)
	rp.ModifyResponse = func(resp *http.Response) error {
		p := resp.Request.URL.Path
		if resp.Request.Method != "GET" || !strings.Contains(p, "/items/") {
			return nil
		}
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			return err
		}
		resp.Body.Close()
		b = rewrite(p[strings.LastIndex(p, "/")+1:], b)
		resp.Body = io.NopCloser(bytes.NewReader(b))
		resp.ContentLength = -1
		resp.Header.Del("Content-Length")
		return nil
	}
	proxy := httptest.NewServer(rp)
	t.Cleanup(proxy.Close)
	return proxy
}
