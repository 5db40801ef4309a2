package storage

import (
	"context"
	"math/rand"
	"path/filepath"
	"sort"
	"strconv"
	"testing"
	"time"

	"github.com/padd/padd/model"
	"github.com/padd/padd/storage/internal/records"
)

func TestChangesSincePagesEverySeqOnce(t *testing.T) {
	s, _ := openTest(t)
	ws := mustWorkspace(t, s, "Log").Slug
	other := mustWorkspace(t, s, "Other").Slug // interleaved journal, separate logs
	mustCreate(t, s, ws, "tasks", "T", nil)
	mustCreate(t, s, other, "tasks", "O", nil)
	bulkUpdates(t, s, ws, "TASK-1", 500, func(i int) ItemUpdate {
		return ItemUpdate{Content: ptrTo(strconv.Itoa(i)), Replace: true}
	})
	head, _ := rd(s).Head(ws)
	var seen []int64
	var after int64
	for pages := 0; ; pages++ {
		if int64(pages) > head/100+2 {
			t.Fatal("paging does not end")
		}
		page, h, err := rd(s).ChangesSince(context.Background(), ws, after, 100)
		if err != nil {
			t.Fatal(err)
		}
		if h != head {
			t.Fatalf("head %d, want %d", h, head)
		}
		if len(page) == 0 {
			break
		}
		if len(page) > 100 {
			t.Fatalf("page of %d", len(page))
		}
		for _, ch := range page {
			seen = append(seen, ch.Seq)
		}
		after = page[len(page)-1].Seq
	}
	if int64(len(seen)) != head {
		t.Fatalf("%d entries for head %d", len(seen), head)
	}
	for i, seq := range seen {
		if seq != int64(i+1) {
			t.Fatalf("gap or repeat at %d: %d", i, seq)
		}
	}
	last, _, _ := rd(s).ChangesSince(context.Background(), ws, head-1, 0)
	if len(last) != 1 || last[0].Entity != model.EntityItem || last[0].Op != model.OpUpdated || last[0].Actor.Kind != model.ActorUser {
		t.Fatalf("last entry %+v", last)
	}
	if page, _, _ := rd(s).ChangesSince(context.Background(), ws, head, 0); len(page) != 0 {
		t.Fatalf("after head: %v", page)
	}
	if page, _, _ := rd(s).ChangesSince(context.Background(), ws, -5, 3); len(page) != 3 || page[0].Seq != 1 {
		t.Fatalf("negative cursor reads from the start: %v", page)
	}
	bulkUpdates(t, s, ws, "TASK-1", DefaultChangesLimit, func(i int) ItemUpdate {
		return ItemUpdate{SortOrder: ptrTo(int64(i + 1))}
	})
	if page, _, _ := rd(s).ChangesSince(context.Background(), ws, 0, 0); len(page) != DefaultChangesLimit {
		t.Fatalf("default page %d", len(page))
	}
	if page, _, _ := rd(s).ChangesSince(context.Background(), ws, 0, 1<<30); len(page) != int(head)+DefaultChangesLimit {
		t.Fatalf("a large limit reads to the head here: %d", len(page))
	}
	_, _, err := rd(s).ChangesSince(context.Background(), "missing", 0, 0)
	wantCode(t, err, model.CodeNotFound)
}

func TestJournalSinceAcrossWorkspacesSkipsPurged(t *testing.T) {
	s, clk := openTest(t)
	a := mustWorkspace(t, s, "A")
	b := mustWorkspace(t, s, "B")
	for i := range 5 {
		mustCreate(t, s, a.Slug, "tasks", "a"+strconv.Itoa(i), nil)
		mustCreate(t, s, b.Slug, "tasks", "b"+strconv.Itoa(i), nil)
	}
	all, head, err := rd(s).JournalSince(context.Background(), 0, MaxChangesLimit)
	if err != nil {
		t.Fatal(err)
	}
	if gh, _ := rd(s).GlobalHead(); gh != head || int64(len(all)) != head {
		t.Fatalf("journal %d entries, head %d, global head %d", len(all), head, gh)
	}
	per := map[string][]int64{}
	for i, e := range all {
		if e.Global != int64(i+1) || e.Change.Seq != e.Seq {
			t.Fatalf("entry %d: %+v", i, e)
		}
		per[e.WorkspaceID] = append(per[e.WorkspaceID], e.Seq)
	}
	for _, w := range []*model.Workspace{a, b} {
		log, wh, _ := rd(s).ChangesSince(context.Background(), w.Slug, 0, 0)
		if int64(len(per[w.ID])) != wh || len(log) != len(per[w.ID]) {
			t.Fatalf("workspace %s: journal has %d, log %d, head %d", w.Slug, len(per[w.ID]), len(log), wh)
		}
		for i := range log {
			if per[w.ID][i] != log[i].Seq {
				t.Fatalf("workspace %s: journal order %v", w.Slug, per[w.ID])
			}
		}
	}

	if err := s.DeleteWorkspace(a.Slug, user); err != nil {
		t.Fatal(err)
	}
	clk.advance(RestoreWindow + time.Hour)
	if purged, err := s.PurgeWorkspaces(); err != nil || len(purged) != 1 {
		t.Fatalf("purge: %v %v", purged, err)
	}
	mustCreate(t, s, b.Slug, "tasks", "late", nil)
	var got []JournalEntry
	var after int64
	for {
		page, h, err := rd(s).JournalSince(context.Background(), after, 4)
		if err != nil {
			t.Fatal(err)
		}
		if len(page) == 0 {
			after = h // caught up
			break
		}
		got = append(got, page...)
		after = page[len(page)-1].Global
	}
	bLog, bHead, _ := rd(s).ChangesSince(context.Background(), b.Slug, 0, 0)
	if len(got) != len(bLog) || int64(len(got)) != bHead {
		t.Fatalf("after purge: %d journal entries, workspace B has %d", len(got), len(bLog))
	}
	for i, e := range got {
		if e.WorkspaceID != b.ID || e.Seq != bLog[i].Seq {
			t.Fatalf("entry %d: %+v", i, e)
		}
	}
	if gh, _ := rd(s).GlobalHead(); after != gh {
		t.Fatalf("caught up at %d, head %d", after, gh)
	}
}

func rowRefs(rows []ItemChange) []string {
	var out []string
	for _, r := range rows {
		ref := r.Ref
		if r.Deleted {
			ref += "(deleted)"
		}
		out = append(out, ref)
	}
	return out
}

func TestItemsChangedSince(t *testing.T) {
	s, _ := openTest(t)
	ws := mustWorkspace(t, s, "Delta").Slug
	start, _ := rd(s).Head(ws)
	mustCreate(t, s, ws, "tasks", "A", nil)
	mustCreate(t, s, ws, "tasks", "B", nil)
	mustCreate(t, s, ws, "tasks", "C", nil)
	mustUpdateItem(t, s, ws, "TASK-1", ItemUpdate{Content: ptrTo("body"), Replace: true})
	if _, err := s.DeleteItem(ws, "TASK-2", user); err != nil {
		t.Fatal(err)
	}
	// A link names TASK-3 in its entry but does not change the item.
	if _, err := s.AddLink(ws, "TASK-3", "TASK-1", model.LinkBlocks, user); err != nil {
		t.Fatal(err)
	}
	head, _ := rd(s).Head(ws)

	res, err := rd(s).ItemsChangedSince(context.Background(), ws, start, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got := rowRefs(res.Changes); len(got) != 3 || got[0] != "TASK-3" || got[1] != "TASK-1" || got[2] != "TASK-2(deleted)" {
		t.Fatalf("rows %v", got)
	}
	if res.Cursor != head {
		t.Fatalf("cursor %d, want head %d (the link entry after the last row)", res.Cursor, head)
	}
	for i, r := range res.Changes {
		if r.Content != "" {
			t.Fatalf("row %s carries a body", r.Ref)
		}
		if i > 0 && r.Seq <= res.Changes[i-1].Seq {
			t.Fatalf("not ascending by seq: %v", rowRefs(res.Changes))
		}
		if !r.Unparented && r.Ref != "TASK-3" {
			t.Fatalf("%s: unparented bit missing", r.Ref)
		}
	}

	// Pages: the cursor is the last row's seq; nothing is lost or repeated.
	p1, _ := rd(s).ItemsChangedSince(context.Background(), ws, start, 2)
	if got := rowRefs(p1.Changes); len(got) != 2 || p1.Cursor != p1.Changes[1].Seq {
		t.Fatalf("page 1 %v cursor %d", got, p1.Cursor)
	}
	p2, _ := rd(s).ItemsChangedSince(context.Background(), ws, p1.Cursor, 2)
	if got := rowRefs(p2.Changes); len(got) != 1 || got[0] != "TASK-2(deleted)" || p2.Cursor != head {
		t.Fatalf("page 2 %v cursor %d", got, p2.Cursor)
	}
	empty, _ := rd(s).ItemsChangedSince(context.Background(), ws, head, 0)
	if len(empty.Changes) != 0 || empty.Cursor != head {
		t.Fatalf("caught up: %+v", empty)
	}
	ahead, _ := rd(s).ItemsChangedSince(context.Background(), ws, head+10, 0)
	if ahead.Cursor != head+10 {
		t.Fatalf("a cursor past the head is kept: %d", ahead.Cursor)
	}

	// Many updates of one item: one row, at its latest seq.
	bulkUpdates(t, s, ws, "TASK-1", 300, func(i int) ItemUpdate { return ItemUpdate{SortOrder: ptrTo(int64(i + 1))} })
	res, _ = rd(s).ItemsChangedSince(context.Background(), ws, head, 0)
	h2, _ := rd(s).Head(ws)
	if len(res.Changes) != 1 || res.Changes[0].Seq != h2 || res.Changes[0].SortOrder != 300 {
		t.Fatalf("deduped: %v", rowRefs(res.Changes))
	}
}

// TestItemsChangedSinceRewriteUnderOtherEntity covers a mutation that
// rewrites an item (and its seq) under another entity's entry, as a role
// deletion clearing its items does: the item's own last entry must then
// yield it, or a follower would never see its earlier change.
func TestItemsChangedSinceRewriteUnderOtherEntity(t *testing.T) {
	s, _ := openTest(t)
	ws := mustWorkspace(t, s, "Rewrite").Slug
	it := mustCreate(t, s, ws, "tasks", "A", nil)
	mustCreate(t, s, ws, "tasks", "B", nil)
	err := s.write(ws, user, func(w *wtx) error {
		seq, err := w.stamp(model.EntityRole, model.OpDeleted, records.NewID(), "", "")
		if err != nil {
			return err
		}
		stored, err := records.GetItem(w.ws, records.MustID(it.ID), true)
		if err != nil {
			return err
		}
		stored.Seq = seq
		return putItem(w.ws, stored)
	})
	if err != nil {
		t.Fatal(err)
	}
	res, err := rd(s).ItemsChangedSince(context.Background(), ws, it.Seq-1, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got := rowRefs(res.Changes); len(got) != 2 || got[0] != "TASK-1" || got[1] != "TASK-2" {
		t.Fatalf("rows %v", got)
	}
}

func TestItemsIndexThenChanges(t *testing.T) {
	s, clk := openTest(t)
	ws := mustWorkspace(t, s, "Idx").Slug
	mustCreate(t, s, ws, "tasks", "Old", nil)
	clk.advance(time.Second)
	mustCreate(t, s, ws, "ideas", "Idea", nil)
	clk.advance(time.Second)
	if _, err := s.CreateItem(ws, ItemCreate{Collection: "tasks", Title: "Pinned", Pinned: true, Content: "secret"}, user); err != nil {
		t.Fatal(err)
	}
	clk.advance(time.Second)
	mustCreate(t, s, ws, "tasks", "Gone", nil)
	if _, err := s.DeleteItem(ws, "TASK-4", user); err != nil {
		t.Fatal(err)
	}
	idx, err := rd(s).ItemsIndex(context.Background(), ws, "", false)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, it := range idx.Items {
		got = append(got, it.Ref)
		if it.Content != "" {
			t.Fatalf("%s carries a body", it.Ref)
		}
	}
	// Most recently updated first; pinning does not reorder the index.
	if len(got) != 3 || got[0] != "TASK-3" || got[1] != "IDEA-2" || got[2] != "TASK-1" {
		t.Fatalf("index %v", got)
	}
	if head, _ := rd(s).Head(ws); idx.Cursor != head {
		t.Fatalf("cursor %d, head %d", idx.Cursor, head)
	}
	if all, _ := rd(s).ItemsIndex(context.Background(), ws, "", true); len(all.Items) != 4 || all.Items[0].Ref != "TASK-4" || all.Items[0].DeletedAt == nil {
		t.Fatalf("with archived: %+v", all.Items)
	}
	if tasks, _ := rd(s).ItemsIndex(context.Background(), ws, "task", false); len(tasks.Items) != 2 {
		t.Fatalf("collection filter: %d", len(tasks.Items))
	}
	if none, err := rd(s).ItemsIndex(context.Background(), ws, "no-such", false); err != nil || len(none.Items) != 0 || none.Cursor != idx.Cursor {
		t.Fatalf("unknown collection: %+v %v", none, err)
	}
	// A bootstrap then a delta: the delta starts exactly after the index.
	if d, _ := rd(s).ItemsChangedSince(context.Background(), ws, idx.Cursor, 0); len(d.Changes) != 0 {
		t.Fatalf("nothing after the index: %v", rowRefs(d.Changes))
	}
	mustUpdateItem(t, s, ws, "IDEA-2", ItemUpdate{Title: ptrTo("Idea 2")})
	if d, _ := rd(s).ItemsChangedSince(context.Background(), ws, idx.Cursor, 0); len(d.Changes) != 1 || d.Changes[0].Title != "Idea 2" {
		t.Fatalf("delta after index: %v", rowRefs(d.Changes))
	}
}

func TestChangesByTimeBoundariesAndPaging(t *testing.T) {
	s, clk := openTest(t)
	ws := mustWorkspace(t, s, "Time").Slug
	t0 := clk.t
	clk.advance(10 * time.Second)
	clk.advance(300 * time.Millisecond)
	mustCreate(t, s, ws, "tasks", "A", nil) // t0+10.3s
	clk.advance(time.Second)
	mustCreate(t, s, ws, "tasks", "B", nil) // t0+11.3s
	mustCreate(t, s, ws, "tasks", "C", nil) // t0+11.3s
	clk.advance(time.Second)
	if _, err := s.DeleteItem(ws, "TASK-2", user); err != nil { // t0+12.3s
		t.Fatal(err)
	}
	ms := func(d time.Duration) int64 { return t0.Add(d).UnixMilli() }

	refsOf := func(tc *TimeChanges) []string {
		var out []string
		for _, it := range tc.Items {
			out = append(out, it.Ref)
		}
		return out
	}
	// since is truncated to whole seconds and inclusive: 11.9s reads from 11s.
	tc, err := rd(s).ChangesByTime(context.Background(), ws, ms(11900*time.Millisecond), "", 0)
	if err != nil {
		t.Fatal(err)
	}
	if got := refsOf(tc); len(got) != 2 || got[0] != "TASK-3" || got[1] != "TASK-2" {
		t.Fatalf("since 11.9s: %v", got)
	}
	if len(tc.Deleted) != 1 || tc.Deleted[0] != tc.Items[1].ID || tc.Items[1].DeletedAt == nil {
		t.Fatalf("deleted %v", tc.Deleted)
	}
	if tc.HasMore || tc.NextCursor != "" || tc.ServerTime != ms(12300*time.Millisecond) {
		t.Fatalf("page meta: more %v cursor %q server %d", tc.HasMore, tc.NextCursor, tc.ServerTime)
	}
	if tc.Items[0].Content != "" {
		t.Fatalf("C has no body: %q", tc.Items[0].Content)
	}
	if tc, _ = rd(s).ChangesByTime(context.Background(), ws, ms(12*time.Second+999*time.Millisecond), "", 0); len(tc.Items) != 1 {
		t.Fatalf("since 12.999s: %v", refsOf(tc))
	}
	if tc, _ = rd(s).ChangesByTime(context.Background(), ws, ms(13*time.Second), "", 0); len(tc.Items) != 0 || tc.HasMore {
		t.Fatalf("since 13s: %v", refsOf(tc))
	}
	if tc, _ = rd(s).ChangesByTime(context.Background(), ws, 0, "", 0); len(tc.Items) != 3 {
		t.Fatalf("since 0: %v", refsOf(tc))
	}

	// Paging: limit 1 walks A, C, B(deleted) in write order with one
	// server_time; writes during the walk wait for the next walk.
	tc, _ = rd(s).ChangesByTime(context.Background(), ws, ms(0), "", 1)
	server := tc.ServerTime
	var walk []string
	for pages := 0; ; pages++ {
		if pages > 5 {
			t.Fatal("walk does not end")
		}
		walk = append(walk, refsOf(tc)...)
		if tc.ServerTime != server {
			t.Fatalf("server_time changed within a walk: %d -> %d", server, tc.ServerTime)
		}
		if !tc.HasMore {
			break
		}
		if pages == 0 {
			clk.advance(time.Minute)
			mustCreate(t, s, ws, "tasks", "D", nil)
		}
		if tc, err = rd(s).ChangesByTime(context.Background(), ws, -1, tc.NextCursor, 1); err != nil {
			t.Fatal(err)
		}
	}
	if len(walk) != 3 || walk[0] != "TASK-1" || walk[1] != "TASK-3" || walk[2] != "TASK-2" {
		t.Fatalf("walk %v", walk)
	}
	next, _ := rd(s).ChangesByTime(context.Background(), ws, server, "", 0)
	if got := refsOf(next); len(got) == 0 || got[len(got)-1] != "TASK-4" {
		t.Fatalf("next walk from server_time misses the write made during the last one: %v", got)
	}

	// Refusals.
	first, _ := rd(s).ChangesByTime(context.Background(), ws, 0, "", 1)
	for _, c := range []struct {
		since  int64
		cursor string
	}{
		{-1, ""},
		{5, first.NextCursor},
		{-1, "garbage"},
		{-1, "dDF8eHwxfDJ8M3w0"},
	} {
		_, err := rd(s).ChangesByTime(context.Background(), ws, c.since, c.cursor, 0)
		wantCode(t, err, model.CodeBadRequest)
	}
	if _, err := rd(s).ChangesByTime(context.Background(), ws, 0, first.NextCursor, 1); err != nil {
		t.Fatalf("cursor with its own since: %v", err)
	}
	other := mustWorkspace(t, s, "Other").Slug
	_, err = rd(s).ChangesByTime(context.Background(), other, -1, first.NextCursor, 0)
	wantCode(t, err, model.CodeBadRequest)
}

func TestChangesByTimeLimit(t *testing.T) {
	s, _ := openTest(t)
	s.setNoSync(true) // setup speed: a thousand separate creates
	ws := mustWorkspace(t, s, "Many").Slug
	for i := range DefaultTimeChangesLimit + 5 {
		if _, err := s.CreateItem(ws, ItemCreate{Collection: "tasks", Title: "t" + strconv.Itoa(i)}, user); err != nil {
			t.Fatal(err)
		}
	}
	tc, err := rd(s).ChangesByTime(context.Background(), ws, 0, "", 5000)
	if err != nil || len(tc.Items) != DefaultTimeChangesLimit || !tc.HasMore {
		t.Fatalf("capped page: %d more %v %v", len(tc.Items), tc.HasMore, err)
	}
	rest, _ := rd(s).ChangesByTime(context.Background(), ws, -1, tc.NextCursor, 0)
	if len(rest.Items) != 5 || rest.HasMore {
		t.Fatalf("rest: %d more %v", len(rest.Items), rest.HasMore)
	}
}

// TestChangesByTimeMatchesScan checks the binary search against a plain
// scan of every item, for many since values over irregular write times.
func TestChangesByTimeMatchesScan(t *testing.T) {
	s, clk := openTest(t)
	ws := mustWorkspace(t, s, "Search").Slug
	rng := rand.New(rand.NewSource(3))
	t0 := clk.t
	for i := range 60 {
		// Quarter seconds: many writes land exactly on a whole second,
		// where the inclusive bound matters.
		clk.advance(time.Duration(rng.Intn(8)) * 250 * time.Millisecond)
		if i < 20 || rng.Intn(3) == 0 {
			mustCreate(t, s, ws, "tasks", "x", nil)
			continue
		}
		ref := "TASK-" + strconv.Itoa(1+rng.Intn(20))
		mustUpdateItem(t, s, ws, ref, ItemUpdate{SortOrder: ptrTo(int64(i))})
	}
	end := clk.t
	all, _ := rd(s).ItemsIndex(context.Background(), ws, "", true)
	for since := t0.Add(-time.Second); !since.After(end.Add(time.Second)); since = since.Add(250 * time.Millisecond) {
		cut := since.Truncate(time.Second)
		var want []string
		for _, it := range all.Items {
			if !it.UpdatedAt.Before(cut) {
				want = append(want, it.ID)
			}
		}
		tc, err := rd(s).ChangesByTime(context.Background(), ws, since.UnixMilli(), "", 0)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, it := range tc.Items {
			got = append(got, it.ID)
		}
		sort.Strings(want)
		sort.Strings(got)
		if len(got) != len(want) {
			t.Fatalf("since %v: got %d items, want %d", since, len(got), len(want))
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("since %v: got %v, want %v", since, got, want)
			}
		}
	}
}

func TestClockSeededFromLogOnOpen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "padd.db")
	late := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	s, err := Open(path, Options{Now: func() time.Time { return late }})
	if err != nil {
		t.Fatal(err)
	}
	ws := mustWorkspace(t, s, "Clock").Slug
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	// The wall clock stepped back an hour across the restart.
	s, err = Open(path, Options{Now: func() time.Time { return late.Add(-time.Hour) }})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	it := mustCreate(t, s, ws, "tasks", "After restart", nil)
	log, _, _ := rd(s).ChangesSince(context.Background(), ws, it.Seq-1, 1)
	if len(log) != 1 || log[0].At.Before(late) {
		t.Fatalf("change-log time went back: %+v", log)
	}
}

// TestChangeCodecRoundTrip checks the binary change-log form keeps every
// field of every shape stamp can write, awkward strings and non-UUID ids
// included.
func TestChangeCodecRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewSource(11))
	vals := []string{"", "item", "updated", "user", "Local User", records.NewID(), "not-a-uuid", "é-ü", "日本", "quote\"d", "\x00nul"}
	pick := func() string { return vals[rng.Intn(len(vals))] }
	for range 3000 {
		ch := model.Change{Seq: rng.Int63n(1 << 62), Entity: pick(), Op: pick(), ID: pick(), ItemID: pick(),
			CollectionID: pick(), Actor: model.Actor{Kind: pick(), Name: pick(), Source: pick(), WorkerID: pick()},
			At: time.Unix(rng.Int63n(1<<34), rng.Int63n(1e9)).UTC()}
		got, err := records.DecodeChange(records.EncodeChange(ch))
		if err != nil || !got.At.Equal(ch.At) {
			t.Fatalf("round trip of %+v: %+v %v", ch, got, err)
		}
		got.At, ch.At = time.Time{}, time.Time{}
		if got != ch {
			t.Fatalf("round trip\n got %+v\nwant %+v", got, ch)
		}
	}
	for _, bad := range [][]byte{nil, {}, {9}, {records.ChangeFormat1}, append(records.EncodeChange(model.Change{Seq: 1}), 0)} {
		if _, err := records.DecodeChange(bad); err == nil {
			t.Errorf("decodeChange(%x) accepted a malformed entry", bad)
		}
	}
}

func FuzzDecodeChange(f *testing.F) {
	f.Add(records.EncodeChange(model.Change{Seq: 7, Entity: model.EntityItem, Op: model.OpCreated, ID: records.NewID(), ItemID: records.NewID(),
		CollectionID: records.NewID(), Actor: user, At: time.Date(2026, 11, 30, 9, 0, 0, 123, time.UTC)}))
	f.Add([]byte{records.ChangeFormat1, 1, 0})
	f.Fuzz(func(t *testing.T, raw []byte) {
		ch, err := records.DecodeChange(raw)
		if err != nil {
			return
		}
		// Whatever decodes must encode back to an entry that decodes the same.
		again, err := records.DecodeChange(records.EncodeChange(ch))
		if err != nil || again.Seq != ch.Seq || again.ID != ch.ID || !again.At.Equal(ch.At) {
			t.Fatalf("re-encode of %+v: %+v %v", ch, again, err)
		}
	})
}
