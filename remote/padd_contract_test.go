package remote_test

// The contract between remote.Client and a Pad server, checked against a
// real padd: the sync engine's CI remote is a second padd, so every call
// of the client must work against one exactly as it does against Pad
// (the seeds in ../shared/seeds and the inventory are the contract).
// padd runs in this process (daemon.Run on a temp dir, loopback HTTP),
// so a data race on either side fails the test under -race.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/padd/padd/api"
	"github.com/padd/padd/daemon"
	"github.com/padd/padd/internal/launch"
	"github.com/padd/padd/internal/testwait"
	"github.com/padd/padd/remote"
)

// paddRemote is one padd serving on loopback for the test.
type paddRemote struct {
	url   string
	token string
	api   *api.Client // straight to padd, for setting up and reading back
}

// lockedBuffer is padd's log, printed when the test fails.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// startPadd runs padd on a temp data directory and a free loopback port
// until the test ends, with one workspace "w" from the default template.
func startPadd(t *testing.T) *paddRemote {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	logs := &lockedBuffer{}
	log := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelWarn}))
	ctx, stop := context.WithCancel(context.Background())
	ready := make(chan *launch.Info, 1)
	ran := make(chan error, 1)
	dir := t.TempDir() // before the cleanup that stops padd, so removed after it
	go func() {
		ran <- daemon.Run(ctx, daemon.Config{DataDir: dir, Port: port, Log: log,
			Ready: func(i *launch.Info) { ready <- i }})
	}()
	t.Cleanup(func() {
		stop()
		if err := testwait.Recv(t, "padd to stop", ran); err != nil {
			t.Errorf("padd: %v", err)
		}
		if t.Failed() {
			t.Logf("padd's log:\n%s", logs.String())
		}
	})
	var info *launch.Info
	select {
	case info = <-ready:
	case err := <-ran:
		t.Fatalf("padd ended before serving: %v", err)
	case <-testwait.Context(t).Done():
		t.Fatal("padd did not start serving")
	}
	p := &paddRemote{url: fmt.Sprintf("http://127.0.0.1:%d", info.Port), token: info.Token}
	p.api = api.NewClient(p.url, p.token)
	if _, err := p.api.Do(context.Background(), "POST", "/workspaces", nil, map[string]any{"name": "Work", "slug": "w"}, nil); err != nil {
		t.Fatal(err)
	}
	return p
}

func newClient(t *testing.T, p *paddRemote, token string) *remote.Client {
	t.Helper()
	// Pad's pacing would only make the test slower; the calls are the
	// contract.
	c, err := remote.New(p.url, token, remote.Options{Limits: remote.Limits{General: 1000, GeneralBurst: 100, Search: 100, SearchBurst: 10}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// fieldsOf decodes an item's fields (JSON text on the wire).
func fieldsOf(t *testing.T, it *api.Item) map[string]any {
	t.Helper()
	m := map[string]any{}
	if it.Fields != "" {
		if err := json.Unmarshal([]byte(it.Fields), &m); err != nil {
			t.Fatalf("%s: fields %q: %v", it.Ref, it.Fields, err)
		}
	}
	return m
}

func flex(v any) api.Flex {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return api.Flex(b)
}

// kindOf is the remote.Kind of err (0 for nil or a foreign error).
func kindOf(err error) remote.Kind {
	var e *remote.Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return 0
}

func TestPaddServesTheRemoteClientContract(t *testing.T) {
	p := startPadd(t)
	c := newClient(t, p, p.token)
	const ws = "w"

	t.Run("Probe", func(t *testing.T) {
		ctx := testwait.Context(t)
		// Probe sends no token: /server/capabilities answers without one,
		// as Pad's does.
		caps, err := c.Probe(ctx)
		if err != nil {
			t.Fatalf("Probe: %v", err)
		}
		if caps.Version != api.Version || len(caps.Health) == 0 || len(caps.Raw) == 0 {
			t.Errorf("Probe = version %q, health %s, raw %s", caps.Version, caps.Health, caps.Raw)
		}
		for _, name := range []string{"idempotency_keys", "expected_seq", "changes_paged", "item_patch"} {
			if !caps.Has(name) {
				t.Errorf("padd does not advertise %s (names %v)", name, caps.Names)
			}
		}
		if !caps.OpKeys || !caps.ExpectedSeq || !caps.ChangesPaged {
			t.Errorf("capabilities = op keys %v, expected_seq %v, changes paged %v; want all", caps.OpKeys, caps.ExpectedSeq, caps.ChangesPaged)
		}
		if c.Capabilities() != caps {
			t.Error("Capabilities() is not what Probe found")
		}
		// A wrong token probes too (nothing there needs it) and is refused
		// by the first call that does.
		bad := newClient(t, p, "padd_wrong_token_0123456789abcdef0123456789abcdef")
		if _, err := bad.Probe(ctx); err != nil {
			t.Errorf("Probe with a wrong token: %v", err)
		}
		if _, err := bad.ListWorkspaces(ctx); !remote.IsTokenRefused(err) {
			t.Errorf("ListWorkspaces with a wrong token = %v, want token refused", err)
		}
	})

	if caps := c.Capabilities(); !caps.OpKeys || !caps.ExpectedSeq {
		t.Fatal("the probe found no keys or seq guard: the rest would check the careful client's fallbacks, not padd")
	}

	t.Run("Workspaces", func(t *testing.T) {
		ctx := testwait.Context(t)
		list, err := c.ListWorkspaces(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.ContainsFunc(list, func(w api.Workspace) bool { return w.Slug == ws }) {
			t.Errorf("ListWorkspaces = %+v, want w among them", list)
		}
		got, err := c.GetWorkspace(ctx, ws)
		if err != nil || got.Slug != ws || got.ID == "" {
			t.Fatalf("GetWorkspace = %+v, %v", got, err)
		}
		byID, err := c.GetWorkspace(ctx, got.ID)
		if err != nil || byID.Slug != ws {
			t.Errorf("GetWorkspace by id = %+v, %v", byID, err)
		}
		if _, err := c.GetWorkspace(ctx, "nowhere"); !remote.IsWorkspaceGone(err) {
			t.Errorf("GetWorkspace(nowhere) = %v, want workspace gone", err)
		}
		if _, err := c.GetItem(ctx, "nowhere", "TASK-1"); !remote.IsWorkspaceGone(err) {
			t.Errorf("GetItem in a missing workspace = %v, want workspace gone", err)
		}
		if _, err := c.GetItem(ctx, ws, "TASK-999"); !remote.IsNotFound(err) || remote.IsWorkspaceGone(err) {
			t.Errorf("GetItem(TASK-999) = %v, want not found, not workspace gone", err)
		}
	})

	t.Run("Collections", func(t *testing.T) {
		ctx := testwait.Context(t)
		list, err := c.ListCollections(ctx, ws)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.ContainsFunc(list, func(c api.Collection) bool { return c.Slug == "tasks" && c.Schema != "" }) {
			t.Fatalf("ListCollections has no tasks with a schema: %+v", list)
		}
		schema := map[string]any{"fields": []any{
			map[string]any{"key": "status", "label": "Status", "type": "select", "options": []string{"open", "fixed"}, "default": "open"},
		}}
		bugs, err := c.CreateCollection(ctx, ws, api.CollectionCreate{Name: "Bugs", Slug: "bugs", Prefix: "BUG", Schema: flex(schema)})
		if err != nil {
			t.Fatal(err)
		}
		if bugs.Slug != "bugs" || bugs.Prefix != "BUG" || bugs.UpdatedAt.IsZero() {
			t.Errorf("CreateCollection = %+v", bugs)
		}
		// A taken slug is never answered with the collection that holds it:
		// padd gives the new one another slug (as Pad does a workspace's),
		// so a create retried blind makes a second collection.
		if dup, err := c.CreateCollection(ctx, ws, api.CollectionCreate{Name: "Bugs", Slug: "bugs"}); err == nil && (dup.ID == bugs.ID || dup.Slug == "bugs") {
			t.Errorf("a second collection with the slug bugs = %+v", dup)
		} else if err == nil {
			t.Logf("a second create with the slug bugs made %s", dup.Slug)
		}
		desc := "Things that broke"
		stale := bugs.UpdatedAt.Add(-time.Hour)
		_, err = c.UpdateCollection(ctx, ws, "bugs", api.CollectionUpdate{Description: &desc}, stale)
		if cf, ok := remote.AsConflict(err); !ok || cf.ActualUpdatedAt == "" {
			t.Errorf("UpdateCollection on a stale base = %v, want a conflict saying the actual updated_at", err)
		}
		up, err := c.UpdateCollection(ctx, ws, "bugs", api.CollectionUpdate{Description: &desc}, bugs.UpdatedAt)
		if err != nil || up.Description != desc {
			t.Errorf("UpdateCollection on the current base = %+v, %v", up, err)
		}
		name := "Defects"
		if up, err := c.UpdateCollection(ctx, ws, "bugs", api.CollectionUpdate{Name: &name}, time.Time{}); err != nil || up.Name != name {
			t.Errorf("UpdateCollection with no base = %+v, %v", up, err)
		}
	})

	var first *api.Item // TASK-n made by CreateItem with a key
	t.Run("CreateItem", func(t *testing.T) {
		ctx := testwait.Context(t)
		in := api.ItemCreate{Title: "Keyed", Content: "zebra body\n", Fields: flex(map[string]any{"priority": "high"}), Tags: flex([]string{"a"})}
		it, err := c.CreateItem(ctx, ws, "tasks", in, "padd-test-1")
		if err != nil {
			t.Fatal(err)
		}
		if it.ItemNumber == nil || *it.ItemNumber < 1 || it.Ref != fmt.Sprintf("TASK-%d", *it.ItemNumber) || it.Seq < 1 || it.UpdatedAt.IsZero() || it.ID == "" {
			t.Errorf("a create's answer lacks item_number, ref, seq or updated_at: %+v", it)
		}
		again, err := c.CreateItem(ctx, ws, "tasks", in, "padd-test-1")
		if err != nil {
			t.Fatalf("the retry with the same key: %v", err)
		}
		if again.ID != it.ID || again.Ref != it.Ref || again.Seq != it.Seq {
			t.Errorf("the retry with the same key answered %s (%s seq %d), not the first item %s (%s seq %d)",
				again.ID, again.Ref, again.Seq, it.ID, it.Ref, it.Seq)
		}
		items, _, err := c.ListItems(ctx, ws, "tasks", 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		if n := len(slices.DeleteFunc(items, func(i api.Item) bool { return i.Title != "Keyed" })); n != 1 {
			t.Errorf("%d items titled Keyed after a create and its retry, want 1", n)
		}
		// The same key on another body is not the same request.
		other := in
		other.Title = "Other"
		if _, err := c.CreateItem(ctx, ws, "tasks", other, "padd-test-1"); !remote.IsRefused(err) {
			t.Errorf("the key reused on another body = %v, want refused", err)
		}
		plain, err := c.CreateItem(ctx, ws, "tasks", api.ItemCreate{Title: "Unkeyed"}, "")
		if err != nil || plain.ID == it.ID || plain.Ref == "" {
			t.Errorf("CreateItem without a key = %+v, %v", plain, err)
		}
		first = it
	})
	if first == nil {
		t.FailNow()
	}

	t.Run("GetItem", func(t *testing.T) {
		ctx := testwait.Context(t)
		byRef, err := c.GetItem(ctx, ws, first.Ref)
		if err != nil || byRef.ID != first.ID || byRef.Content != "zebra body\n" {
			t.Fatalf("GetItem(%s) = %+v, %v", first.Ref, byRef, err)
		}
		byID, err := c.GetItem(ctx, ws, first.ID)
		if err != nil || byID.Ref != first.Ref {
			t.Errorf("GetItem by id = %+v, %v", byID, err)
		}
		lower, err := c.GetItem(ctx, ws, strings.ToLower(first.Ref))
		if err != nil || lower.ID != first.ID {
			t.Errorf("GetItem(%s) = %+v, %v", strings.ToLower(first.Ref), lower, err)
		}
	})

	t.Run("UpdateItem", func(t *testing.T) {
		ctx := testwait.Context(t)
		cur, err := c.GetItem(ctx, ws, first.Ref)
		if err != nil {
			t.Fatal(err)
		}
		title := "Keyed, renamed"
		up, err := c.UpdateItem(ctx, ws, first.Ref, api.ItemUpdate{Title: &title}, remote.Base{Seq: cur.Seq, UpdatedAt: cur.UpdatedAt})
		if err != nil {
			t.Fatalf("UpdateItem on the current seq: %v", err)
		}
		if up.Title != title || up.Seq <= cur.Seq || up.UpdatedAt.IsZero() {
			t.Errorf("UpdateItem answered title %q seq %d (was %d)", up.Title, up.Seq, cur.Seq)
		}
		// The base is stale now: the seq guard refuses it, even within the
		// second (expected_updated_at alone would let it through).
		title2 := "lost update"
		_, err = c.UpdateItem(ctx, ws, first.Ref, api.ItemUpdate{Title: &title2}, remote.Base{Seq: cur.Seq, UpdatedAt: up.UpdatedAt})
		cf, ok := remote.AsConflict(err)
		if !ok {
			t.Fatalf("UpdateItem on a stale seq = %v, want a conflict", err)
		}
		if cf.ExpectedSeq != cur.Seq || cf.ActualSeq != up.Seq || cf.Ref == "" {
			t.Errorf("the conflict = %+v, want expected_seq %d and actual_seq %d", cf, cur.Seq, up.Seq)
		}
		if got, _ := c.GetItem(ctx, ws, first.Ref); got == nil || got.Title != title {
			t.Errorf("the refused update was written: %+v", got)
		}

		// A server without expected_seq gets expected_updated_at.
		caps := *c.Capabilities()
		noSeq := caps
		noSeq.ExpectedSeq = false
		c.SetCapabilities(&noSeq)
		title3 := "by updated_at"
		_, err = c.UpdateItem(ctx, ws, first.Ref, api.ItemUpdate{Title: &title3}, remote.Base{Seq: up.Seq, UpdatedAt: up.UpdatedAt.Add(-time.Hour)})
		if cf, ok := remote.AsConflict(err); !ok || cf.ActualUpdatedAt == "" {
			t.Errorf("UpdateItem on a stale updated_at = %v, want a conflict saying the actual updated_at", err)
		}
		up2, err := c.UpdateItem(ctx, ws, first.Ref, api.ItemUpdate{Title: &title3}, remote.Base{Seq: up.Seq, UpdatedAt: up.UpdatedAt})
		if err != nil || up2.Title != title3 {
			t.Errorf("UpdateItem on the current updated_at = %+v, %v", up2, err)
		}
		c.SetCapabilities(&caps)
	})

	t.Run("FieldsPatch", func(t *testing.T) {
		ctx := testwait.Context(t)
		cur, err := c.GetItem(ctx, ws, first.Ref)
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.UpdateItem(ctx, ws, first.Ref, api.ItemUpdate{FieldsPatch: flex(map[string]any{"effort": "s", "estimate": 3})}, remote.Base{Seq: cur.Seq})
		if err != nil {
			t.Fatal(err)
		}
		cur, err = c.GetItem(ctx, ws, first.Ref)
		if err != nil {
			t.Fatal(err)
		}
		before := fieldsOf(t, cur)
		up, err := c.UpdateItem(ctx, ws, first.Ref, api.ItemUpdate{FieldsPatch: flex(map[string]any{"priority": "low", "estimate": nil})}, remote.Base{Seq: cur.Seq})
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]any{}
		for k, v := range before {
			want[k] = v
		}
		want["priority"] = "low"
		delete(want, "estimate")
		for _, got := range []*api.Item{up, item(t)(c.GetItem(ctx, ws, first.Ref))} {
			if f := fieldsOf(t, got); !jsonEqual(f, want) {
				t.Errorf("after fields_patch {priority: low, estimate: null} on %v the fields are %v, want %v", before, f, want)
			}
		}
		if before["status"] != "open" || before["effort"] != "s" {
			t.Errorf("the fields before the patch = %v", before)
		}
	})

	t.Run("TagsAndParent", func(t *testing.T) {
		ctx := testwait.Context(t)
		plan := item(t)(c.CreateItem(ctx, ws, "plans", api.ItemCreate{Title: "The plan"}, ""))
		cur := item(t)(c.GetItem(ctx, ws, first.Ref))
		up, err := c.UpdateItem(ctx, ws, first.Ref, api.ItemUpdate{Tags: flex([]string{"b", "c"}), Parent: &plan.Ref}, remote.Base{Seq: cur.Seq})
		if err != nil {
			t.Fatal(err)
		}
		var tags []string
		if err := json.Unmarshal([]byte(up.Tags), &tags); err != nil || !slices.Equal(tags, []string{"b", "c"}) {
			t.Errorf("tags after sending [b c] over [a] = %q (%v)", up.Tags, err)
		}
		if up.ParentID == nil || *up.ParentID != plan.ID || up.ParentRef != plan.Ref {
			t.Errorf("parent after setting %s = %v %q", plan.Ref, up.ParentID, up.ParentRef)
		}
		up, err = c.UpdateItem(ctx, ws, first.Ref, api.ItemUpdate{ClearParent: true}, remote.Base{Seq: up.Seq})
		if err != nil || up.ParentID != nil && *up.ParentID != "" {
			t.Errorf("clear_parent = parent %v, %v", up.ParentID, err)
		}
	})

	t.Run("AppendToItem", func(t *testing.T) {
		ctx := testwait.Context(t)
		if !c.Capabilities().Has("item_field_append") {
			t.Fatalf("padd does not advertise item_field_append (names %v)", c.Capabilities().Names)
		}
		it := item(t)(c.CreateItem(ctx, ws, "tasks", api.ItemCreate{Title: "Noted"}, ""))
		note := api.ItemUpdate{AppendImplementationNote: &api.NoteEntry{Summary: "did it", Details: "so"}}
		up := item(t)(c.AppendToItem(ctx, ws, it.Ref, note, "padd-note-1", "robot"))
		again := item(t)(c.AppendToItem(ctx, ws, it.Ref, note, "padd-note-1", "robot"))
		item(t)(c.AppendToItem(ctx, ws, it.Ref, api.ItemUpdate{AppendDecision: &api.DecisionEntry{Decision: "keep"}}, "", ""))
		got := item(t)(c.GetItem(ctx, ws, it.Ref))
		fields, err := api.DecodeObject(got.Fields)
		if err != nil {
			t.Fatal(err)
		}
		notes, _ := fields["implementation_notes"].([]any)
		if len(notes) != 1 || again.Seq != up.Seq {
			t.Fatalf("a note appended twice under one key: notes %v, seq %d then %d", notes, up.Seq, again.Seq)
		}
		n := notes[0].(map[string]any)
		if n["summary"] != "did it" || n["details"] != "so" || n["created_by"] != "agent" || n["agent"] != "robot" || n["id"] == "" {
			t.Errorf("the note as padd keeps it: %v", n)
		}
		if d, _ := fields["decision_log"].([]any); len(d) != 1 {
			t.Errorf("decisions %v, want the one appended", d)
		}
	})

	t.Run("ArchiveRestoreMove", func(t *testing.T) {
		ctx := testwait.Context(t)
		it, err := c.CreateItem(ctx, ws, "tasks", api.ItemCreate{Title: "Moving"}, "padd-test-move")
		if err != nil {
			t.Fatal(err)
		}
		if err := c.ArchiveItem(ctx, ws, it.Ref); err != nil {
			t.Fatal(err)
		}
		arch, err := c.GetItem(ctx, ws, it.Ref)
		if err != nil || arch.DeletedAt == nil {
			t.Fatalf("GetItem of an archived item = %+v, %v; want it, with deleted_at", arch, err)
		}
		if arch.Seq <= it.Seq {
			t.Errorf("archiving left seq at %d (was %d)", arch.Seq, it.Seq)
		}
		back, err := c.RestoreItem(ctx, ws, it.Ref)
		if err != nil || back.DeletedAt != nil || back.ID != it.ID {
			t.Fatalf("RestoreItem = %+v, %v", back, err)
		}
		moved, err := c.MoveItem(ctx, ws, it.Ref, "bugs")
		if err != nil {
			t.Fatal(err)
		}
		if moved.ID != it.ID || !strings.HasPrefix(moved.Ref, "BUG-") || moved.CollectionSlug != "bugs" || moved.Seq <= back.Seq {
			t.Errorf("MoveItem = %s %s in %q seq %d", moved.ID, moved.Ref, moved.CollectionSlug, moved.Seq)
		}
		if old, err := c.GetItem(ctx, ws, it.Ref); err != nil || old.ID != it.ID {
			t.Errorf("the ref before the move, %s, = %+v, %v; want the moved item", it.Ref, old, err)
		}
		if _, err := c.MoveItem(ctx, ws, moved.Ref, "nowhere"); !remote.IsNotFound(err) || remote.IsWorkspaceGone(err) {
			t.Errorf("MoveItem to a missing collection = %v, want not found", err)
		}
	})

	t.Run("ListItems", func(t *testing.T) {
		ctx := testwait.Context(t)
		var made []string
		for i := range 5 {
			it, err := c.CreateItem(ctx, ws, "ideas", api.ItemCreate{Title: fmt.Sprintf("Idea %d", i), Content: fmt.Sprintf("idea %d\n", i)}, "")
			if err != nil {
				t.Fatal(err)
			}
			made = append(made, it.ID)
		}
		if err := c.ArchiveItem(ctx, ws, made[4]); err != nil {
			t.Fatal(err)
		}
		var seen []string
		pages := 0
		for offset := 0; ; {
			page, more, err := c.ListItems(ctx, ws, "ideas", 2, offset)
			if err != nil {
				t.Fatal(err)
			}
			pages++
			for _, it := range page {
				if it.Content == "" {
					t.Errorf("ListItems sent %s without its body", it.Ref)
				}
				seen = append(seen, it.ID)
			}
			offset += len(page)
			if !more {
				break
			}
			if len(page) == 0 || pages > 10 {
				t.Fatalf("ListItems says more after %d pages, the last with %d items", pages, len(page))
			}
		}
		slices.Sort(seen)
		want := slices.Sorted(slices.Values(made))
		if !slices.Equal(seen, want) {
			t.Errorf("ListItems paged by 2 gave %v, want the 5 ideas (the archived one too) %v", seen, want)
		}
		if pages != 3 {
			t.Errorf("5 items by 2 took %d pages, want 3 (X-Pad-Has-More false on the last)", pages)
		}
		// X-Pad-Has-More is what says so, not a full page.
		req, _ := http.NewRequestWithContext(ctx, "GET", p.url+"/api/v1/workspaces/w/collections/ideas/items?limit=5&offset=0&include_archived=true", nil)
		req.Header.Set("Authorization", "Bearer "+p.token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if h := resp.Header.Get("X-Pad-Has-More"); h != "false" {
			t.Errorf("a full last page says X-Pad-Has-More %q, want false", h)
		}
	})

	t.Run("Comments", func(t *testing.T) {
		ctx := testwait.Context(t)
		before := item(t)(c.GetItem(ctx, ws, first.Ref))
		head := ok[*remote.ItemsChanges](t)(c.ItemsChanges(ctx, ws, remote.Seq(before.Seq), 0)).Cursor
		cm, err := c.CreateComment(ctx, ws, first.Ref, "first comment", "padd-test-c1")
		if err != nil {
			t.Fatal(err)
		}
		if cm.ID == "" || cm.Body != "first comment" || cm.ItemID != first.ID || cm.CreatedAt.IsZero() {
			t.Errorf("CreateComment = %+v", cm)
		}
		again, err := c.CreateComment(ctx, ws, first.Ref, "first comment", "padd-test-c1")
		if err != nil || again.ID != cm.ID {
			t.Errorf("the comment's retry with the same key = %+v, %v; want the first comment %s", again, err, cm.ID)
		}
		after := item(t)(c.GetItem(ctx, ws, first.Ref))
		feed := ok[*remote.ItemsChanges](t)(c.ItemsChanges(ctx, ws, head, 0))
		t.Logf("a comment moves the item's seq from %d to %d and updated_at from %s to %s; items-changes after the head before it holds %d rows",
			before.Seq, after.Seq, before.UpdatedAt, after.UpdatedAt, len(feed.Changes))

		re, err := c.Reply(ctx, ws, cm.ID, "a reply", "padd-test-c2")
		if err != nil {
			t.Fatal(err)
		}
		if re.ParentID != cm.ID || re.ItemID != first.ID {
			t.Errorf("Reply = %+v, want parent %s on item %s", re, cm.ID, first.ID)
		}
		if again, err := c.Reply(ctx, ws, cm.ID, "a reply", "padd-test-c2"); err != nil || again.ID != re.ID {
			t.Errorf("the reply's retry with the same key = %+v, %v; want %s", again, err, re.ID)
		}
		if _, err := c.Reply(ctx, ws, "no-such-comment", "x", ""); !remote.IsNotFound(err) || remote.IsWorkspaceGone(err) {
			t.Errorf("Reply to a missing comment = %v, want not found", err)
		}
		plain, err := c.CreateComment(ctx, ws, first.Ref, "unkeyed", "")
		if err != nil {
			t.Fatal(err)
		}
		list, err := c.ListComments(ctx, ws, first.Ref)
		if err != nil {
			t.Fatal(err)
		}
		ids := func(l []api.Comment) (out []string) {
			for _, x := range l {
				out = append(out, x.ID)
			}
			return out
		}
		if got, want := ids(list), []string{cm.ID, re.ID, plain.ID}; !slices.Equal(got, want) {
			t.Errorf("ListComments = %v, want %v (oldest first, the reply included, each once)", got, want)
		}
		ed, err := c.EditComment(ctx, ws, cm.ID, "first comment, edited")
		if err != nil || ed.Body != "first comment, edited" || ed.ID != cm.ID {
			t.Errorf("EditComment = %+v, %v", ed, err)
		}
		// A comment with replies leaves a tombstone; its reply stays.
		if err := c.DeleteComment(ctx, ws, cm.ID); err != nil {
			t.Fatal(err)
		}
		if err := c.DeleteComment(ctx, ws, plain.ID); err != nil {
			t.Fatal(err)
		}
		list = ok[[]api.Comment](t)(c.ListComments(ctx, ws, first.Ref))
		if got, want := ids(list), []string{cm.ID, re.ID}; !slices.Equal(got, want) {
			t.Errorf("after the deletes ListComments = %v, want the tombstone and its reply %v", got, want)
		} else if !list[0].Deleted || list[0].Body != "" || list[1].Deleted {
			t.Errorf("the tombstone = %+v, the reply = %+v", list[0], list[1])
		}
		if err := c.DeleteComment(ctx, ws, plain.ID); !remote.IsNotFound(err) {
			t.Errorf("deleting a deleted comment = %v, want not found", err)
		}
	})

	t.Run("Links", func(t *testing.T) {
		ctx := testwait.Context(t)
		other, err := c.CreateItem(ctx, ws, "tasks", api.ItemCreate{Title: "Blocked"}, "")
		if err != nil {
			t.Fatal(err)
		}
		l, err := c.CreateLink(ctx, ws, first.Ref, other.ID, "blocks")
		if err != nil {
			t.Fatal(err)
		}
		if l.ID == "" || l.SourceID != first.ID || l.TargetID != other.ID || l.LinkType != "blocks" {
			t.Errorf("CreateLink = %+v", l)
		}
		_, err = c.CreateLink(ctx, ws, first.Ref, other.ID, "blocks")
		var e *remote.Error
		if !errors.As(err, &e) || e.Kind != remote.KindRefused || e.Status != http.StatusConflict || e.Code != "conflict" {
			t.Errorf("a duplicate link = %v, want 409 conflict (refused)", err)
		}
		for _, ref := range []string{first.Ref, other.Ref} {
			got, err := c.ListLinks(ctx, ws, ref)
			if err != nil || len(got) != 1 || got[0].ID != l.ID {
				t.Errorf("ListLinks(%s) = %+v, %v; want the link %s", ref, got, err, l.ID)
			}
		}
		if err := c.DeleteLink(ctx, ws, l.ID); err != nil {
			t.Fatal(err)
		}
		if got, err := c.ListLinks(ctx, ws, first.Ref); err != nil || len(got) != 0 {
			t.Errorf("ListLinks after DeleteLink = %+v, %v", got, err)
		}
		if err := c.DeleteLink(ctx, ws, l.ID); !remote.IsNotFound(err) {
			t.Errorf("deleting a deleted link = %v, want not found", err)
		}
	})

	t.Run("Attachments", func(t *testing.T) {
		ctx := testwait.Context(t)
		if ok, err := c.HasAttachments(ctx, ws); err != nil || !ok {
			t.Fatalf("HasAttachments = %v, %v; padd keeps them", ok, err)
		}
		data := []byte("a log line\n")
		up, err := c.UploadAttachment(ctx, ws, first.ID, `odd "name".log`, int64(len(data)), bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		if up.ID == "" || up.Size != int64(len(data)) || up.Filename != "odd name.log" {
			t.Errorf("UploadAttachment = %+v", up)
		}
		loose, err := c.UploadAttachment(ctx, ws, "", "loose.txt", int64(len(data)), bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		page, err := c.ListAttachments(ctx, ws, first.ID, 0)
		if err != nil || len(page.Attachments) != 1 || page.Attachments[0].ID != up.ID || page.Attachments[0].ContentHash == "" {
			t.Fatalf("ListAttachments(item) = %+v, %v", page, err)
		}
		if err := c.AttachAttachment(ctx, ws, loose.ID, first.ID); err != nil {
			t.Fatal(err)
		}
		if page, err := c.ListAttachments(ctx, ws, first.ID, 0); err != nil || len(page.Attachments) != 2 {
			t.Errorf("after AttachAttachment, the item has %+v, %v", page, err)
		}
		rd, err := c.OpenAttachment(ctx, ws, up.ID, up.Size)
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(rd)
		rd.Close()
		if err != nil || !bytes.Equal(got, data) {
			t.Errorf("OpenAttachment read %q, %v", got, err)
		}
		for _, id := range []string{up.ID, loose.ID, up.ID} { // the second delete of one is no error
			if err := c.DeleteAttachment(ctx, ws, id); err != nil {
				t.Errorf("DeleteAttachment(%s) = %v", id, err)
			}
		}
		if _, err := c.OpenAttachment(ctx, ws, up.ID, 0); !remote.IsNotFound(err) {
			t.Errorf("opening a deleted attachment = %v, want not found", err)
		}
	})

	t.Run("SeqFeeds", func(t *testing.T) {
		ctx := testwait.Context(t)
		idx, err := c.ItemsIndex(ctx, ws)
		if err != nil {
			t.Fatal(err)
		}
		if idx.Total != len(idx.Items) || idx.Cursor < 1 {
			t.Errorf("ItemsIndex total %d for %d items, cursor %d", idx.Total, len(idx.Items), idx.Cursor)
		}
		index := map[string]api.SyncItem{}
		for _, it := range idx.Items {
			index[it.ID] = it
			if it.Content != "" {
				t.Errorf("ItemsIndex sent %s with its body", it.Ref)
			}
		}
		if _, ok := index[first.ID]; !ok {
			t.Errorf("ItemsIndex lacks %s", first.Ref)
		}
		var archived bool
		for _, it := range idx.Items {
			archived = archived || it.DeletedAt != nil
		}
		if !archived {
			t.Error("ItemsIndex has no archived item (include_archived=true)")
		}

		// The whole feed from 0 by pages of 3 holds every item once, at
		// its current seq, the last cursor is the index's.
		walk := func(since remote.Seq) (map[string]api.SyncItem, remote.Seq) {
			t.Helper()
			got := map[string]api.SyncItem{}
			for pages := 0; ; pages++ {
				page, err := c.ItemsChanges(ctx, ws, since, 3)
				if err != nil {
					t.Fatal(err)
				}
				for _, ch := range page.Changes {
					if _, dup := got[ch.ID]; dup {
						t.Errorf("ItemsChanges sent %s twice", ch.Ref)
					}
					if remote.Seq(ch.Seq) <= since {
						t.Errorf("ItemsChanges after %d sent %s at seq %d", since, ch.Ref, ch.Seq)
					}
					got[ch.ID] = ch
				}
				if len(page.Changes) < 3 {
					return got, page.Cursor
				}
				if page.Cursor <= since || pages > 100 {
					t.Fatalf("ItemsChanges cursor %d after since %d", page.Cursor, since)
				}
				since = page.Cursor
			}
		}
		all, cursor := walk(0)
		if len(all) != len(index) || cursor != idx.Cursor {
			t.Errorf("ItemsChanges from 0 gave %d items up to %d; the index has %d up to %d", len(all), cursor, len(index), idx.Cursor)
		}
		for id, it := range index {
			if ch, ok := all[id]; !ok || ch.Seq != it.Seq || (ch.Deleted != nil && *ch.Deleted) != (it.DeletedAt != nil) {
				t.Errorf("ItemsChanges row of %s = %+v; the index has seq %d, deleted_at %v", it.Ref, ch, it.Seq, it.DeletedAt)
			}
		}

		// After the cursor: only what changed since, an archive as deleted.
		upd, err := c.CreateItem(ctx, ws, "tasks", api.ItemCreate{Title: "After the index"}, "")
		if err != nil {
			t.Fatal(err)
		}
		if err := c.ArchiveItem(ctx, ws, first.Ref); err != nil {
			t.Fatal(err)
		}
		since, next := walk(cursor)
		if len(since) != 2 || next <= cursor {
			t.Fatalf("ItemsChanges after %d = %+v (cursor %d), want the new item and the archived one", cursor, since, next)
		}
		if ch := since[first.ID]; ch.Deleted == nil || !*ch.Deleted {
			t.Errorf("the archived item's row = %+v, want deleted: true", ch)
		}
		if ch := since[upd.ID]; ch.Deleted == nil || *ch.Deleted {
			t.Errorf("the new item's row = %+v, want deleted: false", ch)
		}
		if empty, err := c.ItemsChanges(ctx, ws, next, 3); err != nil || len(empty.Changes) != 0 || empty.Cursor != next {
			t.Errorf("ItemsChanges at the head = %+v, %v; want none and the same cursor", empty, err)
		}
		if _, err := c.RestoreItem(ctx, ws, first.Ref); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("Changes", func(t *testing.T) {
		ctx := testwait.Context(t)
		all := map[string]bool{}
		q := remote.ChangesQuery{Since: 0, Limit: 2}
		pages := 0
		var serverTime int64
		for {
			page, err := c.Changes(ctx, ws, q)
			if err != nil {
				t.Fatal(err)
			}
			pages++
			for _, it := range page.Items {
				all[it.ID] = true // a row may come twice in a walk (CHG-01)
			}
			serverTime = page.ServerTime
			if !page.HasMore {
				break
			}
			if page.NextCursor == "" || len(page.Items) == 0 || pages > 100 {
				t.Fatalf("Changes page %d: has_more with cursor %q and %d items", pages, page.NextCursor, len(page.Items))
			}
			q = remote.ChangesQuery{Cursor: page.NextCursor, Limit: 2}
		}
		idx := ok[*remote.ItemsIndex](t)(c.ItemsIndex(ctx, ws))
		if len(all) != len(idx.Items) || pages < 2 {
			t.Errorf("Changes walked by 2 gave %d items in %d pages; the workspace has %d", len(all), pages, len(idx.Items))
		}
		if serverTime <= 0 {
			t.Errorf("Changes server_time = %d", serverTime)
		}
		// From a recent since only what changed at or after it comes.
		it := item(t)(c.CreateItem(ctx, ws, "tasks", api.ItemCreate{Title: "Late"}, ""))
		page, err := c.Changes(ctx, ws, remote.ChangesQuery{Since: it.UpdatedAt.UnixMilli()})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.ContainsFunc(page.Items, func(x api.Item) bool { return x.ID == it.ID && x.Title == "Late" }) {
			t.Errorf("Changes since the new item's updated_at lacks it: %d items", len(page.Items))
		}
	})

	t.Run("Activity", func(t *testing.T) {
		ctx := testwait.Context(t)
		top, err := c.Activity(ctx, ws, remote.ActivityQuery{Limit: 4})
		if err != nil {
			t.Fatal(err)
		}
		if len(top) != 4 {
			t.Fatalf("Activity limit 4 gave %d rows", len(top))
		}
		last := top[len(top)-1]
		next, err := c.Activity(ctx, ws, remote.ActivityQuery{Limit: 4, Before: last.CreatedAt, BeforeID: last.ID})
		if err != nil {
			t.Fatal(err)
		}
		if len(next) == 0 {
			t.Fatal("Activity's next page is empty")
		}
		for _, a := range next {
			if slices.ContainsFunc(top, func(b api.Activity) bool { return b.ID == a.ID }) || a.Seq >= last.Seq {
				t.Errorf("Activity's next page repeats or is not older: %+v after %+v", a, last)
			}
		}
		var actions []string
		for i := 0; ; i++ {
			page, err := c.Activity(ctx, ws, remote.ActivityQuery{Limit: 100, Before: last.CreatedAt, BeforeID: last.ID})
			if err != nil {
				t.Fatal(err)
			}
			if len(page) == 0 || i > 100 {
				break
			}
			for _, a := range page {
				actions = append(actions, a.Action)
			}
			last = page[len(page)-1]
		}
		for _, a := range top {
			actions = append(actions, a.Action)
		}
		if !slices.Contains(actions, "commented") {
			t.Errorf("no commented row in the activity (actions %v)", actions)
		}
	})

	t.Run("Search", func(t *testing.T) {
		ctx := testwait.Context(t)
		testwait.UntilOK(t, func() error {
			res, err := c.Search(ctx, api.SearchQuery{Query: "zebra", Workspace: ws})
			if err != nil {
				return err
			}
			for _, r := range res.Results {
				if r.Item.ID == first.ID {
					return nil
				}
			}
			return fmt.Errorf("search for zebra: %d results, none %s", len(res.Results), first.Ref)
		})
	})

	t.Run("Events", func(t *testing.T) {
		ctx := testwait.Context(t)
		type got struct {
			ev  *remote.Event
			err error
		}
		follow := func(ctx context.Context, last string) <-chan got {
			ch := make(chan got, 64)
			go func() {
				defer close(ch)
				for ev, err := range c.Events(ctx, ws, last) {
					ch <- got{ev, err}
				}
			}()
			return ch
		}
		next := func(ch <-chan got, what string) *remote.Event {
			t.Helper()
			g := testwait.Recv(t, what, ch)
			if g.err != nil || g.ev == nil {
				t.Fatalf("waiting for %s the stream gave %v", what, g.err)
			}
			return g.ev
		}
		until := func(ch <-chan got, name, ref string) *remote.Event {
			t.Helper()
			for {
				ev := next(ch, name+" of "+ref)
				if ev.Name == name && ev.Data.Ref == ref {
					return ev
				}
			}
		}

		sctx, stop := context.WithCancel(ctx)
		stream := follow(sctx, "")
		if ev := next(stream, "connected"); ev.Name != "connected" || ev.Data.Workspace != ws || ev.Data.WorkspaceID == "" {
			t.Fatalf("the stream opened with %+v", ev)
		}
		it := item(t)(c.CreateItem(ctx, ws, "tasks", api.ItemCreate{Title: "Heard"}, ""))
		created := until(stream, "item_created", it.Ref)
		if created.ID == "" || created.Data.ItemID != it.ID {
			t.Errorf("item_created = %+v", created)
		}
		title := "Heard, changed"
		item(t)(c.UpdateItem(ctx, ws, it.Ref, api.ItemUpdate{Title: &title}, remote.Base{Seq: it.Seq}))
		until(stream, "item_updated", it.Ref)
		if err := c.ArchiveItem(ctx, ws, it.Ref); err != nil {
			t.Fatal(err)
		}
		until(stream, "item_archived", it.Ref)
		item(t)(c.RestoreItem(ctx, ws, it.Ref))
		until(stream, "item_restored", it.Ref)
		// Comments carry no item seq: the engine learns of them here.
		cm := ok[*api.Comment](t)(c.CreateComment(ctx, ws, it.Ref, "heard?", ""))
		for {
			ev := next(stream, "comment_created")
			if ev.Name == "comment_created" {
				if ev.Data.ItemID != it.ID || ev.ID == "" {
					t.Errorf("comment_created of %s on %s = %+v, want the item's id", cm.ID, it.ID, ev)
				}
				break
			}
		}
		title = "Heard, changed again"
		item(t)(c.UpdateItem(ctx, ws, it.Ref, api.ItemUpdate{Title: &title}, remote.Base{}))
		updated := until(stream, "item_updated", it.Ref)
		stop()
		for g := range stream {
			if g.err != nil && kindOf(g.err) != remote.KindCanceled {
				t.Errorf("the stream ended with %v, want canceled", g.err)
			}
		}

		// Resume after item_updated: what happened since is replayed.
		missed := item(t)(c.CreateItem(ctx, ws, "tasks", api.ItemCreate{Title: "Missed"}, ""))
		sctx, stop = context.WithCancel(ctx)
		defer stop()
		stream = follow(sctx, updated.ID)
		if ev := next(stream, "connected"); ev.Name != "connected" {
			t.Fatalf("the resumed stream opened with %+v", ev)
		}
		if ev := next(stream, "the missed item_created"); ev.Name != "item_created" || ev.Data.Ref != missed.Ref {
			t.Errorf("after Last-Event-ID %s the stream sent %+v, want item_created of %s", updated.ID, ev, missed.Ref)
		}
		stop()
		for range stream {
		}

		// An id the server cannot vouch for: sync_required, with the id
		// cleared, and the stream goes on from now (as Pad's does).
		for i, bad := range []string{"not-a-number", "999999999"} {
			sctx, stop := context.WithCancel(ctx)
			stream := follow(sctx, bad)
			if ev := next(stream, "connected"); ev.Name != "connected" {
				t.Fatalf("Last-Event-ID %q: the stream opened with %+v", bad, ev)
			}
			ev := next(stream, "sync_required")
			if !ev.SyncRequired() || ev.ID != "" || ev.Reason == "" {
				t.Errorf("Last-Event-ID %q: the stream sent %+v, want sync_required with a reason and the id cleared", bad, ev)
			}
			live := item(t)(c.CreateItem(ctx, ws, "tasks", api.ItemCreate{Title: fmt.Sprintf("Live %d", i)}, ""))
			if ev := until(stream, "item_created", live.Ref); ev.ID == "" {
				t.Errorf("after sync_required item_created came with no id: %+v", ev)
			}
			stop()
			for range stream {
			}
		}
	})

	t.Run("Client", func(t *testing.T) {
		if c.BaseURL() != p.url || strings.Contains(fmt.Sprintf("%v %#v %s", c, c, c), p.token) {
			t.Errorf("BaseURL %q; the client prints as %v", c.BaseURL(), c)
		}
	})
}

// ok passes a call's answer on, failing t on its error:
// ok[T](t)(call(...)).
func ok[T any](t *testing.T) func(T, error) T {
	return func(v T, err error) T {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}

func item(t *testing.T) func(*api.Item, error) *api.Item { return ok[*api.Item](t) }

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}
