package storage

import (
	"reflect"
	"testing"
	"time"

	"github.com/padd/padd/model"
	"github.com/padd/padd/storage/internal/records"
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
	ver.ID, ver.ItemID = records.NewID(), records.NewID()
	return ver
}

// A version reads back as its JSON record did, and records written as
// JSON by an older padd still read.
func TestVersionCodecKeepsEveryField(t *testing.T) {
	for _, want := range []model.Version{fullVersion(t), {}, {ID: "not-a-uuid", Title: "t"}} {
		raw := records.EncodeVersion(want)
		if raw[0] != records.VersionFormat1 {
			t.Fatalf("record starts with %#x, want the binary format byte", raw[0])
		}
		var got model.Version
		if err := records.DecodeVersionRecord(raw, &got); err != nil {
			t.Fatal(err)
		}
		var fromJSON model.Version
		old, err := records.Encode(want)
		if err != nil {
			t.Fatal(err)
		}
		if err := records.DecodeVersionRecord(old, &fromJSON); err != nil {
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
	for _, bad := range [][]byte{nil, {records.VersionFormat1}, {9, 1, 2}, append(records.EncodeVersion(fullVersion(t)), 0)} {
		var v model.Version
		if err := records.DecodeVersionRecord(bad, &v); err == nil {
			t.Errorf("record %x decoded without error", bad)
		}
	}
}

func FuzzDecodeVersion(f *testing.F) {
	f.Add(records.EncodeVersion(model.Version{ID: records.NewID(), ItemID: records.NewID(), Title: "t", Content: "a\nb", Seq: 3}))
	old, _ := records.Encode(model.Version{ID: records.NewID(), Title: "t"})
	f.Add(old)
	f.Fuzz(func(t *testing.T, raw []byte) {
		var v model.Version
		if err := records.DecodeVersionRecord(raw, &v); err != nil {
			return
		}
		// Whatever decodes must encode to a record that decodes the same.
		var back model.Version
		if err := records.DecodeVersionRecord(records.EncodeVersion(v), &back); err != nil {
			t.Fatalf("re-encoded record does not decode: %v", err)
		}
		v.CreatedAt, back.CreatedAt = v.CreatedAt.UTC(), back.CreatedAt.UTC()
		if !reflect.DeepEqual(back, v) {
			t.Fatalf("re-encode changed the version:\n%#v\n%#v", back, v)
		}
	})
}

// A record is matched to an id by its own id, in either form, never by an
// id its body happens to mention.
func TestVersionRecordMayBe(t *testing.T) {
	ver, other := fullVersion(t), records.NewID()
	ver.Content = "see version " + other + " and " + string(records.MustID(other))
	raw := records.EncodeVersion(ver)
	if !records.VersionRecordMayBe(raw, records.MustID(ver.ID), ver.ID) {
		t.Fatal("a binary record is not matched to its own id")
	}
	if records.VersionRecordMayBe(raw, records.MustID(other), other) {
		t.Fatal("a binary record is matched to an id its body mentions")
	}
	odd := ver
	odd.ID = "v-not-a-uuid"
	if raw := records.EncodeVersion(odd); !records.VersionRecordMayBe(raw, nil, odd.ID) || records.VersionRecordMayBe(raw, nil, "v-not") {
		t.Fatal("a record whose id is not a uuid is not matched by its text alone")
	}
	js, err := records.Encode(ver)
	if err != nil {
		t.Fatal(err)
	}
	if !records.VersionRecordMayBe(js, records.MustID(ver.ID), ver.ID) {
		t.Fatal("a JSON record is not matched to its own id")
	}
}
