package records

import (
	"bytes"
	"time"
)

// The change-log readers. Every follower (the indexer, the sync engine,
// the doors' delta feeds, CLI caches) reads through these, so they share
// one cursor model: a workspace seq (or a journal position) with an
// exclusive lower bound, ascending.

// BoundLimit applies a page-size default (for n <= 0) and ceiling.
func BoundLimit(n, def, ceiling int) int {
	if n <= 0 {
		return def
	}
	return min(n, ceiling)
}

// EachReverse visits the keys under prefix from the largest down,
// starting strictly below before (nil: from the largest key under
// prefix). fn returns false to stop. c is a cursor of one of b's
// buckets; the walk stops with b's read (check).
func (b *Wsb) EachReverse(c *Cursor, prefix, before []byte, fn func(k, v []byte) (bool, error)) error {
	if before == nil {
		before = PrefixEnd(prefix)
	}
	var k, v []byte
	if before == nil {
		k, v = c.Last()
	} else if k, v = c.Seek(before); k == nil {
		k, v = c.Last()
	} else {
		k, v = c.Prev()
	}
	for ; k != nil && bytes.HasPrefix(k, prefix); k, v = c.Prev() {
		if err := b.Check(); err != nil {
			return err
		}
		more, err := fn(k, v)
		if err != nil || !more {
			return err
		}
	}
	return nil
}

// PrefixEnd is the smallest key greater than every key under prefix, or
// nil when there is none (an empty or all-0xff prefix).
func PrefixEnd(prefix []byte) []byte {
	end := append([]byte(nil), prefix...)
	for i := len(end) - 1; i >= 0; i-- {
		if end[i] < 0xff {
			end[i]++
			return end[:i+1]
		}
	}
	return nil
}

// FirstAtOrAfter binary-searches the change log (times are
// non-decreasing in seq: the store's clock never goes back) for the
// first seq at or after t, or bound+1 when there is none.
func FirstAtOrAfter(changes *Bucket, t time.Time, bound int64) int64 {
	c := changes.Cursor()
	// reached reports whether the first entry at or after seq x is at or
	// after t; it is monotone in x.
	reached := func(x int64) bool {
		k, v := c.Seek(SeqKey(x))
		if k == nil || int64(GetU64(k)) > bound {
			return true
		}
		ch, err := DecodeChange(v)
		return err != nil || !ch.At.Before(t)
	}
	lo, hi := int64(1), bound+1
	for lo < hi {
		mid := lo + (hi-lo)/2
		if reached(mid) {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return lo
}
