package model_test

import (
	"strings"
	"testing"
	"time"

	"github.com/padd/padd/model"
)

func TestWorkerIDs(t *testing.T) {
	for id, ok := range map[string]bool{
		"wk_0123456789abcdef0123456789abcdef":  true,
		"wk_0123456789ABCDEF0123456789ABCDEF":  false, // lowercase only
		"wk_0123456789abcdef0123456789abcde":   false,
		"wk_0123456789abcdef0123456789abcdef0": false,
		"wk_0123456789abcdef0123456789abcdeg":  false,
		"0123456789abcdef0123456789abcdef":     false,
		"":                                     false,
	} {
		if got := model.ValidWorkerID(id); got != ok {
			t.Errorf("ValidWorkerID(%q) = %v", id, got)
		}
	}
	if got := model.ShortWorkerID("wk_3f2a0123456789abcdef0123456789ab"); got != "wk_3f2a" {
		t.Errorf("short id %q", got)
	}
	if got := model.ShortWorkerID("bogus"); got != "" {
		t.Errorf("short id of a bad id %q", got)
	}
	wantErr(t, model.InvalidWorkerID("x"), model.CodeInvalidWorkerID, 400, map[string]any{"field": "worker_id"})
}

func TestLeaseTTL(t *testing.T) {
	n := func(v int64) *int64 { return &v }
	if d, err := model.LeaseTTL(nil); err != nil || d != 15*time.Minute {
		t.Fatalf("default ttl = %v %v", d, err)
	}
	for _, v := range []int64{1, 86400} {
		if _, err := model.LeaseTTL(n(v)); err != nil {
			t.Errorf("ttl %d refused: %v", v, err)
		}
	}
	for _, v := range []int64{0, -1, 86401} {
		wantErr(t, ttlErr(n(v)), model.CodeValidation, 400, map[string]any{"field": "ttl_seconds"})
	}
}

func ttlErr(v *int64) error { _, err := model.LeaseTTL(v); return err }

func TestLeaseOurs(t *testing.T) {
	bound := &model.Lease{Holder: "claude", Worker: "wk_a"}
	nameOnly := &model.Lease{Holder: "claude"}
	for _, tc := range []struct {
		lease *model.Lease
		c     model.Claimant
		ours  bool
	}{
		{bound, model.Claimant{Holder: "claude", Worker: "wk_a"}, true},
		{bound, model.Claimant{Holder: "renamed", Worker: "wk_a"}, true}, // the label is display only
		{bound, model.Claimant{Holder: "claude"}, false},                 // name-only never matches a worker-bound lease
		{bound, model.Claimant{Holder: "claude", Worker: "wk_b"}, false},
		{nameOnly, model.Claimant{Holder: "claude"}, true},
		{nameOnly, model.Claimant{Holder: "claude", Worker: "wk_a"}, true}, // a worker refreshing binds it
		{nameOnly, model.Claimant{Holder: "cursor"}, false},
	} {
		if got := tc.lease.Ours(tc.c); got != tc.ours {
			t.Errorf("%+v Ours(%+v) = %v", tc.lease, tc.c, got)
		}
	}
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	l := &model.Lease{ExpiresAt: now}
	if l.Live(now) || !l.Live(now.Add(-time.Second)) {
		t.Error("expires_at is the first instant the lease is gone")
	}
	var none *model.Lease
	if none.Live(now) {
		t.Error("no lease is live")
	}
}

func TestLeaseHeld(t *testing.T) {
	at := time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)
	l := &model.Lease{Holder: "claude", Worker: "wk_3f2a0123456789abcdef0123456789ab", AcquiredAt: at, ExpiresAt: at.Add(time.Hour)}
	e := wantErr(t, model.LeaseHeld("TASK-5", l, model.Claimant{Holder: "cursor"}), model.CodeLeaseHeld, 409, map[string]any{
		"ref": "TASK-5", "holder": "claude", "worker": "wk_3f2a",
		"acquired_at": "2026-01-01T09:00:00Z", "expires_at": "2026-01-01T10:00:00Z"})
	if strings.Contains(e.Message, "wk_3f2a0123") {
		t.Errorf("the full worker id leaked: %s", e.Message)
	}
	e = wantErr(t, model.LeaseHeld("TASK-5", l, model.Claimant{Holder: "claude"}), model.CodeLeaseHeld, 409, nil)
	if !strings.Contains(e.Message, "worker_id") {
		t.Errorf("a name-only caller is not told how to resume: %s", e.Message)
	}
	e = wantErr(t, model.LeaseHeld("TASK-5", &model.Lease{Holder: "claude", ExpiresAt: at}, model.Claimant{}), model.CodeLeaseHeld, 409, nil)
	if _, ok := e.Details["worker"]; ok {
		t.Error("a name-only lease names a worker")
	}
}

func TestReminderState(t *testing.T) {
	now := time.Now()
	for _, tc := range []struct {
		r    model.Reminder
		want string
	}{
		{model.Reminder{}, model.ReminderArmed},
		{model.Reminder{FiredAt: &now}, model.ReminderFired},
		{model.Reminder{FiredAt: &now, AcknowledgedAt: &now}, model.ReminderAcknowledged},
	} {
		if got := tc.r.State(); got != tc.want {
			t.Errorf("state = %s, want %s", got, tc.want)
		}
	}
	for _, bad := range []string{"2026-12-01", "", "soon", "2026-12-01T09:00:00", "10000-01-01T00:00:00Z"} {
		if _, err := model.ParseRemindAt(bad); !model.IsCode(err, model.CodeValidation) {
			t.Errorf("ParseRemindAt(%q) = %v, want validation_error", bad, err)
		}
	}
	got, err := model.ParseRemindAt("2026-12-01T09:00:00.9+01:00")
	if err != nil || !got.Equal(time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC)) || got.Location() != time.UTC {
		t.Errorf("ParseRemindAt = %v %v", got, err)
	}
}
