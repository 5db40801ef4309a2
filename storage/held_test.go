package storage

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/padd/padd/storage/internal/records"
)

// A bulk load holds its counts and list-index writes until it ends
// (held.go): the stored index and counts afterwards must be what the
// items say, whatever the chunk size, and the load's own reads must see
// what is held.
func TestBulkCreateHeldWrites(t *testing.T) {
	s, _ := openTestNoSync(t)
	ws := mustWorkspace(t, s, "Bulk")
	role, err := s.CreateRole(ws.Slug, RoleCreate{Name: "Implementer"}, user)
	if err != nil {
		t.Fatal(err)
	}
	var plans []ItemCreate
	for i := range 4 {
		plans = append(plans, ItemCreate{Collection: "plans", Title: fmt.Sprintf("Plan %d", i), Fields: map[string]any{"status": "active"}})
	}
	made, err := s.CreateItems(ws.Slug, plans, user, 3)
	if err != nil {
		t.Fatal(err)
	}
	var tasks []ItemCreate
	for i := range 40 {
		in := ItemCreate{Collection: "tasks", Title: fmt.Sprintf("Task %d", i),
			Fields: map[string]any{"status": []string{"open", "in-progress", "done"}[i%3], "priority": []string{"low", "high"}[i%2]},
			Tags:   []string{fmt.Sprintf("t%d", i%4)}}
		switch i % 5 {
		case 0:
			in.Parent = made[i%len(made)].Ref
		case 1:
			in.Role = role.Slug
		case 2:
			in.Fields["due_date"] = fmt.Sprintf("2026-12-%02d", 1+i%28)
		case 3:
			if i > 5 {
				// A task created earlier in this load, maybe in this chunk.
				in.Parent = fmt.Sprintf("TASK-%d", len(made)+i-2)
			}
		}
		tasks = append(tasks, in)
	}
	views, err := s.CreateItems(ws.Slug, tasks, user, 7)
	if err != nil {
		t.Fatal(err)
	}
	checkListIndex(t, s, ws.ID)
	checkViewData(t, s, ws.ID)
	// Parents gained children after their own create answered.
	for _, v := range views {
		if v.ParentID == "" {
			continue
		}
		p, err := rd(s).GetItem(ws.Slug, v.ParentID)
		if err != nil {
			t.Fatal(err)
		}
		if !p.HasChildren {
			t.Errorf("%s is %s's parent but has no children", p.Ref, v.Ref)
		}
	}

	// Inside one bulk write, a point read adds the held change and an
	// ordered read flushes it first.
	err = s.writeBulk(ws.Slug, user, func(w *wtx) error {
		c, err := records.LiveCollection(w.ws, "tasks")
		if err != nil {
			return err
		}
		live := records.CollPrefix(records.MustID(c.ID), records.LifeLive)
		before := records.CountOf(w.ws, live)
		for i := range 3 {
			if _, err := w.createItem(ItemCreate{Collection: "tasks", Title: fmt.Sprintf("Late %d", i), Fields: map[string]any{"status": "open"}}); err != nil {
				return err
			}
		}
		if got := records.CountOf(w.ws, live); got != before+3 {
			t.Errorf("count read inside the load: %d, want %d", got, before+3)
		}
		if got := records.FieldValueCounts(w.ws, c.ID, "status")["open"]; got != 14+3 {
			t.Errorf("open tasks read in order inside the load: %d, want %d", got, 14+3)
		}
		if _, err := w.createItem(ItemCreate{Collection: "tasks", Title: "Last"}); err != nil {
			return err
		}
		entries := 0
		cur := w.ws.Index().Cursor()
		for k, _ := cur.Seek(live); k != nil && bytes.HasPrefix(k, live); k, _ = cur.Next() {
			entries++
		}
		if want := int(before) + 4; entries != want {
			t.Errorf("list index read in order inside the load: %d tasks, want %d", entries, want)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	checkListIndex(t, s, ws.ID)
	checkViewData(t, s, ws.ID)
}

// Of two held writes of one list-index key, the later one wins.
func TestHeldIndexWritesLaterWins(t *testing.T) {
	s, _ := openTestNoSync(t)
	ws := mustWorkspace(t, s, "Held")
	prefix := []byte{records.KindAll, records.LifeLive}
	k1, k2 := records.Cat(prefix, []byte("k1")), records.Cat(prefix, []byte("k2"))
	err := s.writeBulk(ws.Slug, user, func(w *wtx) error {
		for _, p := range []struct{ key, val []byte }{{k1, []byte("a")}, {k1, nil}, {k2, nil}, {k2, []byte("b")}} {
			if err := w.ws.PutIndex(prefix, p.key, p.val); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	err = s.base.View(func(tx *records.Txn) error {
		ix := records.OpenWS(tx, ws.ID).Index()
		if v := ix.Get(k1); v != nil {
			t.Errorf("k1 was put, then deleted: it holds %q", v)
		}
		if v := ix.Get(k2); string(v) != "b" {
			t.Errorf("k2 was deleted, then put: it holds %q", v)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
