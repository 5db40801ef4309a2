package views

import (
	"testing"

	"github.com/padd/padd/storage"
	"github.com/padd/padd/storage/internal/records"
)

// checkListIndex is the list index's consistency check: the entries and
// counts kept on write must equal the ones computed afresh from the
// stored items (itemStreams), entry for entry.
func checkListIndex(t *testing.T, s *storage.Store, wsID string) {
	t.Helper()
	err := s.Base().View(func(tx *records.Txn) error {
		b := records.OpenWS(tx, wsID)
		want, wantCounts := map[string]string{}, map[string]int64{}
		c := b.Items().Cursor()
		for k, _ := c.First(); k != nil; k, _ = c.Next() {
			it, err := records.GetItem(b, k, false)
			if err != nil {
				return err
			}
			for _, p := range records.ItemStreams(it, records.IsUnparented(b, it)) {
				want[string(records.Cat(p, records.SortKey(it), k))] = string(records.MustID(it.CollectionID))
				wantCounts[string(p)]++
			}
		}
		got, gotCounts := map[string]string{}, map[string]int64{}
		if err := b.Index().ForEach(func(k, v []byte) error { got[string(k)] = string(v); return nil }); err != nil {
			return err
		}
		if err := b.Counts().ForEach(func(k, v []byte) error { gotCounts[string(k)] = int64(records.GetU64(v)); return nil }); err != nil {
			return err
		}
		for k, v := range want {
			if g, ok := got[k]; !ok || g != v {
				t.Errorf("list index lacks %q (or holds the wrong collection)", k)
			}
		}
		for k := range got {
			if _, ok := want[k]; !ok {
				t.Errorf("list index holds %q, which no item has", k)
			}
		}
		for p, n := range wantCounts {
			if gotCounts[p] != n {
				t.Errorf("count of stream %q is %d, want %d", p, gotCounts[p], n)
			}
		}
		for p, n := range gotCounts {
			if _, ok := wantCounts[p]; !ok {
				t.Errorf("count of stream %q is %d, but no item is in it", p, n)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
