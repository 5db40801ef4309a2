package storage

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/padd/padd/model"
	"github.com/padd/padd/storage/internal/records"
)

// An activity entry reads back as its JSON record did, to the byte of the
// answer an API client gets.
func TestActivityCodecReadsAsJSONDid(t *testing.T) {
	at := time.Date(2026, 11, 30, 9, 1, 2, 0, time.UTC)
	for _, a := range []model.Activity{
		{ItemID: records.NewID(), Action: "updated", Actor: model.Actor{Kind: model.ActorAgent, Name: "cursor", Source: model.SourceMCP, WorkerID: "wk_1"},
			Metadata: map[string]any{"seq": int64(146523), "n": 7, "collection": "tasks", "changes": map[string]any{
				"status": map[string]any{"from": "open", "to": "done"}, "estimate": json.Number("2.5"),
				"tags": []any{"a", nil, true}}},
			CreatedAt: at, Seq: 146523},
		{Action: "created", Actor: model.UserActor(model.SourceCLI), CreatedAt: at, Seq: 1},
		{ItemID: "not-a-uuid", Action: "x", Metadata: map[string]any{}, CreatedAt: at, Seq: 2},
	} {
		raw, err := records.EncodeActivity(a)
		if err != nil {
			t.Fatal(err)
		}
		if raw[0] != records.ActivityFormat1 {
			t.Fatalf("entry starts with %#x, want the binary format byte", raw[0])
		}
		var got, fromJSON model.Activity
		if err := records.DecodeActivityRecord(raw, &got); err != nil {
			t.Fatal(err)
		}
		if act, ok := records.ActivityAction(raw); !ok || act != a.Action {
			t.Fatalf("activityAction = %q, %v; the entry's action is %q", act, ok, a.Action)
		}
		old, err := records.Encode(a)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := records.ActivityAction(old); ok {
			t.Fatal("activityAction read a JSON entry; the views would skip it undecoded")
		}
		if err := records.DecodeActivityRecord(old, &fromJSON); err != nil {
			t.Fatal(err)
		}
		gotJSON, _ := json.Marshal(got)
		wantJSON, _ := json.Marshal(fromJSON)
		if string(gotJSON) != string(wantJSON) {
			t.Fatalf("binary entry answers\n%s\nthe JSON entry answers\n%s", gotJSON, wantJSON)
		}
	}
	// Where JSON rounded a number through float64, the binary form keeps it.
	raw, err := records.EncodeActivity(model.Activity{Action: "x", Metadata: map[string]any{"big": json.Number("12345678901234567890.5")}})
	if err != nil {
		t.Fatal(err)
	}
	var exact model.Activity
	if err := records.DecodeActivityRecord(raw, &exact); err != nil || exact.Metadata["big"] != json.Number("12345678901234567890.5") {
		t.Fatalf("a big number reads back as %v (%v)", exact.Metadata["big"], err)
	}
	good, _ := records.EncodeActivity(model.Activity{Action: "x", Seq: 1})
	for _, bad := range [][]byte{nil, {records.ActivityFormat1}, {9}, append(good, 0)} {
		var a model.Activity
		if err := records.DecodeActivityRecord(bad, &a); err == nil {
			t.Errorf("entry %x decoded without error", bad)
		}
	}
}

func FuzzDecodeActivity(f *testing.F) {
	raw, _ := records.EncodeActivity(model.Activity{ItemID: records.NewID(), Action: "updated", Metadata: map[string]any{"seq": 3, "x": []any{"a"}}, Seq: 3})
	f.Add(raw)
	old, _ := records.Encode(model.Activity{Action: "created", Seq: 1})
	f.Add(old)
	f.Fuzz(func(t *testing.T, raw []byte) {
		var a model.Activity
		if err := records.DecodeActivityRecord(raw, &a); err != nil {
			return
		}
		// Whatever decodes must encode to an entry that decodes the same.
		again, err := records.EncodeActivity(a)
		if err != nil {
			return // a JSON entry can hold what the binary form refuses (none known)
		}
		var back model.Activity
		if err := records.DecodeActivityRecord(again, &back); err != nil {
			t.Fatalf("re-encoded entry does not decode: %v", err)
		}
		a.ID, a.WorkspaceID = "", "" // not stored: the key and bucket imply them
		if len(a.Metadata) == 0 {
			a.Metadata = nil
		}
		a.CreatedAt, back.CreatedAt = a.CreatedAt.UTC(), back.CreatedAt.UTC()
		aj, _ := json.Marshal(a)
		bj, _ := json.Marshal(back)
		if string(aj) != string(bj) {
			t.Fatalf("re-encode changed the entry:\n%s\n%s", bj, aj)
		}
	})
}
