package merge

import (
	"reflect"
	"testing"
)

// Implementation notes and decisions only grow: a note added on each
// side is two notes, not a conflict; padd's own note coming back with the
// id the server gave it is one note; an edit or a removal on one side
// against an addition on the other is a conflict like any field's.
func TestMergeEntries(t *testing.T) {
	n := func(id, summary string) map[string]any { return map[string]any{"id": id, "summary": summary} }
	old := n("n0", "agreed")
	withNotes := func(notes ...any) *Item {
		return edit(func(it *Item) {
			if notes != nil {
				it.Fields["implementation_notes"] = notes
			}
		})
	}
	for _, tc := range []struct {
		name                string
		base, local, remote *Item
		want                []any // the merged notes (nil: none)
		conflict            bool
	}{
		{name: "a note on each side",
			base: withNotes(old), local: withNotes(old, n("l1", "here")), remote: withNotes(old, n("r1", "there")),
			want: []any{old, n("r1", "there"), n("l1", "here")}},
		{name: "the first notes, one on each side",
			base: withNotes(), local: withNotes(n("l1", "here")), remote: withNotes(n("r1", "there")),
			want: []any{n("r1", "there"), n("l1", "here")}},
		{name: "padd's note back under the server's id, with another here",
			base: withNotes(old), local: withNotes(old, n("l1", "here"), n("l2", "more")), remote: withNotes(old, n("r1", "here")),
			want: []any{old, n("r1", "here"), n("l2", "more")}},
		{name: "the same note by id",
			base: withNotes(old), local: withNotes(old, n("x", "here"), n("l2", "more")), remote: withNotes(old, n("x", "here"), n("r2", "else")),
			want: []any{old, n("x", "here"), n("r2", "else"), n("l2", "more")}},
		{name: "an edit here against a note there",
			base: withNotes(old), local: withNotes(n("n0", "changed")), remote: withNotes(old, n("r1", "there")),
			want: []any{old, n("r1", "there")}, conflict: true},
		{name: "a removal there against a note here",
			base: withNotes(old), local: withNotes(old, n("l1", "here")), remote: withNotes(),
			conflict: true},
	} {
		for _, mirror := range []bool{false, true} {
			local, remote := tc.local, tc.remote
			if mirror {
				local, remote = remote, local
			}
			res := Merge(tc.base, local, remote)
			got, _ := res.Merged.Fields["implementation_notes"].([]any)
			if tc.conflict {
				if len(res.Conflicts) != 1 || res.Conflicts[0].Key != "implementation_notes" {
					t.Errorf("%s (mirror %v): conflicts %+v, want one on the notes", tc.name, mirror, res.Conflicts)
				}
				continue
			}
			if len(res.Conflicts) != 0 {
				t.Errorf("%s (mirror %v): conflicts %+v", tc.name, mirror, res.Conflicts)
			}
			if mirror {
				continue // the order is the remote's first: checked one way round
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("%s: notes %v, want %v", tc.name, got, tc.want)
			}
			if !res.WriteLocal && !reflect.DeepEqual(got, local.Fields["implementation_notes"]) {
				t.Errorf("%s: the merged notes differ from the local ones but WriteLocal is false", tc.name)
			}
		}
	}
}
