package searchindex

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/padd/padd/internal/testwait"
	"github.com/padd/padd/model"
	"github.com/padd/padd/storage"
	"github.com/padd/padd/storage/syncstate"
	"github.com/padd/padd/storage/views"
)

var user = model.UserActor(model.SourceCLI)

// fixture is a store, an index following it, and one workspace.
type fixture struct {
	t     testing.TB
	dir   string
	store *storage.Store
	idx   *Index
	ws    *model.Workspace
	stop  func()
}

func newFixture(t testing.TB) *fixture {
	t.Helper()
	dir := t.TempDir()
	st, err := storage.Open(filepath.Join(dir, "padd.db"), storage.Options{Logger: quietLog()})
	if err != nil {
		t.Fatal(err)
	}
	ws, err := st.CreateWorkspace(storage.WorkspaceCreate{Name: "Search"}, user)
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{t: t, dir: dir, store: st, ws: ws}
	f.start()
	t.Cleanup(func() {
		f.stop()
		st.Close()
	})
	return f
}

// current waits for the index to reach every write made so far and
// returns its Bleve index.
func (f *fixture) current() bleve.Index {
	f.search("")
	f.idx.mu.Lock()
	defer f.idx.mu.Unlock()
	return f.idx.bi
}

func (f *fixture) start(opts ...func(*Index)) {
	idx, err := Open(f.dir, f.store, quietLog())
	if err != nil {
		f.t.Fatal(err)
	}
	for _, o := range opts {
		o(idx)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { idx.Run(ctx); close(done) }()
	f.idx = idx
	f.stop = func() { cancel(); <-done; idx.Close() }
}

// dropIndex stops the index and deletes it: the next start builds it
// afresh with Bleve's offline builder.
func (f *fixture) dropIndex() {
	f.t.Helper()
	f.stop()
	if err := os.RemoveAll(filepath.Join(f.dir, Dir)); err != nil {
		f.t.Fatal(err)
	}
}

func (f *fixture) create(coll, title, content string, fields map[string]any, tags ...string) *storage.ItemView {
	f.t.Helper()
	r, err := f.store.CreateItem(f.ws.Slug, storage.ItemCreate{Collection: coll, Title: title, Content: content, Fields: fields, Tags: tags}, user)
	if err != nil {
		f.t.Fatal(err)
	}
	return r.Item
}

// quietLog is the tests' logger: warnings and errors, not the INFO lines
// of every store and index opened.
func quietLog() *slog.Logger {
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
}

// caughtUp waits for the index to reach a workspace's head and for any
// rebuild to end, for as long as the machine takes (testwait.Limit
// bounds only a failure).
func (f *fixture) caughtUp(ws string) {
	f.t.Helper()
	head, err := views.Of(f.store).Head(ws)
	if err != nil {
		f.t.Fatal(err)
	}
	if err := f.idx.WaitFor(testwait.Context(f.t), ws, head); err != nil {
		f.t.Fatal(err)
	}
}

// search waits for the index to reach the workspace head (read your
// writes), then searches.
func (f *fixture) search(q string, mod ...func(*Request)) *Result {
	f.t.Helper()
	f.caughtUp(f.ws.ID)
	ctx := testwait.Context(f.t)
	r := Request{Query: q, Workspaces: []string{f.ws.ID}, Limit: 20}
	for _, m := range mod {
		m(&r)
	}
	res, err := f.idx.Search(ctx, r)
	if err != nil {
		f.t.Fatal(err)
	}
	return res
}

func ids(r *Result) []string {
	var out []string
	for _, h := range r.Hits {
		out = append(out, h.ID)
	}
	return out
}

func wantHits(t *testing.T, q string, r *Result, want ...string) {
	t.Helper()
	got := ids(r)
	if len(got) != len(want) {
		t.Fatalf("%q: got %d hits %v, want %v", q, len(got), got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("%q: hit %d is %s, want %s (all: %v)", q, i, got[i], want[i], got)
		}
	}
}

func TestQueryForms(t *testing.T) {
	f := newFixture(t)
	login := f.create("tasks", "Fix login timeout", "Users see a timeout after SSO redirect.", map[string]any{"priority": "high"}, "auth")
	dark := f.create("ideas", "Dark mode", "A darker theme for night work; login page included.", nil, "ui")
	deploy := f.create("docs", "Deployment guide", "How we deploy to staging and production.", nil)
	cache := f.create("tasks", "Cache invalidation", "The cache keeps stale sessions around.", map[string]any{"status": "done"})

	wantHits(t, "login", f.search("login"), login.ID, dark.ID) // title outranks body
	wantHits(t, "all words", f.search("login timeout"), login.ID)
	wantHits(t, "phrase", f.search(`"stale sessions"`), cache.ID)
	wantHits(t, "phrase order", f.search(`"sessions stale"`))
	wantHits(t, "prefix", f.search("deplo*"), deploy.ID)
	wantHits(t, "exclude", f.search("login -dark"), login.ID)
	wantHits(t, "status filter", f.search("status:done"), cache.ID)
	wantHits(t, "collection filter", f.search("login collection:ideas"), dark.ID)
	wantHits(t, "collection alias", f.search("login collection:idea"), dark.ID)
	wantHits(t, "tag filter", f.search("tag:auth"), login.ID)
	wantHits(t, "is:done", f.search("is:done"), cache.ID)
	r := f.search(login.Ref)
	if len(r.Hits) == 0 || r.Hits[0].ID != login.ID {
		t.Fatalf("a ref finds its item first: %v", ids(r))
	}
	r = f.search("timeot")
	if !r.Fuzzy || len(r.Hits) != 1 || r.Hits[0].ID != login.ID {
		t.Fatalf("typo retry: fuzzy=%v hits=%v", r.Fuzzy, ids(r))
	}
	r = f.search("timeout")
	if r.Fuzzy || len(r.Hits) != 1 {
		t.Fatalf("timeout: fuzzy=%v hits=%v", r.Fuzzy, ids(r))
	}
	if r.Collections["tasks"] != 1 || r.Statuses["open"] != 1 {
		t.Fatalf("facets: %v %v", r.Collections, r.Statuses)
	}
}

// A search waits for the writes before it, and the indexer gathering
// commits into a batch must not make it wait for the gathering to end.
func TestWaitingSearchCutsGatheringShort(t *testing.T) {
	f := newFixture(t)
	f.create("tasks", "Warm the index", "", nil)
	f.search("warm")
	f.stop()
	f.start(func(x *Index) { x.coalesce = time.Hour })
	f.search("warm") // the restarted index has caught up
	q := f.create("tasks", "Quokka sighting", "", nil)
	// The indexer has the commit's note and gathers for an hour; the
	// search's wait (testwait.Limit) fails the test unless it cuts that
	// short.
	wantHits(t, "quokka", f.search("quokka"), q.ID)
	q2 := f.create("tasks", "Another quokka", "", nil)
	wantHits(t, "another quokka", f.search("another quokka"), q2.ID)
}

func TestDeletesCommentsAndMovesFollow(t *testing.T) {
	f := newFixture(t)
	a := f.create("tasks", "Flaky upload test", "", nil)
	wantHits(t, "created", f.search("flaky"), a.ID)
	if _, err := f.store.AddComment(f.ws.Slug, a.Ref, storage.CommentCreate{Body: "Seen again on the arm64 runner"}, user); err != nil {
		t.Fatal(err)
	}
	wantHits(t, "comment text", f.search("arm64"), a.ID)
	if _, err := f.store.DeleteItem(f.ws.Slug, a.Ref, user); err != nil {
		t.Fatal(err)
	}
	wantHits(t, "archived hidden", f.search("flaky"))
	wantHits(t, "archived on request", f.search("flaky", func(r *Request) { r.IncludeArchived = true }), a.ID)
	if _, err := f.store.RestoreItem(f.ws.Slug, a.Ref, user); err != nil {
		t.Fatal(err)
	}
	if _, err := f.store.MoveItem(f.ws.Slug, a.Ref, storage.MoveInput{Target: "ideas", Fields: map[string]any{"status": "new"}}, user); err != nil {
		t.Fatal(err)
	}
	wantHits(t, "moved", f.search("flaky collection:ideas"), a.ID)
}

func TestRestartCatchesUpAndCorruptIndexRebuilds(t *testing.T) {
	f := newFixture(t)
	a := f.create("tasks", "Before restart", "", nil)
	wantHits(t, "before", f.search("restart"), a.ID)
	f.stop()
	b := f.create("tasks", "Written while the indexer was down: restart", "", nil)
	f.start()
	r := f.search("restart")
	if len(r.Hits) != 2 {
		t.Fatalf("catch-up after restart: %v", ids(r))
	}
	f.stop()
	// Damage the index: its files are derived data, padd must rebuild.
	if err := os.WriteFile(filepath.Join(f.dir, Dir, "index_meta.json"), []byte("{garbage"), 0o600); err != nil {
		t.Fatal(err)
	}
	f.start()
	r = f.search("restart")
	if len(r.Hits) != 2 || (r.Hits[0].ID != a.ID && r.Hits[0].ID != b.ID) {
		t.Fatalf("after rebuild: %v", ids(r))
	}
	matches, _ := filepath.Glob(filepath.Join(f.dir, Dir+".broken-*"))
	if len(matches) != 1 {
		t.Fatalf("damaged index kept aside: %v", matches)
	}
}

// A requested rebuild reads as rebuilding from the moment it is asked
// for until the new index is ready, never as the old index's "ready".
func TestRebuildRequestedShowsAtOnce(t *testing.T) {
	f := newFixture(t)
	a := f.create("tasks", "Before the rebuild", "", nil)
	wantHits(t, "before", f.search("rebuild"), a.ID)
	if err := f.idx.Rebuild(); err != nil {
		t.Fatal(err)
	}
	if st := f.idx.Status(); st.State != StateRebuilding {
		t.Fatalf("right after Rebuild: state %q", st.State)
	}
	testwait.Until(t, "the rebuild to finish", func() bool { return f.idx.Status().State == StateReady })
	wantHits(t, "after", f.search("rebuild"), a.ID)
}

// A full build survives a clean restart right after it: the batch that
// marks the build finished must be on disk, not only searchable, or
// every restart soon after a build starts another.
func TestRestartRightAfterBuildKeepsIndex(t *testing.T) {
	f := newFixture(t)
	a := f.create("tasks", "Persisted build", "", nil)
	wantHits(t, "first", f.search("persisted"), a.ID)
	f.dropIndex() // the next start builds with the builder
	f.start()
	wantHits(t, "built", f.search("persisted"), a.ID)
	f.stop()
	f.start()
	if st := f.idx.Status(); st.State != StateReady {
		t.Fatalf("after a clean restart the index is %q (%s): the build did not persist", st.State, st.Reason)
	}
}

// A full build writes only beside the index: the system's temp directory
// may be another filesystem (a rename into place fails) or RAM-backed.
func TestBuildStaysInDataDir(t *testing.T) {
	f := newFixture(t)
	a := f.create("tasks", "Scratch space", "", nil)
	wantHits(t, "first", f.search("scratch"), a.ID)
	f.dropIndex()
	t.Setenv("TMPDIR", filepath.Join(f.dir, "no-such-tmp"))
	f.start()
	wantHits(t, "built", f.search("scratch"), a.ID)
	left, _ := filepath.Glob(filepath.Join(f.dir, Dir+".*"))
	if len(left) != 0 {
		t.Fatalf("the build left %v behind", left)
	}
}

// Facets count every match, not only the page: by collection and by
// status.
func TestFacetsCountEveryMatch(t *testing.T) {
	f := newFixture(t)
	for i := range 7 {
		f.create("tasks", fmt.Sprintf("Quota task %d", i), "", map[string]any{"status": []string{"open", "done", "in-progress"}[i%3]})
	}
	f.create("ideas", "Quota idea", "", nil)
	f.create("docs", "Quota doc", "a doc has no status", nil)
	f.create("docs", "Unrelated", "", nil)
	r := f.search("quota", func(r *Request) { r.Limit = 2 })
	if len(r.Hits) != 2 || r.Total != 9 {
		t.Fatalf("hits %d of %d, want 2 of 9", len(r.Hits), r.Total)
	}
	want := map[string]int{"tasks": 7, "ideas": 1, "docs": 1}
	if !maps.Equal(r.Collections, want) {
		t.Errorf("collections facet %v, want %v", r.Collections, want)
	}
	// Ideas start "new" and docs "draft" (their collections' defaults).
	if want := map[string]int{"open": 3, "done": 2, "in-progress": 2, "new": 1, "draft": 1}; !maps.Equal(r.Statuses, want) {
		t.Errorf("statuses facet %v, want %v", r.Statuses, want)
	}
	r = f.search("quota", func(r *Request) { r.NoFacets = true })
	if len(r.Collections)+len(r.Statuses) != 0 {
		t.Errorf("facets asked off, got %v %v", r.Collections, r.Statuses)
	}
}

// An index written by a padd with another index format (a mapping or
// document change, like the facet field) is rebuilt at start, not used.
func TestOlderFormatRebuilt(t *testing.T) {
	f := newFixture(t)
	a := f.create("tasks", "Format change", "", nil)
	wantHits(t, "first", f.search("format"), a.ID)
	f.stop()
	// durableConfig: the write must be on disk before Close, which drops
	// whatever the persister has not written yet.
	bi, err := bleve.OpenUsing(filepath.Join(f.dir, Dir), durableConfig())
	if err != nil {
		t.Fatal(err)
	}
	if err := bi.SetInternal([]byte(kFormat), []byte("padd-search-5")); err != nil {
		t.Fatal(err)
	}
	if err := bi.Close(); err != nil {
		t.Fatal(err)
	}
	f.start()
	st := f.idx.Status()
	if st.State != StateRebuilding || !strings.Contains(st.Reason, "padd-search-5") {
		t.Fatalf("an index of the older format opened as %q (%s), want rebuilding with the format as the reason", st.State, st.Reason)
	}
	wantHits(t, "rebuilt", f.search("format"), a.ID)
	r := f.search("format")
	if r.Collections["tasks"] != 1 {
		t.Fatalf("after the rebuild the facets read %v", r.Collections)
	}
}

// A search asked for one workspace finds only that workspace's items,
// whether or not the index holds another; one asked for several finds
// items of each.
func TestWorkspaceScope(t *testing.T) {
	f := newFixture(t)
	a := f.create("tasks", "Zebra crossing", "apple", nil)
	wantHits(t, "zebra", f.search("zebra"), a.ID)

	other, err := f.store.CreateWorkspace(storage.WorkspaceCreate{Name: "Other"}, user)
	if err != nil {
		t.Fatal(err)
	}
	b, err := f.store.CreateItem(other.Slug, storage.ItemCreate{Collection: "tasks", Title: "Zebra stripes", Content: "banana"}, user)
	if err != nil {
		t.Fatal(err)
	}
	f.caughtUp(other.ID)
	wantHits(t, "zebra in the first workspace", f.search("zebra"), a.ID)
	both := f.search("zebra", func(r *Request) { r.Workspaces = []string{f.ws.ID, other.ID} })
	if got := ids(both); len(got) != 2 || !slices.Contains(got, a.ID) || !slices.Contains(got, b.Item.ID) {
		t.Fatalf("zebra in both workspaces: hits %v, want %s and %s", got, a.ID, b.Item.ID)
	}
	if res := f.search("zebra", func(r *Request) { r.Workspaces = []string{"-"} }); len(res.Hits) != 0 || res.Total != 0 {
		t.Fatalf("a search in no workspace found %d hits", res.Total)
	}
}

// A query whose words are all stop words leaves only its filters, which
// Bleve scores with zero weights: the hits still carry a finite score
// (a NaN cannot be sent as JSON; the REST answer was a 500).
func TestStopWordsAndFiltersScoreFinite(t *testing.T) {
	f := newFixture(t)
	a := f.create("tasks", "Alpha", "first", map[string]any{"priority": "high"})
	f.create("tasks", "Beta", "second", map[string]any{"priority": "low"})
	for _, sort := range []string{"", "created_at"} {
		r := f.search("a the", func(r *Request) { r.Priorities = []string{"high"}; r.Sort = sort; r.Desc = true; r.NoFacets = true })
		wantHits(t, "a the priority:high", r, a.ID)
		if s := r.Hits[0].Score; math.IsNaN(s) || math.IsInf(s, 0) {
			t.Fatalf("sort %q: score %v", sort, s)
		}
	}
}

// A ref an item no longer carries finds it, as every ref lookup does: the
// ref it had before a move, and the provisional ref it had before the
// remote Pad numbered it.
func TestOldAndProvisionalRefsFindTheItem(t *testing.T) {
	f := newFixture(t)
	a := f.create("tasks", "Moved away", "", nil)
	oldRef := a.Ref
	if _, err := f.store.MoveItem(f.ws.Slug, a.Ref, storage.MoveInput{Target: "ideas", Fields: map[string]any{"status": "new"}}, user); err != nil {
		t.Fatal(err)
	}
	wantHits(t, "old ref after a move", f.search(oldRef), a.ID)

	if err := syncstate.Of(f.store).LinkSync(f.ws.Slug, storage.RemoteLink{BaseURL: "http://127.0.0.1:1", RemoteSlug: "team", TokenName: "team"}); err != nil {
		t.Fatal(err)
	}
	b := f.create("tasks", "Made offline", "", nil)
	if !strings.Contains(b.Ref, "-L") {
		t.Fatalf("an item made in a linked workspace is %s, not provisional", b.Ref)
	}
	wantHits(t, "provisional ref", f.search(b.Ref), b.ID)
	wantHits(t, "provisional ref, any case", f.search(strings.ToLower(b.Ref)), b.ID)
	if _, err := f.store.AdoptRemoteRef(f.ws.Slug, b.ID, 41); err != nil {
		t.Fatal(err)
	}
	wantHits(t, "provisional ref after adoption", f.search(b.Ref), b.ID)
	wantHits(t, "the remote's ref", f.search("TASK-41"), b.ID)
}

// The query forms Pad's users type (its search runs on SQLite FTS5):
// title: keeps a word to the title, NOT and AND are operators, and what
// the language does not have (OR, an unknown name:value, a query with no
// word) is refused with a reason rather than answered with every item.
func TestPadQuerySyntax(t *testing.T) {
	f := newFixture(t)
	login := f.create("tasks", "Fix login", "", nil)
	page := f.create("tasks", "Landing page", "The login page redirects.", nil)
	other := f.create("tasks", "Other", "Nothing here.", nil)

	wantHits(t, "title:", f.search("title:login"), login.ID)
	wantHits(t, "title phrase", f.search(`title:"fix login"`), login.ID)
	wantHits(t, "title phrase order", f.search(`title:"login fix"`))
	wantHits(t, "NOT", f.search("login NOT redirects"), login.ID)
	wantHits(t, "AND", f.search("login AND redirects"), page.ID)
	wantHits(t, "time with a colon", f.search("10:30"))
	wantHits(t, "exclusion only", f.search("-login"), other.ID)

	for q, reason := range map[string]string{
		"(": "no_words", `"`: "no_words", `\`: "no_words", "~": "no_words", "-": "no_words", "+": "no_words",
		"%": "no_words", "'": "no_words", "NOT": "no_words", "AND": "no_words", "the": "no_words",
		"foo:bar": "unknown_filter", "content:login": "unknown_filter", "login OR page": "unsupported_operator",
	} {
		f.caughtUp(f.ws.ID)
		_, err := f.idx.Search(testwait.Context(t), Request{Query: q, Workspaces: []string{f.ws.ID}, Limit: 20})
		e, ok := model.AsError(err)
		if !ok || e.Code != model.CodeValidation || e.Details["reason"] != reason {
			t.Errorf("%q: got %v, want a validation_error with reason %s", q, err, reason)
		}
	}
}

// A query with no plausible word is not turned into noise by the typo
// retry.
func TestTypoRetryNeedsAWord(t *testing.T) {
	f := newFixture(t)
	f.create("tasks", "X", "lorem", nil)
	f.create("tasks", "X", "", nil)
	r := f.search("/lo.*n/")
	if len(r.Hits) != 0 {
		t.Fatalf("/lo.*n/ found %v (fuzzy %v)", ids(r), r.Fuzzy)
	}
}

// A bare number finds the item of that number first, whatever its
// collection, as its ref would (pad-inventory SRC-01: refs and numbers
// are looked up exactly), beside the items whose text holds it; with
// another word, each must still match.
func TestBareNumberFindsTheItemNumbered(t *testing.T) {
	f := newFixture(t)
	for i := range 3 {
		f.create("tasks", fmt.Sprintf("Task %c", 'a'+i), "", nil)
	}
	idea := f.create("ideas", "An idea", "nothing numeric", nil)
	text := f.create("tasks", "Costs", "we spent 4 days on the cache", nil)
	if idea.Ref != "IDEA-4" {
		t.Fatalf("the idea is %s: numbers are not the workspace's any more", idea.Ref)
	}
	wantHits(t, "4", f.search("4"), idea.ID, text.ID)
	wantHits(t, "4 cache", f.search("4 cache"), text.ID)
	wantHits(t, "004 is text only", f.search("004"))
	wantHits(t, "99 has no item", f.search("99"))
}
