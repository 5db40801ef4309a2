package syncer

import (
	"reflect"
	"testing"

	"github.com/padd/padd/model"
)

// relationIn reads a remote value as Pad may keep it: an id or a ref
// padd maps, a title or an id of nothing (dropped once the remote says
// it has no such item, else waiting), a multi_relation written as a
// comma list, blank elements, the same item twice.
func TestRelationIn(t *testing.T) {
	one := &model.FieldDef{Key: "see", Type: model.TypeRelation, Collection: "specs"}
	many := &model.FieldDef{Key: "also", Type: model.TypeMultiRelation, Collection: "specs"}
	look := func(s string) (string, bool) {
		local, ok := map[string]string{"r-a": "a", "SPEC-1": "a", "r-b": "b"}[s]
		return local, ok
	}
	gone := map[string]bool{"r-gone": true, "Two": true}
	for _, tc := range []struct {
		name  string
		def   *model.FieldDef
		v     any
		out   any
		waits bool
		drops int
	}{
		{"an id", one, "r-a", "a", false, 0},
		{"a ref", one, " SPEC-1 ", "a", false, 0},
		{"not here yet", one, "r-later", nil, true, 0},
		{"gone there", one, "r-gone", nil, false, 1},
		{"blank", one, "  ", nil, false, 0},
		{"not a string", one, 7.0, nil, false, 1},
		{"a list", many, []any{"r-b", "SPEC-1"}, []any{"b", "a"}, false, 0},
		{"a list waiting", many, []any{"r-b", "r-later", "r-gone"}, nil, true, 0},
		{"a list with a title and a blank", many, []any{"r-b", "Two", ""}, []any{"b"}, false, 2},
		{"the same item twice", many, []any{"r-a", "SPEC-1"}, []any{"a"}, false, 1},
		{"a comma list", many, "SPEC-1, r-b", []any{"a", "b"}, false, 0},
		{"an empty list", many, []any{}, nil, false, 0},
		{"not a list", many, map[string]any{"x": 1}, nil, false, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, waits, drops := relationIn(tc.def, tc.v, look, gone)
			if !reflect.DeepEqual(out, tc.out) || waits != tc.waits || len(drops) != tc.drops {
				t.Errorf("relationIn(%v) = %#v, waits %v, drops %v; want %#v, %v, %d", tc.v, out, waits, drops, tc.out, tc.waits, tc.drops)
			}
		})
	}
}
