package remote

import (
	"context"
	"slices"
	"testing"
)

func TestProbe(t *testing.T) {
	for _, tc := range []struct {
		name, health, caps string // caps "" means the route is missing
		want               Capabilities
		names              []string
	}{
		{"pad-aug-2026", `{"cloud_mode":false,"commit":"bc422d0e","status":"ok","version":"dev"}`,
			`{"image":{"image_formats":["png"],"can_transcode":true,"max_pixels":64000000},"collection_resolution":true}`,
			Capabilities{Version: "dev", Commit: "bc422d0e"}, []string{"collection_resolution", "image"}},
		{"padd", `{"status":"ok","version":"0.9.0","cloud_mode":false}`,
			`{"collection_resolution":true,"capabilities":["idempotency_keys","item_field_append","item_patch","item_scoped_comment_writes"],"version":"0.9.0"}`,
			Capabilities{Version: "0.9.0", OpKeys: true, ExpectedSeq: true},
			[]string{"collection_resolution", "idempotency_keys", "item_field_append", "item_patch", "item_scoped_comment_writes"}},
		{"newer", `{"status":"ok","version":"2.0","cloud_mode":true}`,
			`{"idempotency_keys":true,"expected_seq":true,"changes_paged":true,"item_patch":false}`,
			Capabilities{Version: "2.0", CloudMode: true, OpKeys: true, ExpectedSeq: true, ChangesPaged: true},
			[]string{"changes_paged", "expected_seq", "idempotency_keys"}},
		{"no-capabilities-route", `{"status":"ok","version":"old"}`, "", Capabilities{Version: "old"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakePad(t)
			f.answer("GET /api/v1/health", 200, tc.health)
			if tc.caps != "" {
				f.answer("GET /api/v1/server/capabilities", 200, tc.caps)
			}
			c := f.client(Options{})
			if c.Capabilities().OpKeys || c.Capabilities().ExpectedSeq {
				t.Fatal("a client not probed assumes features")
			}
			got, err := c.Probe(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if f.last().Header.Get("Authorization") != "" {
				t.Error("the probe sent the token to a route that needs none")
			}
			if got.Version != tc.want.Version || got.Commit != tc.want.Commit || got.CloudMode != tc.want.CloudMode ||
				got.OpKeys != tc.want.OpKeys || got.ExpectedSeq != tc.want.ExpectedSeq || got.ChangesPaged != tc.want.ChangesPaged ||
				!slices.Equal(got.Names, tc.names) {
				t.Errorf("probe = %+v, want %+v with names %v", got, tc.want, tc.names)
			}
			if string(got.Health) != tc.health || string(got.Raw) != tc.caps {
				t.Errorf("raw answers not kept: %s / %s", got.Health, got.Raw)
			}
			if c.Capabilities() != got {
				t.Error("the client does not act on its probe")
			}
		})
	}
}
