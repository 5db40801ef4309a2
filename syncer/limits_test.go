package syncer_test

import (
	"bytes"
	"context"
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
)

// oversized is a proxy to the remote at remoteURL that swells each
// marker in its JSON answers into a value past padd's limits: what a
// remote with other limits (or a hostile one) could send.
func oversized(t *testing.T, remoteURL string, swell map[string]string) *httptest.Server {
	t.Helper()
	target, err := url.Parse(remoteURL)
	if err != nil {
		t.Fatal(err)
	}
	rp := httputil.NewSingleHostReverseProxy(target)
	rp.ModifyResponse = func(resp *http.Response) error {
		if resp.Request.Method != "GET" || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
			return nil
		}
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			return err
		}
		resp.Body.Close()
		for marker, v := range swell {
			b = bytes.ReplaceAll(b, []byte(marker), []byte(v))
		}
		resp.Body = io.NopCloser(bytes.NewReader(b))
		resp.ContentLength = -1
		resp.Header.Del("Content-Length")
		return nil
	}
	proxy := httptest.NewServer(rp)
	t.Cleanup(proxy.Close)
	return proxy
}

// Remote items past padd's limits (a 40k title, a 1 MB title, a 40k
// tag, a 3 MiB content) and a 200k comment are set aside with the
// reason, in a clone and in a pull; the rest of the clone, the pull and
// the push flow, and the status never says offline (issue 44: bbolt's
// "key too large" stopped the clone at 0 items and the link for good).
func TestRemoteEntitiesPastTheLimitsAreSetAside(t *testing.T) {
	ctx := context.Background()
	r := startRemote(t)
	if _, err := r.API.CreateWorkspace(ctx, api.WorkspaceCreate{Name: "Team", Slug: "team"}); err != nil {
		t.Fatal(err)
	}
	proxy := oversized(t, r.URL, map[string]string{
		"zzlongtitlezz":   strings.Repeat("t", 40_000),
		"zzhugetitlezz":   strings.Repeat("h", 1<<20),
		"zzlongtagzz":     strings.Repeat("g", 40_000),
		"zzlongcontentzz": strings.Repeat("c", 3<<20),
		"zzlongcommentzz": strings.Repeat("m", 200_000),
	})
	create := func(title, content string, tags ...string) *api.Item {
		t.Helper()
		in := api.ItemCreate{Title: title, Content: content}
		if len(tags) > 0 {
			in.Tags = api.Flex(`["` + strings.Join(tags, `","`) + `"]`)
		}
		it, err := r.API.CreateItem(ctx, "team", "tasks", in)
		if err != nil {
			t.Fatal(err)
		}
		return it
	}
	before := create("before", "")
	bombs := []*api.Item{create("zzlongtitlezz", ""), create("zzhugetitlezz", ""), create("tagged", "", "zzlongtagzz"),
		create("large", "zzlongcontentzz")}
	if _, err := r.API.AddComment(ctx, "team", before.Ref, api.CommentCreate{Body: "zzlongcommentzz"}); err != nil {
		t.Fatal(err)
	}
	if _, err := r.API.AddComment(ctx, "team", before.Ref, api.CommentCreate{Body: "a fine comment"}); err != nil {
		t.Fatal(err)
	}
	after := create("after", "")

	l := startLocal(t)
	if _, err := l.M.Clone(ctx, api.SyncClone{URL: proxy.URL, RemoteWorkspace: "team", SyncToken: api.SyncToken{Token: r.Token}}); err != nil {
		t.Fatal(err)
	}
	st := l.synced(t, "team")
	if st.SetAside != 5 {
		t.Errorf("%d set aside after the clone, want 5 (four items, one comment): %+v", st.SetAside, st)
	}
	for _, it := range []*api.Item{before, after} {
		if _, err := l.Store.GetItem("team", it.Ref); err != nil {
			t.Errorf("%s (%s) did not arrive: %v", it.Ref, it.Title, err)
		}
	}
	for _, it := range bombs {
		if _, err := l.Store.GetItem("team", it.Ref); err == nil {
			t.Errorf("%s (%s) was stored past the limits", it.Ref, it.Title)
		}
	}
	cs, err := l.Store.ListComments("team", before.Ref)
	if err != nil || len(cs) != 1 || cs[0].Body != "a fine comment" {
		t.Errorf("comments of %s = %+v, %v; want the fine one only", before.Ref, cs, err)
	}
	conflicts, err := l.M.Conflicts("team", false)
	if err != nil {
		t.Fatal(err)
	}
	var reasons []string
	for _, c := range conflicts {
		if len(c.Reason) > 1000 {
			t.Errorf("a set-aside reason holds the value: %d bytes", len(c.Reason))
		}
		reasons = append(reasons, c.Reason)
	}
	for _, want := range []string{"title is 40000 characters long", "title is 1048576 characters long",
		"tag is 40000 characters long", "content is 3145728 characters long", "comment is 200000 characters long"} {
		if !slices.ContainsFunc(reasons, func(r string) bool { return strings.Contains(r, want) }) {
			t.Errorf("no set-aside entry says %q: %q", want, reasons)
		}
	}

	// On the link: a pull meets another, the rest of it and a push flow.
	bomb := create("zzlongtitlezz", "")
	later := create("later", "")
	testwait.UntilOK(t, func() error { _, err := l.Store.GetItem("team", later.Ref); return err })
	l.write(t, "pushed past the refusal")
	st = l.synced(t, "team")
	if _, err := l.Store.GetItem("team", bomb.Ref); err == nil {
		t.Errorf("%s was stored past the limits", bomb.Ref)
	}
	if st.SetAside != 6 || st.LastError != "" {
		t.Errorf("status after the pull = %+v, want 6 set aside and no error", st)
	}
	items, _, err := r.API.ListItems(ctx, "team", "tasks", api.ItemQuery{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(items, func(it api.Item) bool { return it.Title == "pushed past the refusal" }) {
		t.Errorf("the local item did not reach the remote")
	}
	if err := l.Store.Check(); err != nil {
		t.Fatal(err)
	}
}
