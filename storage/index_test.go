package storage

import (
	"bytes"
	"fmt"
	"slices"
	"testing"

	"github.com/padd/padd/storage/internal/records"
)

// checkListIndex fails t where the list index is not what the stored
// items make it (records.CheckListIndex).
func checkListIndex(t *testing.T, s *Store, wsID string) {
	t.Helper()
	err := s.base.View(func(tx *records.Txn) error {
		problems, err := records.CheckListIndex(records.OpenWS(tx, wsID))
		for _, p := range problems {
			t.Error(p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestMigrationAddsPairStreams takes a database back to layout 4 (no
// pair streams) and checks that opening it adds them, once, and that
// they are then the entries (next's reads) they were before.
func TestMigrationAddsPairStreams(t *testing.T) {
	s, _ := openTestNoSync(t)
	ws := mustWorkspace(t, s, "Pairs")
	for i, f := range []map[string]any{
		{"status": "open", "priority": "critical"},
		{"status": "in-progress", "priority": "high"},
		{"status": "done", "priority": "high"},
		{"status": "open"},
	} {
		mustCreate(t, s, ws.Slug, "tasks", fmt.Sprintf("Task %d", i), f)
	}
	if _, err := s.DeleteItem(ws.Slug, "TASK-1", user); err != nil {
		t.Fatal(err)
	}
	before := pairEntries(t, s, ws.ID)
	err := s.base.Update(func(tx *records.Txn) error {
		b := records.OpenWS(tx, ws.ID)
		for _, bk := range []*records.Bucket{b.Index(), b.Counts()} {
			var del [][]byte
			if err := bk.ForEach(func(k, _ []byte) error {
				if k[0] == records.KindPair {
					del = append(del, bytes.Clone(k))
				}
				return nil
			}); err != nil {
				return err
			}
			if len(del) == 0 {
				t.Fatal("no pair stream entries to take away")
			}
			for _, k := range del {
				if err := bk.Delete(k); err != nil {
					return err
				}
			}
		}
		return tx.Bucket(records.BMeta).Put(kSchemaVersion, records.U64(4))
	})
	if err != nil {
		t.Fatal(err)
	}
	for range 2 { // a second run finds the entries there and adds nothing
		if err := s.base.Update(s.migrate); err != nil {
			t.Fatal(err)
		}
		checkListIndex(t, s, ws.ID)
		if err := s.base.Update(func(tx *records.Txn) error { return tx.Bucket(records.BMeta).Put(kSchemaVersion, records.U64(4)) }); err != nil {
			t.Fatal(err)
		}
	}
	if after := pairEntries(t, s, ws.ID); !slices.Equal(after, before) {
		t.Fatalf("pair stream entries after the migration:\n%q\nbefore:\n%q", after, before)
	}
}

// pairEntries is every pair stream entry of a workspace's list index and
// counts, key and value.
func pairEntries(t *testing.T, s *Store, wsID string) []string {
	t.Helper()
	var out []string
	err := s.base.View(func(tx *records.Txn) error {
		b := records.OpenWS(tx, wsID)
		for _, bk := range []*records.Bucket{b.Index(), b.Counts()} {
			if err := bk.ForEach(func(k, v []byte) error {
				if k[0] == records.KindPair {
					out = append(out, fmt.Sprintf("%x=%x", k, v))
				}
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
	if len(out) == 0 {
		t.Fatal("no pair stream entries")
	}
	return out
}
