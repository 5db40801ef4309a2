package views

import (
	"reflect"
	"testing"
	"time"

	"github.com/padd/padd/storage"
	"github.com/padd/padd/storage/internal/records"
)

// A history written as JSON records by an older padd reads as before:
// listed, found by id and by seq.
func TestVersionsWrittenAsJSONStillRead(t *testing.T) {
	s, clk := openTestNoSync(t)
	ws := mustWorkspace(t, s, "Old versions")
	it := mustCreate(t, s, ws.Slug, "tasks", "Versioned", nil)
	for _, body := range []string{"one", "one\ntwo"} {
		clk.advance(time.Minute)
		b := body
		if _, err := s.UpdateItem(ws.Slug, it.Ref, storage.ItemUpdate{Content: &b}, user); err != nil {
			t.Fatal(err)
		}
	}
	before, err := Of(s).ListVersions(ws.Slug, it.Ref, 0, false)
	if err != nil || len(before) != 3 {
		t.Fatalf("list: %v, %d versions", err, len(before))
	}
	rewriteAsJSON(t, s, ws.ID, (*records.Wsb).Versions, records.DecodeVersionRecord)
	after, err := Of(s).ListVersions(ws.Slug, it.Ref, 0, false)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(after, before) {
		t.Fatalf("from JSON records:\n%+v\nbefore:\n%+v", after, before)
	}
	for _, ref := range []string{before[1].ID, "2"} {
		got, err := Of(s).GetVersion(ws.Slug, it.Ref, ref)
		if err != nil || got.ID != before[1].ID {
			t.Fatalf("get %q from JSON records: %v, %+v", ref, err, got)
		}
	}
}

// rewriteAsJSON rewrites every record of a workspace's bucket in the JSON
// form an older padd wrote, reading each with dec.
func rewriteAsJSON[T any](t *testing.T, s *storage.Store, wsID string, bucketOf func(*records.Wsb) *records.Bucket, dec func([]byte, *T) error) {
	t.Helper()
	err := s.Base().Update(func(tx *records.Txn) error {
		b := bucketOf(records.OpenWS(tx, wsID))
		c := b.Cursor()
		for k, v := c.First(); k != nil; k, v = c.Next() {
			var rec T
			if err := dec(v, &rec); err != nil {
				return err
			}
			old, err := records.Encode(rec)
			if err != nil {
				return err
			}
			if err := b.Put(append([]byte(nil), k...), old); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
