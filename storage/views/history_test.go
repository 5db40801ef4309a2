package views

import (
	"context"
	"fmt"
	"math/rand"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/padd/padd/api"
	"github.com/padd/padd/model"
	"github.com/padd/padd/storage"
	"github.com/padd/padd/storage/internal/records"
)

func mustUpdateItem(t testing.TB, s *storage.Store, ws, ref string, in storage.ItemUpdate) *storage.ItemView {
	t.Helper()
	r, err := s.UpdateItem(ws, ref, in, user)
	if err != nil {
		t.Fatalf("update %s: %v", ref, err)
	}
	return r.Item
}

func ptrTo[T any](v T) *T { return &v }

// bulkUpdates applies n updates of one item in a single transaction (one
// fsync): each is still its own mutation with its own seq, activity and
// version.
func bulkUpdates(t testing.TB, s *storage.Store, ws, ref string, n int, up func(i int) storage.ItemUpdate) {
	t.Helper()
	ops := make([]storage.BulkOp, n)
	for i := range ops {
		u := up(i)
		ops[i] = storage.BulkOp{Ref: ref, Update: &u}
	}
	res, err := s.BulkApply(ws, ops, user)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res {
		if r.Err != nil {
			t.Fatalf("bulk update %s: %v", r.Ref, r.Err)
		}
	}
}

// versioned makes TASK-1 with bodies b0 (create), b1, b2 ... one second apart.
func versioned(t *testing.T, bodies ...string) (*storage.Store, *testClock, string, *storage.ItemView) {
	t.Helper()
	s, clk := openTest(t)
	ws := mustWorkspace(t, s, "Hist").Slug
	r, err := s.CreateItem(ws, storage.ItemCreate{Collection: "tasks", Title: "Doc", Content: bodies[0]}, user)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range bodies[1:] {
		clk.advance(time.Second)
		mustUpdateItem(t, s, ws, "TASK-1", storage.ItemUpdate{Content: ptrTo(b), Replace: true, Comment: "edit " + b})
	}
	return s, clk, ws, r.Item
}

func TestListVersionsNewestFirstLimitSummary(t *testing.T) {
	s, _, ws, _ := versioned(t, "v0", "v1", "v2", "v3")
	// A change that touches neither title nor body writes no version.
	mustUpdateItem(t, s, ws, "TASK-1", storage.ItemUpdate{FieldsPatch: map[string]any{"priority": "high"}})
	vs, err := Of(s).ListVersions(ws, "TASK-1", 0, false)
	if err != nil {
		t.Fatal(err)
	}
	var bodies []string
	for _, v := range vs {
		bodies = append(bodies, v.Content)
	}
	if strings.Join(bodies, ",") != "v3,v2,v1,v0" {
		t.Fatalf("bodies newest first: %v", bodies)
	}
	if !vs[3].IsCreate || vs[0].IsCreate || vs[0].Summary != "edit v3" {
		t.Fatalf("rows: %+v", vs)
	}
	for i := 1; i < len(vs); i++ {
		if vs[i].VersionSeq >= vs[i-1].VersionSeq || vs[i].CreatedAt.After(vs[i-1].CreatedAt) {
			t.Fatalf("order broken at %d: %+v", i, vs)
		}
	}
	vs, _ = Of(s).ListVersions(ws, "TASK-1", 2, true)
	if len(vs) != 2 || vs[0].Content != "" || vs[0].Summary != "edit v3" || vs[0].LinesAdded != 1 {
		t.Fatalf("limit 2, summary: %+v", vs)
	}
	_, err = Of(s).ListVersions(ws, "TASK-99", 0, false)
	wantCode(t, err, model.CodeNotFound)
}

func TestListVersionsClamp(t *testing.T) {
	s, _ := openTest(t)
	ws := mustWorkspace(t, s, "Clamp").Slug
	mustCreate(t, s, ws, "tasks", "Busy", nil)
	bulkUpdates(t, s, ws, "TASK-1", MaxVersionLimit+5, func(i int) storage.ItemUpdate {
		return storage.ItemUpdate{Content: ptrTo(strconv.Itoa(i)), Replace: true}
	})
	vs, err := Of(s).ListVersions(ws, "TASK-1", 100000, true)
	if err != nil || len(vs) != MaxVersionLimit {
		t.Fatalf("clamped to %d: got %d %v", MaxVersionLimit, len(vs), err)
	}
	if vs, _ = Of(s).ListVersions(ws, "TASK-1", -1, true); len(vs) != DefaultVersionLimit {
		t.Fatalf("default %d: got %d", DefaultVersionLimit, len(vs))
	}
}

func TestGetVersionByIDAndSeq(t *testing.T) {
	s, _, ws, _ := versioned(t, "a", "b")
	vs, _ := Of(s).ListVersions(ws, "TASK-1", 0, false)
	for _, ref := range []string{vs[1].ID, strings.ToUpper(vs[1].ID), strconv.FormatInt(vs[1].VersionSeq, 10)} {
		v, err := Of(s).GetVersion(ws, "TASK-1", ref)
		if err != nil || v.ID != vs[1].ID || v.Content != "a" {
			t.Fatalf("get %q: %+v %v", ref, v, err)
		}
	}
	other := mustCreate(t, s, ws, "tasks", "Other", nil)
	ov, _ := Of(s).ListVersions(ws, other.ID, 0, false)
	for _, ref := range []string{ov[0].ID, strconv.FormatInt(ov[0].VersionSeq, 10), "0", "-3", "nope", records.NewID()} {
		_, err := Of(s).GetVersion(ws, "TASK-1", ref)
		wantCode(t, err, model.CodeNotFound)
	}
}

func TestDiffVersionSemantics(t *testing.T) {
	s, _, ws, _ := versioned(t, "one\ntwo\n", "one\n2\n", "one\n2\nthree\n")
	mustUpdateItem(t, s, ws, "TASK-1", storage.ItemUpdate{Title: ptrTo("Renamed")}) // title-only version
	vs, _ := Of(s).ListVersions(ws, "TASK-1", 0, false)                             // newest first
	want := []struct{ before, after string }{
		{"one\n2\nthree\n", "one\n2\nthree\n"}, // the rename: same body
		{"one\n2\n", "one\n2\nthree\n"},
		{"one\ntwo\n", "one\n2\n"},
		{"", "one\ntwo\n"}, // the create
	}
	for i, w := range want {
		d, err := Of(s).DiffVersion(ws, "TASK-1", vs[i].ID)
		if err != nil {
			t.Fatal(err)
		}
		if d.Before != w.before || d.After != w.after || d.After != vs[i].Content || d.Version.ID != vs[i].ID {
			t.Fatalf("row %d: before %q after %q, want %q -> %q", i, d.Before, d.After, w.before, w.after)
		}
		if (d.Unified == "") != (w.before == w.after) {
			t.Fatalf("row %d: unified %q", i, d.Unified)
		}
	}
	d, _ := Of(s).DiffVersion(ws, "TASK-1", vs[2].ID)
	wantDiff := "--- a/TASK-1\n+++ b/TASK-1\n@@ -1,2 +1,2 @@\n one\n-two\n+2\n"
	if d.Unified != wantDiff {
		t.Fatalf("unified:\n%s\nwant:\n%s", d.Unified, wantDiff)
	}
}

func TestRestoreVersion(t *testing.T) {
	s, clk, ws, created := versioned(t, "first body", "second body", "third body")
	vs, _ := Of(s).ListVersions(ws, "TASK-1", 0, false)
	target := vs[2] // "first body", the create
	headBefore, _ := Of(s).Head(ws)
	clk.advance(time.Minute)
	res, err := s.RestoreVersion(ws, "TASK-1", target.ID, model.Actor{Kind: model.ActorAgent, Name: "bot", Source: model.SourceMCP})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Changed || res.Item.Content != "first body" || res.Item.Title != created.Title {
		t.Fatalf("restored: %+v", res.Item)
	}
	if res.Item.Seq != headBefore+1 || res.Warnings.UnguardedContentWrite {
		t.Fatalf("seq %d (head was %d), warnings %+v", res.Item.Seq, headBefore, res.Warnings)
	}
	got, _ := Of(s).GetItem(ws, "TASK-1")
	if got.Content != "first body" || got.Seq != res.Item.Seq {
		t.Fatalf("stored: %+v", got)
	}
	after, _ := Of(s).ListVersions(ws, "TASK-1", 0, false)
	if len(after) != len(vs)+1 {
		t.Fatalf("a restore writes a version: %d -> %d", len(vs), len(after))
	}
	nv := after[0]
	wantSummary := fmt.Sprintf("Restored from version %d (", target.VersionSeq)
	if nv.Content != "first body" || !strings.HasPrefix(nv.Summary, wantSummary) || nv.Seq != res.Item.Seq ||
		nv.Actor.Kind != model.ActorAgent || nv.IsCreate {
		t.Fatalf("restore version: %+v", nv)
	}
	d, _ := Of(s).DiffVersion(ws, "TASK-1", nv.ID)
	if d.Before != "third body" || d.After != "first body" {
		t.Fatalf("restore diff %q -> %q", d.Before, d.After)
	}
	page, _ := Of(s).ListActivity(context.Background(), ws, ActivityQuery{ItemRef: "TASK-1", Limit: 1})
	if a := page.Entries[0]; a.Action != "updated" || a.Seq != res.Item.Seq || a.Metadata["comment"] != nv.Summary {
		t.Fatalf("restore activity: %+v", a)
	}
	// Restoring the body it already has writes nothing.
	head, _ := Of(s).Head(ws)
	res, err = s.RestoreVersion(ws, "TASK-1", target.ID, user)
	if err != nil || res.Changed {
		t.Fatalf("no-op restore: %+v %v", res, err)
	}
	if h, _ := Of(s).Head(ws); h != head {
		t.Fatalf("no-op restore moved the head %d -> %d", head, h)
	}
}

func TestRestoreVersionRefusals(t *testing.T) {
	s, _, ws, _ := versioned(t, "a", "b")
	vs, _ := Of(s).ListVersions(ws, "TASK-1", 0, false)
	head, _ := Of(s).Head(ws)
	_, err := s.RestoreVersion(ws, "TASK-1", records.NewID(), user)
	wantCode(t, err, model.CodeNotFound)
	if _, err := s.DeleteItem(ws, "TASK-1", user); err != nil {
		t.Fatal(err)
	}
	head++
	_, err = s.RestoreVersion(ws, "TASK-1", vs[1].ID, user)
	if e := wantCode(t, err, model.CodeArchived); e.Details["ref"] == nil {
		t.Fatalf("archived refusal details %v", e.Details)
	}
	if h, _ := Of(s).Head(ws); h != head {
		t.Fatalf("a refused restore wrote: head %d -> %d", head, h)
	}
	// History of an archived item stays readable.
	if got, err := Of(s).ListVersions(ws, "TASK-1", 0, false); err != nil || len(got) != 2 {
		t.Fatalf("archived history: %v %v", got, err)
	}
}

func TestUnifiedDiffShapes(t *testing.T) {
	cases := []struct{ before, after, want string }{
		{"a\n", "a\n", ""},
		{"", "x\ny\n", "--- a/n\n+++ b/n\n@@ -0,0 +1,2 @@\n+x\n+y\n"},
		{"x\ny\n", "", "--- a/n\n+++ b/n\n@@ -1,2 +0,0 @@\n-x\n-y\n"},
		{"a\nb", "a\nb\n", "--- a/n\n+++ b/n\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n"},
		// Two changes more than six lines apart make two hunks.
		{"1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n", "0\n2\n3\n4\n5\n6\n7\n8\n9\n11\n",
			"--- a/n\n+++ b/n\n@@ -1,4 +1,4 @@\n-1\n+0\n 2\n 3\n 4\n@@ -7,4 +7,4 @@\n 7\n 8\n 9\n-10\n+11\n"},
	}
	for _, c := range cases {
		if got := records.UnifiedDiff(c.before, c.after, "n"); got != c.want {
			t.Errorf("UnifiedDiff(%q, %q) =\n%s\nwant\n%s", c.before, c.after, got, c.want)
		}
	}
}

// TestUnifiedDiffApplies applies generated diffs with an independent
// reader of the format and checks they rebuild the new text exactly.
func TestUnifiedDiffApplies(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	words := []string{"alpha", "beta", "gamma", "delta", "", "# head", "- item"}
	text := func() string {
		var sb strings.Builder
		for range rng.Intn(40) {
			sb.WriteString(words[rng.Intn(len(words))])
			sb.WriteByte('\n')
		}
		s := sb.String()
		if rng.Intn(4) == 0 && s != "" {
			s = strings.TrimSuffix(s, "\n")
		}
		return s
	}
	for i := range 500 {
		a := text()
		b := a
		if i%5 != 0 {
			b = text()
		}
		d := records.UnifiedDiff(a, b, "f")
		got, err := applyUnified(a, d)
		if err != nil || got != b {
			t.Fatalf("case %d: %v\nbefore %q\nafter  %q\ngot    %q\ndiff:\n%s", i, err, a, b, got, d)
		}
	}
}

// applyUnified is a small, strict reader of unified diffs for tests.
func applyUnified(before, diff string) (string, error) {
	if diff == "" {
		return before, nil
	}
	old := records.SplitLines(before)
	lines := strings.SplitAfter(diff, "\n")
	if len(lines) < 3 || !strings.HasPrefix(lines[0], "--- ") || !strings.HasPrefix(lines[1], "+++ ") {
		return "", fmt.Errorf("bad header")
	}
	var out []string
	pos := 0 // next old line to copy
	for i := 2; i < len(lines) && lines[i] != ""; {
		var os, oc, ns, nc int
		h := lines[i]
		if _, err := fmt.Sscanf(h, "@@ -%s +%s @@", new(string), new(string)); err != nil {
			return "", fmt.Errorf("bad hunk header %q", h)
		}
		f := strings.Fields(h)
		parse := func(s string) (int, int) {
			st, ct, ok := strings.Cut(s[1:], ",")
			a, _ := strconv.Atoi(st)
			c := 1
			if ok {
				c, _ = strconv.Atoi(ct)
			}
			return a, c
		}
		os, oc = parse(f[1])
		ns, nc = parse(f[2])
		start := os - 1
		if oc == 0 {
			start = os
		}
		if start < pos {
			return "", fmt.Errorf("overlapping hunk %q", h)
		}
		out = append(out, old[pos:start]...)
		pos = start
		if nc == 0 && ns != len(out) || nc > 0 && ns-1 != len(out) {
			return "", fmt.Errorf("hunk %q: new start does not match (%d lines so far)", h, len(out))
		}
		i++
		seenOld, seenNew := 0, 0
		for i < len(lines) && lines[i] != "" && !strings.HasPrefix(lines[i], "@@") {
			l := lines[i]
			body := l[1:]
			if i+1 < len(lines) && lines[i+1] == "\\ No newline at end of file\n" {
				body = strings.TrimSuffix(body, "\n")
				i++
			}
			switch l[0] {
			case ' ', '-':
				if pos >= len(old) || old[pos] != body {
					return "", fmt.Errorf("context mismatch at old line %d: %q", pos+1, body)
				}
				pos++
				seenOld++
				if l[0] == ' ' {
					out = append(out, body)
					seenNew++
				}
			case '+':
				out = append(out, body)
				seenNew++
			default:
				return "", fmt.Errorf("bad line %q", l)
			}
			i++
		}
		if seenOld != oc || seenNew != nc {
			return "", fmt.Errorf("hunk %q counts %d/%d lines", h, seenOld, seenNew)
		}
	}
	return strings.Join(append(out, old[pos:]...), ""), nil
}

// TestDiffVersionUnreconstructable: a row that cannot say what it
// changed (its predecessor is gone, or it is unreadable) is refused
// with Pad's 409, not answered wrongly.
func TestDiffVersionUnreconstructable(t *testing.T) {
	s, _, ws, it := versioned(t, "a", "b", "c")
	vs, _ := Of(s).ListVersions(ws, "TASK-1", 0, false) // c, b, a
	err := s.Base().Update(func(tx *records.Txn) error {
		b := records.OpenWS(tx, it.WorkspaceID)
		if err := b.Versions().Delete(records.Cat(records.MustID(it.ID), records.U64(uint64(vs[2].VersionSeq)))); err != nil {
			return err
		}
		return b.Versions().Put(records.Cat(records.MustID(it.ID), records.U64(uint64(vs[0].VersionSeq))), []byte("{not json"))
	})
	if err != nil {
		t.Fatal(err)
	}
	_, err = Of(s).DiffVersion(ws, "TASK-1", vs[1].ID)
	if e := wantCode(t, err, model.CodeVersionUnreconstructable); api.StatusOf(e.Code) != 409 || e.Details["reason"] != "no_predecessor" {
		t.Fatalf("no predecessor: %+v", e)
	}
	_, err = Of(s).GetVersion(ws, "TASK-1", strconv.FormatInt(vs[0].VersionSeq, 10))
	if e := wantCode(t, err, model.CodeVersionUnreconstructable); e.Details["reason"] != "unreadable" {
		t.Fatalf("unreadable: %+v", e)
	}
}

// The shortcut for a body created or cleared counts what the diff counts.
func TestLineDeltaShortcutAgreesWithDiff(t *testing.T) {
	for _, body := range []string{"x", "one\n", "one\ntwo", "one\ntwo\n", "\n", "\n\n", "a\n\nb\n\n\n", "é\r\nü"} {
		wa, wr := records.DiffLineDelta("", body)
		if a, r := records.LineDelta("", body); a != wa || r != wr {
			t.Errorf("create %q: +%d -%d, the diff says +%d -%d", body, a, r, wa, wr)
		}
		wa, wr = records.DiffLineDelta(body, "")
		if a, r := records.LineDelta(body, ""); a != wa || r != wr {
			t.Errorf("clear %q: +%d -%d, the diff says +%d -%d", body, a, r, wa, wr)
		}
	}
}

// BenchmarkVersionByID looks a version up by id in a history of 3,000
// versions of a document grown to 90 KB, 50 versions from the newest.
func BenchmarkVersionByID(b *testing.B) {
	s, _ := openTestNoSync(b)
	ws := mustWorkspace(b, s, "History").Slug
	it := mustCreate(b, s, ws, "docs", "doc", nil)
	var body strings.Builder
	for i := range 3000 {
		fmt.Fprintf(&body, "line %d of a growing document\n", i)
		c := body.String()
		if _, err := s.UpdateItem(ws, it.Ref, storage.ItemUpdate{Content: &c}, user); err != nil {
			b.Fatal(err)
		}
	}
	vs, err := Of(s).ListVersions(ws, it.Ref, 50, true)
	if err != nil {
		b.Fatal(err)
	}
	id := vs[len(vs)-1].ID
	b.ResetTimer()
	for range b.N {
		if v, err := Of(s).GetVersion(ws, it.Ref, id); err != nil || v.ID != id {
			b.Fatalf("%v %v", v, err)
		}
	}
}
