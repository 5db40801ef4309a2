package merge

import (
	"maps"
	"reflect"
	"slices"
	"testing"
)

// base is the item every scenario starts from; each scenario edits a
// copy of it.
func baseItem() *Item {
	return &Item{
		Title:      "Fix the login",
		Content:    "one\ntwo\nthree\nfour\nfive\n",
		Fields:     map[string]any{"status": "open", "priority": "low", "estimate": 3},
		Tags:       []string{"a", "b"},
		Parent:     "p1",
		Collection: "tasks",
	}
}

// edit returns a copy of baseItem changed by f (fields and tags copied
// too, so f may change them).
func edit(f func(it *Item)) *Item {
	it := baseItem()
	it.Fields = maps.Clone(it.Fields)
	it.Tags = slices.Clone(it.Tags)
	f(it)
	return it
}

type scenario struct {
	name                string
	base, local, remote *Item
	want                *Item // merged
	outcome             Outcome
	conflicts           []Conflict
	// wantMirror is the merged item with local and remote swapped, when it
	// differs from want (a conflict: the other side's value wins).
	wantMirror *Item
}

func scenarios() []scenario {
	b := baseItem()
	return []scenario{
		{name: "unchanged", base: b, local: b, remote: b, want: b, outcome: Unchanged},
		{
			name: "title changed remotely is a fast-forward",
			base: b, local: b, remote: edit(func(it *Item) { it.Title = "Fix login" }),
			want:    edit(func(it *Item) { it.Title = "Fix login" }),
			outcome: TakeRemote,
		},
		{
			name:  "title changed the same way on both sides",
			base:  b,
			local: edit(func(it *Item) { it.Title = "Fix login" }), remote: edit(func(it *Item) { it.Title = "Fix login" }),
			want:    edit(func(it *Item) { it.Title = "Fix login" }),
			outcome: Unchanged,
		},
		{
			name:  "title changed differently: remote wins",
			base:  b,
			local: edit(func(it *Item) { it.Title = "Local" }), remote: edit(func(it *Item) { it.Title = "Remote" }),
			want:       edit(func(it *Item) { it.Title = "Remote" }),
			wantMirror: edit(func(it *Item) { it.Title = "Local" }),
			outcome:    Conflicted,
			conflicts:  []Conflict{{What: WhatTitle, Base: "Fix the login", Local: "Local", Remote: "Remote"}},
		},
		{
			name:  "disjoint parts merge",
			base:  b,
			local: edit(func(it *Item) { it.Title = "Local" }), remote: edit(func(it *Item) { it.Pinned = true }),
			want:    edit(func(it *Item) { it.Title = "Local"; it.Pinned = true }),
			outcome: Merged,
		},
		{
			name:  "disjoint field keys merge",
			base:  b,
			local: edit(func(it *Item) { it.Fields["owner"] = "ana" }), remote: edit(func(it *Item) { it.Fields["status"] = "done" }),
			want:    edit(func(it *Item) { it.Fields["owner"] = "ana"; it.Fields["status"] = "done" }),
			outcome: Merged,
		},
		{
			name:  "a key removed on one side, another changed on the other",
			base:  b,
			local: edit(func(it *Item) { delete(it.Fields, "priority") }), remote: edit(func(it *Item) { it.Fields["estimate"] = 5 }),
			want:    edit(func(it *Item) { delete(it.Fields, "priority"); it.Fields["estimate"] = 5 }),
			outcome: Merged,
		},
		{
			name:  "a key removed locally only: push",
			base:  b,
			local: edit(func(it *Item) { delete(it.Fields, "priority") }), remote: b,
			want:    edit(func(it *Item) { delete(it.Fields, "priority") }),
			outcome: KeepLocal,
		},
		{
			name:  "the same number on both sides, written differently",
			base:  b,
			local: edit(func(it *Item) { it.Fields["estimate"] = 5 }), remote: edit(func(it *Item) { it.Fields["estimate"] = 5.0 }),
			want:    edit(func(it *Item) { it.Fields["estimate"] = 5 }),
			outcome: Unchanged,
		},
		{
			name:  "a key changed differently: remote wins",
			base:  b,
			local: edit(func(it *Item) { it.Fields["status"] = "doing" }), remote: edit(func(it *Item) { it.Fields["status"] = "done" }),
			want:       edit(func(it *Item) { it.Fields["status"] = "done" }),
			wantMirror: edit(func(it *Item) { it.Fields["status"] = "doing" }),
			outcome:    Conflicted,
			conflicts:  []Conflict{{What: WhatField, Key: "status", Base: "open", Local: "doing", Remote: "done"}},
		},
		{
			name:  "a key removed on one side and changed on the other",
			base:  b,
			local: edit(func(it *Item) { delete(it.Fields, "status") }), remote: edit(func(it *Item) { it.Fields["status"] = "done" }),
			want:       edit(func(it *Item) { it.Fields["status"] = "done" }),
			wantMirror: edit(func(it *Item) { delete(it.Fields, "status") }),
			outcome:    Conflicted,
			conflicts:  []Conflict{{What: WhatField, Key: "status", Base: "open", Local: Missing, Remote: "done"}},
		},
		{
			name:  "a key added on both sides with different values",
			base:  b,
			local: edit(func(it *Item) { it.Fields["owner"] = "ana" }), remote: edit(func(it *Item) { it.Fields["owner"] = []any{"bo"} }),
			want:       edit(func(it *Item) { it.Fields["owner"] = []any{"bo"} }),
			wantMirror: edit(func(it *Item) { it.Fields["owner"] = "ana" }),
			outcome:    Conflicted,
			conflicts:  []Conflict{{What: WhatField, Key: "owner", Base: Missing, Local: "ana", Remote: []any{"bo"}}},
		},
		{
			name:  "tags merge as sets",
			base:  b,
			local: edit(func(it *Item) { it.Tags = []string{"b", "x"} }), remote: edit(func(it *Item) { it.Tags = []string{"y", "a"} }),
			want:    edit(func(it *Item) { it.Tags = []string{"y", "x"} }),
			outcome: Merged,
		},
		{
			name:  "the same tag added on both sides",
			base:  b,
			local: edit(func(it *Item) { it.Tags = []string{"a", "b", "x"} }), remote: edit(func(it *Item) { it.Tags = []string{"x", "a", "b"} }),
			want:    edit(func(it *Item) { it.Tags = []string{"x", "a", "b"} }),
			outcome: Unchanged,
		},
		{
			name:  "parent changed on one side, title on the other",
			base:  b,
			local: edit(func(it *Item) { it.Parent = "" }), remote: edit(func(it *Item) { it.Title = "Remote" }),
			want:    edit(func(it *Item) { it.Parent = ""; it.Title = "Remote" }),
			outcome: Merged,
		},
		{
			name:  "parent changed differently: remote wins",
			base:  b,
			local: edit(func(it *Item) { it.Parent = "p2" }), remote: edit(func(it *Item) { it.Parent = "p3" }),
			want:       edit(func(it *Item) { it.Parent = "p3" }),
			wantMirror: edit(func(it *Item) { it.Parent = "p2" }),
			outcome:    Conflicted,
			conflicts:  []Conflict{{What: WhatParent, Base: "p1", Local: "p2", Remote: "p3"}},
		},
		{
			name:  "pinned on one side",
			base:  b,
			local: edit(func(it *Item) { it.Pinned = true }), remote: b,
			want:    edit(func(it *Item) { it.Pinned = true }),
			outcome: KeepLocal,
		},
		{
			name:  "content edits to different lines merge",
			base:  b,
			local: edit(func(it *Item) { it.Content = "ONE\ntwo\nthree\nfour\nfive\n" }), remote: edit(func(it *Item) { it.Content = "one\ntwo\nthree\nfour\nFIVE\n" }),
			want:    edit(func(it *Item) { it.Content = "ONE\ntwo\nthree\nfour\nFIVE\n" }),
			outcome: Merged,
		},
		{
			name:  "content edits to the same line: remote wins, local kept in the conflict",
			base:  b,
			local: edit(func(it *Item) { it.Content = "ONE\ntwo\nthree\nfour\nlocal five\n" }), remote: edit(func(it *Item) { it.Content = "one\ntwo\nthree\nfour\nremote five\n" }),
			want:       edit(func(it *Item) { it.Content = "ONE\ntwo\nthree\nfour\nremote five\n" }),
			wantMirror: edit(func(it *Item) { it.Content = "ONE\ntwo\nthree\nfour\nlocal five\n" }),
			outcome:    Conflicted,
			conflicts: []Conflict{{
				What: WhatContent, Base: "one\ntwo\nthree\nfour\nfive\n",
				Local: "ONE\ntwo\nthree\nfour\nlocal five\n", Remote: "one\ntwo\nthree\nfour\nremote five\n",
				Hunks: []Hunk{{Line: 5, Base: "five\n", Local: "local five\n", Remote: "remote five\n"}},
			}},
		},
		{
			name:  "move against edit: the item moves and keeps the edit",
			base:  b,
			local: edit(func(it *Item) { it.Fields["status"] = "done"; it.Content += "six\n" }), remote: edit(func(it *Item) { it.Collection = "bugs" }),
			want:    edit(func(it *Item) { it.Fields["status"] = "done"; it.Content += "six\n"; it.Collection = "bugs" }),
			outcome: Merged,
		},
		{
			name:  "moved to different collections: remote wins",
			base:  b,
			local: edit(func(it *Item) { it.Collection = "ideas" }), remote: edit(func(it *Item) { it.Collection = "bugs" }),
			want:       edit(func(it *Item) { it.Collection = "bugs" }),
			wantMirror: edit(func(it *Item) { it.Collection = "ideas" }),
			outcome:    Conflicted,
			conflicts:  []Conflict{{What: WhatCollection, Base: "tasks", Local: "ideas", Remote: "bugs"}},
		},
		{
			name:  "archive against edit: the item stays alive with the edit",
			base:  b,
			local: edit(func(it *Item) { it.Content += "six\n" }), remote: edit(func(it *Item) { it.Archived = true }),
			want:      edit(func(it *Item) { it.Content += "six\n" }),
			outcome:   Conflicted,
			conflicts: []Conflict{{What: WhatArchived, Base: false, Local: false, Remote: true}},
		},
		{
			name:  "archive against a tag added: still alive",
			base:  b,
			local: edit(func(it *Item) { it.Archived = true; it.Title = "Old" }), remote: edit(func(it *Item) { it.Tags = append(it.Tags, "z") }),
			want:      edit(func(it *Item) { it.Title = "Old"; it.Tags = append(it.Tags, "z") }),
			outcome:   Conflicted,
			conflicts: []Conflict{{What: WhatArchived, Base: false, Local: true, Remote: false}},
		},
		{
			name:  "archive against a comment not yet sent (touched): still alive",
			base:  b,
			local: edit(func(it *Item) { it.Touched = true }), remote: edit(func(it *Item) { it.Archived = true }),
			want:      b,
			outcome:   Conflicted,
			conflicts: []Conflict{{What: WhatArchived, Base: false, Local: false, Remote: true}},
		},
		{
			name:  "archived on one side, untouched on the other",
			base:  b,
			local: b, remote: edit(func(it *Item) { it.Archived = true }),
			want:    edit(func(it *Item) { it.Archived = true }),
			outcome: TakeRemote,
		},
		{
			name:  "archived on both sides, edited on one",
			base:  b,
			local: edit(func(it *Item) { it.Archived = true; it.Title = "Old" }), remote: edit(func(it *Item) { it.Archived = true }),
			want:    edit(func(it *Item) { it.Archived = true; it.Title = "Old" }),
			outcome: KeepLocal,
		},
		{
			name:  "edit against restore: alive, with the edit",
			base:  edit(func(it *Item) { it.Archived = true }),
			local: edit(func(it *Item) { it.Archived = true; it.Fields["status"] = "done" }), remote: b,
			want:    edit(func(it *Item) { it.Fields["status"] = "done" }),
			outcome: Merged,
		},
		{
			name:  "delete against edit: the edited item lives on",
			base:  b,
			local: edit(func(it *Item) { it.Title = "Local" }), remote: nil,
			want:      edit(func(it *Item) { it.Title = "Local" }),
			outcome:   Conflicted,
			conflicts: []Conflict{{What: WhatDeleted, Base: false, Local: false, Remote: true}},
		},
		{
			name:  "deleted on one side, untouched on the other",
			base:  b,
			local: b, remote: nil,
			want:    nil,
			outcome: TakeRemote,
		},
		{name: "deleted on both sides", base: b, want: nil, outcome: Unchanged},
		{
			name: "no base: equal sides", base: nil, local: b, remote: b,
			want: b, outcome: Unchanged,
		},
		{
			name: "no base: every differing part conflicts", base: nil,
			local:      &Item{Title: "L", Collection: "tasks", Tags: []string{"x"}},
			remote:     &Item{Title: "R", Collection: "tasks", Tags: []string{"y"}},
			want:       &Item{Title: "R", Collection: "tasks", Tags: []string{"y", "x"}},
			wantMirror: &Item{Title: "L", Collection: "tasks", Tags: []string{"x", "y"}},
			outcome:    Conflicted,
			conflicts:  []Conflict{{What: WhatTitle, Base: "", Local: "L", Remote: "R"}},
		},
	}
}

func TestMergeScenarios(t *testing.T) {
	for _, sc := range scenarios() {
		t.Run(sc.name, func(t *testing.T) {
			res := Merge(sc.base, sc.local, sc.remote)
			checkResult(t, res, sc.want, sc.outcome, sc.conflicts, true)
			if res.WriteLocal != !same(res.Merged, sc.local) || res.Push != !same(res.Merged, sc.remote) {
				t.Errorf("WriteLocal %v Push %v for merged %+v", res.WriteLocal, res.Push, res.Merged)
			}
		})
		t.Run(sc.name+" (mirrored)", func(t *testing.T) {
			want := sc.want
			if sc.wantMirror != nil {
				want = sc.wantMirror
			}
			outcome := sc.outcome
			switch outcome {
			case TakeRemote:
				outcome = KeepLocal
			case KeepLocal:
				outcome = TakeRemote
			}
			var conflicts []Conflict
			for _, c := range sc.conflicts {
				c.Local, c.Remote = c.Remote, c.Local
				var hunks []Hunk
				for _, h := range c.Hunks {
					h.Local, h.Remote = h.Remote, h.Local
					hunks = append(hunks, h)
				}
				c.Hunks = hunks
				conflicts = append(conflicts, c)
			}
			checkResult(t, Merge(sc.base, sc.remote, sc.local), want, outcome, conflicts, false)
		})
	}
}

// checkResult compares a merge with what a scenario wants. Tag order is
// checked only when exact is set (a mirrored merge lists the tags in the
// other side's order), and hunks' lines likewise (they count lines of the
// merged text, which the mirror changes).
func checkResult(t *testing.T, res Result, want *Item, outcome Outcome, conflicts []Conflict, exact bool) {
	t.Helper()
	if res.Outcome != outcome {
		t.Errorf("outcome %v, want %v", res.Outcome, outcome)
	}
	if !same(res.Merged, want) {
		t.Errorf("merged\n %+v\nwant\n %+v", res.Merged, want)
	} else if exact && want != nil && !slices.Equal(res.Merged.Tags, want.Tags) {
		t.Errorf("merged tags %q, want %q in that order", res.Merged.Tags, want.Tags)
	}
	got := res.Conflicts
	if !exact {
		got = nil
		for _, c := range res.Conflicts {
			var hunks []Hunk
			for _, h := range c.Hunks {
				h.Line = 0
				hunks = append(hunks, h)
			}
			c.Hunks = hunks
			got = append(got, c)
		}
		conflicts = slices.Clone(conflicts)
		for i := range conflicts {
			for j := range conflicts[i].Hunks {
				conflicts[i].Hunks[j].Line = 0
			}
		}
	}
	if !reflect.DeepEqual(got, conflicts) {
		t.Errorf("conflicts\n %#v\nwant\n %#v", got, conflicts)
	}
}

// TestMergeLeavesInputsAlone: the merged item is new; the inputs' maps
// and slices are not written.
func TestMergeLeavesInputsAlone(t *testing.T) {
	b := baseItem()
	l := edit(func(it *Item) { it.Fields["owner"] = "ana"; it.Tags = append(it.Tags, "x") })
	r := edit(func(it *Item) { delete(it.Fields, "priority"); it.Tags = []string{"b"} })
	bc, lc, rc := edit(func(*Item) {}), edit(func(it *Item) { it.Fields["owner"] = "ana"; it.Tags = append(it.Tags, "x") }),
		edit(func(it *Item) { delete(it.Fields, "priority"); it.Tags = []string{"b"} })
	res := Merge(b, l, r)
	res.Merged.Fields["new"] = 1
	res.Merged.Tags[0] = "changed"
	for _, p := range [][2]*Item{{b, bc}, {l, lc}, {r, rc}} {
		if !same(p[0], p[1]) || !slices.Equal(p[0].Tags, p[1].Tags) {
			t.Fatalf("input changed: %+v, was %+v", p[0], p[1])
		}
	}
}

func TestOutcomeString(t *testing.T) {
	for o, s := range map[Outcome]string{Unchanged: "unchanged", TakeRemote: "take_remote", KeepLocal: "keep_local",
		Merged: "merged", Conflicted: "conflicted", Outcome(9): "Outcome(9)"} {
		if o.String() != s {
			t.Errorf("%d: %q, want %q", int(o), o.String(), s)
		}
	}
}
