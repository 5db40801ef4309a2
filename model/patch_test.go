package model_test

import (
	"strings"
	"testing"

	"github.com/padd/padd/model"
)

func TestApplyPatch(t *testing.T) {
	e := func(old, new string) model.PatchEdit { return model.PatchEdit{Old: old, New: new} }
	hint := func(old, new string, line int) model.PatchEdit {
		return model.PatchEdit{Old: old, New: new, LineHint: line}
	}
	tooMany := make([]model.PatchEdit, model.MaxPatchEdits+1)
	for i := range tooMany {
		tooMany[i] = e("x", "y")
	}
	tests := []struct {
		name    string
		body    string
		edits   []model.PatchEdit
		want    string
		code    string
		details map[string]any
	}{
		{name: "one edit", body: "hello world\n", edits: []model.PatchEdit{e("world", "there")}, want: "hello there\n"},
		{name: "edits apply in order, each on the body the last left",
			body: "a b c", edits: []model.PatchEdit{e("b", "B1"), e("B1 c", "done")}, want: "a done"},
		{name: "insertion anchored on neighbouring text", body: "line 1\nline 2\n",
			edits: []model.PatchEdit{e("line 1\n", "line 1\nnew line\n")}, want: "line 1\nnew line\nline 2\n"},
		{name: "no edits", body: "x", edits: nil, code: model.CodeBadRequest},
		{name: "too many edits", body: "x", edits: tooMany, code: model.CodeBadRequest, details: map[string]any{"limit": model.MaxPatchEdits}},
		{name: "empty old", body: "x", edits: []model.PatchEdit{e("x", "y"), e("", "z")}, code: model.CodeBadRequest, details: map[string]any{"edit": 1}},
		{name: "old equals new", body: "x", edits: []model.PatchEdit{e("x", "x")}, code: model.CodeBadRequest, details: map[string]any{"edit": 0}},
		{name: "no net change", body: "abc", edits: []model.PatchEdit{e("b", "X"), e("X", "b")}, code: model.CodeBadRequest,
			details: map[string]any{"ref": "TASK-1"}},
		{name: "anchor missing", body: "abc", edits: []model.PatchEdit{e("zzz", "y")}, code: model.CodePatchAnchorMissing,
			details: map[string]any{"edit": 0}},
		{name: "anchor missing after an earlier edit removed it (all or nothing)", body: "one two",
			edits: []model.PatchEdit{e("two", "2"), e("two", "deux")}, code: model.CodePatchAnchorMissing, details: map[string]any{"edit": 1}},
		{name: "repeated anchor is ambiguous", body: "todo\nx\ntodo\n", edits: []model.PatchEdit{e("todo", "done")},
			code: model.CodePatchAnchorAmbiguous, details: map[string]any{"edit": 0, "lines": []int{1, 3}}},
		{name: "overlapping occurrences count", body: "aaa", edits: []model.PatchEdit{e("aa", "b")},
			code: model.CodePatchAnchorAmbiguous, details: map[string]any{"lines": []int{1, 1}}},
		{name: "line_hint picks among exact matches", body: "todo\nx\ntodo\n", edits: []model.PatchEdit{hint("todo", "done", 3)},
			want: "todo\nx\ndone\n"},
		{name: "line_hint naming no match stays ambiguous", body: "todo\nx\ntodo\n", edits: []model.PatchEdit{hint("todo", "done", 2)},
			code: model.CodePatchAnchorAmbiguous, details: map[string]any{"lines": []int{1, 3}}},
		{name: "line_hint cannot split two matches on one line", body: "ab ab\n", edits: []model.PatchEdit{hint("ab", "x", 1)},
			code: model.CodePatchAnchorAmbiguous},
		{name: "line_hint never makes an inexact match", body: "todo\n", edits: []model.PatchEdit{hint("tod0", "x", 1)},
			code: model.CodePatchAnchorMissing},
		{name: "a single match wins whatever the hint", body: "a\nb\n", edits: []model.PatchEdit{hint("b", "c", 1)}, want: "a\nc\n"},
		{name: "multibyte text", body: "café ☕ ok", edits: []model.PatchEdit{e("☕", "🍵")}, want: "café 🍵 ok"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, applied, err := model.ApplyPatch("TASK-1", tc.body, tc.edits)
			if tc.code != "" {
				status := 400
				if tc.code == model.CodePatchAnchorMissing || tc.code == model.CodePatchAnchorAmbiguous {
					status = 409
				}
				wantErr(t, err, tc.code, status, tc.details)
				if got != "" || applied != nil {
					t.Fatalf("a refused patch returned text %q / %d edits", got, len(applied))
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
			if len(applied) != len(tc.edits) {
				t.Fatalf("applied %d edits, want %d", len(applied), len(tc.edits))
			}
		})
	}
}

func TestApplyPatchContext(t *testing.T) {
	long := strings.Repeat("x", 60)
	tests := []struct {
		name, body    string
		edit          model.PatchEdit
		before, after string
	}{
		{"clipped at line ends", "first line\nsay hello there\nlast\n", model.PatchEdit{Old: "hello", New: "hi"}, "say ", " there"},
		{"at most 40 characters each side", long + "MID" + long, model.PatchEdit{Old: "MID", New: "mid"}, long[:40], long[:40]},
		{"characters, not bytes", strings.Repeat("é", 50) + "X", model.PatchEdit{Old: "X", New: "Y"}, strings.Repeat("é", 40), ""},
		{"an emptied line reaches across line breaks", "keep\ndrop me\nkeep too\n", model.PatchEdit{Old: "drop me", New: ""},
			"keep\n", "\nkeep too\n"},
		{"a removed line anchors on the line that took its place", "keep\ndrop me\nkeep too\n", model.PatchEdit{Old: "drop me\n", New: ""},
			"", "keep too"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, applied, err := model.ApplyPatch("X-1", tc.body, []model.PatchEdit{tc.edit})
			if err != nil {
				t.Fatal(err)
			}
			if a := applied[0]; a.CtxBefore != tc.before || a.CtxAfter != tc.after {
				t.Fatalf("context %q | %q, want %q | %q", a.CtxBefore, a.CtxAfter, tc.before, tc.after)
			}
		})
	}
}

func TestInverseEdits(t *testing.T) {
	body := "# Plan\n\n- step one\n- step two\n- step three\n"
	edits := []model.PatchEdit{{Old: "step one", New: "step 1"}, {Old: "- step three\n", New: ""}, {Old: "# Plan", New: "# The plan"}}
	patched, applied, err := model.ApplyPatch("DOC-1", body, edits)
	if err != nil {
		t.Fatal(err)
	}

	t.Run("undo restores the body", func(t *testing.T) {
		back, _, err := model.ApplyPatch("DOC-1", patched, model.InverseEdits(applied))
		if err != nil {
			t.Fatal(err)
		}
		if back != body {
			t.Fatalf("undo gave %q, want %q", back, body)
		}
	})
	t.Run("undo after an unrelated intervening edit keeps that edit", func(t *testing.T) {
		other := patched + "\nA note added later.\n"
		back, _, err := model.ApplyPatch("DOC-1", other, model.InverseEdits(applied))
		if err != nil {
			t.Fatal(err)
		}
		if back != body+"\nA note added later.\n" {
			t.Fatalf("undo gave %q", back)
		}
	})
	t.Run("undo refuses when the patched text changed since", func(t *testing.T) {
		other := strings.Replace(patched, "step 1", "step 1 (revised)", 1)
		_, _, err := model.ApplyPatch("DOC-1", other, model.InverseEdits(applied))
		wantErr(t, err, model.CodePatchAnchorMissing, 409, nil)
	})
	t.Run("inverses run in reverse order", func(t *testing.T) {
		inv := model.InverseEdits(applied)
		if !strings.Contains(inv[0].New, "# Plan") || !strings.Contains(inv[2].New, "step one") {
			t.Fatalf("inverse order wrong: %+v", inv)
		}
	})
}
