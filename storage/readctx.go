package storage

import "context"

// A read that walks a workspace (a list, a sync feed, a report, the
// activity feed, an index scan) takes its caller's context and stops
// when the context ends: a request whose client went away, or whose
// deadline passed, no longer holds a read transaction (or, while writes
// wait in the open batch, the committer) to build an answer nobody
// reads. The read then returns the context's error and no answer.
// Writes take no context: a write, once taken, completes.

// checkEvery is how many rows a long read walks between two looks at
// its context: often enough to stop within a moment, rarely enough that
// the look costs nothing beside the rows.
const checkEvery = 256

// stopper is one read's view of its context: check, called once per row
// by the loops that can be long, reads the context every checkEvery
// calls. A nil stopper (a write, a short read) never stops.
type stopper struct {
	ctx  context.Context
	n    uint32
	hook func(context.Context) // Options.ReadCheck
}

func newStopper(s *Store, ctx context.Context) *stopper {
	return &stopper{ctx: ctx, hook: s.readCheck}
}

// check returns the context's error, looking at it every checkEvery
// calls.
func (st *stopper) check() error {
	if st == nil {
		return nil
	}
	st.n++
	if st.n%checkEvery != 0 {
		return nil
	}
	if st.hook != nil {
		st.hook(st.ctx)
	}
	return st.ctx.Err()
}

// check is the read's stopper's: the long loops over a workspace call it
// once per row.
func (b *wsb) check() error { return b.stop.check() }

// readCtx is read for a read that can be long: the workspace handle it
// gives fn carries ctx, whose end stops the loops that call check. A
// context already ended (also while the read waited for the committer)
// reads nothing.
func (s *Store) readCtx(ctx context.Context, wsRef string, fn func(r *rtx) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	st := newStopper(s, ctx)
	return s.read(wsRef, func(r *rtx) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		r.ws.stop = st
		return fn(r)
	})
}

// viewCtx is view for a long read across workspaces: it gives fn the
// stopper its loops call.
func (s *Store) viewCtx(ctx context.Context, fn func(tx *txn, st *stopper) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	st := newStopper(s, ctx)
	return s.view(func(tx *txn) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		return fn(tx, st)
	})
}
