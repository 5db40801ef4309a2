package views

import (
	"context"
	"fmt"
	"testing"

	"github.com/padd/padd/model"
	"github.com/padd/padd/storage"
)

// A board of more open items than MaxRoleBoardItems is refused with
// too_large before any item is read; finishing one brings it back.
func TestRoleBoardBounded(t *testing.T) {
	s, _ := openTest(t)
	ws := mustWorkspace(t, s, "Board").Slug
	in := make([]storage.ItemCreate, MaxRoleBoardItems+1)
	for i := range in {
		in[i] = storage.ItemCreate{Collection: "tasks", Title: fmt.Sprintf("T%d", i)}
	}
	made, err := s.CreateItems(ws, in, user, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Of(s).RoleBoard(context.Background(), ws, "")
	if e := wantCode(t, err, model.CodeTooLarge); e.Details["items"] != MaxRoleBoardItems+1 {
		t.Errorf("details = %v", e.Details)
	}
	if _, err := s.UpdateItem(ws, made[0].Ref, storage.ItemUpdate{FieldsPatch: map[string]any{"status": "done"}}, user); err != nil {
		t.Fatal(err)
	}
	lanes, err := Of(s).RoleBoard(context.Background(), ws, "")
	if err != nil || len(lanes) != 1 || len(lanes[0].Items) != MaxRoleBoardItems {
		t.Fatalf("board = %d lanes, %v", len(lanes), err)
	}
}
