package storage

import (
	"reflect"
	"testing"
	"time"

	"github.com/padd/padd/model"
)

// fullVersion sets every field of model.Version to a value that is not
// its zero value, so a field the codec forgets reads back different.
func fullVersion(t *testing.T) model.Version {
	t.Helper()
	var ver model.Version
	v := reflect.ValueOf(&ver).Elem()
	for i := range v.NumField() {
		f, name := v.Field(i), v.Type().Field(i).Name
		switch p := f.Addr().Interface().(type) {
		case *string:
			*p = name + " value ü\nline"
		case *int64:
			*p = -int64(i) - 1<<40
		case *int:
			*p = i + 1<<20
		case *bool:
			*p = true
		case *model.Actor:
			*p = model.Actor{Kind: model.ActorAgent, Name: name, Source: model.SourceMCP, WorkerID: "wk_0123"}
		case *time.Time:
			*p = time.Date(2026, 11, 30, 9, 1, 2, 0, time.UTC)
		default:
			t.Fatalf("model.Version.%s has a type the codec test does not fill (%s): teach encodeVersion and this test", name, f.Type())
		}
	}
	ver.ID, ver.ItemID = newID(), newID()
	return ver
}

// A version reads back as its JSON record did, and records written as
// JSON by an older padd still read.
func TestVersionCodecKeepsEveryField(t *testing.T) {
	for _, want := range []model.Version{fullVersion(t), {}, {ID: "not-a-uuid", Title: "t"}} {
		raw := encodeVersion(want)
		if raw[0] != versionFormat1 {
			t.Fatalf("record starts with %#x, want the binary format byte", raw[0])
		}
		var got model.Version
		if err := decodeVersionRecord(raw, &got); err != nil {
			t.Fatal(err)
		}
		var fromJSON model.Version
		old, err := encode(want)
		if err != nil {
			t.Fatal(err)
		}
		if err := decodeVersionRecord(old, &fromJSON); err != nil {
			t.Fatal(err)
		}
		got.CreatedAt, fromJSON.CreatedAt = got.CreatedAt.UTC(), fromJSON.CreatedAt.UTC()
		if !reflect.DeepEqual(got, fromJSON) {
			t.Fatalf("binary record reads back\n%#v\nthe JSON record reads back\n%#v", got, fromJSON)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("binary record reads back\n%#v\nwant\n%#v", got, want)
		}
	}
	for _, bad := range [][]byte{nil, {versionFormat1}, {9, 1, 2}, append(encodeVersion(fullVersion(t)), 0)} {
		var v model.Version
		if err := decodeVersionRecord(bad, &v); err == nil {
			t.Errorf("record %x decoded without error", bad)
		}
	}
}

func FuzzDecodeVersion(f *testing.F) {
	f.Add(encodeVersion(model.Version{ID: newID(), ItemID: newID(), Title: "t", Content: "a\nb", Seq: 3}))
	old, _ := encode(model.Version{ID: newID(), Title: "t"})
	f.Add(old)
	f.Fuzz(func(t *testing.T, raw []byte) {
		var v model.Version
		if err := decodeVersionRecord(raw, &v); err != nil {
			return
		}
		// Whatever decodes must encode to a record that decodes the same.
		var back model.Version
		if err := decodeVersionRecord(encodeVersion(v), &back); err != nil {
			t.Fatalf("re-encoded record does not decode: %v", err)
		}
		v.CreatedAt, back.CreatedAt = v.CreatedAt.UTC(), back.CreatedAt.UTC()
		if !reflect.DeepEqual(back, v) {
			t.Fatalf("re-encode changed the version:\n%#v\n%#v", back, v)
		}
	})
}

// A history written as JSON records by an older padd reads as before:
// listed, found by id and by seq.
func TestVersionsWrittenAsJSONStillRead(t *testing.T) {
	s, clk := openTestNoSync(t)
	ws := mustWorkspace(t, s, "Old versions")
	it := mustCreate(t, s, ws.Slug, "tasks", "Versioned", nil)
	for _, body := range []string{"one", "one\ntwo"} {
		clk.advance(time.Minute)
		b := body
		if _, err := s.UpdateItem(ws.Slug, it.Ref, ItemUpdate{Content: &b}, user); err != nil {
			t.Fatal(err)
		}
	}
	before, err := s.ListVersions(ws.Slug, it.Ref, 0, false)
	if err != nil || len(before) != 3 {
		t.Fatalf("list: %v, %d versions", err, len(before))
	}
	rewriteAsJSON(t, s, ws.ID, (*wsb).versions, decodeVersionRecord)
	after, err := s.ListVersions(ws.Slug, it.Ref, 0, false)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(after, before) {
		t.Fatalf("from JSON records:\n%+v\nbefore:\n%+v", after, before)
	}
	for _, ref := range []string{before[1].ID, "2"} {
		got, err := s.GetVersion(ws.Slug, it.Ref, ref)
		if err != nil || got.ID != before[1].ID {
			t.Fatalf("get %q from JSON records: %v, %+v", ref, err, got)
		}
	}
}

// rewriteAsJSON rewrites every record of a workspace's bucket in the JSON
// form an older padd wrote, reading each with dec.
func rewriteAsJSON[T any](t *testing.T, s *Store, wsID string, bucketOf func(*wsb) *bucket, dec func([]byte, *T) error) {
	t.Helper()
	err := s.update(func(tx *txn) error {
		b := bucketOf(openWS(tx, wsID))
		c := b.Cursor()
		for k, v := c.First(); k != nil; k, v = c.Next() {
			var rec T
			if err := dec(v, &rec); err != nil {
				return err
			}
			old, err := encode(rec)
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

// A record is matched to an id by its own id, in either form, never by an
// id its body happens to mention.
func TestVersionRecordMayBe(t *testing.T) {
	ver, other := fullVersion(t), newID()
	ver.Content = "see version " + other + " and " + string(mustID(other))
	raw := encodeVersion(ver)
	if !versionRecordMayBe(raw, mustID(ver.ID), ver.ID) {
		t.Fatal("a binary record is not matched to its own id")
	}
	if versionRecordMayBe(raw, mustID(other), other) {
		t.Fatal("a binary record is matched to an id its body mentions")
	}
	odd := ver
	odd.ID = "v-not-a-uuid"
	if raw := encodeVersion(odd); !versionRecordMayBe(raw, nil, odd.ID) || versionRecordMayBe(raw, nil, "v-not") {
		t.Fatal("a record whose id is not a uuid is not matched by its text alone")
	}
	js, err := encode(ver)
	if err != nil {
		t.Fatal(err)
	}
	if !versionRecordMayBe(js, mustID(ver.ID), ver.ID) {
		t.Fatal("a JSON record is not matched to its own id")
	}
}
