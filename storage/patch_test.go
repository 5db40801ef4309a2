package storage

import (
	"fmt"
	"strings"
	"testing"

	"github.com/padd/padd/model"
)

func patchDoc(t *testing.T, s *Store, ws, body string) *ItemView {
	t.Helper()
	r, err := s.CreateItem(ws, ItemCreate{Collection: "docs", Title: "Design", Content: body}, user)
	if err != nil {
		t.Fatal(err)
	}
	return r.Item
}

func mustPatch(t *testing.T, s *Store, ws, ref string, in PatchRequest) *PatchResult {
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

func TestPatchRefusalsWriteNothing(t *testing.T) {
	s, _ := openTest(t)
	ws := mustWorkspace(t, s, "P").Slug
	doc := patchDoc(t, s, ws, "alpha beta alpha\n")
	other := patchDoc(t, s, ws, "other body\n")
	p := mustPatch(t, s, ws, other.Ref, PatchRequest{Edits: edits("other", "another")})
	head, _ := rd(s).Head(ws)
	cases := []struct {
		name string
		in   PatchRequest
		code string
	}{
		{"no edits", PatchRequest{}, model.CodeBadRequest},
		{"missing anchor", PatchRequest{Edits: edits("gamma", "g")}, model.CodePatchAnchorMissing},
		{"ambiguous anchor", PatchRequest{Edits: edits("alpha", "a")}, model.CodePatchAnchorAmbiguous},
		{"all or nothing", PatchRequest{Edits: edits("beta", "b", "nope", "x")}, model.CodePatchAnchorMissing},
		{"no net change", PatchRequest{Edits: edits("beta", "B", "B", "beta")}, model.CodeBadRequest},
		{"undo with edits", PatchRequest{Undo: p.PatchID, Edits: edits("beta", "b")}, model.CodeBadRequest},
		{"undo of another item's patch", PatchRequest{Undo: p.PatchID}, model.CodePatchNotFound},
		{"undo of no patch", PatchRequest{Undo: "not-a-patch"}, model.CodePatchNotFound},
		{"bad expected_seq", PatchRequest{Edits: edits("beta", "b"), ExpectedSeq: new(int64)}, model.CodeBadRequest},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := s.PatchItem(ws, doc.Ref, tc.in, user)
			e := wantCode(t, err, tc.code)
			if tc.name == "no net change" && e.Details["ref"] != doc.Ref {
				t.Fatalf("details %v", e.Details)
			}
			if h, _ := rd(s).Head(ws); h != head {
				t.Fatal("a refused patch moved the seq")
			}
		})
	}
	if _, err := s.DeleteItem(ws, doc.Ref, user); err != nil {
		t.Fatal(err)
	}
	_, err := s.PatchItem(ws, doc.Ref, PatchRequest{Edits: edits("beta", "b")}, user)
	wantCode(t, err, model.CodeArchived)
}

// expected_seq never refuses: a moved item is patched and the reply
// lists what happened in between, from the seq chain.
func TestPatchRebasedIntervening(t *testing.T) {
	s, clk := openTest(t)
	ws := mustWorkspace(t, s, "P").Slug
	doc := patchDoc(t, s, ws, "intro\nbody\n")
	read := doc.Seq
	clk.advance(1)
	agent := model.Actor{Kind: model.ActorAgent, Name: "bot", Source: model.SourceMCP}
	up, err := s.UpdateItem(ws, doc.Ref, ItemUpdate{Content: strPtr("intro\nbody\nmore\n"), Replace: true}, agent)
	if err != nil {
		t.Fatal(err)
	}
	title := "Design v2"
	up2, err := s.UpdateItem(ws, doc.Ref, ItemUpdate{Title: &title}, user)
	if err != nil {
		t.Fatal(err)
	}
	unrelated := mustCreate(t, s, ws, "tasks", "unrelated", nil) // moves the workspace seq, not the item's
	r := mustPatch(t, s, ws, doc.Ref, PatchRequest{Edits: edits("intro", "Intro"), ExpectedSeq: &read})
	iv := r.Intervening
	if !r.Rebased || iv == nil || !iv.Complete || iv.Truncated || iv.FromSeq != read || iv.ToSeq != up2.Item.Seq || len(iv.Changes) != 2 {
		t.Fatalf("intervening %+v", iv)
	}
	c0, c1 := iv.Changes[0], iv.Changes[1]
	if c0.Seq != up.Item.Seq || c0.PrevSeq != read || c0.Actor != "agent" || c0.Agent != "bot" || c0.Source != "mcp" || c0.VersionID == "" {
		t.Fatalf("first change %+v", c0)
	}
	if c1.Seq != up2.Item.Seq || c1.PrevSeq != up.Item.Seq || c1.Action != "updated" || c1.ActivityID == "" {
		t.Fatalf("second change %+v", c1)
	}
	// A seq the item never had: the chain steps past it.
	bogus := unrelated.Seq
	r = mustPatch(t, s, ws, doc.Ref, PatchRequest{Edits: edits("body", "Body"), ExpectedSeq: &bogus})
	if !r.Rebased || r.Intervening.Complete {
		t.Fatalf("bogus expected_seq: %+v", r.Intervening)
	}
}

func TestPatchInterveningTruncated(t *testing.T) {
	s, _ := openTestNoSync(t)
	ws := mustWorkspace(t, s, "P").Slug
	doc := patchDoc(t, s, ws, "n=0\n")
	read := doc.Seq
	for i := 1; i <= model.MaxIntervening+10; i++ {
		body := fmt.Sprintf("n=%d\n", i)
		if _, err := s.UpdateItem(ws, doc.Ref, ItemUpdate{Content: &body, Replace: true}, user); err != nil {
			t.Fatal(err)
		}
	}
	r := mustPatch(t, s, ws, doc.Ref, PatchRequest{Edits: edits("n=", "count="), ExpectedSeq: &read})
	iv := r.Intervening
	if !iv.Complete || !iv.Truncated || len(iv.Changes) != model.MaxIntervening || iv.Changes[len(iv.Changes)-1].Seq != iv.ToSeq {
		t.Fatalf("complete %v truncated %v changes %d", iv.Complete, iv.Truncated, len(iv.Changes))
	}
}

func TestPatchUndo(t *testing.T) {
	s, _ := openTest(t)
	ws := mustWorkspace(t, s, "P").Slug
	orig := "# Plan\n- one\n- two\n- three\n"
	doc := patchDoc(t, s, ws, orig)
	p := mustPatch(t, s, ws, doc.Ref, PatchRequest{Edits: edits("- two\n", "", "one", "ONE")})
	// Someone edits another part of the body in between.
	body := "# Plan\n- ONE\n- three\n\nNotes.\n"
	if _, err := s.UpdateItem(ws, doc.Ref, ItemUpdate{Content: &body, Replace: true}, user); err != nil {
		t.Fatal(err)
	}
	u := mustPatch(t, s, ws, doc.Ref, PatchRequest{Undo: p.PatchID})
	if u.UndoOf != p.PatchID || u.PatchID == p.PatchID {
		t.Fatalf("undo reply %+v", u.PatchReply)
	}
	got, _ := rd(s).GetItem(ws, doc.Ref)
	if got.Content != orig+"\nNotes.\n" {
		t.Fatalf("after undo %q", got.Content)
	}
	// The undo is a patch too: undoing it re-applies the original.
	mustPatch(t, s, ws, doc.Ref, PatchRequest{Undo: u.PatchID})
	got, _ = rd(s).GetItem(ws, doc.Ref)
	if got.Content != body {
		t.Fatalf("undo of the undo %q", got.Content)
	}
	// An undo never reverts someone else's later edit of the same text.
	changed := strings.Replace(body, "- ONE", "- Uno", 1)
	if _, err := s.UpdateItem(ws, doc.Ref, ItemUpdate{Content: &changed, Replace: true}, user); err != nil {
		t.Fatal(err)
	}
	_, err := s.PatchItem(ws, doc.Ref, PatchRequest{Undo: p.PatchID}, user)
	wantCode(t, err, model.CodePatchAnchorMissing)
}

func TestPatchUndoOfEmptiedBody(t *testing.T) {
	s, _ := openTest(t)
	ws := mustWorkspace(t, s, "P").Slug
	doc := patchDoc(t, s, ws, "all of it")
	p := mustPatch(t, s, ws, doc.Ref, PatchRequest{Edits: edits("all of it", "")})
	_, err := s.PatchItem(ws, doc.Ref, PatchRequest{Undo: p.PatchID}, user)
	if e := wantCode(t, err, model.CodeBadRequest); !strings.Contains(e.Message, "History") {
		t.Fatalf("message %q", e.Message)
	}
}

func strPtr(s string) *string { return &s }
