package records

import "context"

// A read that walks a workspace (a list, a sync feed, a report, the
// activity feed, an index scan) takes its caller's context and stops
// when the context ends: a request whose client went away, or whose
// deadline passed, no longer holds a read transaction (or, while writes
// wait in the open batch, the committer) to build an answer nobody
// reads. The read then returns the context's error and no answer.
// Writes take no context: a write, once taken, completes.

// CheckEvery is how many rows a long read walks between two looks at
// its context: often enough to stop within a moment, rarely enough that
// the look costs nothing beside the rows.
const CheckEvery = 256

// Stopper is one read's view of its context: check, called once per row
// by the loops that can be long, reads the context every checkEvery
// calls. A nil stopper (a write, a short read) never stops.
type Stopper struct {
	ctx  context.Context
	n    uint32
	hook func(context.Context) // Options.ReadCheck
}

func newStopper(s *Base, ctx context.Context) *Stopper {
	return &Stopper{ctx: ctx, hook: s.ReadCheck}
}

// Check returns the context's error, looking at it every checkEvery
// calls.
func (st *Stopper) Check() error {
	if st == nil {
		return nil
	}
	st.n++
	if st.n%CheckEvery != 0 {
		return nil
	}
	if st.hook != nil {
		st.hook(st.ctx)
	}
	return st.ctx.Err()
}

// Check is the read's stopper's: the long loops over a workspace call it
// once per row.
func (b *Wsb) Check() error { return b.stop.Check() }

// ReadCtx is read for a read that can be long: the workspace handle it
// gives fn carries ctx, whose end stops the loops that call check. A
// context already ended (also while the read waited for the committer)
// reads nothing.
func (s *Base) ReadCtx(ctx context.Context, wsRef string, fn func(r *Rtx) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	st := newStopper(s, ctx)
	return s.Read(wsRef, func(r *Rtx) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		r.WS.stop = st
		return fn(r)
	})
}

// ViewCtx is view for a long read across workspaces: it gives fn the
// stopper its loops call.
func (s *Base) ViewCtx(ctx context.Context, fn func(tx *Txn, st *Stopper) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	st := newStopper(s, ctx)
	return s.View(func(tx *Txn) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		return fn(tx, st)
	})
}
