package views

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/padd/padd/storage"
	"github.com/padd/padd/storage/internal/records"
)

// A feed written as JSON entries by an older padd reads as before.
func TestActivityWrittenAsJSONStillReads(t *testing.T) {
	s, clk := openTestNoSync(t)
	ws := mustWorkspace(t, s, "Old feed")
	it := mustCreate(t, s, ws.Slug, "tasks", "Active", map[string]any{"status": "open"})
	clk.advance(time.Minute)
	if _, err := s.UpdateItem(ws.Slug, it.Ref, storage.ItemUpdate{FieldsPatch: map[string]any{"status": "done"}}, user); err != nil {
		t.Fatal(err)
	}
	before, err := Of(s).ListActivity(context.Background(), ws.Slug, ActivityQuery{})
	if err != nil || len(before.Entries) < 2 {
		t.Fatalf("activity: %v, %+v", err, before)
	}
	rewriteAsJSON(t, s, ws.ID, (*records.Wsb).Activity, records.DecodeActivityRecord)
	after, err := Of(s).ListActivity(context.Background(), ws.Slug, ActivityQuery{})
	if err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal(after)
	b, _ := json.Marshal(before)
	if string(a) != string(b) {
		t.Fatalf("from JSON entries:\n%s\nbefore:\n%s", a, b)
	}
}
