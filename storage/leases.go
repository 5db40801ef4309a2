package storage

import (
	"encoding/binary"
	"time"

	"github.com/padd/padd/model"
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

// Lease records are binary (a format byte, then holder, worker, actor
// kind and the two times): next and ready read every live lease.
const leaseFormat1 = 1

func encodeLease(l *model.Lease) []byte {
	b := []byte{leaseFormat1}
	for _, s := range []string{l.Holder, l.Worker, l.ActorKind} {
		b = appendStr(b, s)
	}
	b = binary.AppendVarint(b, l.AcquiredAt.Unix())
	return binary.AppendVarint(b, l.ExpiresAt.Unix())
}

func decodeLease(id, raw []byte) (*model.Lease, error) {
	if len(raw) == 0 || raw[0] != leaseFormat1 {
		return nil, model.Errorf(model.CodeStoredStateUnreadable, "the lease on item %s is unreadable", idString(id))
	}
	r := reader{b: raw[1:]}
	l := &model.Lease{Holder: r.str(), Worker: r.str(), ActorKind: r.str()}
	l.AcquiredAt = time.Unix(r.varint(), 0).UTC()
	l.ExpiresAt = time.Unix(r.varint(), 0).UTC()
	if r.bad {
		return nil, model.Errorf(model.CodeStoredStateUnreadable, "the lease on item %s is unreadable", idString(id))
	}
	return l, nil
}

func getLease(b *wsb, id []byte) (*model.Lease, error) {
	raw := b.leases().Get(id)
	if raw == nil {
		return nil, nil
	}
	return decodeLease(id, raw)
}

// liveLease is an item's lease if it holds at the transaction's time,
// for decorating reads; an unreadable lease decorates nothing.
func liveLease(b *wsb, id []byte) *model.Lease {
	if b.leases() == nil {
		return nil
	}
	now := b.now
	if now.IsZero() {
		now = time.Now()
	}
	return liveLeaseAt(b, id, now)
}

// liveLeaseAt is an item's lease if it holds at now.
func liveLeaseAt(b *wsb, id []byte, now time.Time) *model.Lease {
	l, _ := getLease(b, id)
	if !l.Live(now) {
		return nil
	}
	return l
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
		id, itemRef := mustID(it.ID), refOf(c, it.Number)
		cur, err := getLease(b, id)
		if err != nil {
			return err
		}
		now := tstamp(w.now)
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
		if err := b.leases().Put(id, encodeLease(l)); err != nil {
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
		it, err := itemByRef(b, ref, false)
		if err != nil {
			return err
		}
		c, err := getCollection(b, mustID(it.CollectionID))
		if err != nil {
			return err
		}
		if c == nil {
			return errInternal("item %s names a missing collection", it.ID)
		}
		id, itemRef := mustID(it.ID), refOf(c, it.Number)
		out = &LeaseResult{ItemID: it.ID, Ref: itemRef}
		cur, err := getLease(b, id)
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
		if err := b.leases().Delete(id); err != nil {
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

// GetLease reads an item's live lease (nil when there is none).
func (s *Store) GetLease(ws, ref string) (*model.Lease, error) {
	var out *model.Lease
	err := s.read(ws, func(r *rtx) error {
		it, err := itemByRef(r.ws, ref, false)
		if err != nil {
			return err
		}
		out = liveLease(r.ws, mustID(it.ID))
		return nil
	})
	return out, err
}

// eachLiveLease visits the workspace's leases that hold at now.
func eachLiveLease(b *wsb, now time.Time, fn func(itemID []byte, l *model.Lease) error) error {
	c := b.leases().Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		if err := b.check(); err != nil {
			return err
		}
		l, err := decodeLease(k, v)
		if err != nil {
			return err
		}
		if !l.Live(now) {
			continue
		}
		if err := fn(k, l); err != nil {
			return err
		}
	}
	return nil
}
