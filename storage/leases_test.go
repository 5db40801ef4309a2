package storage

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/padd/padd/api"
	"github.com/padd/padd/model"
	"github.com/padd/padd/storage/internal/records"
)

const (
	workerA = "wk_0123456789abcdef0123456789abcdef"
	workerB = "wk_fedcba9876543210fedcba9876543210"
)

func claimOf(holder, worker string, ttl time.Duration) LeaseClaim {
	return LeaseClaim{Claimant: model.Claimant{Holder: holder, Worker: worker}, TTL: ttl}
}

func TestClaimRenewRelease(t *testing.T) {
	s, clk := openTest(t)
	ws := mustWorkspace(t, s, "Leases").Slug
	it := mustCreate(t, s, ws, "tasks", "Fix login", nil)
	head := wsSeq(t, s, ws)

	res, err := s.Claim(ws, it.Ref, claimOf("claude", workerA, 10*time.Minute), agent)
	if err != nil {
		t.Fatal(err)
	}
	acquired := clk.now()
	if res.Renewed || res.Lease.Holder != "claude" || res.Lease.Worker != workerA ||
		!res.Lease.AcquiredAt.Equal(acquired) || !res.Lease.ExpiresAt.Equal(acquired.Add(10*time.Minute)) {
		t.Fatalf("claim = %+v", res.Lease)
	}
	// One stamped mutation that leaves the item alone.
	ch, act := lastLog(t, s, ws)
	if ch.Seq != head+1 || ch.Entity != model.EntityLease || ch.Op != model.OpClaimed || ch.ItemID != it.ID || act.Action != "claimed" {
		t.Fatalf("log = %+v / %+v", ch, act)
	}
	got, err := rd(s).GetItem(ws, it.Ref)
	if err != nil {
		t.Fatal(err)
	}
	if got.Seq != it.Seq || !got.UpdatedAt.Equal(it.UpdatedAt) {
		t.Fatalf("a claim changed the item: seq %d -> %d", it.Seq, got.Seq)
	}
	if got.Lease == nil || got.Lease.Holder != "claude" {
		t.Fatalf("item read carries lease %+v", got.Lease)
	}

	// A heartbeat by the holder extends the expiry and keeps acquired_at.
	clk.advance(5 * time.Minute)
	res, err = s.Claim(ws, it.Ref, claimOf("claude", workerA, 10*time.Minute), agent)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Renewed || !res.Lease.AcquiredAt.Equal(acquired) || !res.Lease.ExpiresAt.Equal(clk.now().Add(10*time.Minute)) {
		t.Fatalf("renewal = %+v", res)
	}
	if ch, act := lastLog(t, s, ws); ch.Op != model.OpRenewed || act.Action != ActionLeaseRenewed {
		t.Fatalf("renewal logged as %q / %q", ch.Op, act.Action)
	}

	// Another claimant is refused with the holder's facts.
	_, err = s.Claim(ws, it.Ref, claimOf("cursor", workerB, 0), agent)
	e := wantCode(t, err, model.CodeLeaseHeld)
	if api.StatusOf(e.Code) != 409 || e.Details["ref"] != it.Ref || e.Details["holder"] != "claude" || e.Details["worker"] != "wk_0123" ||
		e.Details["acquired_at"] != acquired.Format(time.RFC3339) {
		t.Fatalf("lease_held details = %v", e.Details)
	}
	_, err = s.Release(ws, it.Ref, model.Claimant{Holder: "cursor", Worker: workerB}, agent)
	wantCode(t, err, model.CodeLeaseHeld)

	rel, err := s.Release(ws, it.Ref, model.Claimant{Holder: "claude", Worker: workerA}, agent)
	if err != nil || !rel.Released {
		t.Fatalf("release = %+v, %v", rel, err)
	}
	if ch, act := lastLog(t, s, ws); ch.Op != model.OpReleased || act.Action != "released" {
		t.Fatalf("release logged %+v / %+v", ch, act)
	}
	head = wsSeq(t, s, ws)
	rel, err = s.Release(ws, it.Ref, model.Claimant{Holder: "claude", Worker: workerA}, agent)
	if err != nil || rel.Released {
		t.Fatalf("second release = %+v, %v", rel, err)
	}
	if wsSeq(t, s, ws) != head {
		t.Fatal("a release with no lease wrote")
	}
	if l, _ := s.getLease(ws, it.Ref); l != nil {
		t.Fatalf("lease after release: %+v", l)
	}
}

func TestLeaseExpiryIsAbsence(t *testing.T) {
	s, clk := openTest(t)
	ws := mustWorkspace(t, s, "Leases").Slug
	it := mustCreate(t, s, ws, "tasks", "Fix login", nil)
	if _, err := s.Claim(ws, it.Ref, claimOf("claude", "", time.Minute), agent); err != nil {
		t.Fatal(err)
	}
	clk.advance(time.Minute) // expires_at is exclusive
	if l, _ := s.getLease(ws, it.Ref); l != nil {
		t.Fatalf("expired lease reads %+v", l)
	}
	if got, _ := rd(s).GetItem(ws, it.Ref); got.Lease != nil {
		t.Fatal("item read shows an expired lease")
	}
	rel, err := s.Release(ws, it.Ref, model.Claimant{Holder: "claude"}, agent)
	if err != nil || rel.Released {
		t.Fatalf("release of an expired lease = %+v, %v", rel, err)
	}
	res, err := s.Claim(ws, it.Ref, claimOf("cursor", workerB, time.Minute), agent)
	if err != nil || res.Renewed || !res.Lease.AcquiredAt.Equal(clk.now()) {
		t.Fatalf("claim after expiry = %+v, %v", res, err)
	}
}

func TestLeaseIdentity(t *testing.T) {
	s, _ := openTest(t)
	ws := mustWorkspace(t, s, "Leases").Slug
	it := mustCreate(t, s, ws, "tasks", "Fix login", nil)

	// A name-only lease is the label's; a worker refreshing it binds it.
	if _, err := s.Claim(ws, it.Ref, claimOf("claude", "", 0), agent); err != nil {
		t.Fatal(err)
	}
	res, err := s.Claim(ws, it.Ref, claimOf("claude", workerA, 0), agent)
	if err != nil || !res.Renewed || res.Lease.Worker != workerA {
		t.Fatalf("worker refresh = %+v, %v", res, err)
	}
	// Now bound: the same label without the worker id is someone else,
	// and is told how to resume.
	_, err = s.Claim(ws, it.Ref, claimOf("claude", "", 0), agent)
	if e := wantCode(t, err, model.CodeLeaseHeld); !strings.Contains(e.Message, "worker_id") {
		t.Fatalf("name-only refusal does not explain worker ids: %s", e.Message)
	}
	// The worker id is the identity; the label is display.
	res, err = s.Claim(ws, it.Ref, claimOf("claude-2", workerA, 0), agent)
	if err != nil || !res.Renewed || res.Lease.Holder != "claude-2" {
		t.Fatalf("same worker, new label = %+v, %v", res, err)
	}
}

func TestLeaseRefusals(t *testing.T) {
	s, _ := openTest(t)
	ws := mustWorkspace(t, s, "Leases").Slug
	it := mustCreate(t, s, ws, "tasks", "Fix login", nil)
	_, err := s.Claim(ws, "TASK-999", claimOf("claude", "", 0), agent)
	wantCode(t, err, model.CodeNotFound)
	if _, err := s.DeleteItem(ws, it.Ref, user); err != nil {
		t.Fatal(err)
	}
	_, err = s.Claim(ws, it.Ref, claimOf("claude", "", 0), agent)
	wantCode(t, err, model.CodeArchived)
}

// TestLeaseRace has two workers claim the same items at once: each item
// ends with exactly one holder, and the other worker was refused.
func TestLeaseRace(t *testing.T) {
	s, _ := openTestNoSync(t)
	ws := mustWorkspace(t, s, "Leases").Slug
	for i := range 20 {
		it := mustCreate(t, s, ws, "tasks", "Race "+string(rune('a'+i)), nil)
		var wg sync.WaitGroup
		results := make([]error, 2)
		for j, w := range []string{workerA, workerB} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, results[j] = s.Claim(ws, it.Ref, claimOf("agent-"+w[3:7], w, 0), agent)
			}()
		}
		wg.Wait()
		won := 0
		for _, err := range results {
			switch {
			case err == nil:
				won++
			case model.IsCode(err, model.CodeLeaseHeld):
			default:
				t.Fatalf("claim failed: %v", err)
			}
		}
		if won != 1 {
			t.Fatalf("item %s: %d claims won, want exactly 1 (%v)", it.Ref, won, results)
		}
	}
}

// SweepLeases forgets exactly the leases that no longer hold: live ones
// stay, with what they say, and the walks that read every stored lease
// read only those.
func TestSweepLeases(t *testing.T) {
	s, clk := openTestNoSync(t)
	ws := mustWorkspace(t, s, "Sweep").Slug
	other := mustWorkspace(t, s, "Other").Slug
	var short, long []string
	for i := range 30 {
		it := mustCreate(t, s, ws, "tasks", "task", nil)
		ttl := time.Minute
		if i%3 == 0 {
			ttl = time.Hour
			long = append(long, it.Ref)
		} else {
			short = append(short, it.Ref)
		}
		if _, err := s.Claim(ws, it.Ref, claimOf("crashy", workerA, ttl), agent); err != nil {
			t.Fatal(err)
		}
	}
	elsewhere := mustCreate(t, s, other, "tasks", "elsewhere", nil)
	if _, err := s.Claim(other, elsewhere.Ref, claimOf("crashy", workerA, time.Minute), agent); err != nil {
		t.Fatal(err)
	}
	if n, err := s.SweepLeases(); err != nil || n != 0 {
		t.Fatalf("a sweep while every lease holds forgot %d (%v)", n, err)
	}
	clk.advance(2 * time.Minute)
	head := wsSeq(t, s, ws)
	if n, err := s.SweepLeases(); err != nil || n != len(short)+1 {
		t.Fatalf("swept %d leases (%v), want the %d expired ones", n, err, len(short)+1)
	}
	if wsSeq(t, s, ws) != head {
		t.Fatal("the sweep wrote a change: forgetting an expired lease changes nothing anyone can see")
	}
	for _, ref := range long {
		if l, err := s.getLease(ws, ref); err != nil || l == nil || l.Holder != "crashy" {
			t.Fatalf("%s: a live lease after the sweep reads %+v, %v", ref, l, err)
		}
	}
	stored := 0
	if err := s.base.View(func(tx *records.Txn) error {
		b, err := records.LiveWorkspace(tx, ws)
		if err != nil {
			return err
		}
		return records.OpenWS(tx, b.ID).Leases().ForEach(func(_, _ []byte) error { stored++; return nil })
	}); err != nil {
		t.Fatal(err)
	}
	if stored != len(long) {
		t.Fatalf("%d leases stored after the sweep, want the %d live ones", stored, len(long))
	}
	// An item whose lease was swept is claimed afresh.
	if res, err := s.Claim(ws, short[0], claimOf("cursor", workerB, time.Minute), agent); err != nil || res.Renewed {
		t.Fatalf("claim after the sweep = %+v, %v", res, err)
	}
}
