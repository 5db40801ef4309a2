package views

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/padd/padd/model"
	"github.com/padd/padd/storage"
)

func patchDoc(t *testing.T, s *storage.Store, ws, body string) *storage.ItemView {
	t.Helper()
	r, err := s.CreateItem(ws, storage.ItemCreate{Collection: "docs", Title: "Design", Content: body}, user)
	if err != nil {
		t.Fatal(err)
	}
	return r.Item
}

func mustPatch(t *testing.T, s *storage.Store, ws, ref string, in storage.PatchRequest) *storage.PatchResult {
	t.Helper()
	r, err := s.PatchItem(ws, ref, in, user)
	if err != nil {
		t.Fatalf("patch: %v", err)
	}
	return r
}

func edits(pairs ...string) []model.PatchEdit {
	var out []model.PatchEdit
	for i := 0; i+1 < len(pairs); i += 2 {
		out = append(out, model.PatchEdit{Old: pairs[i], New: pairs[i+1]})
	}
	return out
}

func TestPatchWritesVersionActivityAndRecord(t *testing.T) {
	s, clk := openTest(t)
	ws := mustWorkspace(t, s, "P").Slug
	doc := patchDoc(t, s, ws, "# Design\n\nUse a queue.\nShip Friday.\n")
	clk.advance(1)
	seq := doc.Seq
	r := mustPatch(t, s, ws, doc.Ref, storage.PatchRequest{Edits: edits("a queue", "a log", "Friday", "Monday"), ExpectedSeq: &seq})
	if r.Rebased || r.Intervening != nil || r.Ref != doc.Ref || r.PatchID == "" || r.Seq <= seq {
		t.Fatalf("reply %+v", r.PatchReply)
	}
	if !strings.Contains(r.Diff, "\n-Use a queue.\n") || !strings.Contains(r.Diff, "\n+Use a log.\n") || !strings.HasPrefix(r.Diff, "--- a/"+doc.Ref) {
		t.Fatalf("diff %q", r.Diff)
	}
	got, _ := Of(s).GetItem(ws, doc.Ref)
	if got.Content != "# Design\n\nUse a log.\nShip Monday.\n" || got.Seq != r.Seq {
		t.Fatalf("body %q seq %d", got.Content, got.Seq)
	}
	vs, err := Of(s).ListVersions(ws, doc.Ref, 0, true)
	if err != nil || len(vs) != 2 || vs[0].ID != r.VersionID || vs[0].Summary != "patch: 2 edit(s)" {
		t.Fatalf("versions %+v %v", vs, err)
	}
	page, err := Of(s).ListActivity(context.Background(), ws, ActivityQuery{ItemRef: doc.Ref, Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	m := page.Entries[0].Metadata
	if m["patch_id"] != r.PatchID || fmt.Sprint(m["patch_edits"]) != "2" || fmt.Sprint(m["prev_seq"]) != fmt.Sprint(seq) {
		t.Fatalf("activity metadata %v", m)
	}
}

func TestPatchIdempotent(t *testing.T) {
	s, _ := openTest(t)
	ws := mustWorkspace(t, s, "P").Slug
	doc := patchDoc(t, s, ws, "x = 1\n")
	in := storage.PatchRequest{Edits: edits("1", "2"), Idem: storage.NewIdem("op-1", "patch", doc.Ref, "1->2")}
	a := mustPatch(t, s, ws, doc.Ref, in)
	b := mustPatch(t, s, ws, doc.Ref, in)
	if !b.Replayed || b.PatchID != a.PatchID || b.Seq != a.Seq || b.Diff != a.Diff {
		t.Fatalf("replay %+v vs %+v", b, a)
	}
	if vs, _ := Of(s).ListVersions(ws, doc.Ref, 0, true); len(vs) != 2 {
		t.Fatalf("%d versions after a replay, want 2", len(vs))
	}
	_, err := s.PatchItem(ws, doc.Ref, storage.PatchRequest{Edits: edits("2", "3"), Idem: storage.NewIdem("op-1", "patch", doc.Ref, "2->3")}, user)
	wantCode(t, err, model.CodeIdempotencyKeyReused)
	if _, err := s.DeleteItem(ws, doc.Ref, user); err != nil {
		t.Fatal(err)
	}
	_, err = s.PatchItem(ws, doc.Ref, in, user)
	wantCode(t, err, model.CodeIdempotencyTargetGone)
}
