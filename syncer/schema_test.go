package syncer_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/padd/padd/api"
	"github.com/padd/padd/internal/testremote"
	"github.com/padd/padd/internal/testwait"
	"github.com/padd/padd/model"
	"github.com/padd/padd/storage"
	"github.com/padd/padd/storage/views"
)

// Schema edits against the Pad of August 2026, which reads a
// collection's schema only as JSON text and guards a collection PATCH
// with expected_updated_at (docs/SYNC.md).

// statusOptions is the options of the status field of a schema.
func statusOptions(t *testing.T, s model.Schema) []string {
	t.Helper()
	f, ok := s.Field("status")
	if !ok {
		t.Fatalf("no status field in %+v", s)
	}
	return f.Options
}

func withOption(t *testing.T, s model.Schema, opt string) model.Schema {
	t.Helper()
	out := model.Schema{Fields: slices.Clone(s.Fields)}
	for i := range out.Fields {
		if out.Fields[i].Key == "status" {
			out.Fields[i].Options = append(slices.Clone(out.Fields[i].Options), opt)
			return out
		}
	}
	t.Fatalf("no status field in %+v", s)
	return out
}

func (l *local) tasksSchema(t *testing.T) model.Schema {
	t.Helper()
	c, err := views.Of(l.Store).GetCollection("team", "tasks")
	if err != nil {
		t.Fatal(err)
	}
	return c.Schema
}

// addOption adds an option to the tasks' status here, as a user does.
func (l *local) addOption(t *testing.T, opt string) {
	t.Helper()
	s := withOption(t, l.tasksSchema(t), opt)
	if _, _, err := l.Store.UpdateCollection("team", "tasks", storage.CollectionUpdate{Schema: &s}, user); err != nil {
		t.Fatal(err)
	}
}

// remoteTasks reads the remote's tasks collection (padd itself, behind
// the proxy) and its schema.
func remoteTasks(t *testing.T, r *testremote.Remote) (*api.Collection, model.Schema) {
	t.Helper()
	c, err := r.API().GetCollection(context.Background(), "team", "tasks")
	if err != nil {
		t.Fatal(err)
	}
	var s model.Schema
	if err := json.Unmarshal([]byte(c.Schema), &s); err != nil {
		t.Fatalf("the remote's schema %q: %v", c.Schema, err)
	}
	return c, s
}

// addRemoteOption adds an option to the remote's tasks' status, as a
// teammate does.
func addRemoteOption(t *testing.T, r *testremote.Remote, opt string) {
	t.Helper()
	if err := addRemoteOptionErr(r, opt); err != nil {
		t.Fatal(err)
	}
}

// addRemoteOptionErr is addRemoteOption for a goroutine not the test's.
func addRemoteOptionErr(r *testremote.Remote, opt string) error {
	ctx := context.Background()
	c, err := r.API().GetCollection(ctx, "team", "tasks")
	if err != nil {
		return err
	}
	var s model.Schema
	if err := json.Unmarshal([]byte(c.Schema), &s); err != nil {
		return err
	}
	for i := range s.Fields {
		if s.Fields[i].Key == "status" {
			s.Fields[i].Options = append(s.Fields[i].Options, opt)
		}
	}
	_, err = r.API().UpdateCollection(ctx, "team", "tasks", api.CollectionUpdate{Schema: api.FlexOf(s)})
	return err
}

// bothHave waits until padd's and the remote's status options are equal
// and hold every one of opts.
func bothHave(t *testing.T, l *local, r *testremote.Remote, opts ...string) []string {
	t.Helper()
	var got []string
	testwait.UntilOK(t, func() error {
		_, rs := remoteTasks(t, r)
		lo, ro := statusOptions(t, l.tasksSchema(t)), statusOptions(t, rs)
		if !slices.Equal(lo, ro) {
			return fmt.Errorf("status options differ: padd %q, remote %q", lo, ro)
		}
		for _, o := range opts {
			if !slices.Contains(lo, o) {
				return fmt.Errorf("status options %q lack %q", lo, o)
			}
		}
		got = lo
		return nil
	})
	return got
}

func (l *local) setAside(t *testing.T) []api.SyncConflict {
	t.Helper()
	cs, err := l.M.Conflicts("team", false)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

// An option added here, online, with nothing to merge, reaches the
// remote (it used to be refused with 400: the schema went as an object).
func TestSchemaOptionReachesRemote(t *testing.T) {
	r := testremote.Start(t, testremote.Options{Aug2026: true})
	l := cloned(t, r)
	l.addOption(t, "blocked")
	bothHave(t, l, r, "blocked")
	l.synced(t, "team")
	if cs := l.setAside(t); len(cs) != 0 {
		t.Errorf("conflicts or set-aside changes: %+v", cs)
	}
}

// Each side adds a different option while padd is offline: both survive,
// on both sides, and nothing is set aside.
func TestSchemaOptionsMergeOffline(t *testing.T) {
	r := testremote.Start(t, testremote.Options{Aug2026: true})
	l := cloned(t, r)
	if _, err := l.M.Pause("team"); err != nil {
		t.Fatal(err)
	}
	l.addOption(t, "blocked")
	addRemoteOption(t, r, "review")
	if _, err := l.M.Resume("team"); err != nil {
		t.Fatal(err)
	}
	got := bothHave(t, l, r, "blocked", "review")
	if want := []string{"open", "in-progress", "done", "cancelled", "review", "blocked"}; !slices.Equal(got, want) {
		t.Errorf("status options %q, want %q", got, want)
	}
	l.synced(t, "team")
	if cs := l.setAside(t); len(cs) != 0 {
		t.Errorf("conflicts or set-aside changes: %+v", cs)
	}
}

// A teammate adds an option between padd's read of the collection and
// its PATCH: the guard refuses the PATCH (409), padd reads again and
// merges, and both options survive.
func TestSchemaPushIsGuarded(t *testing.T) {
	r := testremote.Start(t, testremote.Options{Aug2026: true})
	l := cloned(t, r)
	before, _ := remoteTasks(t, r)
	var fired atomic.Bool
	r.SetFault(func(req *http.Request) testremote.Fault {
		if req.Method != http.MethodPatch || !strings.HasSuffix(req.URL.Path, "/collections/tasks") || !fired.CompareAndSwap(false, true) {
			return testremote.Fault{}
		}
		// padd (as the remote) keeps collection times to the second:
		// the teammate writes in a later second than padd read.
		for !time.Now().Truncate(time.Second).After(before.UpdatedAt) {
			time.Sleep(10 * time.Millisecond)
		}
		if err := addRemoteOptionErr(r, "concurrent"); err != nil {
			t.Errorf("the teammate's edit: %v", err)
		}
		return testremote.Fault{}
	})
	l.addOption(t, "blocked")
	bothHave(t, l, r, "blocked", "concurrent")
	l.synced(t, "team")
	if n := r.Stats().Requests["PATCH /api/v1/workspaces/{ws}/collections/{coll}"]; n != 2 {
		t.Errorf("%d collection PATCHes, want 2 (the one the guard refused, then the merged one)", n)
	}
	if cs := l.setAside(t); len(cs) != 0 {
		t.Errorf("conflicts or set-aside changes: %+v", cs)
	}
}

// A schema change the remote refuses is kept whole: padd keeps its
// schema (no rollback), a set-aside record holds padd's whole collection
// and says why, and the next edit sends it all again.
func TestSchemaRefusedKeptWhole(t *testing.T) {
	r := testremote.Start(t, testremote.Options{Aug2026: true})
	l := cloned(t, r)
	r.SetFault(testremote.Once(func(req *http.Request) bool {
		return req.Method == http.MethodPatch && strings.HasSuffix(req.URL.Path, "/collections/tasks")
	}, testremote.Fault{Kind: testremote.Answer, Status: http.StatusBadRequest}))
	l.addOption(t, "blocked")
	var rec api.SyncConflict
	testwait.UntilOK(t, func() error {
		for _, c := range l.setAside(t) {
			if c.Kind == "set_aside" && c.Part == "collection:tasks" {
				rec = c
				return nil
			}
		}
		return fmt.Errorf("no set-aside record of the collection yet: %+v", l.setAside(t))
	})
	l.synced(t, "team")
	if !strings.Contains(rec.Reason, "refused") {
		t.Errorf("the record's reason %q does not say the remote refused it", rec.Reason)
	}
	var kept struct {
		Schema model.Schema `json:"schema"`
	}
	if err := json.Unmarshal(rec.Local, &kept); err != nil {
		t.Fatalf("the record's local value %s: %v", rec.Local, err)
	}
	mine := l.tasksSchema(t)
	if !slices.Contains(statusOptions(t, mine), "blocked") {
		t.Errorf("padd's schema lost the refused option: %q", statusOptions(t, mine))
	}
	if a, b := mustJSON(t, kept.Schema), mustJSON(t, mine); a != b {
		t.Errorf("the record keeps\n%s\nwant padd's whole schema\n%s", a, b)
	}
	if _, rs := remoteTasks(t, r); slices.Contains(statusOptions(t, rs), "blocked") {
		t.Fatalf("the refused option reached the remote: %q", statusOptions(t, rs))
	}

	// The user applies it again with the next edit: all of it goes.
	l.addOption(t, "waiting")
	bothHave(t, l, r, "blocked", "waiting")
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
