package storage

import (
	"encoding/binary"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/padd/padd/api"
	"github.com/padd/padd/model"
	"github.com/padd/padd/storage/internal/records"
)

func activate(t testing.TB, s *Store, ws, title string) *ActivateResult {
	t.Helper()
	r, err := s.ActivateLibrary(ws, LibraryActivate{Title: title}, user)
	if err != nil {
		t.Fatalf("activate %q: %v", title, err)
	}
	return r
}

func TestActivateConvention(t *testing.T) {
	s, _ := openTest(t)
	ws := mustWorkspace(t, s, "Lib").Slug
	r := activate(t, s, ws, "Commit messages say what and why")
	it := r.Item
	if it.Collection.Slug != "conventions" || !strings.HasPrefix(it.Ref, "CONVE-") || it.Content == "" {
		t.Fatalf("activated into %s as %s", it.Collection.Slug, it.Ref)
	}
	want := map[string]any{"status": "active", "trigger": "on-commit", "scope": "all", "priority": "should",
		model.FieldConvention: map[string]any{"category": "git", "trigger": "on-commit", "surfaces": []any{"all"},
			"enforcement": "should", "commands": []any{`git commit -m "<type>(<area>): <what changed>" -m "<why>; refs <ITEM-REF>"`}}}
	got, err := rd(s).GetItem(ws, it.Ref)
	if err != nil {
		t.Fatal(err)
	}
	if !model.EqualJSON(got.Fields, want) {
		t.Fatalf("fields %#v\nwant %#v", got.Fields, want)
	}
	if !r.Warnings.Empty() || r.OptionsAdded != nil {
		t.Fatalf("unexpected warnings %+v %v", r.Warnings, r.OptionsAdded)
	}
	key, hash, ok, err := s.builtinOrigin(ws, it.Ref)
	if err != nil || !ok || key != "convention/commit-messages-say-why" || hash != r.Entry.Hash() {
		t.Fatalf("origin %q %q %v %v", key, hash, ok, err)
	}
	// Activating twice is allowed for a convention: two items.
	if again := activate(t, s, ws, "Commit messages say what and why"); again.Item.ID == it.ID {
		t.Fatal("second activation returned the first item")
	}
	if _, _, ok, _ := s.builtinOrigin(ws, mustCreate(t, s, ws, "tasks", "plain", nil).Ref); ok {
		t.Fatal("a plain item has an origin")
	}
}

func TestActivatePlaybookTwiceRefusedByInvocationSlug(t *testing.T) {
	s, _ := openTest(t)
	ws := mustWorkspace(t, s, "Lib").Slug
	r, err := s.ActivateLibrary(ws, LibraryActivate{Key: "playbook/ship"}, user)
	if err != nil {
		t.Fatal(err)
	}
	if r.Item.Collection.Slug != "playbooks" || r.Item.Fields["invocation_slug"] != "ship" {
		t.Fatalf("activated %+v", r.Item.Fields)
	}
	if _, ok := r.Item.Fields[model.FieldConvention]; ok {
		t.Fatal("a playbook got convention metadata")
	}
	_, err = s.ActivateLibrary(ws, LibraryActivate{Key: "playbook/ship"}, user)
	wantCode(t, err, model.CodeConflict)
}

func TestActivateUnknown(t *testing.T) {
	s, _ := openTest(t)
	ws := mustWorkspace(t, s, "Lib").Slug
	_, err := s.ActivateLibrary(ws, LibraryActivate{Title: "Write Haiku"}, user)
	e := wantCode(t, err, model.CodeNotFound)
	if e.Message != "not found in convention or playbook library: Write Haiku" || api.StatusOf(e.Code) != 404 {
		t.Fatalf("message %q", e.Message)
	}
}

// The destination is the collection holding the entry's kind, found by
// its schema: with the template's conventions collection archived, a
// custom one shaped like it receives the activation; with none, 404.
func TestActivateDestinationByKind(t *testing.T) {
	s, _ := openTest(t)
	ws := mustWorkspace(t, s, "Lib").Slug
	if err := s.ArchiveCollection(ws, "conventions", user); err != nil {
		t.Fatal(err)
	}
	_, err := s.ActivateLibrary(ws, LibraryActivate{Title: "Ask before destructive operations"}, user)
	if e := wantCode(t, err, model.CodeNotFound); e.Details["kind"] != model.KindConvention {
		t.Fatalf("details %v", e.Details)
	}
	tmpl, _ := model.TemplateByName("startup")
	var schema model.Schema
	for _, c := range tmpl.Collections {
		if c.Slug == "conventions" {
			schema = c.Schema
		}
	}
	if _, err := s.CreateCollection(ws, CollectionCreate{Name: "House rules", Schema: &schema}, user); err != nil {
		t.Fatal(err)
	}
	r := activate(t, s, ws, "Ask before destructive operations")
	if r.Item.Collection.Slug != "house-rules" {
		t.Fatalf("landed in %s", r.Item.Collection.Slug)
	}
}

// A blank workspace's selects list only "always"/"all" and "manual":
// activation adds the entry's word to the options and says so.
func TestActivateWidensLibraryOptions(t *testing.T) {
	s, _ := openTest(t)
	w, err := s.CreateWorkspace(WorkspaceCreate{Name: "Blank", Template: "blank"}, user)
	if err != nil {
		t.Fatal(err)
	}
	r := activate(t, s, w.Slug, "Tests pass before work is marked done")
	if !reflect.DeepEqual(r.OptionsAdded, map[string][]string{"trigger": {"on-task-complete"}}) {
		t.Fatalf("options added %v", r.OptionsAdded)
	}
	c, err := rd(s).GetCollection(w.Slug, "conventions")
	if err != nil {
		t.Fatal(err)
	}
	if f, _ := c.Schema.Field("trigger"); !f.HasOption("on-task-complete") || !f.HasOption("always") {
		t.Fatalf("trigger options %v", f.Options)
	}
	pb := activate(t, s, w.Slug, "Cut a release")
	if !reflect.DeepEqual(pb.OptionsAdded, map[string][]string{"trigger": {"on-release"}}) {
		t.Fatalf("playbook options added %v", pb.OptionsAdded)
	}
}

func TestActivateIdempotent(t *testing.T) {
	s, _ := openTest(t)
	ws := mustWorkspace(t, s, "Lib").Slug
	in := LibraryActivate{Key: "playbook/plan", Idem: NewIdem("k1", "activate", "playbook/plan")}
	a, err := s.ActivateLibrary(ws, in, user)
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.ActivateLibrary(ws, in, user)
	if err != nil || !b.Replayed || b.Item.ID != a.Item.ID {
		t.Fatalf("replay: %+v %v", b, err)
	}
}

// ITM-16: the reserved convention copy follows trigger, scope and
// priority through the ordinary update path.
func TestConventionCopyFollowsUpdates(t *testing.T) {
	s, _ := openTest(t)
	ws := mustWorkspace(t, s, "Lib").Slug
	ref := activate(t, s, ws, "Keep changes small and reviewable").Item.Ref
	conv := func() map[string]any {
		v, err := rd(s).GetItem(ws, ref)
		if err != nil {
			t.Fatal(err)
		}
		return v.Fields[model.FieldConvention].(map[string]any)
	}
	steps := []struct {
		patch map[string]any
		key   string
		want  any
	}{
		{map[string]any{"trigger": "on-commit"}, "trigger", "on-commit"},
		{map[string]any{"scope": "backend"}, "surfaces", []any{"backend"}},
		{map[string]any{"priority": "must"}, "enforcement", "must"},
		{map[string]any{"status": "draft"}, "enforcement", "must"}, // unrelated: untouched
	}
	for _, st := range steps {
		if _, err := s.UpdateItem(ws, ref, ItemUpdate{FieldsPatch: st.patch}, user); err != nil {
			t.Fatal(err)
		}
		if got := conv(); !model.EqualJSON(got[st.key], st.want) || got["category"] != "git" {
			t.Fatalf("after %v: copy %v", st.patch, got)
		}
	}
	// A task with no copy is left alone by the same keys.
	task := mustCreate(t, s, ws, "tasks", "t", nil)
	r, err := s.UpdateItem(ws, task.Ref, ItemUpdate{FieldsPatch: map[string]any{"priority": "high"}}, user)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := r.Item.Fields[model.FieldConvention]; ok {
		t.Fatal("a task grew a convention copy")
	}
}

// Migration 1 -> 2 gives existing workspaces the new buckets.
func TestMigrationAddsWorkspaceBuckets(t *testing.T) {
	path := filepath.Join(t.TempDir(), "padd.db")
	s, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	w, err := s.CreateWorkspace(WorkspaceCreate{Name: "Old"}, user)
	if err != nil {
		t.Fatal(err)
	}
	// Make it look like a layout-1 file.
	err = s.base.Update(func(tx *records.Txn) error {
		root := tx.Bucket(records.BWS).Bucket(records.MustID(w.ID))
		for _, name := range [][]byte{records.BPatches, records.BOrigins} {
			if err := root.DeleteBucket(name); err != nil {
				return err
			}
		}
		v := make([]byte, 8)
		binary.BigEndian.PutUint64(v, 1)
		return tx.Bucket(records.BMeta).Put(kSchemaVersion, v)
	})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	s, err = Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	err = s.base.View(func(tx *records.Txn) error {
		root := tx.Bucket(records.BWS).Bucket(records.MustID(w.ID))
		if root.Bucket(records.BPatches) == nil || root.Bucket(records.BOrigins) == nil {
			t.Fatal("buckets not created by the migration")
		}
		if v := tx.Bucket(records.BMeta).Get(kSchemaVersion); binary.BigEndian.Uint64(v) != SchemaVersion {
			t.Fatalf("schema version %d", binary.BigEndian.Uint64(v))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	activate(t, s, w.Slug, "Never put secrets in code or items")
}
