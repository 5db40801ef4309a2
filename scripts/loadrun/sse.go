//go:build linux

package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/padd/padd/api"
)

// The event watcher follows GET /api/v1/events?workspace= the way a
// client (the tray, `padctl watch`) does: from a known position with
// Last-Event-ID, resuming from the last id it saw whenever the stream
// drops. It also drops the stream itself every dropEvery, so the resume
// path is part of every run.

// event is one event as the watcher saw it.
type event struct {
	ID     int64  `json:"id"`
	Type   string `json:"type"`
	ItemID string `json:"item_id,omitempty"`
}

type watcher struct {
	c         *api.Client
	ws        string
	dropEvery time.Duration

	mu         sync.Mutex
	events     []event
	last       int64
	reconnects int // connections after the first
	drops      int // of which the stream ended without our asking
	lag        []time.Duration
	problems   []string
}

func newWatcher(c *api.Client, ws string, from int64, dropEvery time.Duration) *watcher {
	return &watcher{c: c, ws: ws, dropEvery: dropEvery, last: from}
}

func (w *watcher) note(format string, args ...any) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.problems) < 20 {
		w.problems = append(w.problems, fmt.Sprintf(format, args...))
	}
}

func (w *watcher) lastID() int64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.last
}

// run follows the stream until ctx ends.
func (w *watcher) run(ctx context.Context) {
	for first := true; ctx.Err() == nil; first = false {
		if !first {
			w.mu.Lock()
			w.reconnects++
			w.mu.Unlock()
		}
		sctx, cancel := context.WithTimeout(ctx, w.dropEvery)
		err := w.c.StreamEvents(sctx, w.ws, strconv.FormatInt(w.lastID(), 10), w.frame)
		dropped := sctx.Err() == nil // the stream ended, we did not end it
		cancel()
		if ctx.Err() != nil {
			return
		}
		if dropped {
			w.mu.Lock()
			w.drops++
			w.mu.Unlock()
			if !errors.Is(err, errStreamBroken) {
				w.note("stream ended: %v", err)
			}
			time.Sleep(50 * time.Millisecond) // as a client's retry would
		}
	}
}

// errStreamBroken ends a stream whose content cannot be trusted.
var errStreamBroken = errors.New("stream refused our position")

func (w *watcher) frame(f api.SSEFrame) error {
	if !f.HasID {
		return nil // connected: named, without an id
	}
	if f.ID == "" {
		w.note("%s: the stream reset our position: %s", f.Event, f.Data)
		return errStreamBroken
	}
	id, err := strconv.ParseInt(f.ID, 10, 64)
	if err != nil {
		w.note("event id %q is not a number", f.ID)
		return errStreamBroken
	}
	var ev api.Event
	if err := json.Unmarshal(f.Data, &ev); err != nil {
		w.note("event %d: data is not an event: %v", id, err)
	}
	now := time.Now()
	w.mu.Lock()
	defer w.mu.Unlock()
	w.events = append(w.events, event{ID: id, Type: f.Event, ItemID: ev.ItemID})
	w.last = id
	if ev.Timestamp > 0 {
		w.lag = append(w.lag, now.Sub(time.UnixMilli(ev.Timestamp)))
	}
	return nil
}

// waitFor waits until the watcher has seen head (or d passes).
func (w *watcher) waitFor(head int64, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for w.lastID() < head {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
	return true
}

func (w *watcher) snapshot() []event {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]event(nil), w.events...)
}

// replay reads the stream once from a position up to head (a fresh
// client resuming from the start): the log as padd serves it now.
func replay(c *api.Client, ws string, from, head int64, d time.Duration) ([]event, error) {
	if from >= head {
		return nil, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	var out []event
	done := errors.New("done")
	err := c.StreamEvents(ctx, ws, strconv.FormatInt(from, 10), func(f api.SSEFrame) error {
		if !f.HasID {
			return nil
		}
		id, err := strconv.ParseInt(f.ID, 10, 64)
		if err != nil {
			return fmt.Errorf("event id %q: %w", f.ID, err)
		}
		var ev api.Event
		_ = json.Unmarshal(f.Data, &ev)
		out = append(out, event{ID: id, Type: f.Event, ItemID: ev.ItemID})
		if id >= head {
			return done
		}
		return nil
	})
	if errors.Is(err, done) {
		return out, nil
	}
	return out, fmt.Errorf("replay from %d stopped at %d of %d: %v", from, len(out), head-from, err)
}
