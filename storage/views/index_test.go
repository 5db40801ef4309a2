package views

import (
	"testing"

	"github.com/padd/padd/storage"
	"github.com/padd/padd/storage/internal/records"
)

// checkListIndex fails t where the list index is not what the stored
// items make it (records.CheckListIndex).
func checkListIndex(t *testing.T, s *storage.Store, wsID string) {
	t.Helper()
	err := s.Base().View(func(tx *records.Txn) error {
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
