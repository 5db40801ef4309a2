package syncstate

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/padd/padd/model"
	"github.com/padd/padd/storage"
	"github.com/padd/padd/storage/internal/records"
	"github.com/padd/padd/storage/views"
)

func TestSyncIDMap(t *testing.T) {
	s, _ := openTest(t)
	ws := mustWorkspace(t, s, "IDs").Slug
	mustSyncLink(t, s, ws)
	a := mustCreate(t, s, ws, "tasks", "a", nil)
	b := mustCreate(t, s, ws, "tasks", "b", nil)
	apply := func(fn func(tx *storage.SyncTx) error) error { return s.SyncApply(ws, syncActor, fn) }
	for _, tc := range []struct {
		name          string
		kind          storage.SyncKind
		local, remote string
		code          string // "" when accepted
	}{
		{"item", storage.SyncItem, a.ID, "r-item-a", ""},
		{"comment", storage.SyncComment, b.ID, "r-comment", ""},
		{"collection", storage.SyncCollection, a.CollectionID, "r-coll", ""},
		{"link", storage.SyncLink, b.ID, "r-link", ""},
		{"unknown kind", storage.SyncKind('x'), a.ID, "r", model.CodeValidation},
		{"local id not an id", storage.SyncItem, "TASK-1", "r", model.CodeValidation},
		{"empty remote id", storage.SyncItem, a.ID, "", model.CodeValidation},
		{"remote id too long", storage.SyncItem, a.ID, strings.Repeat("r", 257), model.CodeValidation},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := apply(func(tx *storage.SyncTx) error { return tx.MapID(tc.kind, tc.local, tc.remote) })
			if tc.code != "" {
				wantCode(t, err, tc.code)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if r, ok, err := Of(s).SyncRemoteID(ws, tc.kind, tc.local); err != nil || !ok || r != tc.remote {
				t.Fatalf("remote of %s = %q %v %v", tc.local, r, ok, err)
			}
			if l, ok, err := Of(s).SyncLocalID(ws, tc.kind, tc.remote); err != nil || !ok || l != tc.local {
				t.Fatalf("local of %s = %q %v %v", tc.remote, l, ok, err)
			}
		})
	}
	// Kinds are apart: the item map does not answer for a comment id.
	if _, ok, _ := Of(s).SyncLocalID(ws, storage.SyncItem, "r-comment"); ok {
		t.Fatal("a comment's remote id answered as an item's")
	}
	// Mapping again replaces both directions' old entries.
	if err := apply(func(tx *storage.SyncTx) error {
		if err := tx.MapID(storage.SyncItem, a.ID, "r-item-a2"); err != nil {
			return err
		}
		if r, _ := tx.RemoteID(storage.SyncItem, a.ID); r != "r-item-a2" {
			t.Errorf("in the write, remote of a = %q", r)
		}
		return tx.MapID(storage.SyncItem, b.ID, "r-item-a2") // now b's
	}); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := Of(s).SyncLocalID(ws, storage.SyncItem, "r-item-a"); ok {
		t.Fatal("the old remote id still maps")
	}
	if _, ok, _ := Of(s).SyncRemoteID(ws, storage.SyncItem, a.ID); ok {
		t.Fatal("a still maps to the remote id b took")
	}
	if l, _, _ := Of(s).SyncLocalID(ws, storage.SyncItem, "r-item-a2"); l != b.ID {
		t.Fatalf("r-item-a2 maps to %s, want b", l)
	}
	if err := apply(func(tx *storage.SyncTx) error {
		return records.FirstErr(tx.UnmapID(storage.SyncItem, b.ID), tx.MapRemoteRef("task-41", a.ID))
	}); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := Of(s).SyncLocalID(ws, storage.SyncItem, "r-item-a2"); ok {
		t.Fatal("unmapped entry still answers")
	}
	if err := apply(func(tx *storage.SyncTx) error { return tx.MapID(storage.SyncItem, b.ID, "r-item-b") }); err != nil {
		t.Fatal(err)
	}
	if m, err := Of(s).SyncMapped(ws, storage.SyncItem); err != nil || len(m) != 1 || m[b.ID] != "r-item-b" {
		t.Fatalf("mapped items = %v, %v; want only b", m, err)
	}
	if id, ok, err := Of(s).SyncItemByRemoteRef(ws, "TASK-41"); err != nil || !ok || id != a.ID {
		t.Fatalf("remote ref maps to %q %v %v", id, ok, err)
	}
	// A write the engine's callback refuses leaves no entry behind.
	_ = apply(func(tx *storage.SyncTx) error {
		if err := tx.MapID(storage.SyncItem, a.ID, "r-rolled-back"); err != nil {
			return err
		}
		return model.Invalid("the pulled item failed validation")
	})
	if _, ok, _ := Of(s).SyncLocalID(ws, storage.SyncItem, "r-rolled-back"); ok {
		t.Fatal("a refused write's map entry was kept")
	}
}

// A pulled item, its map entry, base and cursor commit together; the
// engine's writes are not queued back for push.
func TestSyncApplyIsOneWrite(t *testing.T) {
	s, _ := openTest(t)
	ws := mustWorkspace(t, s, "Apply").Slug
	mustSyncLink(t, s, ws)
	var made *storage.ItemResult
	fail := model.Invalid("refused after the create")
	err := s.SyncApply(ws, syncActor, func(tx *storage.SyncTx) (err error) {
		if made, err = tx.CreateItem(storage.ItemCreate{Collection: "tasks", Title: "pulled"}, 3); err != nil {
			return err
		}
		return fail
	})
	if err != fail {
		t.Fatalf("SyncApply = %v", err)
	}
	if _, err := views.Of(s).GetItem(ws, made.Item.ID); !model.IsNotFound(err) {
		t.Fatalf("the refused write's item is there: %v", err)
	}
	err = s.SyncApply(ws, syncActor, func(tx *storage.SyncTx) (err error) {
		if made, err = tx.CreateItem(storage.ItemCreate{Collection: "tasks", Title: "pulled", Content: "body\n"}, 3); err != nil {
			return err
		}
		if _, err := tx.AddComment(made.Item.ID, storage.CommentCreate{Body: "from the team"}); err != nil {
			return err
		}
		if v, err := tx.Item("TASK-3"); err != nil || v.ID != made.Item.ID || v.Content != "body\n" {
			t.Errorf("the write's own item = %+v %v", v, err)
		}
		return records.FirstErr(tx.MapID(storage.SyncItem, made.Item.ID, "r-3"), tx.MapRemoteRef("TASK-3", made.Item.ID),
			tx.SetBase(storage.SyncBase{ItemID: made.Item.ID, Title: "pulled", Content: "body\n", CollectionID: made.Item.CollectionID, RemoteSeq: 11}),
			tx.SetCursors(storage.SyncCursors{ItemsChangesSeq: 11}))
	})
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := views.Of(s).GetItem(ws, "TASK-3"); v == nil || v.CreatedBy.Source != model.SourceSync {
		t.Fatalf("pulled item = %+v", v)
	}
	if c, _ := Of(s).SyncCursors(ws); c.ItemsChangesSeq != 11 {
		t.Fatalf("cursor = %+v", c)
	}
	if got := mustOutbox(t, s, ws); len(got) != 0 {
		t.Fatalf("the engine's writes were queued for push: %+v", got)
	}
	// The doors' writes on the same item are queued, as always.
	if _, err := s.UpdateItem(ws, "TASK-3", storage.ItemUpdate{Title: ptrTo("edited here")}, user); err != nil {
		t.Fatal(err)
	}
	if got := mustOutbox(t, s, ws); len(got) != 1 || got[0].Op != model.OpUpdated {
		t.Fatalf("outbox after a local edit: %+v", got)
	}
}

func TestSyncBase(t *testing.T) {
	s, _ := openTest(t)
	ws := mustWorkspace(t, s, "Bases").Slug
	mustSyncLink(t, s, ws)
	it := mustCreate(t, s, ws, "tasks", "based", nil)
	big := strings.Repeat("a line of the agreed text\n", 4000)
	if _, err := s.UpdateItem(ws, it.Ref, storage.ItemUpdate{Content: &big}, user); err != nil {
		t.Fatal(err)
	}
	fields := map[string]any{"status": "open", "estimate": json.Number("3.50")}
	base := storage.SyncBase{ItemID: it.ID, Title: "based", Content: big, Fields: fields, Tags: []string{"x", "y"},
		ParentID: "", CollectionID: it.CollectionID, Archived: false, Pinned: true, RemoteSeq: 42, RemoteUpdatedAt: "2026-08-01T10:00:00Z"}
	setBase := func(b storage.SyncBase) error {
		return s.SyncApply(ws, syncActor, func(tx *storage.SyncTx) error { return tx.SetBase(b) })
	}
	if err := setBase(base); err != nil {
		t.Fatal(err)
	}
	// The text is one of the item's versions: the base names it and does
	// not store it again.
	raw := mustBaseRecord(t, s, ws, it.ID)
	if raw.Content != nil || raw.VersionSeq == 0 || len(mustRaw(t, s, ws, it.ID)) > 1024 {
		t.Fatalf("base record keeps the text again: version %d, %d bytes", raw.VersionSeq, len(mustRaw(t, s, ws, it.ID)))
	}
	// A later local edit does not change the base.
	edited := big + "a local line\n"
	if _, err := s.UpdateItem(ws, it.Ref, storage.ItemUpdate{Content: &edited}, user); err != nil {
		t.Fatal(err)
	}
	got, err := Of(s).SyncBase(ws, it.ID)
	if err != nil || got == nil {
		t.Fatal(err)
	}
	if got.Content != big || got.Title != "based" || !model.EqualJSON(got.Fields["estimate"], json.Number("3.50")) ||
		got.Fields["estimate"].(json.Number) != "3.50" || len(got.Tags) != 2 || !got.Pinned || got.RemoteSeq != 42 ||
		got.RemoteUpdatedAt != "2026-08-01T10:00:00Z" || got.CollectionID != it.CollectionID {
		t.Fatalf("base after a local edit = %+v (content %d bytes)", got, len(got.Content))
	}
	// A text the item never had (the remote's, or a merge) is kept inline.
	base.Content, base.RemoteSeq = "the remote's text\n", 43
	if err := setBase(base); err != nil {
		t.Fatal(err)
	}
	if raw := mustBaseRecord(t, s, ws, it.ID); raw.Content == nil {
		t.Fatal("a text of no version is not kept")
	}
	if got, _ := Of(s).SyncBase(ws, it.ID); got.Content != "the remote's text\n" || got.RemoteSeq != 43 {
		t.Fatalf("inline base = %+v", got)
	}
	for _, tc := range []struct {
		name string
		base storage.SyncBase
		code string
	}{
		{"no item id", storage.SyncBase{ItemID: "TASK-1"}, model.CodeValidation},
		{"no such item", storage.SyncBase{ItemID: records.NewID()}, model.CodeNotFound},
	} {
		t.Run(tc.name, func(t *testing.T) { wantCode(t, setBase(tc.base), tc.code) })
	}
	if b, err := Of(s).SyncBase(ws, records.NewID()); b != nil || err != nil {
		t.Fatalf("base of an item never synced = %+v %v", b, err)
	}
}

func mustRaw(t *testing.T, s *storage.Store, ws, itemID string) []byte {
	t.Helper()
	var out []byte
	if err := s.Base().Read(ws, func(r *records.Rtx) error {
		out = append(out, r.WS.SyncBase().Get(records.MustID(itemID))...)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

// storedBase is the part of a base's stored record (records' baseRecord)
// that says where its text is kept.
type storedBase struct {
	VersionSeq int64   `json:"version_seq,omitempty"`
	Content    *string `json:"content,omitempty"`
}

func mustBaseRecord(t *testing.T, s *storage.Store, ws, itemID string) storedBase {
	t.Helper()
	var rec storedBase
	if err := records.Decode(mustRaw(t, s, ws, itemID), &rec); err != nil {
		t.Fatal(err)
	}
	return rec
}

func TestSyncCursorsAndInFlight(t *testing.T) {
	s, clk := openTest(t)
	ws := mustWorkspace(t, s, "Cursors").Slug
	mustSyncLink(t, s, ws)
	if c, err := Of(s).SyncCursors(ws); err != nil || c != (storage.SyncCursors{}) {
		t.Fatalf("cursors before any pull = %+v %v", c, err)
	}
	if f, err := Of(s).SyncInFlight(ws); err != nil || f != nil {
		t.Fatalf("in flight before any push = %+v %v", f, err)
	}
	want := storage.SyncCursors{ItemsChangesSeq: 99, ChangesSince: "2026-08-01T10:00:00Z", ChangesCursor: "c2",
		EventID: "ev-7", ActivityID: "act-5", ActivityAt: clk.now().UTC()}
	if err := s.SyncApply(ws, syncActor, func(tx *storage.SyncTx) error { return tx.SetCursors(want) }); err != nil {
		t.Fatal(err)
	}
	if c, _ := Of(s).SyncCursors(ws); !c.ActivityAt.Equal(want.ActivityAt) || c.ItemsChangesSeq != 99 || c.ChangesSince != want.ChangesSince ||
		c.ChangesCursor != "c2" || c.EventID != "ev-7" || c.ActivityID != "act-5" {
		t.Fatalf("cursors = %+v", c)
	}
	f := storage.SyncInFlight{OutboxSeq: 5, OpKey: "padd-ws-5", LocalID: "x", SentAt: clk.now().UTC(), CursorBefore: 99}
	wantCode(t, Of(s).SetSyncInFlight(ws, storage.SyncInFlight{OpKey: "no entity"}), model.CodeValidation)
	if err := Of(s).SetSyncInFlight(ws, f); err != nil {
		t.Fatal(err)
	}
	if got, _ := Of(s).SyncInFlight(ws); got == nil || got.OutboxSeq != 5 || got.OpKey != f.OpKey || !got.SentAt.Equal(f.SentAt) || got.CursorBefore != 99 {
		t.Fatalf("in flight = %+v", got)
	}
	if err := s.SyncApply(ws, syncActor, func(tx *storage.SyncTx) error { return tx.ClearInFlight() }); err != nil {
		t.Fatal(err)
	}
	if got, _ := Of(s).SyncInFlight(ws); got != nil {
		t.Fatalf("in flight after clearing = %+v", got)
	}
}

func TestSyncConflicts(t *testing.T) {
	s, clk := openTest(t)
	ws := mustWorkspace(t, s, "Conflicts").Slug
	mustSyncLink(t, s, ws)
	it := mustCreate(t, s, ws, "tasks", "contested", nil)
	add := func(c storage.SyncConflict) (id int64, err error) {
		err = s.SyncApply(ws, syncActor, func(tx *storage.SyncTx) (err error) {
			id, err = tx.AddConflict(c)
			return err
		})
		return id, err
	}
	huge, _ := json.Marshal(strings.Repeat("r", storage.MaxConflictValue+10))
	for _, tc := range []struct {
		name string
		c    storage.SyncConflict
		code string
	}{
		{"title", storage.SyncConflict{Kind: storage.EntryConflict, ItemID: it.ID, Part: "title", Base: json.RawMessage(`"a"`),
			Local: json.RawMessage(`"b"`), Remote: json.RawMessage(`"c"`), LocalVersionSeq: 1}, ""},
		{"huge remote", storage.SyncConflict{Kind: storage.EntryConflict, ItemID: it.ID, Part: "content", Remote: huge}, ""},
		{"set aside", storage.SyncConflict{Kind: storage.EntrySetAside, OutboxSeq: 4, Reason: "remote refused: validation_error"}, ""},
		{"conflict without part", storage.SyncConflict{Kind: storage.EntryConflict, ItemID: it.ID}, model.CodeValidation},
		{"conflict without item", storage.SyncConflict{Kind: storage.EntryConflict, Part: "title"}, model.CodeValidation},
		{"set aside without reason", storage.SyncConflict{Kind: storage.EntrySetAside, OutboxSeq: 4}, model.CodeValidation},
		{"unknown kind", storage.SyncConflict{Kind: "clash", Reason: "x"}, model.CodeValidation},
		{"value not JSON", storage.SyncConflict{Kind: storage.EntryConflict, ItemID: it.ID, Part: "title", Local: json.RawMessage(`{`)}, model.CodeValidation},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := add(tc.c)
			if tc.code != "" {
				wantCode(t, err, tc.code)
			} else if err != nil {
				t.Fatal(err)
			}
		})
	}
	if n, _ := openSyncConflicts(s, ws); n != 3 {
		t.Fatalf("open conflicts = %d, want 3", n)
	}
	all, err := Of(s).SyncConflicts(ws, true)
	if err != nil || len(all) != 3 || all[0].ID != 1 || all[0].State != storage.ConflictOpen || all[0].Part != "title" ||
		string(all[0].Local) != `"b"` || !all[0].At.Equal(clk.now().Truncate(time.Second)) {
		t.Fatalf("conflicts = %+v %v", all, err)
	}
	if c := all[1]; len(c.Truncated) != 1 || c.Truncated[0] != "remote" || len(c.Remote) > storage.MaxConflictValue+16 || !json.Valid(c.Remote) {
		t.Fatalf("huge value kept as %d bytes, truncated %v", len(c.Remote), c.Truncated)
	}
	r, err := Of(s).ResolveSyncConflict(ws, 1, storage.ResolvedKeepLocal)
	if err != nil || r.State != storage.ResolvedKeepLocal || r.ResolvedAt.IsZero() {
		t.Fatalf("resolve = %+v %v", r, err)
	}
	if _, err := Of(s).ResolveSyncConflict(ws, 1, storage.ResolvedKeepLocal); err != nil {
		t.Fatalf("resolving again the same way: %v", err)
	}
	_, err = Of(s).ResolveSyncConflict(ws, 1, storage.ResolvedKeepRemote)
	wantCode(t, err, model.CodeConflict)
	_, err = Of(s).ResolveSyncConflict(ws, 2, storage.ConflictOpen)
	wantCode(t, err, model.CodeValidation)
	_, err = Of(s).ResolveSyncConflict(ws, 99, storage.ResolvedMerged)
	wantCode(t, err, model.CodeNotFound)
	if n, _ := openSyncConflicts(s, ws); n != 2 {
		t.Fatalf("open conflicts after one resolved = %d, want 2", n)
	}
	if open, _ := Of(s).SyncConflicts(ws, true); len(open) != 2 || open[0].ID != 2 {
		t.Fatalf("open list = %+v", open)
	}
	if every, _ := Of(s).SyncConflicts(ws, false); len(every) != 3 {
		t.Fatalf("full list has %d", len(every))
	}
	if c, err := syncConflict(s, ws, 3); err != nil || c.Kind != storage.EntrySetAside || c.OutboxSeq != 4 {
		t.Fatalf("set-aside entry = %+v %v", c, err)
	}
	// The same refusal again (the next cycle's) is the open entry, not a
	// new one; another reason is another entry.
	again := storage.SyncConflict{Kind: storage.EntrySetAside, OutboxSeq: 4, Reason: "remote refused: validation_error"}
	if id, err := add(again); err != nil || id != 3 {
		t.Fatalf("the same refusal again = entry %d, %v; want entry 3", id, err)
	}
	again.Reason = "remote refused: something else"
	if id, err := add(again); err != nil || id != 4 {
		t.Fatalf("another refusal = entry %d, %v; want a new entry 4", id, err)
	}
	if n, _ := openSyncConflicts(s, ws); n != 3 {
		t.Fatalf("open conflicts = %d, want 3", n)
	}
}

// The engine's writes are the doors' own: a schema change, comments and
// links pulled from the remote go through the same validation, and none
// is queued back for push.
func TestSyncApplyUsesTheDoorsWrites(t *testing.T) {
	s, _ := openTest(t)
	ws := mustWorkspace(t, s, "Doors").Slug
	mustSyncLink(t, s, ws)
	a := mustCreate(t, s, ws, "tasks", "a", nil)
	b := mustCreate(t, s, ws, "tasks", "b", nil)
	if err := Of(s).AckOutbox(ws, 1<<40); err != nil {
		t.Fatal(err)
	}
	apply := func(fn func(tx *storage.SyncTx) error) {
		t.Helper()
		if err := s.SyncApply(ws, syncActor, fn); err != nil {
			t.Fatal(err)
		}
	}
	var coll *model.Collection
	apply(func(tx *storage.SyncTx) (err error) {
		if coll, err = tx.CreateCollection(storage.CollectionCreate{Name: "Runbooks", FieldsDSL: "status:select:open,done"}); err != nil {
			return err
		}
		return tx.MapID(storage.SyncCollection, coll.ID, "r-coll")
	})
	dsl := "status:select:open,blocked,done"
	apply(func(tx *storage.SyncTx) error {
		_, _, err := tx.UpdateCollection("runbooks", storage.CollectionUpdate{FieldsDSL: &dsl})
		return err
	})
	if _, err := s.CreateItem(ws, storage.ItemCreate{Collection: "runbooks", Title: "uses the new option", Fields: map[string]any{"status": "blocked"}}, user); err != nil {
		t.Fatalf("the remote's new status option: %v", err)
	}
	var cm *model.Comment
	var link *storage.LinkResult
	apply(func(tx *storage.SyncTx) (err error) {
		if cm, err = tx.AddComment(a.Ref, storage.CommentCreate{Body: "from the team"}); err != nil {
			return err
		}
		if _, err = tx.EditComment("", cm.ID, "edited by the team"); err != nil {
			return err
		}
		link, err = tx.AddLink(a.Ref, b.Ref, model.LinkBlocks)
		return err
	})
	if got, _ := views.Of(s).ListComments(ws, a.Ref); len(got) != 1 || got[0].Body != "edited by the team" || got[0].Author.Source != model.SourceSync {
		t.Fatalf("comments = %+v", got)
	}
	// A pulled change that fails validation refuses the whole write.
	err := s.SyncApply(ws, syncActor, func(tx *storage.SyncTx) error {
		_, err := tx.AddLink(b.Ref, a.Ref, model.LinkBlocks) // a cycle
		return err
	})
	wantCode(t, err, model.CodeValidation)
	apply(func(tx *storage.SyncTx) error {
		if _, err := tx.DeleteComment(a.Ref, cm.ID); err != nil {
			return err
		}
		_, err := tx.RemoveLink(link.Link.ID)
		return err
	})
	if got, _ := views.Of(s).ListLinks(ws, a.Ref); len(got) != 0 {
		t.Fatalf("links after the remote removed it: %+v", got)
	}
	for _, ch := range mustOutbox(t, s, ws) {
		if ch.Actor.Source == model.SourceSync || ch.Entity != model.EntityItem {
			t.Fatalf("queued for push: %+v", ch)
		}
	}
	if got := mustOutbox(t, s, ws); len(got) != 1 {
		t.Fatalf("outbox = %+v, want only the local create", got)
	}
}

// A resolution that keeps a value writes it and settles the conflict in
// one transaction: a write refused leaves the conflict open and the item
// as it was; one that passes leaves both done.
func TestResolveSyncConflictWithIsOneWrite(t *testing.T) {
	s, _ := openTest(t)
	ws := mustWorkspace(t, s, "Resolve").Slug
	mustSyncLink(t, s, ws)
	it := mustCreate(t, s, ws, "tasks", "theirs", nil)
	var id int64
	if err := s.SyncApply(ws, syncActor, func(tx *storage.SyncTx) (err error) {
		id, err = tx.AddConflict(storage.SyncConflict{Kind: storage.EntryConflict, ItemID: it.ID, Part: "title",
			Local: json.RawMessage(`"mine"`), Remote: json.RawMessage(`"theirs"`)})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	keep := func(title string) error {
		_, err := s.ResolveSyncConflictWith(ws, id, storage.ResolvedKeepLocal, user, func(l *storage.LocalWrite) error {
			return l.UpdateItem(it.ID, storage.ItemUpdate{Title: &title})
		})
		return err
	}
	if keep("") == nil {
		t.Fatal("an empty title was taken")
	}
	if n, _ := openSyncConflicts(s, ws); n != 1 {
		t.Fatalf("open conflicts after a refused write = %d, want 1", n)
	}
	if v, _ := views.Of(s).GetItem(ws, it.ID); v.Title != "theirs" {
		t.Fatalf("title after a refused write = %q", v.Title)
	}
	if err := keep("mine"); err != nil {
		t.Fatal(err)
	}
	if n, _ := openSyncConflicts(s, ws); n != 0 {
		t.Fatalf("open conflicts = %d, want 0", n)
	}
	if v, _ := views.Of(s).GetItem(ws, it.ID); v.Title != "mine" {
		t.Fatalf("title = %q, want mine", v.Title)
	}
}
