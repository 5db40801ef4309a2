package testremote

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/padd/padd/api"
	"github.com/padd/padd/internal/leakcheck"
	"github.com/padd/padd/internal/testwait"
	"github.com/padd/padd/remote"
)

func TestMain(m *testing.M) { leakcheck.VerifyTestMain(m) }

// These tests run a real second padd each and talk to it through the
// proxy with remote.Client (the sync engine's client), raw HTTP where a
// request must carry what remote.Client would not send, and API() to
// see what padd itself holds.

// client is a remote.Client of the remote's URL, probed.
func client(t *testing.T, r *Remote) *remote.Client {
	t.Helper()
	c, err := remote.New(r.URL(), r.Token(), remote.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	if _, err := c.Probe(testwait.Context(t)); err != nil {
		t.Fatalf("probe %s: %v", r.URL(), err)
	}
	return c
}

// workspace creates a workspace (startup template: tasks, ideas, ...)
// straight on padd and returns its slug.
func workspace(t *testing.T, r *Remote) string {
	t.Helper()
	var ws api.Workspace
	if _, err := r.API().Do(testwait.Context(t), "POST", "/workspaces", nil, api.WorkspaceCreate{Name: "Sync Peer"}, &ws); err != nil {
		t.Fatalf("create workspace: %v", err)
	}
	return ws.Slug
}

// answer is a raw HTTP answer.
type answer struct {
	status int
	header http.Header
	body   []byte
}

func (a answer) String() string { return fmt.Sprintf("%d %s", a.status, a.body) }

// send makes a request to base (the proxy's URL or padd's) with the
// remote's token; path starts with /api/v1.
func send(t *testing.T, r *Remote, base, method, path string, hdr http.Header, body any) answer {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(testwait.Context(t), method, base+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+r.Token())
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range hdr {
		req.Header[k] = v
	}
	hc := &http.Client{Transport: &http.Transport{}}
	defer hc.CloseIdleConnections()
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: reading the answer: %v", method, path, err)
	}
	return answer{status: resp.StatusCode, header: resp.Header, body: b}
}

func decode(t *testing.T, a answer, v any) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(a.body))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		t.Fatalf("answer is not JSON (%v): %s", err, a)
	}
}

func wantStatus(t *testing.T, a answer, status int) {
	t.Helper()
	if a.status != status {
		t.Fatalf("status %d, want %d: %s", a.status, status, a)
	}
}

// wantEnvelope checks Pad's error envelope {"error":{"code","message"}}.
func wantEnvelope(t *testing.T, a answer, status int, code string) {
	t.Helper()
	wantStatus(t, a, status)
	var env struct {
		Error *struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	decode(t, a, &env)
	if env.Error == nil || env.Error.Code != code || env.Error.Message == "" {
		t.Fatalf("want Pad's envelope with code %q: %s", code, a)
	}
}

func itemsPath(ws, coll string) string {
	return "/api/v1/workspaces/" + ws + "/collections/" + coll + "/items"
}

// titled lists padd's items of ws/tasks with this title, archived ones
// too.
func titled(t *testing.T, r *Remote, ws, title string) []api.Item {
	t.Helper()
	var all []api.Item
	q := url.Values{"include_archived": {"true"}}
	if _, err := r.API().Do(testwait.Context(t), "GET", "/workspaces/"+ws+"/collections/tasks/items", q, nil, &all); err != nil {
		t.Fatalf("list items: %v", err)
	}
	var out []api.Item
	for _, it := range all {
		if it.Title == title {
			out = append(out, it)
		}
	}
	return out
}

func TestCapabilitiesAreAug2026s(t *testing.T) {
	r := Start(t, Options{Aug2026: true})
	caps := client(t, r).Capabilities()
	if caps.OpKeys || caps.ExpectedSeq || caps.ChangesPaged {
		t.Errorf("through the proxy: op keys %v, expected_seq %v, paged changes %v; want none: %s", caps.OpKeys, caps.ExpectedSeq, caps.ChangesPaged, caps.Raw)
	}
	for _, gone := range missingCapabilities {
		if caps.Has(gone) {
			t.Errorf("through the proxy the server names %q: %s", gone, caps.Raw)
		}
	}
	// The rest of the answer is padd's, shape and all.
	var direct api.Capabilities
	if _, err := r.API().Do(testwait.Context(t), "GET", "/server/capabilities", nil, nil, &direct); err != nil {
		t.Fatal(err)
	}
	if !direct.Has("idempotency_keys") {
		t.Fatalf("padd itself does not advertise idempotency_keys (%v): the test proves nothing", direct.Capabilities)
	}
	var proxied api.Capabilities
	decode(t, send(t, r, r.URL(), "GET", "/api/v1/server/capabilities", nil, nil), &proxied)
	var kept []string
	for _, c := range direct.Capabilities {
		if !slices.Contains(missingCapabilities, c) {
			kept = append(kept, c)
		}
	}
	if !slices.Equal(proxied.Capabilities, kept) || !proxied.CollectionResolution || proxied.Version != direct.Version {
		t.Errorf("through the proxy %+v, want padd's %+v less %v", proxied, direct, missingCapabilities)
	}
}

// TestRepeatedCreateMakesTwoItems: the Pad of August 2026 ignores op_key
// and Idempotency-Key, so a create sent twice makes two items; padd
// itself answers the second from the first.
func TestRepeatedCreateMakesTwoItems(t *testing.T) {
	r := Start(t, Options{Aug2026: true})
	ws := workspace(t, r)
	create := func(base, key string) string {
		a := send(t, r, base, "POST", itemsPath(ws, "tasks"), http.Header{"Idempotency-Key": {key}},
			map[string]any{"title": "Twice " + key, "op_key": key})
		wantStatus(t, a, http.StatusCreated)
		var it api.Item
		decode(t, a, &it)
		return it.ID
	}
	if a, b := create(r.URL(), "op-1"), create(r.URL(), "op-1"); a == b {
		t.Errorf("through the proxy the repeated create answered the first item %s", a)
	}
	if n := len(titled(t, r, ws, "Twice op-1")); n != 2 {
		t.Errorf("padd holds %d items of the repeated create through the proxy, want 2", n)
	}
	if a, b := create(r.paddURL(), "op-2"), create(r.paddURL(), "op-2"); a != b {
		t.Errorf("padd itself made two items (%s, %s) of one key: the test proves nothing", a, b)
	}
}

// TestExpectedSeqIsIgnored: Pad ignores expected_seq; padd refuses a
// stale one.
func TestExpectedSeqIsIgnored(t *testing.T) {
	r := Start(t, Options{Aug2026: true})
	ws := workspace(t, r)
	var it api.Item
	decode(t, send(t, r, r.URL(), "POST", itemsPath(ws, "tasks"), nil, map[string]any{"title": "Guarded"}), &it)
	path := "/api/v1/workspaces/" + ws + "/items/" + it.ID
	stale := it.Seq + 1000
	wantEnvelope(t, send(t, r, r.paddURL(), "PATCH", path, nil, map[string]any{"title": "Direct", "expected_seq": stale}),
		http.StatusConflict, api.CodeUpdateConflict)
	wantStatus(t, send(t, r, r.URL(), "PATCH", path, nil, map[string]any{"title": "Proxied", "expected_seq": stale}), http.StatusOK)
}

// TestNotesAsPadTakesThem: Pad of August 2026 ignores
// append_implementation_note and append_decision (200, nothing written),
// and takes a note or a decision in a write of the whole fields, kept as
// written; padd itself appends by the first.
func TestNotesAsPadTakesThem(t *testing.T) {
	r := Start(t, Options{Aug2026: true})
	ws := workspace(t, r)
	var it api.Item
	decode(t, send(t, r, r.URL(), "POST", itemsPath(ws, "tasks"), nil, map[string]any{"title": "Noted"}), &it)
	path := "/api/v1/workspaces/" + ws + "/items/" + it.ID
	notes := func() []any {
		var got api.Item
		decode(t, send(t, r, r.paddURL(), "GET", path, nil, nil), &got)
		fields, err := api.DecodeObject(got.Fields)
		if err != nil {
			t.Fatal(err)
		}
		n, _ := fields["implementation_notes"].([]any)
		return n
	}
	wantStatus(t, send(t, r, r.URL(), "PATCH", path, nil, map[string]any{"append_implementation_note": map[string]any{"summary": "ignored"}}), http.StatusOK)
	if n := notes(); len(n) != 0 {
		t.Errorf("through the proxy an append wrote %v, want nothing", n)
	}
	entry := map[string]any{"id": "note-1", "summary": "kept", "created_at": "2026-12-07T18:00:00Z", "created_by": "agent"}
	wantStatus(t, send(t, r, r.URL(), "PATCH", path, nil, map[string]any{"fields": map[string]any{"status": "open", "priority": "medium", "implementation_notes": []any{entry}}}), http.StatusOK)
	if n := notes(); len(n) != 1 || !reflect.DeepEqual(n[0], entry) {
		t.Errorf("through the proxy the fields' note is %v, want %v as written", n, entry)
	}
	wantStatus(t, send(t, r, r.paddURL(), "PATCH", path, nil, map[string]any{"append_implementation_note": map[string]any{"summary": "appended"}}), http.StatusOK)
	if n := notes(); len(n) != 2 {
		t.Errorf("padd itself did not append (notes %v): the test proves nothing", n)
	}
}

var wholeSecondText = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$`)

// TestTimesAreWholeSeconds: item and comment times come as Pad's SQLite
// gives them, and the lists carry no paging headers.
func TestTimesAreWholeSeconds(t *testing.T) {
	r := Start(t, Options{Aug2026: true})
	ws := workspace(t, r)
	c := client(t, r)
	ctx := testwait.Context(t)
	it, err := c.CreateItem(ctx, ws, "tasks", api.ItemCreate{Title: "Timed"}, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.CreateComment(ctx, ws, it.Ref, "a comment", ""); err != nil {
		t.Fatal(err)
	}
	if err := c.ArchiveItem(ctx, ws, it.Ref); err != nil {
		t.Fatal(err)
	}
	base := "/api/v1/workspaces/" + ws
	for _, path := range []string{base + "/items/" + it.Ref, base + "/items/" + it.Ref + "/comments",
		base + "/collections/tasks/items?include_archived=true", base + "/items-changes?since=0",
		base + "/changes?since=0", base + "/activity"} {
		a := send(t, r, r.URL(), "GET", path, nil, nil)
		wantStatus(t, a, http.StatusOK)
		var v any
		decode(t, a, &v)
		n := 0
		forEachObject(v, func(m map[string]any) {
			for k, x := range m {
				if timeKeys[k] {
					n++
					if s, _ := x.(string); !wholeSecondText.MatchString(s) {
						t.Errorf("GET %s: %s is %v, want whole seconds in UTC", path, k, x)
					}
				}
			}
		})
		if n == 0 {
			t.Errorf("GET %s: no times in the answer: %s", path, a)
		}
		for _, h := range paddHeaders {
			if v := a.header.Get(h); v != "" {
				t.Errorf("GET %s: answer carries padd's %s: %s", path, h, v)
			}
		}
	}
	if a := send(t, r, r.paddURL(), "GET", base+"/collections/tasks/items", nil, nil); a.header.Get("X-Pad-Has-More") == "" {
		t.Errorf("padd itself sends no X-Pad-Has-More on a list: the header check above proves nothing")
	}
}

// TestCutTimes: the proxy cuts sub-second times (padd's store already
// keeps item and comment times whole, so the end-to-end test above
// cannot tell the cut from padd's own).
func TestCutTimes(t *testing.T) {
	v, err := decodeAny([]byte(`{"created_at":"2026-08-01T10:20:30.999999+02:00","title":"x","n":12345678901234567890,
		"items":[{"updated_at":"2026-08-01T08:20:30.5Z","deleted_at":null}],"details":{"actual_updated_at":"2026-08-01T08:20:31.001Z"},
		"server_time":"2026-08-01T08:20:30.5Z"}`))
	if err != nil {
		t.Fatal(err)
	}
	cutTimes(v)
	b, err := encodeAny(v)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"created_at":"2026-08-01T08:20:30Z","details":{"actual_updated_at":"2026-08-01T08:20:31Z"},` +
		`"items":[{"deleted_at":null,"updated_at":"2026-08-01T08:20:30Z"}],"n":12345678901234567890,` +
		`"server_time":"2026-08-01T08:20:30.5Z","title":"x"}` + "\n"
	if string(b) != want {
		t.Errorf("cut:\n%s\nwant\n%s", b, want)
	}
}

// TestExpectedUpdatedAtIsWholeSeconds: without expected_seq the client's
// base is updated_at, compared at whole seconds: a token older than the
// item's second is refused with 409, the current one passes, and a
// write in the same second as the token's does not make it stale.
func TestExpectedUpdatedAtIsWholeSeconds(t *testing.T) {
	r := Start(t, Options{Aug2026: true})
	ws := workspace(t, r)
	c := client(t, r)
	ctx := testwait.Context(t)
	it, err := c.CreateItem(ctx, ws, "tasks", api.ItemCreate{Title: "Base"}, "")
	if err != nil {
		t.Fatal(err)
	}
	base := remote.Base{Seq: it.Seq, UpdatedAt: it.UpdatedAt}

	// Another member writes in a later second than the base's.
	testwait.Until(t, "the clock to pass the base's second", func() bool {
		return time.Now().Truncate(time.Second).After(base.UpdatedAt)
	})
	other := "by another member"
	if _, err := r.API().Do(ctx, "PATCH", "/workspaces/"+ws+"/items/"+it.ID, nil, api.ItemUpdate{Content: &other}, nil); err != nil {
		t.Fatal(err)
	}
	title := "Stale"
	_, err = c.UpdateItem(ctx, ws, it.ID, api.ItemUpdate{Title: &title}, base)
	if _, ok := remote.AsConflict(err); !ok {
		t.Fatalf("update on a base older than the item's second: %v, want a conflict", err)
	}

	// The current token passes.
	cur, err := c.GetItem(ctx, ws, it.ID)
	if err != nil {
		t.Fatal(err)
	}
	base = remote.Base{Seq: cur.Seq, UpdatedAt: cur.UpdatedAt}
	title = "Current"
	after, err := c.UpdateItem(ctx, ws, it.ID, api.ItemUpdate{Title: &title}, base)
	if err != nil {
		t.Fatalf("update on the current base: %v", err)
	}

	// A second writer with the same token: Pad lets it through when the
	// first write landed in the token's second (the lost update of
	// docs/SYNC.md), and refuses it otherwise.
	title = "Second writer"
	_, err = c.UpdateItem(ctx, ws, it.ID, api.ItemUpdate{Title: &title}, base)
	if after.UpdatedAt.Equal(base.UpdatedAt) {
		if err != nil {
			t.Errorf("second writer in the token's second: %v, want it to pass as on Pad", err)
		}
	} else if _, ok := remote.AsConflict(err); !ok {
		t.Errorf("second writer after the token's second: %v, want a conflict", err)
	}
}

// TestCommentsBumpNoSeq: a comment changes neither its item's seq nor
// its updated_at and makes no row of /items-changes; its answers and
// events carry no seq.
func TestCommentsBumpNoSeq(t *testing.T) {
	r := Start(t, Options{Aug2026: true})
	ws := workspace(t, r)
	c := client(t, r)
	ctx := testwait.Context(t)
	it, err := c.CreateItem(ctx, ws, "tasks", api.ItemCreate{Title: "Commented"}, "")
	if err != nil {
		t.Fatal(err)
	}
	feed, err := c.ItemsChanges(ctx, ws, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	var got *remote.Event
	for ev, err := range c.Events(ctx, ws, "") {
		if err != nil {
			t.Fatalf("event stream: %v", err)
		}
		if ev.Name == "connected" {
			// Another member comments, straight on padd.
			var cm api.Comment
			if _, err := r.API().Do(ctx, "POST", "/workspaces/"+ws+"/items/"+it.Ref+"/comments", nil, api.CommentCreate{Body: "hello"}, &cm); err != nil {
				t.Fatal(err)
			}
			if cm.Seq == 0 {
				t.Fatalf("padd's comment answer has no seq: the seq checks below prove nothing")
			}
		}
		if ev.Name == "comment_created" {
			got = ev
			break
		}
	}
	if got == nil {
		t.Fatal("the stream ended without comment_created")
	}
	if bytes.Contains(got.Raw, []byte(`"seq"`)) {
		t.Errorf("comment_created carries a seq through the proxy: %s", got.Raw)
	}
	cms, err := c.ListComments(ctx, ws, it.Ref)
	if err != nil || len(cms) != 1 || cms[0].Seq != 0 {
		t.Errorf("comments through the proxy: %+v (err %v), want one, without seq", cms, err)
	}
	now, err := c.GetItem(ctx, ws, it.Ref)
	if err != nil {
		t.Fatal(err)
	}
	if now.Seq != it.Seq || !now.UpdatedAt.Equal(it.UpdatedAt) {
		t.Errorf("the comment moved the item: seq %d -> %d, updated_at %v -> %v", it.Seq, now.Seq, it.UpdatedAt, now.UpdatedAt)
	}
	rows, err := c.ItemsChanges(ctx, ws, feed.Cursor, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows.Changes) != 0 {
		t.Errorf("after the comment /items-changes has %d rows (first %s), want none", len(rows.Changes), rows.Changes[0].Ref)
	}
}

// TestChangesAnswerAtOnce: /changes takes no limit or cursor and
// answers everything since, in Pad's keys.
func TestChangesAnswerAtOnce(t *testing.T) {
	r := Start(t, Options{Aug2026: true})
	r.proxy.changesCap.Store(2) // padd's pages are 2 items, so the proxy walks several
	ws := workspace(t, r)
	const n = 5
	for i := range n {
		if _, err := r.API().Do(testwait.Context(t), "POST", "/workspaces/"+ws+"/collections/tasks/items", nil,
			api.ItemCreate{Title: fmt.Sprintf("Item %d", i)}, nil); err != nil {
			t.Fatal(err)
		}
	}
	path := "/api/v1/workspaces/" + ws + "/changes?since=0&limit=1"
	var direct api.Changes
	decode(t, send(t, r, r.paddURL(), "GET", path, nil, nil), &direct)
	if !direct.HasMore || len(direct.Items) != 1 {
		t.Fatalf("padd itself answered %d items, has_more %v: the test proves nothing", len(direct.Items), direct.HasMore)
	}
	a := send(t, r, r.URL(), "GET", path, nil, nil)
	wantStatus(t, a, http.StatusOK)
	var raw map[string]json.RawMessage
	decode(t, a, &raw)
	var keys []string
	for k := range raw {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	if want := []string{"collections_changed", "deleted", "server_time", "updated"}; !slices.Equal(keys, want) {
		t.Errorf("keys %v, want Pad's %v", keys, want)
	}
	got, err := client(t, r).Changes(testwait.Context(t), ws, remote.ChangesQuery{Since: 0, Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{}
	for _, it := range got.Items {
		ids[it.ID] = true
	}
	if len(ids) != n || got.HasMore || got.NextCursor != "" || got.ServerTime == 0 {
		t.Errorf("remote.Client's /changes: %d distinct items, has_more %v, next %q, server_time %d; want %d, all at once",
			len(ids), got.HasMore, got.NextCursor, got.ServerTime, n)
	}
	// A cursor alone is a request without since, which Pad refuses.
	wantEnvelope(t, send(t, r, r.URL(), "GET", "/api/v1/workspaces/"+ws+"/changes?cursor="+url.QueryEscape(direct.NextCursor), nil, nil),
		http.StatusBadRequest, api.CodeBadRequest)
}

func TestRateLimit(t *testing.T) {
	// One token a thousand seconds: the bucket does not refill while the
	// test runs, however slow the machine.
	r := Start(t, Options{RateLimit: 0.001, Burst: 2})
	for range 2 {
		wantStatus(t, send(t, r, r.URL(), "GET", "/api/v1/health", nil, nil), http.StatusOK)
	}
	a := send(t, r, r.URL(), "GET", "/api/v1/health", nil, nil)
	wantEnvelope(t, a, http.StatusTooManyRequests, "rate_limited")
	if v := a.header.Get("Retry-After"); v != "1" {
		t.Errorf("Retry-After %q, want 1", v)
	}
	c, err := remote.New(r.URL(), r.Token(), remote.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	// The client sends a refused request again after its Retry-After,
	// three times in all, then reports the refusal.
	_, err = c.ListWorkspaces(testwait.Context(t))
	if d, ok := remote.IsRateLimited(err); !ok || d != time.Second {
		t.Errorf("remote.Client over the limit: %v (retry after %v), want rate limited for 1s", err, d)
	}
	st := r.Stats()
	if st.Requests["GET /api/v1/health"] != 3 || st.TooMany["GET /api/v1/health"] != 1 ||
		st.Requests["GET /api/v1/workspaces"] != 3 || st.TooMany["GET /api/v1/workspaces"] != 3 || st.Total() != 6 || st.TotalTooMany() != 4 {
		t.Errorf("stats %+v, want 3 health (1 refused) and 3 workspaces (refused)", st)
	}
	r.ResetStats()
	if st := r.Stats(); st.Total() != 0 {
		t.Errorf("after ResetStats: %+v", st)
	}
}

func isCreate(r *http.Request) bool {
	return r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/collections/tasks/items")
}

// TestFaults: a write dropped after it was forwarded landed; one dropped
// before did not; error answers and delays come as asked.
func TestFaults(t *testing.T) {
	r := Start(t, Options{Aug2026: true})
	ws := workspace(t, r)
	c := client(t, r)
	ctx := testwait.Context(t)

	r.SetFault(Once(isCreate, Fault{Kind: DropAfter}))
	_, err := c.CreateItem(ctx, ws, "tasks", api.ItemCreate{Title: "Lost answer"}, "padd-1-1")
	if !remote.IsOutcomeUnknown(err) {
		t.Errorf("create dropped after forwarding: %v, want outcome unknown", err)
	}
	if n := len(titled(t, r, ws, "Lost answer")); n != 1 {
		t.Errorf("padd holds %d items of the create whose answer was dropped, want 1", n)
	}

	r.SetFault(Once(isCreate, Fault{Kind: DropBefore}))
	if _, err = c.CreateItem(ctx, ws, "tasks", api.ItemCreate{Title: "Never sent"}, "padd-1-2"); err == nil {
		t.Error("create dropped before forwarding succeeded")
	}
	if n := len(titled(t, r, ws, "Never sent")); n != 0 {
		t.Errorf("padd holds %d items of the create dropped before forwarding, want 0", n)
	}

	r.SetFault(Once(isCreate, Fault{Kind: Answer, Status: http.StatusInternalServerError}))
	if _, err = c.CreateItem(ctx, ws, "tasks", api.ItemCreate{Title: "Failed"}, "padd-1-3"); !remote.IsOutcomeUnknown(err) {
		t.Errorf("create answered 500: %v, want outcome unknown", err)
	}
	if n := len(titled(t, r, ws, "Failed")); n != 0 {
		t.Errorf("padd holds %d items of a create the fault answered 500, want 0", n)
	}
	// A 429 is answered before forwarding: the client sends the create
	// again after its Retry-After, and that one lands, once.
	r.SetFault(Once(isCreate, Fault{Kind: Answer, Status: http.StatusTooManyRequests}))
	if _, err = c.CreateItem(ctx, ws, "tasks", api.ItemCreate{Title: "Limited"}, "padd-1-4"); err != nil {
		t.Errorf("create answered 429 once: %v, want it sent again and made", err)
	}
	if n := len(titled(t, r, ws, "Limited")); n != 1 {
		t.Errorf("padd holds %d items of the create answered 429 once, want 1", n)
	}

	const delay = 300 * time.Millisecond
	r.SetFault(Once(func(r *http.Request) bool { return r.Method == http.MethodGet }, Fault{Delay: delay}))
	start := time.Now()
	if _, err := c.ListWorkspaces(ctx); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took < delay {
		t.Errorf("a read delayed %v answered after %v", delay, took)
	}
	r.SetFault(nil)
	if st := r.Stats(); st.Requests["POST /api/v1/workspaces/{ws}/collections/{coll}/items"] != 5 {
		t.Errorf("stats %+v, want 5 creates", st)
	}
}

// TestRestart: the remote restarts on its data and port; the proxy's URL
// and what was written stay.
func TestRestart(t *testing.T) {
	r := Start(t, Options{Aug2026: true})
	ws := workspace(t, r)
	c := client(t, r)
	ctx := testwait.Context(t)
	it, err := c.CreateItem(ctx, ws, "tasks", api.ItemCreate{Title: "Survives"}, "")
	if err != nil {
		t.Fatal(err)
	}
	url, dir := r.URL(), r.DataDir()
	r.Restart(t)
	if r.URL() != url || r.DataDir() != dir {
		t.Errorf("after the restart URL %s, data %s; want %s, %s", r.URL(), r.DataDir(), url, dir)
	}
	var got *api.Item
	testwait.UntilOK(t, func() error {
		got, err = c.GetItem(ctx, ws, it.ID)
		return err
	})
	if got.Title != "Survives" {
		t.Errorf("after the restart: %+v", got)
	}
	if _, err := r.API().Do(ctx, "GET", "/workspaces/"+ws, nil, nil, nil); err != nil {
		t.Errorf("API() after the restart: %v", err)
	}
}

func TestDirectHasNoProxy(t *testing.T) {
	r := Start(t, Options{Direct: true})
	if r.URL() != r.paddURL() {
		t.Errorf("Direct: URL %s, want padd's %s", r.URL(), r.paddURL())
	}
	var caps api.Capabilities
	if _, err := r.API().Do(testwait.Context(t), "GET", "/server/capabilities", nil, nil, &caps); err != nil || !caps.Has("idempotency_keys") {
		t.Errorf("padd itself: %+v (err %v), want idempotency_keys", caps, err)
	}
}

func TestRouteOf(t *testing.T) {
	for path, want := range map[string]string{
		"/api/v1/health":                                  "/api/v1/health",
		"/api/v1/workspaces":                              "/api/v1/workspaces",
		"/api/v1/workspaces/peer":                         "/api/v1/workspaces/{ws}",
		"/api/v1/workspaces/peer/items-changes":           "/api/v1/workspaces/{ws}/items-changes",
		"/api/v1/workspaces/peer/items/TASK-1/comments":   "/api/v1/workspaces/{ws}/items/{ref}/comments",
		"/api/v1/workspaces/peer/items/bulk":              "/api/v1/workspaces/{ws}/items/bulk",
		"/api/v1/workspaces/peer/comments/abc/replies":    "/api/v1/workspaces/{ws}/comments/{comment}/replies",
		"/api/v1/workspaces/peer/collections/tasks/items": "/api/v1/workspaces/{ws}/collections/{coll}/items",
	} {
		if got := routeOf(path); got != want {
			t.Errorf("routeOf(%s) = %s, want %s", path, got, want)
		}
	}
}

// TestParentIsALink: Pad keeps a child's parent as an item link of type
// parent, written by fields' "parent" and shown as parent_ref and
// parent_link_id, its top-level parent_id a legacy column (null for a
// parent set so); it refuses parent_id with a fields parent on an
// update, fails on parent_id "", and does not keep a top-level parent_id
// as the link; its /changes rows and export items name no parent, the
// export's item_links list the parent rows.
func TestParentIsALink(t *testing.T) {
	r := Start(t, Options{Aug2026: true})
	ws := workspace(t, r)
	item := func(a answer) api.Item {
		t.Helper()
		var it api.Item
		decode(t, a, &it)
		return it
	}
	parent := item(send(t, r, r.URL(), "POST", itemsPath(ws, "tasks"), nil, map[string]any{"title": "Parent"}))
	other := item(send(t, r, r.URL(), "POST", itemsPath(ws, "tasks"), nil, map[string]any{"title": "Other"}))
	child := item(send(t, r, r.URL(), "POST", itemsPath(ws, "tasks"), nil, map[string]any{"title": "Child", "fields": map[string]any{"parent": parent.Ref}}))
	shows := func(what string, it api.Item, want *api.Item) {
		t.Helper()
		if it.ParentID != nil {
			t.Errorf("%s: parent_id %q, want null (Pad's legacy column)", what, *it.ParentID)
		}
		switch {
		case want == nil && (it.ParentRef != "" || it.ParentLinkID != ""):
			t.Errorf("%s: parent_ref %q, parent_link_id %q; want none", what, it.ParentRef, it.ParentLinkID)
		case want != nil && (it.ParentRef != want.Ref || it.ParentLinkID != want.ID):
			t.Errorf("%s: parent_ref %q, parent_link_id %q; want %s, %s", what, it.ParentRef, it.ParentLinkID, want.Ref, want.ID)
		}
	}
	path := "/api/v1/workspaces/" + ws + "/items/" + child.Ref
	shows("created with fields.parent", child, &parent)
	shows("read", item(send(t, r, r.URL(), "GET", path, nil, nil)), &parent)
	shows("moved by fields_patch", item(send(t, r, r.URL(), "PATCH", path, nil, map[string]any{"fields_patch": map[string]any{"parent": other.ID}})), &other)
	wantEnvelope(t, send(t, r, r.URL(), "PATCH", path, nil, map[string]any{"parent_id": parent.ID, "fields_patch": map[string]any{"parent": parent.ID}}),
		http.StatusBadRequest, "validation_error")
	wantEnvelope(t, send(t, r, r.URL(), "PATCH", path, nil, map[string]any{"parent_id": ""}), http.StatusInternalServerError, "internal_error")
	shows("a top-level parent_id", item(send(t, r, r.URL(), "PATCH", path, nil, map[string]any{"parent_id": parent.ID})), &other)
	shows("clear_parent", item(send(t, r, r.URL(), "PATCH", path, nil, map[string]any{"clear_parent": true})), &other)

	var export struct {
		Items []api.Item `json:"items"`
		Links []struct {
			SourceID string `json:"source_id"`
			TargetID string `json:"target_id"`
			LinkType string `json:"link_type"`
		} `json:"item_links"`
	}
	decode(t, send(t, r, r.URL(), "GET", "/api/v1/workspaces/"+ws+"/export", nil, nil), &export)
	for _, it := range export.Items {
		shows("exported "+it.Title, it, nil)
	}
	var rows []string
	for _, l := range export.Links {
		rows = append(rows, l.LinkType+" "+l.SourceID+" "+l.TargetID)
	}
	if want := []string{"parent " + child.ID + " " + other.ID}; !slices.Equal(rows, want) {
		t.Errorf("the export's item_links %q, want %q", rows, want)
	}

	shows("cleared by fields_patch", item(send(t, r, r.URL(), "PATCH", path, nil, map[string]any{"fields_patch": map[string]any{"parent": ""}})), nil)
}

// TestCollectionSchemaIsText: as on Pad, a collection's schema and
// settings come as JSON text, and a create or update that sends the
// schema as an object is refused with 400 bad_request (settings may be
// either); padd itself takes both.
func TestCollectionSchemaIsText(t *testing.T) {
	r := Start(t, Options{Aug2026: true})
	ws := workspace(t, r)
	colls := "/api/v1/workspaces/" + ws + "/collections"
	schema := map[string]any{"fields": []any{map[string]any{"key": "status", "label": "Status", "type": "select", "options": []string{"open", "done"}}}}
	text, err := json.Marshal(schema)
	if err != nil {
		t.Fatal(err)
	}

	var got map[string]any
	decode(t, send(t, r, r.URL(), "GET", colls+"/tasks", nil, nil), &got)
	for _, k := range []string{"schema", "settings"} {
		if _, ok := got[k].(string); !ok {
			t.Errorf("the collection's %s is %T through the proxy, want JSON text", k, got[k])
		}
	}

	wantEnvelope(t, send(t, r, r.URL(), "PATCH", colls+"/tasks", nil, map[string]any{"schema": schema}), http.StatusBadRequest, "bad_request")
	wantEnvelope(t, send(t, r, r.URL(), "POST", colls, nil, map[string]any{"name": "Bugs", "schema": schema}), http.StatusBadRequest, "bad_request")
	wantStatus(t, send(t, r, r.URL(), "PATCH", colls+"/tasks", nil, map[string]any{"schema": string(text),
		"settings": map[string]any{"layout": "fields-primary"}}), http.StatusOK)
	wantStatus(t, send(t, r, r.URL(), "POST", colls, nil, map[string]any{"name": "Bugs", "schema": string(text)}), http.StatusCreated)
	decode(t, send(t, r, r.URL(), "GET", colls+"/tasks", nil, nil), &got)
	if s, _ := got["schema"].(string); !strings.Contains(s, `"done"`) {
		t.Errorf("the schema sent as text did not land: %v", got["schema"])
	}

	// padd itself takes the object: the refusal is the proxy's.
	wantStatus(t, send(t, r, r.paddURL(), "PATCH", colls+"/tasks", nil, map[string]any{"schema": schema}), http.StatusOK)
}

// A link forwards to the remote until it is cut: Refuse makes a
// connection fail with "connection refused", AcceptClose makes a request
// end with no answer, and mending it (on the same port) serves again.
// Another link stays up meanwhile.
func TestLinkCutsAndMends(t *testing.T) {
	r := Start(t, Options{})
	a, b := r.NewLink(t), r.NewLink(t)
	hc := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: testwait.Limit}
	get := func(l *Link) error {
		resp, err := hc.Get(l.URL() + "/api/v1/health")
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("status %d", resp.StatusCode)
		}
		return nil
	}
	url := a.URL()
	if err := get(a); err != nil {
		t.Fatalf("through the link: %v", err)
	}
	if err := a.Cut(Refuse); err != nil {
		t.Fatal(err)
	}
	if err := get(a); err == nil || !strings.Contains(err.Error(), "connection refused") {
		t.Errorf("a refusing link answered %v, want connection refused", err)
	}
	if err := get(b); err != nil {
		t.Errorf("the other link, while the first is cut: %v", err)
	}
	if err := a.Cut(AcceptClose); err != nil {
		t.Fatal(err)
	}
	if err := get(a); err == nil || strings.Contains(err.Error(), "connection refused") {
		t.Errorf("an accept-and-close link answered %v, want a connection closed unanswered", err)
	}
	if err := a.Mend(); err != nil {
		t.Fatal(err)
	}
	if err := get(a); err == nil {
		t.Errorf("a link cut twice and mended once answered")
	}
	if err := a.Mend(); err != nil {
		t.Fatal(err)
	}
	if a.URL() != url {
		t.Errorf("the link moved from %s to %s", url, a.URL())
	}
	if err := get(a); err != nil {
		t.Errorf("the mended link: %v", err)
	}
}

// TestRelationsAsWritten: as on Pad, a relation value is answered as it
// was written (a ref, a title), everywhere an item is answered, and no
// relation_targets; padd itself stores the id it resolved. A later write
// of the key answers what that one wrote.
func TestRelationsAsWritten(t *testing.T) {
	r := Start(t, Options{Aug2026: true})
	ws := workspace(t, r)
	schema, _ := json.Marshal(map[string]any{"fields": []any{
		map[string]any{"key": "see", "label": "See", "type": "relation", "collection": "specs"},
		map[string]any{"key": "also", "label": "Also", "type": "multi_relation", "collection": "specs"},
	}})
	wantStatus(t, send(t, r, r.URL(), "POST", "/api/v1/workspaces/"+ws+"/collections", nil,
		map[string]any{"name": "Specs", "prefix": "SPEC", "schema": string(schema)}), http.StatusCreated)
	item := func(a answer) (api.Item, map[string]any) {
		t.Helper()
		var it api.Item
		decode(t, a, &it)
		fields, err := api.DecodeObject(it.Fields)
		if err != nil {
			t.Fatal(err)
		}
		if it.RelationTargets != nil {
			t.Errorf("%s answers relation_targets %v; Pad sends none", it.Title, it.RelationTargets)
		}
		return it, fields
	}
	one, _ := item(send(t, r, r.URL(), "POST", itemsPath(ws, "specs"), nil, map[string]any{"title": "One"}))
	two, _ := item(send(t, r, r.URL(), "POST", itemsPath(ws, "specs"), nil, map[string]any{"title": "Two"}))
	written := map[string]any{"see": one.Ref, "also": []any{"Two", one.ID}}
	wrote, fields := item(send(t, r, r.URL(), "POST", itemsPath(ws, "specs"), nil, map[string]any{"title": "Three", "fields": written}))
	path := "/api/v1/workspaces/" + ws + "/items/" + wrote.ID
	shows := func(what string, fields map[string]any, want map[string]any) {
		t.Helper()
		for k, v := range want {
			if !sameValue(fields[k], v) {
				t.Errorf("%s: %s = %v, want %v", what, k, fields[k], v)
			}
		}
	}
	shows("the create's answer", fields, written)
	_, fields = item(send(t, r, r.URL(), "GET", path, nil, nil))
	shows("read", fields, written)
	var stored api.Item
	if _, err := r.API().Do(testwait.Context(t), "GET", "/workspaces/"+ws+"/items/"+wrote.ID, nil, nil, &stored); err != nil {
		t.Fatal(err)
	}
	padds, _ := api.DecodeObject(stored.Fields)
	shows("padd's own", padds, map[string]any{"see": one.ID, "also": []any{two.ID, one.ID}})
	var export struct {
		Items []api.Item `json:"items"`
	}
	decode(t, send(t, r, r.URL(), "GET", "/api/v1/workspaces/"+ws+"/export", nil, nil), &export)
	for _, it := range export.Items {
		if it.ID == wrote.ID {
			f, _ := api.DecodeObject(it.Fields)
			shows("exported", f, written)
		}
	}
	var list []api.Item
	decode(t, send(t, r, r.URL(), "GET", itemsPath(ws, "specs"), nil, nil), &list)
	for _, it := range list {
		if it.ID == wrote.ID {
			f, _ := api.DecodeObject(it.Fields)
			shows("listed", f, written)
		}
	}
	// Written again by id: answered so.
	_, fields = item(send(t, r, r.URL(), "PATCH", path, nil, map[string]any{"fields_patch": map[string]any{"see": two.ID}}))
	shows("written again", fields, map[string]any{"see": two.ID, "also": written["also"]})
}
