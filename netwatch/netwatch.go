// Package netwatch tells padd when the machine's network changed: an
// interface went up or down, or an address came or went (a laptop joined
// a Wi-Fi network, a VPN connected). The sync engine then tries an
// unreachable remote again at once instead of waiting out its backoff.
//
// On Linux it listens on a netlink route socket, which the kernel writes
// to only when something changed: no timer, no polling, and nothing is
// changed on the machine. Elsewhere Watch waits for its context and never
// calls back; the backoff's cap bounds the wait there.
package netwatch

import (
	"context"
	"time"
)

// quiet is how long after a change Watch waits for the network to settle
// before it calls back: a new connection comes as a burst of messages
// (link up, addresses, routes), and one call is enough.
const quiet = 500 * time.Millisecond

// Watch calls changed once after each burst of network changes, until
// ctx ends. It answers an error when it cannot listen (then it never
// calls back), and nil when ctx ends.
func Watch(ctx context.Context, changed func()) error {
	events, stop, err := listen()
	if err != nil {
		return err
	}
	defer stop()
	return debounce(ctx, events, quiet, changed)
}

// debounce calls f once events has been quiet for quiet after one or
// more events, until ctx ends or events closes.
func debounce(ctx context.Context, events <-chan struct{}, quiet time.Duration, f func()) error {
	var timer *time.Timer
	var fire <-chan time.Time
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	for {
		select {
		case <-ctx.Done():
			return nil
		case _, open := <-events:
			if !open {
				return nil
			}
			if timer == nil {
				timer = time.NewTimer(quiet)
			} else {
				timer.Reset(quiet)
			}
			fire = timer.C
		case <-fire:
			fire = nil
			f()
		}
	}
}
