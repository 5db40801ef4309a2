package storage

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/padd/padd/model"
	"github.com/padd/padd/storage/internal/records"
)

// dumpViewData reads a workspace's view records as key -> value.
func dumpViewData(t *testing.T, s *Store, wsID string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := s.base.View(func(tx *records.Txn) error {
		b := records.OpenWS(tx, wsID)
		for name, bk := range map[string]*records.Bucket{"isum": b.Sums(), "vcounts": b.Vcounts(), "due": b.Due(), "blk": b.Blk()} {
			if err := bk.ForEach(func(k, v []byte) error {
				out[name+"/"+string(k)] = string(v)
				return nil
			}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestViewDataFollowsWrites drives random item writes (creates, field
// and parent and role changes, due dates, moves, archives, restores, a
// role deletion, links) and checks that the records kept on write equal
// the ones a rebuild from the items computes.
func TestViewDataFollowsWrites(t *testing.T) {
	s, clk := openTestNoSync(t)
	ws := mustWorkspace(t, s, "Views")
	r := rand.New(rand.NewPCG(7, 11))
	var roles []string
	for _, name := range []string{"Planner", "Implementer"} {
		role, err := s.CreateRole(ws.Slug, RoleCreate{Name: name}, user)
		if err != nil {
			t.Fatal(err)
		}
		roles = append(roles, role.Slug)
	}
	var plans, items []string
	for i := range 6 {
		plans = append(plans, mustCreate(t, s, ws.Slug, "plans", fmt.Sprintf("Plan %d", i), map[string]any{"status": "active"}).Ref)
	}
	statuses := []string{"open", "in-progress", "done", "cancelled"}
	day := func() string { return time.Date(2026, 11, 1+r.IntN(60), 0, 0, 0, 0, time.UTC).Format(time.DateOnly) }
	for i := range 80 {
		f := map[string]any{"status": statuses[r.IntN(4)], "priority": []string{"low", "high", "critical"}[r.IntN(3)]}
		if r.IntN(3) == 0 {
			f["due_date"] = day()
		}
		in := ItemCreate{Collection: "tasks", Title: fmt.Sprintf("Task %d", i), Fields: f}
		if r.IntN(2) == 0 {
			in.Parent = plans[r.IntN(len(plans))]
		}
		if r.IntN(3) == 0 {
			in.Role = roles[r.IntN(len(roles))]
		}
		res, err := s.CreateItem(ws.Slug, in, user)
		if err != nil {
			t.Fatal(err)
		}
		items = append(items, res.Item.Ref)
	}
	for range 300 {
		clk.advance(time.Minute)
		ref := items[r.IntN(len(items))]
		var err error
		switch r.IntN(11) {
		case 0, 1:
			_, err = s.UpdateItem(ws.Slug, ref, ItemUpdate{FieldsPatch: map[string]any{"status": statuses[r.IntN(4)]}, Force: true}, user)
		case 2:
			p := plans[r.IntN(len(plans))]
			_, err = s.UpdateItem(ws.Slug, ref, ItemUpdate{Parent: &p}, user)
		case 3:
			_, err = s.UpdateItem(ws.Slug, ref, ItemUpdate{ClearParent: true}, user)
		case 4:
			role := roles[r.IntN(len(roles))]
			_, err = s.UpdateItem(ws.Slug, ref, ItemUpdate{Role: &role}, user)
		case 5:
			_, err = s.UpdateItem(ws.Slug, ref, ItemUpdate{FieldsPatch: map[string]any{"due_date": day()}}, user)
		case 6:
			_, err = s.DeleteItem(ws.Slug, ref, user)
		case 7:
			_, err = s.RestoreItem(ws.Slug, ref, user)
		case 8, 9:
			other := items[r.IntN(len(items))]
			_, err = s.AddLink(ws.Slug, other, ref, model.LinkBlocks, user)
		case 10:
			links, lerr := rd(s).ListLinks(ws.Slug, ref)
			if lerr == nil && len(links) > 0 {
				_, err = s.RemoveLink(ws.Slug, links[r.IntN(len(links))].Link.ID, user)
			}
		}
		if err != nil && model.ErrorCodeOf(err) == "" {
			t.Fatal(err)
		}
	}
	if _, err := s.MoveItem(ws.Slug, items[0], MoveInput{Target: "ideas"}, user); err != nil && model.ErrorCodeOf(err) == "" {
		t.Fatal(err)
	}
	if _, err := s.DeleteRole(ws.Slug, roles[0], user); err != nil {
		t.Fatal(err)
	}

	checkListIndex(t, s, ws.ID)
	checkViewData(t, s, ws.ID)
}

// checkViewData is the view records' consistency check: the records kept
// on write must equal the ones a rebuild from the items computes.
func checkViewData(t *testing.T, s *Store, wsID string) {
	t.Helper()
	kept := dumpViewData(t, s, wsID)
	if len(kept) == 0 {
		t.Fatal("no view records were written")
	}
	if err := s.base.Update(func(tx *records.Txn) error { return records.RebuildProjectRecords(tx, wsID) }); err != nil {
		t.Fatal(err)
	}
	rebuilt := dumpViewData(t, s, wsID)
	for k, v := range rebuilt {
		if got, ok := kept[k]; !ok || got != v {
			t.Errorf("record %q: kept %q (present %v), rebuilt %q", k, got, ok, v)
		}
	}
	for k := range kept {
		if _, ok := rebuilt[k]; !ok {
			t.Errorf("record %q kept but not rebuilt", k)
		}
	}
}

func TestSummaryRoundTrip(t *testing.T) {
	deleted := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	long := string(bytes.Repeat([]byte("x"), records.SumLongValue+1))
	it := &model.Item{ID: records.NewID(), CollectionID: records.NewID(), Number: 42, Title: "A title", Slug: "a-title", Pinned: true,
		ParentID: records.NewID(), AgentRoleID: records.NewID(), AssignedUserID: "local", DeletedAt: &deleted,
		CreatedAt: time.Unix(1000, 0), UpdatedAt: time.Unix(2000, 0),
		Fields: map[string]any{"status": "open", "priority": "high", "n": 3, "long": long, model.FieldDecisionLog: "x"}}
	s, err := records.DecodeSum(records.MustID(it.ID), records.EncodeSum(it))
	if err != nil {
		t.Fatal(err)
	}
	if s.ID != it.ID || s.CollectionID != it.CollectionID || s.Number != 42 || !s.Archived || !s.Pinned ||
		s.ParentID != it.ParentID || s.RoleID != it.AgentRoleID || s.AssignedTo != "local" || s.Title != it.Title ||
		s.Slug != it.Slug || s.CreatedAt.Unix() != 1000 || s.UpdatedAt.Unix() != 2000 {
		t.Fatalf("round trip lost facts: %+v", s)
	}
	for key, want := range map[string][3]any{"status": {"open", true, false}, "priority": {"high", true, false},
		"long": {"", true, true}, "n": {"", false, false}, model.FieldDecisionLog: {"", false, false}} {
		v, ok, isLong := s.Field(key)
		if v != want[0] || ok != want[1] || isLong != want[2] {
			t.Errorf("field %q = %q %v %v, want %v", key, v, ok, isLong, want)
		}
	}
	if _, err := records.DecodeSum(records.MustID(it.ID), records.EncodeSum(it)[:20]); err == nil {
		t.Fatal("a truncated summary decoded")
	}
}

// TestMigrationBuildsViewData opens a database whose layout predates
// the view records and checks the migration builds them.
func TestMigrationBuildsViewData(t *testing.T) {
	s, _ := openTestNoSync(t)
	ws := mustWorkspace(t, s, "Old")
	p := mustCreate(t, s, ws.Slug, "plans", "Plan", map[string]any{"status": "active"})
	if _, err := s.CreateItem(ws.Slug, ItemCreate{Collection: "tasks", Title: "Child", Parent: p.Ref,
		Fields: map[string]any{"status": "done", "due_date": "2026-01-01"}}, user); err != nil {
		t.Fatal(err)
	}
	want := dumpViewData(t, s, ws.ID)
	// Take the database back to layout 2: no view buckets, no due index.
	err := s.base.Update(func(tx *records.Txn) error {
		root := tx.Bucket(records.BWS).Bucket(records.MustID(ws.ID))
		for _, name := range [][]byte{records.BSums, records.BVCounts, records.BDue, records.BBlk, records.BLeases, records.BReminders, records.BRemItem, records.BRemFired, records.BSeen} {
			if err := root.DeleteBucket(name); err != nil {
				return err
			}
		}
		if err := tx.DeleteBucket(records.BRemDue); err != nil {
			return err
		}
		return tx.Bucket(records.BMeta).Put(kSchemaVersion, records.U64(2))
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.base.Update(s.migrate); err != nil {
		t.Fatal(err)
	}
	checkListIndex(t, s, ws.ID) // the pair streams were there; layout 5 adds none twice
	got := dumpViewData(t, s, ws.ID)
	if len(got) != len(want) {
		t.Fatalf("migration built %d records, want %d", len(got), len(want))
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("record %q differs after migration", k)
		}
	}
	if _, err := s.AddReminder(ws.Slug, p.Ref, time.Now(), user); err != nil {
		t.Fatalf("reminders after migration: %v", err)
	}
}
