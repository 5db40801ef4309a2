package storage

import (
	"testing"
)

func mustUpdateItem(t testing.TB, s *Store, ws, ref string, in ItemUpdate) *ItemView {
	t.Helper()
	r, err := s.UpdateItem(ws, ref, in, user)
	if err != nil {
		t.Fatalf("update %s: %v", ref, err)
	}
	return r.Item
}

func ptrTo[T any](v T) *T { return &v }

// bulkUpdates applies n updates of one item in a single transaction (one
// fsync): each is still its own mutation with its own seq, activity and
// version.
func bulkUpdates(t testing.TB, s *Store, ws, ref string, n int, up func(i int) ItemUpdate) {
	t.Helper()
	ops := make([]BulkOp, n)
	for i := range ops {
		u := up(i)
		ops[i] = BulkOp{Ref: ref, Update: &u}
	}
	res, err := s.BulkApply(ws, ops, user)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res {
		if r.Err != nil {
			t.Fatalf("bulk update %s: %v", r.Ref, r.Err)
		}
	}
}
