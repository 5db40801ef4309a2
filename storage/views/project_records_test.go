package views

import (
	"testing"

	"github.com/padd/padd/storage"
	"github.com/padd/padd/storage/internal/records"
)

// dumpViewData reads a workspace's view records as key -> value.
func dumpViewData(t *testing.T, s *storage.Store, wsID string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := s.Base().View(func(tx *records.Txn) error {
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

// checkViewData is the view records' consistency check: the records kept
// on write must equal the ones a rebuild from the items computes.
func checkViewData(t *testing.T, s *storage.Store, wsID string) {
	t.Helper()
	kept := dumpViewData(t, s, wsID)
	if len(kept) == 0 {
		t.Fatal("no view records were written")
	}
	if err := s.Base().Update(func(tx *records.Txn) error { return records.RebuildProjectRecords(tx, wsID) }); err != nil {
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
