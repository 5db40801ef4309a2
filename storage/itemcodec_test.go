package storage

import (
	"context"
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/padd/padd/model"
	"github.com/padd/padd/storage/internal/records"
)

// notInRecord are the Item fields the record leaves out on purpose: the
// key, the bucket and the content bucket hold them.
var notInRecord = map[string]bool{"ID": true, "WorkspaceID": true, "Content": true}

// fullItem sets every recorded field of model.Item to a value that is not
// its zero value, so a field the codec forgets reads back different.
func fullItem(t *testing.T) *model.Item {
	t.Helper()
	it := &model.Item{}
	v := reflect.ValueOf(it).Elem()
	when := time.Date(2026, 11, 30, 9, 1, 2, 345678901, time.UTC)
	for i := range v.NumField() {
		f, name := v.Field(i), v.Type().Field(i).Name
		if notInRecord[name] {
			continue
		}
		switch p := f.Addr().Interface().(type) {
		case *string:
			*p = name + " value ü"
		case *int64:
			*p = -int64(i) - 1<<40
		case *bool:
			*p = true
		case *[]string:
			*p = []string{"a", name}
		case *map[string]any:
			*p = map[string]any{
				"status": "open", "estimate": json.Number("12345678901234567890.5"), "done": false, "none": nil,
				"labels": []any{"x", json.Number("1"), true, []any{}}, "nested": map[string]any{"k": "v", "e": map[string]any{}},
				"ints": []string{"go", "types", "read back as JSON would"}, "float": 1.5,
			}
		case *model.Actor:
			*p = model.Actor{Kind: model.ActorAgent, Name: name, Source: model.SourceMCP, WorkerID: "wk_0123"}
		case *time.Time:
			*p = when.Add(time.Duration(i) * time.Hour)
		case **time.Time:
			at := when.Add(-time.Minute)
			*p = &at
		default:
			t.Fatalf("model.Item.%s has a type the codec test does not fill (%s): teach encodeItem and this test", name, f.Type())
		}
	}
	return it
}

// jsonRoundTrip is what the record read back as before the binary form:
// the reference the binary form must match.
func jsonRoundTrip(t *testing.T, it *model.Item) *model.Item {
	t.Helper()
	raw, err := records.Encode(it)
	if err != nil {
		t.Fatal(err)
	}
	var out model.Item
	if err := records.DecodeItem(raw, &out); err != nil {
		t.Fatal(err)
	}
	return &out
}

func TestItemCodecKeepsEveryField(t *testing.T) {
	for _, tc := range []struct {
		name string
		it   *model.Item
	}{
		{"every field set", fullItem(t)},
		{"zero item", &model.Item{}},
		{"empty fields and tags", &model.Item{Fields: map[string]any{}, Tags: []string{}, Title: "t"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			raw, err := records.EncodeItem(tc.it)
			if err != nil {
				t.Fatal(err)
			}
			if raw[0] != records.ItemFormat1 {
				t.Fatalf("record starts with %#x, want the binary format byte", raw[0])
			}
			var got model.Item
			if err := records.DecodeItem(raw, &got); err != nil {
				t.Fatal(err)
			}
			want := jsonRoundTrip(t, tc.it)
			if !reflect.DeepEqual(&got, want) {
				t.Fatalf("binary record reads back\n%#v\nthe JSON form reads back\n%#v", got, *want)
			}
			if tc.name == "every field set" {
				for _, k := range []string{"Title", "Seq", "DeletedAt", "Fields", "LastModifiedBy"} {
					if reflect.ValueOf(got).FieldByName(k).IsZero() {
						t.Fatalf("%s read back empty", k)
					}
				}
			}
		})
	}
}

func TestItemRecordRefusesDamage(t *testing.T) {
	raw, err := records.EncodeItem(fullItem(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range [][]byte{nil, {}, {records.ItemFormat1}, {9, 1, 2}, raw[:len(raw)-1], append(append([]byte{}, raw...), 0)} {
		var it model.Item
		if err := records.DecodeItem(bad, &it); err == nil {
			t.Errorf("decodeItem(%d bytes) accepted a damaged record", len(bad))
		}
	}
}

// A database written before the binary form keeps working: its JSON
// records read as before, and an update rewrites the record in binary.
func TestItemJSONRecordsStillRead(t *testing.T) {
	s, _ := openTest(t)
	ws := mustWorkspace(t, s, "Old records")
	v := mustCreate(t, s, ws.Slug, "tasks", "Written by an older padd", map[string]any{"priority": "high"})
	id := records.MustID(v.ID)
	err := s.base.Update(func(tx *records.Txn) error {
		b := records.OpenWS(tx, ws.ID)
		it, err := records.GetItem(b, id, false)
		if err != nil {
			return err
		}
		it.ID, it.WorkspaceID = "", ""
		old, err := records.Encode(it)
		if err != nil {
			return err
		}
		return b.Items().Put(id, old)
	})
	if err != nil {
		t.Fatal(err)
	}
	got, err := rd(s).GetItem(ws.Slug, v.Ref)
	if err != nil {
		t.Fatalf("read a JSON record: %v", err)
	}
	if got.Title != v.Title || got.Fields["priority"] != "high" || got.Seq != v.Seq || !got.CreatedAt.Equal(v.CreatedAt) {
		t.Fatalf("JSON record read back as %+v, want %+v", got.Item, v.Item)
	}
	title := "Rewritten"
	if _, err := s.UpdateItem(ws.Slug, v.Ref, ItemUpdate{Title: &title}, user); err != nil {
		t.Fatal(err)
	}
	err = s.base.View(func(tx *records.Txn) error {
		if raw := records.OpenWS(tx, ws.ID).Items().Get(id); len(raw) == 0 || raw[0] != records.ItemFormat1 {
			t.Errorf("after an update the record starts with %q, want the binary form", raw[:1])
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func FuzzDecodeItem(f *testing.F) {
	it := &model.Item{CollectionID: records.NewID(), Number: 7, Title: "t", Slug: "t", Seq: 9,
		Fields: map[string]any{"status": "open", "n": json.Number("1"), "l": []any{"a", map[string]any{"k": nil}}}}
	raw, _ := records.EncodeItem(it)
	f.Add(raw)
	old, _ := records.Encode(it)
	f.Add(old)
	f.Fuzz(func(t *testing.T, raw []byte) {
		var it model.Item
		if err := records.DecodeItem(raw, &it); err != nil {
			return
		}
		// Whatever decodes must encode to a record that decodes the same
		// (a JSON record may carry the fields the record leaves out).
		it.ID, it.WorkspaceID, it.Content = "", "", ""
		again, err := records.EncodeItem(&it)
		if err != nil {
			return // a JSON record can hold what the binary form refuses (none known)
		}
		var back model.Item
		if err := records.DecodeItem(again, &back); err != nil {
			t.Fatalf("re-encoded record does not decode: %v", err)
		}
		if !reflect.DeepEqual(normalizeTimes(back), normalizeTimes(it)) {
			t.Fatalf("re-encode changed the item:\n%#v\n%#v", back, it)
		}
	})
}

// normalizeTimes drops the zone, which the binary form does not keep (it
// keeps the instant).
func normalizeTimes(it model.Item) model.Item {
	it.CreatedAt, it.UpdatedAt = it.CreatedAt.UTC(), it.UpdatedAt.UTC()
	if it.DeletedAt != nil {
		d := it.DeletedAt.UTC()
		it.DeletedAt = &d
	}
	return it
}

// Anything the API accepts (encoding/json allows 10,000 levels in a
// request) reads back; a deeper value is refused at write, never stored
// unreadable.
func TestItemCodecDeepValues(t *testing.T) {
	nest := func(n int) any {
		var v any = []any{}
		for range n - 1 {
			v = []any{v}
		}
		return v
	}
	it := &model.Item{Title: "deep", Fields: map[string]any{"x": nest(9998)}}
	raw, err := records.EncodeItem(it)
	if err != nil {
		t.Fatalf("encode a 9,998-deep value: %v", err)
	}
	var got model.Item
	if err := records.DecodeItem(raw, &got); err != nil {
		t.Fatalf("a 9,998-deep value does not read back: %v", err)
	}
	if !reflect.DeepEqual(got.Fields, it.Fields) {
		t.Fatal("the 9,998-deep value read back different")
	}
	if _, err := records.EncodeItem(&model.Item{Fields: map[string]any{"x": nest(records.MaxValueDepth + 2)}}); err == nil {
		t.Fatal("a value deeper than the decoder reads was encoded")
	}
}

// One damaged item record does not stop the search feed: the item reads
// as gone to the indexer (and stored_state_unreadable to a reader), the
// others index as usual.
func TestDamagedItemLeftOutOfIndexFeed(t *testing.T) {
	s, _ := openTest(t)
	ws := mustWorkspace(t, s, "Damaged")
	bad := mustCreate(t, s, ws.Slug, "tasks", "Damaged record", nil)
	good := mustCreate(t, s, ws.Slug, "tasks", "Sound record", nil)
	err := s.base.Update(func(tx *records.Txn) error {
		return records.OpenWS(tx, ws.ID).Items().Put(records.MustID(bad.ID), []byte{records.ItemFormat1, 0xff})
	})
	if err != nil {
		t.Fatal(err)
	}
	_, err = rd(s).GetItem(ws.Slug, bad.ID)
	wantCode(t, err, model.CodeStoredStateUnreadable)
	docs, err := rd(s).IndexDocs(ws.ID, []string{bad.ID, good.ID})
	if err != nil {
		t.Fatalf("IndexDocs with one damaged record: %v", err)
	}
	if len(docs) != 2 || !docs[0].Gone || docs[1].Gone || docs[1].Item.Title != good.Title {
		t.Fatalf("docs %+v: want the damaged one gone and the sound one indexed", docs)
	}
	scanned, _, err := rd(s).ScanItems(context.Background(), ws.ID, "", 100)
	if err != nil {
		t.Fatalf("ScanItems with one damaged record: %v", err)
	}
	live := 0
	for _, d := range scanned {
		if !d.Gone {
			live++
		}
	}
	if live != 1 {
		t.Fatalf("ScanItems found %d readable items, want 1", live)
	}
}

// A database written by a newer padd (a layout this build does not know)
// is refused at open with what to do, never half read: that is what
// keeps a padd from before binary item records (layout 3) off a layout-4
// file.
func TestNewerLayoutRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "padd.db")
	s, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	err = s.base.Update(func(tx *records.Txn) error {
		return tx.Bucket(records.BMeta).Put(kSchemaVersion, records.U64(SchemaVersion+1))
	})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	_, err = Open(path, Options{})
	if err == nil || !strings.Contains(err.Error(), "upgrade padd") {
		t.Fatalf("opening a layout-%d database: %v, want a refusal that says to upgrade padd", SchemaVersion+1, err)
	}
}
