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
	"github.com/padd/padd/internal/testremote"
	"github.com/padd/padd/internal/testwait"
	"github.com/padd/padd/remote"
	"github.com/padd/padd/storage"
	"github.com/padd/padd/storage/views"
)

// oversized is a proxy to the remote at remoteURL that swells each
// marker in its JSON answers (to reads and writes alike) into a value
// past padd's limits: what a remote with other limits (or a hostile one)
// could send. The remote itself keeps the marker: a test reads the
// remote's own value through its API.
func oversized(t *testing.T, remoteURL string, swell map[string]string) *httptest.Server {
	return rewriting(t, remoteURL, func(resp *http.Response, b []byte) io.Reader {
		if !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
			return nil
		}
		for marker, v := range swell {
			b = bytes.ReplaceAll(b, []byte(marker), []byte(v))
		}
		return bytes.NewReader(b)
	})
}

// rewriting is a proxy to the remote at remoteURL that reads each answer
// whole and sends, in its place, what rewrite makes of it (nil: the
// answer as it was), flushed as it is read, with no length.
func rewriting(t *testing.T, remoteURL string, rewrite func(resp *http.Response, body []byte) io.Reader) *httptest.Server {
	t.Helper()
	target, err := url.Parse(remoteURL)
	if err != nil {
		t.Fatal(err)
	}
	rp := httputil.NewSingleHostReverseProxy(target)
	rp.FlushInterval = -1
	rp.ModifyResponse = func(resp *http.Response) error {
		if strings.HasSuffix(resp.Request.URL.Path, "/events") {
			return nil // the stream is passed on as it comes
		}
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			return err
		}
		resp.Body.Close()
		body := rewrite(resp, b)
		if body == nil {
			body = bytes.NewReader(b)
		}
		resp.Body = io.NopCloser(body)
		resp.ContentLength = -1
		resp.Header.Del("Content-Length")
		return nil
	}
	proxy := httptest.NewServer(rp)
	t.Cleanup(proxy.Close)
	return proxy
}

// Remote items with a part past padd's limits (a 40k title, a 1 MB
// title, a 40k tag, a 3 MiB content) are kept without it, the part set
// aside with the reason, and a 200k comment is set aside, in a clone and
// in a pull; the rest of the clone, the pull and the push flow, and the
// status never says offline (issue 44: bbolt's "key too large" stopped
// the clone at 0 items and the link for good).
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
		if _, err := views.Of(l.Store).GetItem("team", it.Ref); err != nil {
			t.Errorf("%s (%s) did not arrive: %v", it.Ref, it.Title, err)
		}
	}
	for _, it := range bombs {
		withinLimits(t, l, it.Ref)
	}
	cs, err := views.Of(l.Store).ListComments("team", before.Ref)
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
	testwait.UntilOK(t, func() error { _, err := views.Of(l.Store).GetItem("team", later.Ref); return err })
	l.write(t, "pushed past the refusal")
	st = l.synced(t, "team")
	withinLimits(t, l, bomb.Ref)
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

// withinLimits checks that padd holds item ref, within its limits.
func withinLimits(t *testing.T, l *local, ref string) {
	t.Helper()
	v, err := views.Of(l.Store).GetItem("team", ref)
	if err != nil {
		t.Errorf("%s is not kept: %v", ref, err)
		return
	}
	if err := storage.CheckInput(storage.ItemCreate{Title: v.Title, Content: v.Content, Tags: v.Tags, Fields: v.Fields}); err != nil {
		t.Errorf("%s is stored past the limits: %v", ref, err)
	}
}

// eachRemote runs a test against a padd remote with every capability,
// and against one that answers as the Pad of August 2026 (no seq feed:
// the pull reads /changes; no expected_seq).
func eachRemote(t *testing.T, test func(t *testing.T, r *testRemote)) {
	t.Run("padd", func(t *testing.T) { test(t, startRemote(t)) })
	t.Run("aug2026", func(t *testing.T) {
		r := testremote.Start(t, testremote.Options{Aug2026: true})
		test(t, &testRemote{URL: r.URL(), Token: r.Token(), API: r.API()})
	})
}

// The markers the tests below swell into values past padd's limits.
var swellings = map[string]string{
	"zzlongtitlezz":   strings.Repeat("t", 40_000),
	"zzlongcontentzz": strings.Repeat("c", 3<<20),
	"zzlongtagzz":     strings.Repeat("g", 200),
	"zzlongvaluezz":   strings.Repeat("v", 5_000),
}

// heldParts are the parts of item ref that padd has set aside and holds
// open, in order.
func heldParts(t *testing.T, l *local, ref string) []string {
	t.Helper()
	cs, err := l.M.Conflicts("team", false)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, c := range cs {
		if c.Kind == "set_aside" && c.Ref == ref {
			out = append(out, c.Part)
		}
	}
	slices.Sort(out)
	return out
}

// remoteState is an item as the remote itself holds it (the markers, not
// what the proxy swells them into).
func remoteState(t *testing.T, r *testRemote, ref string) (title, content string, tags []string, fields map[string]any) {
	t.Helper()
	return remoteItemState(t, r.API, "team", ref)
}

// remoteItemState is item ref as remote workspace ws holds it, tags
// sorted.
func remoteItemState(t *testing.T, c *api.Client, ws, ref string) (title, content string, tags []string, fields map[string]any) {
	t.Helper()
	it, err := c.GetItem(context.Background(), ws, ref)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(it.Tags), &tags); err != nil && it.Tags != "" {
		t.Fatal(err)
	}
	if fields, err = api.DecodeObject(it.Fields); err != nil {
		t.Fatal(err)
	}
	slices.Sort(tags)
	return it.Title, it.Content, tags, fields
}

func sortedTags(tags []string) []string {
	out := slices.Clone(tags)
	slices.Sort(out)
	return out
}

// A new item the remote sends with one part past padd's limits is kept
// with its other parts: a title past the limit shows its beginning, cut
// and ended with "…"; a content past it is left out, as are a tag and a
// field value. Each such part is set aside with its reason. What the user
// then types in that part here stays here and never overwrites the
// remote's value, while the item's other changes flow both ways; a later
// remote version within the limits is merged as any pull (the user's
// value kept in a conflict where both changed it) and settles the
// set-aside entries.
func TestRemotePartsPastTheLimitsOnClone(t *testing.T) { eachRemote(t, remotePartsOnClone) }

func remotePartsOnClone(t *testing.T, r *testRemote) {
	ctx := context.Background()
	if _, err := r.API.CreateWorkspace(ctx, api.WorkspaceCreate{Name: "Team", Slug: "team"}); err != nil {
		t.Fatal(err)
	}
	proxy := oversized(t, r.URL, swellings)
	create := func(coll string, in api.ItemCreate) string {
		t.Helper()
		it, err := r.API.CreateItem(ctx, "team", coll, in)
		if err != nil {
			t.Fatal(err)
		}
		return it.Ref
	}
	titled := create("tasks", api.ItemCreate{Title: "zzlongtitlezz", Content: "kept body\n", Tags: api.Flex(`["kept"]`), Fields: api.Flex(`{"priority":"high"}`)})
	large := create("tasks", api.ItemCreate{Title: "large", Content: "zzlongcontentzz", Tags: api.Flex(`["kept"]`), Fields: api.Flex(`{"priority":"high"}`)})
	tagged := create("tasks", api.ItemCreate{Title: "tagged", Content: "tag body\n", Tags: api.Flex(`["kept","zzlongtagzz"]`)})
	fielded := create("ideas", api.ItemCreate{Title: "fielded", Content: "field body\n", Fields: api.Flex(`{"category":"zzlongvaluezz","impact":"high"}`)})

	l := startLocal(t)
	if _, err := l.M.Clone(ctx, api.SyncClone{URL: proxy.URL, RemoteWorkspace: "team", SyncToken: api.SyncToken{Token: r.Token}}); err != nil {
		t.Fatal(err)
	}
	st := l.synced(t, "team")
	if st.SetAside != 4 || st.LastError != "" {
		t.Errorf("status after the clone = %+v, want 4 set aside (a part of each item) and no error", st)
	}
	get := func(ref string) *storage.ItemView {
		t.Helper()
		v, err := views.Of(l.Store).GetItem("team", ref)
		if err != nil {
			t.Fatalf("%s is not kept: %v", ref, err)
		}
		return v
	}
	v := get(titled)
	if want := strings.Repeat("t", 999) + "…"; v.Title != want {
		t.Errorf("title of %s is %d characters (%.20q), want the remote's first 999 and an ellipsis", titled, len([]rune(v.Title)), v.Title)
	}
	wantEq(t, titled+" content", v.Content, "kept body\n")
	wantEq(t, titled+" tags", v.Tags, []string{"kept"})
	wantEq(t, titled+" priority", v.Fields["priority"], any("high"))
	v = get(large)
	wantEq(t, large+" title", v.Title, "large")
	wantEq(t, large+" content", v.Content, "")
	wantEq(t, large+" tags", v.Tags, []string{"kept"})
	wantEq(t, large+" priority", v.Fields["priority"], any("high"))
	v = get(tagged)
	wantEq(t, tagged+" tags", v.Tags, []string{"kept"})
	wantEq(t, tagged+" content", v.Content, "tag body\n")
	v = get(fielded)
	if _, ok := v.Fields["category"]; ok {
		t.Errorf("%s holds a category: %.40q", fielded, v.Fields["category"])
	}
	wantEq(t, fielded+" impact", v.Fields["impact"], any("high"))
	wantEq(t, fielded+" content", v.Content, "field body\n")
	for ref, part := range map[string]string{titled: "title", large: "content", tagged: "tags", fielded: "fields.category"} {
		withinLimits(t, l, ref)
		wantEq(t, ref+" set aside", heldParts(t, l, ref), []string{part})
	}

	// The user types in each held part here, and changes another part of
	// the titled item: that change reaches the remote, the held parts do
	// not.
	upd := func(ref string, in storage.ItemUpdate) {
		t.Helper()
		if _, err := l.Store.UpdateItem("team", ref, in, user); err != nil {
			t.Fatal(err)
		}
	}
	upd(titled, storage.ItemUpdate{Title: strp("my title"), FieldsPatch: map[string]any{"priority": "low"}})
	upd(large, storage.ItemUpdate{Content: strp("my content\n")})
	upd(tagged, storage.ItemUpdate{Tags: &[]string{"kept", "mine"}})
	upd(fielded, storage.ItemUpdate{FieldsPatch: map[string]any{"category": "my category"}})
	testwait.UntilOK(t, func() error {
		if _, _, _, f := remoteState(t, r, titled); f["priority"] != "low" {
			return fmt.Errorf("the remote's priority of %s is %v", titled, f["priority"])
		}
		return nil
	})
	st = l.synced(t, "team")
	if st.SetAside != 4 || st.LastError != "" {
		t.Errorf("status after the local edits = %+v, want 4 set aside and no error", st)
	}
	title, _, _, _ := remoteState(t, r, titled)
	wantEq(t, "the remote's title", title, "zzlongtitlezz")
	_, content, _, _ := remoteState(t, r, large)
	wantEq(t, "the remote's content", content, "zzlongcontentzz")
	_, _, tags, _ := remoteState(t, r, tagged)
	wantEq(t, "the remote's tags", tags, []string{"kept", "zzlongtagzz"})
	_, _, _, fields := remoteState(t, r, fielded)
	wantEq(t, "the remote's category", fields["category"], any("zzlongvaluezz"))
	wantEq(t, "the local title", get(titled).Title, "my title")
	wantEq(t, "the local content", get(large).Content, "my content\n")
	wantEq(t, "the local tags", sortedTags(get(tagged).Tags), []string{"kept", "mine"})
	wantEq(t, "the local category", get(fielded).Fields["category"], any("my category"))

	// The remote's values come within the limits: they are merged as
	// any change of the remote's, and the entries are settled.
	rupd := func(ref string, in api.ItemUpdate) {
		t.Helper()
		if _, err := r.API.UpdateItem(ctx, "team", ref, in); err != nil {
			t.Fatal(err)
		}
	}
	rupd(titled, api.ItemUpdate{Title: strp("a fine title")})
	rupd(large, api.ItemUpdate{Content: strp("a fine content\n")})
	rupd(tagged, api.ItemUpdate{Tags: api.Flex(`["kept","fine"]`)})
	rupd(fielded, api.ItemUpdate{FieldsPatch: api.Flex(`{"category":"a fine category"}`)})
	testwait.UntilOK(t, func() error {
		if got := get(fielded).Fields["category"]; got != "a fine category" {
			return fmt.Errorf("the category of %s is %v", fielded, got)
		}
		if got := get(titled).Title; got != "a fine title" {
			return fmt.Errorf("the title of %s is %q", titled, got)
		}
		return nil
	})
	st = l.synced(t, "team")
	if st.SetAside != 0 || st.Conflicts != 3 || st.LastError != "" {
		t.Errorf("status after the legal versions = %+v, want nothing set aside, three conflicts (title, content, category: both sides changed them) and no error", st)
	}
	for _, ref := range []string{titled, large, tagged, fielded} {
		if parts := heldParts(t, l, ref); len(parts) != 0 {
			t.Errorf("%s still has set-aside parts: %q", ref, parts)
		}
	}
	cs, err := l.M.Conflicts("team", false)
	if err != nil {
		t.Fatal(err)
	}
	kept := map[string]string{}
	for _, c := range cs {
		if c.Kind == "conflict" {
			kept[c.Part] = string(c.Local)
		}
	}
	wantEq(t, "the local values the conflicts keep", kept, map[string]string{"title": `"my title"`,
		"content": `"my content\n"`, "fields.category": `"my category"`})
	wantEq(t, "the merged content", get(large).Content, "a fine content\n")
	// Tags merge as sets: the user's tag and the remote's new one are both
	// kept, and now go to the remote.
	wantEq(t, "the merged tags", sortedTags(get(tagged).Tags), []string{"fine", "kept", "mine"})
	testwait.UntilOK(t, func() error {
		if _, _, tags, _ := remoteState(t, r, tagged); !slices.Equal(tags, []string{"fine", "kept", "mine"}) {
			return fmt.Errorf("the remote's tags of %s are %q", tagged, tags)
		}
		return nil
	})
	if err := l.Store.Check(); err != nil {
		t.Fatal(err)
	}
}

// An item padd has, whose parts the remote makes past padd's limits,
// keeps its own value of each and takes the remote's other changes; the
// remote's values are never overwritten by padd's; once the remote's
// values are within the limits again they flow as any change, with no
// conflict, and the entries are settled.
func TestRemotePartsPastTheLimitsOnPull(t *testing.T) { eachRemote(t, remotePartsOnPull) }

func remotePartsOnPull(t *testing.T, r *testRemote) {
	ctx := context.Background()
	if _, err := r.API.CreateWorkspace(ctx, api.WorkspaceCreate{Name: "Team", Slug: "team"}); err != nil {
		t.Fatal(err)
	}
	proxy := oversized(t, r.URL, swellings)
	it, err := r.API.CreateItem(ctx, "team", "ideas", api.ItemCreate{Title: "plain", Content: "plain body\n",
		Tags: api.Flex(`["a"]`), Fields: api.Flex(`{"category":"c","impact":"low"}`)})
	if err != nil {
		t.Fatal(err)
	}
	ref := it.Ref
	l := startLocal(t)
	if _, err := l.M.Clone(ctx, api.SyncClone{URL: proxy.URL, RemoteWorkspace: "team", SyncToken: api.SyncToken{Token: r.Token}}); err != nil {
		t.Fatal(err)
	}
	l.synced(t, "team")

	// Every part past the limits at once, with a change within them.
	if _, err := r.API.UpdateItem(ctx, "team", ref, api.ItemUpdate{Title: strp("zzlongtitlezz"), Content: strp("zzlongcontentzz"),
		Tags: api.Flex(`["a","zzlongtagzz","b"]`), FieldsPatch: api.Flex(`{"category":"zzlongvaluezz","impact":"high"}`)}); err != nil {
		t.Fatal(err)
	}
	get := func() *storage.ItemView {
		t.Helper()
		v, err := views.Of(l.Store).GetItem("team", ref)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	testwait.UntilOK(t, func() error {
		if v := get(); v.Fields["impact"] != "high" {
			return fmt.Errorf("impact is %v", v.Fields["impact"])
		}
		return nil
	})
	st := l.synced(t, "team")
	if st.SetAside != 4 || st.Conflicts != 0 || st.LastError != "" {
		t.Errorf("status after the pull = %+v, want 4 set aside, no conflict and no error", st)
	}
	v := get()
	wantEq(t, "title", v.Title, "plain")
	wantEq(t, "content", v.Content, "plain body\n")
	wantEq(t, "tags", sortedTags(v.Tags), []string{"a", "b"})
	wantEq(t, "category", v.Fields["category"], any("c"))
	wantEq(t, "set aside", heldParts(t, l, ref), []string{"content", "fields.category", "tags", "title"})

	// A local change of another part goes; the held ones stay as the
	// remote has them.
	if _, err := l.Store.UpdateItem("team", ref, storage.ItemUpdate{FieldsPatch: map[string]any{"impact": "medium"}, Tags: &[]string{"a", "b", "c"}}, user); err != nil {
		t.Fatal(err)
	}
	testwait.UntilOK(t, func() error {
		if _, _, _, f := remoteState(t, r, ref); f["impact"] != "medium" {
			return fmt.Errorf("the remote's impact is %v", f["impact"])
		}
		return nil
	})
	l.synced(t, "team")
	title, content, tags, fields := remoteState(t, r, ref)
	wantEq(t, "the remote's title", title, "zzlongtitlezz")
	wantEq(t, "the remote's content", content, "zzlongcontentzz")
	wantEq(t, "the remote's tags", tags, []string{"a", "b", "zzlongtagzz"})
	wantEq(t, "the remote's category", fields["category"], any("zzlongvaluezz"))

	// Within the limits again: each value flows.
	if _, err := r.API.UpdateItem(ctx, "team", ref, api.ItemUpdate{Title: strp("fine"), Content: strp("fine body\n"),
		Tags: api.Flex(`["a","b","d"]`), FieldsPatch: api.Flex(`{"category":"fine category"}`)}); err != nil {
		t.Fatal(err)
	}
	testwait.UntilOK(t, func() error {
		if v := get(); v.Title != "fine" {
			return fmt.Errorf("title is %q", v.Title)
		}
		return nil
	})
	st = l.synced(t, "team")
	if st.SetAside != 0 || st.Conflicts != 0 || st.LastError != "" {
		t.Errorf("status after the legal version = %+v, want nothing set aside, no conflict and no error", st)
	}
	v = get()
	wantEq(t, "content", v.Content, "fine body\n")
	wantEq(t, "category", v.Fields["category"], any("fine category"))
	// The local tag c, held back while the remote's tags held one past
	// the limit, now goes with the remote's d.
	wantEq(t, "tags", sortedTags(v.Tags), []string{"a", "b", "c", "d"})
	testwait.UntilOK(t, func() error {
		if _, _, tags, _ := remoteState(t, r, ref); !slices.Equal(tags, []string{"a", "b", "c", "d"}) {
			return fmt.Errorf("the remote's tags are %q", tags)
		}
		return nil
	})
	l.synced(t, "team")
	l.equalNow(t)
}

// Resolving a held part keeping padd's value sends padd's value over the
// remote's (here a title the user typed, and a field value padd never
// had: the remote's is removed), even when the remote's next version,
// still past the limits, is pulled before that push; keeping the
// remote's leaves both as they are, the part still held.
func TestKeepingPaddsValueOfAHeldPart(t *testing.T) { eachRemote(t, keepingPaddsValue) }

func keepingPaddsValue(t *testing.T, r *testRemote) {
	ctx := context.Background()
	if _, err := r.API.CreateWorkspace(ctx, api.WorkspaceCreate{Name: "Team", Slug: "team"}); err != nil {
		t.Fatal(err)
	}
	proxy := oversized(t, r.URL, swellings)
	it, err := r.API.CreateItem(ctx, "team", "ideas", api.ItemCreate{Title: "zzlongtitlezz", Content: "zzlongcontentzz",
		Fields: api.Flex(`{"category":"zzlongvaluezz","impact":"high"}`)})
	if err != nil {
		t.Fatal(err)
	}
	ref := it.Ref
	l := startLocal(t)
	if _, err := l.M.Clone(ctx, api.SyncClone{URL: proxy.URL, RemoteWorkspace: "team", SyncToken: api.SyncToken{Token: r.Token}}); err != nil {
		t.Fatal(err)
	}
	l.synced(t, "team")
	if _, err := l.Store.UpdateItem("team", ref, storage.ItemUpdate{Title: strp("my title")}, user); err != nil {
		t.Fatal(err)
	}
	l.synced(t, "team")
	ids := map[string]int64{}
	for _, c := range l.setAside(t) {
		ids[c.Part] = c.ID
	}
	// Paused, so that the remote's next version is pulled before the
	// push of what the user keeps.
	if _, err := l.M.Pause("team"); err != nil {
		t.Fatal(err)
	}
	for _, part := range []string{"title", "fields.category"} {
		if _, err := l.M.Resolve(ctx, "team", api.SyncResolve{Ref: ref, ID: ids[part], Keep: api.KeepLocal}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := r.API.UpdateItem(ctx, "team", ref, api.ItemUpdate{FieldsPatch: api.Flex(`{"impact":"medium"}`)}); err != nil {
		t.Fatal(err)
	}
	if _, err := l.M.Resume("team"); err != nil {
		t.Fatal(err)
	}
	if _, err := l.M.Resolve(ctx, "team", api.SyncResolve{Ref: ref, ID: ids["content"], Keep: api.KeepRemote}); err != nil {
		t.Fatal(err)
	}
	testwait.UntilOK(t, func() error {
		if title, _, _, fields := remoteState(t, r, ref); title != "my title" || fields["category"] != nil {
			return fmt.Errorf("the remote holds title %q, category %v", title, fields["category"])
		}
		return nil
	})
	st := l.synced(t, "team")
	if st.SetAside != 0 || st.Conflicts != 0 || st.LastError != "" {
		t.Errorf("status after the resolutions = %+v, want nothing open and no error", st)
	}
	_, content, _, fields := remoteState(t, r, ref)
	wantEq(t, "the remote's content", content, "zzlongcontentzz")
	wantEq(t, "the remote's impact", fields["impact"], any("medium"))
	v, err := views.Of(l.Store).GetItem("team", ref)
	if err != nil {
		t.Fatal(err)
	}
	wantEq(t, "the local title", v.Title, "my title")
	wantEq(t, "the local content", v.Content, "")
	// The content is still held: a change of padd's goes nowhere.
	if _, err := l.Store.UpdateItem("team", ref, storage.ItemUpdate{Content: strp("mine\n")}, user); err != nil {
		t.Fatal(err)
	}
	l.synced(t, "team")
	_, content, _, _ = remoteState(t, r, ref)
	wantEq(t, "the remote's content", content, "zzlongcontentzz")
	// A later version of the remote's with the same content: the entry
	// the user settled is not opened again.
	if _, err := r.API.UpdateItem(ctx, "team", ref, api.ItemUpdate{FieldsPatch: api.Flex(`{"impact":"low"}`)}); err != nil {
		t.Fatal(err)
	}
	testwait.UntilOK(t, func() error {
		if v, err := views.Of(l.Store).GetItem("team", ref); err != nil || v.Fields["impact"] != "low" {
			return fmt.Errorf("impact not pulled (%v)", err)
		}
		return nil
	})
	if st := l.synced(t, "team"); st.SetAside != 0 || st.Conflicts != 0 {
		t.Errorf("status after another version = %+v, want nothing open", st)
	}
	v, err = views.Of(l.Store).GetItem("team", ref)
	if err != nil {
		t.Fatal(err)
	}
	wantEq(t, "the local content", v.Content, "mine\n")
}

// TestRemotePartsPastTheLimitsRealPad checks against a Pad server that a
// developer started by hand (PADD_PAD_URL, PADD_PAD_TOKEN_FILE; skipped
// without) what Pad's own values do: Pad takes a title, a tag and a
// field value of any length its 2 MiB body holds (a content past padd's
// limit does not fit in one), so a team's item can hold a part padd holds
// without. padd keeps the items with their other parts, a change padd
// makes to another part reaches Pad, padd's values of the held parts do
// not, and once Pad's values are within the limits they flow.
func TestRemotePartsPastTheLimitsRealPad(t *testing.T) {
	p := realPad(t, "limits")
	ctx := context.Background()
	if _, err := p.api.CreateWorkspace(ctx, api.WorkspaceCreate{Name: "Limits", Slug: p.slug}); err != nil {
		t.Fatal(err)
	}
	long := map[string]string{"title": strings.Repeat("t", 1_500), "tag": strings.Repeat("g", 150), "value": strings.Repeat("v", 5_000)}
	in := api.ItemCreate{Title: long["title"], Content: "kept body\n", Tags: api.Flex(`["kept"]`), Fields: api.Flex(`{"priority":"high"}`)}
	titled, err := p.api.CreateItem(ctx, p.slug, "tasks", in)
	if err != nil {
		t.Fatal(err)
	}
	tagged, err := p.api.CreateItem(ctx, p.slug, "tasks", api.ItemCreate{Title: "tagged", Tags: api.Flex(`["kept","` + long["tag"] + `"]`)})
	if err != nil {
		t.Fatal(err)
	}
	fielded, err := p.api.CreateItem(ctx, p.slug, "ideas", api.ItemCreate{Title: "fielded", Fields: api.Flex(`{"category":"` + long["value"] + `","impact":"high"}`)})
	if err != nil {
		t.Fatal(err)
	}
	l := startLocalWith(t, remote.Options{})
	if _, err := l.M.Clone(ctx, api.SyncClone{URL: p.url, RemoteWorkspace: p.slug, As: "team", SyncToken: api.SyncToken{Token: p.token}}); err != nil {
		t.Fatal(err)
	}
	st := l.synced(t, "team")
	if st.SetAside != 3 || st.LastError != "" {
		t.Errorf("status after the clone = %+v, want 3 set aside and no error", st)
	}
	get := func(ref string) *storage.ItemView {
		t.Helper()
		v, err := views.Of(l.Store).GetItem("team", ref)
		if err != nil {
			t.Fatalf("%s is not kept: %v", ref, err)
		}
		return v
	}
	wantEq(t, "the title", get(titled.Ref).Title, strings.Repeat("t", 999)+"…")
	wantEq(t, "the content", get(titled.Ref).Content, "kept body\n")
	wantEq(t, "the tags", get(tagged.Ref).Tags, []string{"kept"})
	wantEq(t, "the impact", get(fielded.Ref).Fields["impact"], any("high"))
	for ref, part := range map[string]string{titled.Ref: "title", tagged.Ref: "tags", fielded.Ref: "fields.category"} {
		withinLimits(t, l, ref)
		wantEq(t, ref+" set aside", heldParts(t, l, ref), []string{part})
	}

	upd := func(ref string, in storage.ItemUpdate) {
		t.Helper()
		if _, err := l.Store.UpdateItem("team", ref, in, user); err != nil {
			t.Fatal(err)
		}
	}
	upd(titled.Ref, storage.ItemUpdate{Title: strp("my title"), FieldsPatch: map[string]any{"priority": "low"}})
	upd(tagged.Ref, storage.ItemUpdate{Tags: &[]string{"kept", "mine"}})
	upd(fielded.Ref, storage.ItemUpdate{FieldsPatch: map[string]any{"category": "my category"}})
	testwait.UntilOK(t, func() error {
		if _, _, _, f := remoteItemState(t, p.api, p.slug, titled.ID); f["priority"] != "low" {
			return fmt.Errorf("Pad's priority of %s is %v", titled.Ref, f["priority"])
		}
		return nil
	})
	l.synced(t, "team")
	title, _, _, _ := remoteItemState(t, p.api, p.slug, titled.ID)
	wantEq(t, "Pad's title", title, long["title"])
	_, _, tags, _ := remoteItemState(t, p.api, p.slug, tagged.ID)
	wantEq(t, "Pad's tags", tags, sortedTags([]string{"kept", long["tag"]}))
	_, _, _, fields := remoteItemState(t, p.api, p.slug, fielded.ID)
	wantEq(t, "Pad's category", fields["category"], any(long["value"]))

	for id, u := range map[string]api.ItemUpdate{titled.ID: {Title: strp("a fine title")},
		tagged.ID: {Tags: api.Flex(`["kept","fine"]`)}, fielded.ID: {FieldsPatch: api.Flex(`{"category":"a fine category"}`)}} {
		if _, err := p.api.UpdateItem(ctx, p.slug, id, u); err != nil {
			t.Fatal(err)
		}
	}
	testwait.UntilOK(t, func() error {
		if got := get(titled.Ref).Title; got != "a fine title" {
			return fmt.Errorf("the title is %q", got)
		}
		if got := get(fielded.Ref).Fields["category"]; got != "a fine category" {
			return fmt.Errorf("the category is %v", got)
		}
		if _, _, tags, _ := remoteItemState(t, p.api, p.slug, tagged.ID); !slices.Equal(tags, []string{"fine", "kept", "mine"}) {
			return fmt.Errorf("Pad's tags are %q", tags)
		}
		return nil
	})
	st = l.synced(t, "team")
	if st.SetAside != 0 || st.Conflicts != 2 || st.LastError != "" {
		t.Errorf("status after the legal versions = %+v, want nothing set aside, two conflicts (title, category) and no error", st)
	}
}
