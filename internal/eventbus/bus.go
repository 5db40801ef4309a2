// Package eventbus fans values out to subscribers, as padd's three
// sources of events (the store's commits, sync's status and conflicts,
// the mirrors' and settings' events) all need: publishing never blocks
// the publisher, each subscriber has a buffer of its own, and one that
// falls behind loses its oldest values, never the newest, each loss
// counted. A value is a signal or a state, not a record: what must not
// be lost is read again from where it is kept (the store's change log,
// the sync status), from the position the subscriber last saw, which
// is how an event stream resumes.
package eventbus

import (
	"sync"
	"sync/atomic"
)

// Buffer is how many values a subscriber may fall behind before its
// oldest is dropped.
const Buffer = 64

// Bus fans out values of type T. The zero Bus is ready to use.
type Bus[T any] struct {
	mu      sync.Mutex
	next    int
	subs    map[int]chan T
	closed  bool
	dropped atomic.Uint64
}

// Subscribe returns a channel of every value published from now on, and
// the function that ends the subscription (and closes the channel). A
// subscriber after Close gets a closed channel.
func (b *Bus[T]) Subscribe() (<-chan T, func()) {
	ch := make(chan T, Buffer)
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		close(ch)
		return ch, func() {}
	}
	if b.subs == nil {
		b.subs = map[int]chan T{}
	}
	id := b.next
	b.next++
	b.subs[id] = ch
	return ch, func() {
		b.mu.Lock()
		defer b.mu.Unlock()
		if c, ok := b.subs[id]; ok {
			close(c)
			delete(b.subs, id)
		}
	}
}

// Publish hands v to every subscriber without waiting: a full buffer
// loses its oldest value so that v gets in.
func (b *Bus[T]) Publish(v T) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, ch := range b.subs {
		select {
		case ch <- v:
			continue
		default:
		}
		select {
		case <-ch:
			b.dropped.Add(1)
		default:
		}
		select {
		case ch <- v:
		default:
			b.dropped.Add(1) // only if the reader emptied and another filled it between
		}
	}
}

// Close closes every subscriber's channel; later subscribers get a
// closed one and later values go nowhere.
func (b *Bus[T]) Close() {
	b.mu.Lock()
	defer b.mu.Unlock()
	for id, ch := range b.subs {
		close(ch)
		delete(b.subs, id)
	}
	b.closed = true
}

// Dropped counts the values subscribers lost by falling behind.
func (b *Bus[T]) Dropped() uint64 { return b.dropped.Load() }
