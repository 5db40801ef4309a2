package storage

import (
	"sync/atomic"
	"time"

	"github.com/padd/padd/model"
	"github.com/padd/padd/storage/internal/records"
)

// wtx is one mutation: one engine write on one workspace.
type wtx struct {
	tx    *records.Txn
	ws    *records.Wsb
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
	apply := func(tx *records.Txn) error {
		rec, err := records.LiveWorkspace(tx, wsRef)
		if err != nil {
			return err
		}
		w := &wtx{tx: tx, ws: records.OpenWS(tx, rec.ID), wsRec: rec, actor: actor, now: s.base.Clock()}
		w.ws.Now = w.now
		if bulk {
			w.ws.Hold()
		}
		if err := fn(w); err != nil {
			return err
		}
		if err := w.ws.FlushHeld(); err != nil {
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
		err = s.base.DB.WriteBulk(apply)
	} else {
		err = s.base.DB.Write(apply)
	}
	err = records.EngineErr(err)
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

// stamp records one mutation: it bumps the workspace seq, appends the
// change-log entry and the journal entry, and queues the change for sync
// when the workspace is linked. It returns the new seq. A staged
// import's changes get no journal entry: the all-workspaces stream hears
// of the workspace once, when it appears (import_stage.go).
func (w *wtx) stamp(entity, op, id, itemID, collID string) (int64, error) {
	seq, err := w.ws.Bump(records.KSeq)
	if err != nil {
		return 0, err
	}
	ch := model.Change{Seq: seq, Entity: entity, Op: op, ID: id, ItemID: itemID,
		CollectionID: collID, Actor: w.actor, At: w.now}
	b := records.EncodeChange(ch)
	if err := w.ws.Changes().Put(records.SeqKey(seq), b); err != nil {
		return 0, err
	}
	if w.staged {
		w.seq = seq
		return seq, nil
	}
	meta := w.tx.Bucket(records.BMeta)
	g := int64(records.GetU64(meta.Get(records.KGlobal))) + 1
	if err := meta.Put(records.KGlobal, records.U64(uint64(g))); err != nil {
		return 0, err
	}
	journal := w.tx.Bucket(records.BJournal)
	journal.SetFillPercent(records.AppendFill)
	if err := journal.Put(records.U64(uint64(g)), records.Cat(records.MustID(w.ws.ID), records.SeqKey(seq))); err != nil {
		return 0, err
	}
	if w.actor.Source != model.SourceSync && records.Linked(w.ws) {
		if err := w.ws.Outbox().Put(records.SeqKey(seq), b); err != nil {
			return 0, err
		}
	}
	w.seq, w.glob = seq, g
	return seq, nil
}

// activity appends the feed entry for the mutation stamped at seq.
func (w *wtx) activity(seq int64, itemID, action string, meta map[string]any) error {
	// The id and workspace are implied by the key and the bucket.
	a := model.Activity{ItemID: itemID, Action: action, Actor: w.actor, Metadata: meta, CreatedAt: records.Tstamp(w.now), Seq: seq}
	b, err := records.EncodeActivity(a)
	if err != nil {
		return err
	}
	if err := w.ws.Activity().Put(records.SeqKey(seq), b); err != nil {
		return err
	}
	if k, ok := records.IDKey(itemID); ok {
		return w.ws.ActItem().Put(records.Cat(k, records.SeqKey(seq)), nil)
	}
	return nil
}
