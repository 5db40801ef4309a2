package records

import (
	"time"

	"github.com/padd/padd/model"
)

// Item leases (Pad's LSE-01..03): an agent claims an item for a while so
// others leave it alone. A claim, a renewal and a release are each one
// stamped mutation (change log, so the event stream and sync see them),
// but none changes the item: its seq and updated_at stay. A lease past
// its expiry reads as absent; nothing reaps it.

// Lease records are binary (a format byte, then holder, worker, actor
// kind and the two times): next and ready read every live lease.
const LeaseFormat1 = 1

func DecodeLease(id, raw []byte) (*model.Lease, error) {
	if len(raw) == 0 || raw[0] != LeaseFormat1 {
		return nil, model.Errorf(model.CodeStoredStateUnreadable, "the lease on item %s is unreadable", IDString(id))
	}
	r := reader{b: raw[1:]}
	l := &model.Lease{Holder: r.str(), Worker: r.str(), ActorKind: r.str()}
	l.AcquiredAt = time.Unix(r.varint(), 0).UTC()
	l.ExpiresAt = time.Unix(r.varint(), 0).UTC()
	if r.bad {
		return nil, model.Errorf(model.CodeStoredStateUnreadable, "the lease on item %s is unreadable", IDString(id))
	}
	return l, nil
}

func GetLease(b *Wsb, id []byte) (*model.Lease, error) {
	raw := b.Leases().Get(id)
	if raw == nil {
		return nil, nil
	}
	return DecodeLease(id, raw)
}

// LiveLease is an item's lease if it holds at the transaction's time,
// for decorating reads; an unreadable lease decorates nothing.
func LiveLease(b *Wsb, id []byte) *model.Lease {
	if b.Leases() == nil {
		return nil
	}
	now := b.Now
	if now.IsZero() {
		now = time.Now()
	}
	return LiveLeaseAt(b, id, now)
}

// LiveLeaseAt is an item's lease if it holds at now.
func LiveLeaseAt(b *Wsb, id []byte, now time.Time) *model.Lease {
	l, _ := GetLease(b, id)
	if !l.Live(now) {
		return nil
	}
	return l
}

// EachLiveLease visits the workspace's leases that hold at now.
func EachLiveLease(b *Wsb, now time.Time, fn func(itemID []byte, l *model.Lease) error) error {
	c := b.Leases().Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		if err := b.Check(); err != nil {
			return err
		}
		l, err := DecodeLease(k, v)
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
