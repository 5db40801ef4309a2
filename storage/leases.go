package storage

import (
	"encoding/binary"
	"time"

	"github.com/padd/padd/model"
	"github.com/padd/padd/storage/internal/records"
)

// Item leases (Pad's LSE-01..03): an agent claims an item for a while so
// others leave it alone. A claim, a renewal and a release are each one
// stamped mutation (change log, so the event stream and sync see them),
// but none changes the item: its seq and updated_at stay. A lease past
// its expiry reads as absent; nothing reaps it.

// Lease activity actions. A renewal is a heartbeat: the feed records it
// (every mutation has its entry) but the dashboard's recent activity
// and the catch-up digest leave it out.
const (
	ActionClaimed      = "claimed"
	ActionLeaseRenewed = "lease_renewed"
	ActionReleased     = "released"
)

// LeaseClaim is a claim: who, and for how long.
type LeaseClaim struct {
	model.Claimant
	TTL time.Duration
}

// LeaseResult answers Claim and Release.
type LeaseResult struct {
	ItemID string
	Ref    string
	// Lease is the lease after a claim; nil after a release.
	Lease *model.Lease
	// Renewed says the claim extended the caller's own live lease.
	Renewed bool
	// Released says a release removed a live lease (false: there was
	// none, and nothing was written).
	Released bool
}

func encodeLease(l *model.Lease) []byte {
	b := []byte{records.LeaseFormat1}
	for _, s := range []string{l.Holder, l.Worker, l.ActorKind} {
		b = records.AppendStr(b, s)
	}
	b = binary.AppendVarint(b, l.AcquiredAt.Unix())
	return binary.AppendVarint(b, l.ExpiresAt.Unix())
}

// Claim takes or renews the lease on a live item. A live lease another
// claimant holds refuses with 409 lease_held; the caller's own live
// lease is extended from now, keeping acquired_at (a heartbeat).
func (s *Store) Claim(ws, ref string, in LeaseClaim, actor model.Actor) (*LeaseResult, error) {
	if in.TTL <= 0 {
		in.TTL = model.DefaultLeaseTTL * time.Second
	}
	var out *LeaseResult
	err := s.write(ws, actor, func(w *wtx) error {
		b := w.ws
		it, c, err := liveItemByRef(b, ref, false)
		if err != nil {
			return err
		}
		id, itemRef := records.MustID(it.ID), records.RefOf(c, it.Number)
		cur, err := records.GetLease(b, id)
		if err != nil {
			return err
		}
		now := records.Tstamp(w.now)
		l := &model.Lease{Holder: in.Holder, Worker: in.Worker, ActorKind: actor.Kind, AcquiredAt: now}
		op := model.OpClaimed
		if cur.Live(w.now) {
			if !cur.Ours(in.Claimant) {
				return model.LeaseHeld(itemRef, cur, in.Claimant)
			}
			// A heartbeat keeps acquired_at; a worker refreshing its own
			// name-only lease binds it to the worker.
			l.AcquiredAt = cur.AcquiredAt
			if l.Worker == "" {
				l.Worker = cur.Worker
			}
			op = model.OpRenewed
		}
		l.ExpiresAt = now.Add(in.TTL)
		seq, err := w.stamp(model.EntityLease, op, it.ID, it.ID, c.ID)
		if err != nil {
			return err
		}
		if err := b.Leases().Put(id, encodeLease(l)); err != nil {
			return err
		}
		out = &LeaseResult{ItemID: it.ID, Ref: itemRef, Lease: l, Renewed: op == model.OpRenewed}
		action := ActionClaimed
		if out.Renewed {
			action = ActionLeaseRenewed
		}
		return w.activity(seq, it.ID, action, leaseMeta(seq, itemRef, l))
	})
	return out, err
}

// Release drops the caller's live lease. With no live lease it answers
// Released false and writes nothing; another claimant's live lease
// refuses with 409 lease_held. Archived items can be released.
func (s *Store) Release(ws, ref string, who model.Claimant, actor model.Actor) (*LeaseResult, error) {
	var out *LeaseResult
	err := s.write(ws, actor, func(w *wtx) error {
		b := w.ws
		it, err := records.ItemByRef(b, ref, false)
		if err != nil {
			return err
		}
		c, err := records.GetCollection(b, records.MustID(it.CollectionID))
		if err != nil {
			return err
		}
		if c == nil {
			return records.ErrInternal("item %s names a missing collection", it.ID)
		}
		id, itemRef := records.MustID(it.ID), records.RefOf(c, it.Number)
		out = &LeaseResult{ItemID: it.ID, Ref: itemRef}
		cur, err := records.GetLease(b, id)
		if err != nil {
			return err
		}
		if !cur.Live(w.now) {
			return nil
		}
		if !cur.Ours(who) {
			return model.LeaseHeld(itemRef, cur, who)
		}
		seq, err := w.stamp(model.EntityLease, model.OpReleased, it.ID, it.ID, c.ID)
		if err != nil {
			return err
		}
		if err := b.Leases().Delete(id); err != nil {
			return err
		}
		out.Released = true
		return w.activity(seq, it.ID, ActionReleased, leaseMeta(seq, itemRef, cur))
	})
	return out, err
}

func leaseMeta(seq int64, ref string, l *model.Lease) map[string]any {
	m := map[string]any{"seq": seq, "ref": ref, "holder": l.Holder, "expires_at": l.ExpiresAt.Format(time.RFC3339)}
	if w := model.ShortWorkerID(l.Worker); w != "" {
		m["worker"] = w
	}
	return m
}

// getLease reads an item's live lease (nil when there is none).
func (s *Store) getLease(ws, ref string) (*model.Lease, error) {
	var out *model.Lease
	err := s.base.Read(ws, func(r *records.Rtx) error {
		it, err := records.ItemByRef(r.WS, ref, false)
		if err != nil {
			return err
		}
		out = records.LiveLease(r.WS, records.MustID(it.ID))
		return nil
	})
	return out, err
}
