package storage

import (
	"errors"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/padd/padd/model"
	"github.com/padd/padd/storage/engine"
)

// wtx is one mutation: one engine write on one workspace.
type wtx struct {
	tx    *txn
	ws    *wsb
	wsRec *model.Workspace
	actor model.Actor
	now   time.Time
	seq   int64 // the last seq this transaction assigned
	glob  int64 // the journal position of the last stamp
	// replica: the write copies the remote's state (SyncApply), so a
	// comment or link the remote has lands on an item archived here too.
	replica bool
	// staged: the write is a chunk of an import into a workspace nobody
	// sees yet (import.go), whose changes are not in the journal.
	staged bool
}

// write runs fn as one mutation of the live workspace named by ref (slug
// or id), and returns once it is durable. After that, subscribers hear
// the new head.
func (s *Store) write(wsRef string, actor model.Actor, fn func(w *wtx) error) error {
	return s.writeWS(wsRef, actor, fn, false)
}

// writeBulk is write for a mutation too large to log (a bulk load): it
// commits straight to bbolt, and nothing of it is recorded.
func (s *Store) writeBulk(wsRef string, actor model.Actor, fn func(w *wtx) error) error {
	return s.writeWS(wsRef, actor, fn, true)
}

func (s *Store) writeWS(wsRef string, actor model.Actor, fn func(w *wtx) error, bulk bool) error {
	var note *Notification
	var names []string // the workspace's names, for WrittenSeq
	apply := func(tx *txn) error {
		rec, err := liveWorkspace(tx, wsRef)
		if err != nil {
			return err
		}
		w := &wtx{tx: tx, ws: openWS(tx, rec.ID), wsRec: rec, actor: actor, now: s.clock()}
		w.ws.now = w.now
		if bulk {
			w.ws.hold()
		}
		if err := fn(w); err != nil {
			return err
		}
		if err := w.ws.flushHeld(); err != nil {
			return err
		}
		if w.seq > 0 {
			note = &Notification{WorkspaceID: rec.ID, Seq: w.seq, Global: w.glob}
			names = []string{wsRef, rec.ID, w.wsRec.Slug}
		}
		return nil
	}
	var err error
	if bulk {
		err = s.db.WriteBulk(apply)
	} else {
		err = s.db.Write(apply)
	}
	err = engineErr(err)
	if err == nil && note != nil {
		for _, name := range names {
			s.noteWritten(name, note.Seq)
		}
		s.publish(*note)
	}
	return err
}

// noteWritten raises the seq WrittenSeq answers for wsRef to seq.
func (s *Store) noteWritten(wsRef string, seq int64) {
	v, _ := s.written.LoadOrStore(wsRef, new(atomic.Int64))
	last := v.(*atomic.Int64)
	for {
		cur := last.Load()
		if cur >= seq || last.CompareAndSwap(cur, seq) {
			return
		}
	}
}

// WrittenSeq is the workspace seq after the last acknowledged write to
// the workspace wsRef names (its id, its slug, or the name the write was
// given): at least the seq of each of them, without a read. A caller that hands it
// to a reader lets that reader wait for exactly the writes it made
// (search's read-your-writes) rather than for the head.
func (s *Store) WrittenSeq(wsRef string) (int64, bool) {
	v, ok := s.written.Load(wsRef)
	if !ok {
		return 0, false
	}
	return v.(*atomic.Int64).Load(), true
}

// update runs fn as one mutation outside any workspace's seq (workspace
// records, sync bookkeeping), durable when it returns. A disk-full
// failure is refused as NoSpace.
func (s *Store) update(fn func(tx *txn) error) error {
	return classify(engineErr(s.db.Write(fn)))
}

// view runs fn in a read transaction that sees every acknowledged write
// (engine.DB.View). Inside a write, read through the write's transaction:
// a view there is refused with engine.ErrReadInWrite.
func (s *Store) view(fn func(tx *txn) error) error {
	return engineErr(s.db.View(fn))
}

// engineErr gives the engine's own failures Pad's codes: a write the
// disk failed to store in the log is unavailable (503, logFailed), a full
// disk is NoSpace (507), a callback that panicked or a lost batch is a
// server error (500), a key or value past bbolt's sizes a refusal of the
// write's data (400; the model's limits keep user text from it, so it
// is a bound padd missed, never a reason to stop a sync). Anything else,
// the callbacks' own refusals included, is returned as it is.
func engineErr(err error) error {
	var le *engine.LogError
	switch {
	case err == nil:
		return nil
	case engine.TooLarge(err):
		return model.Invalid("a value is too large to store: %v", err).With("reason", "too_large")
	case errors.As(err, &le):
		return logFailed(le)
	case errors.Is(err, engine.ErrNoSpace):
		return classify(err)
	case errors.Is(err, engine.ErrFault):
		return errInternal("%s", err)
	}
	return err
}

// stamp records one mutation: it bumps the workspace seq, appends the
// change-log entry and the journal entry, and queues the change for sync
// when the workspace is linked. It returns the new seq. A staged
// import's changes get no journal entry: the all-workspaces stream hears
// of the workspace once, when it appears (import_stage.go).
func (w *wtx) stamp(entity, op, id, itemID, collID string) (int64, error) {
	seq, err := w.ws.bump(kSeq)
	if err != nil {
		return 0, err
	}
	ch := model.Change{Seq: seq, Entity: entity, Op: op, ID: id, ItemID: itemID,
		CollectionID: collID, Actor: w.actor, At: w.now}
	b := encodeChange(ch)
	if err := w.ws.changes().Put(seqKey(seq), b); err != nil {
		return 0, err
	}
	if w.staged {
		w.seq = seq
		return seq, nil
	}
	meta := w.tx.Bucket(bMeta)
	g := int64(getU64(meta.Get(kGlobal))) + 1
	if err := meta.Put(kGlobal, u64(uint64(g))); err != nil {
		return 0, err
	}
	journal := w.tx.Bucket(bJournal)
	journal.SetFillPercent(appendFill)
	if err := journal.Put(u64(uint64(g)), cat(mustID(w.ws.id), seqKey(seq))); err != nil {
		return 0, err
	}
	if w.actor.Source != model.SourceSync && linkedWS(w.ws) {
		if err := w.ws.outbox().Put(seqKey(seq), b); err != nil {
			return 0, err
		}
	}
	w.seq, w.glob = seq, g
	return seq, nil
}

// activity appends the feed entry for the mutation stamped at seq.
func (w *wtx) activity(seq int64, itemID, action string, meta map[string]any) error {
	// The id and workspace are implied by the key and the bucket.
	a := model.Activity{ItemID: itemID, Action: action, Actor: w.actor, Metadata: meta, CreatedAt: tstamp(w.now), Seq: seq}
	b, err := encodeActivity(a)
	if err != nil {
		return err
	}
	if err := w.ws.activity().Put(seqKey(seq), b); err != nil {
		return err
	}
	if k, ok := idKey(itemID); ok {
		return w.ws.actItem().Put(cat(k, seqKey(seq)), nil)
	}
	return nil
}

// decodeActivity reads a feed entry, restoring what the record leaves to
// its key and bucket: the workspace, and an id derived from the seq.
func decodeActivity(b *wsb, raw []byte) (model.Activity, error) {
	var a model.Activity
	if err := decodeActivityRecord(raw, &a); err != nil {
		return a, errInternal("activity entry unreadable: %v", err)
	}
	a.WorkspaceID = b.id
	if a.ID == "" {
		a.ID = "act-" + strconv.FormatInt(a.Seq, 10)
	}
	return a, nil
}
