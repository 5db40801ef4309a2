package records

import (
	"bytes"
	"sync"
)

// decodedCache keeps decoded JSON records by key for records read far
// more often than written (workspaces, collections). An entry serves only
// while the stored bytes are the ones it was decoded from, so it is never
// stale, and each caller gets its own copy to change.
type decodedCache[T any] struct {
	mu sync.RWMutex
	m  map[string]decodedEntry[T]
}

type decodedEntry[T any] struct {
	raw []byte
	v   *T
}

func newDecodedCache[T any]() *decodedCache[T] {
	return &decodedCache[T]{m: map[string]decodedEntry[T]{}}
}

// decode returns a copy of the record stored as raw under key, decoding
// it only when the cache does not hold those bytes.
func (c *decodedCache[T]) decode(key, raw []byte, what string) (*T, error) {
	c.mu.RLock()
	e, ok := c.m[string(key)]
	c.mu.RUnlock()
	if ok && bytes.Equal(e.raw, raw) {
		cp := *e.v
		return &cp, nil
	}
	var v T
	if err := Decode(raw, &v); err != nil {
		return nil, ErrInternal("%s record unreadable: %v", what, err)
	}
	kept := v
	c.mu.Lock()
	if len(c.m) > 10000 { // many stores in one process (tests): start over
		c.m = map[string]decodedEntry[T]{}
	}
	c.m[string(key)] = decodedEntry[T]{raw: append([]byte(nil), raw...), v: &kept}
	c.mu.Unlock()
	return &v, nil
}
