package storage

import (
	"strconv"
	"sync/atomic"
	"time"

	"github.com/padd/padd/model"
	bolt "go.etcd.io/bbolt"
)

// wtx is one mutation: one bbolt transaction on one workspace.
type wtx struct {
	s     *Store
	tx    *txn
	ws    *wsb
	wsRec *model.Workspace
	actor model.Actor
	now   time.Time
	seq   int64 // the last seq this transaction assigned
	glob  int64 // the journal position of the last stamp
}

// write runs fn as one mutation of the live workspace named by ref (slug
// or id), and returns once it is durable. After that, subscribers hear
// the new head.
func (s *Store) write(wsRef string, actor model.Actor, fn func(w *wtx) error) error {
	return s.writeReq(&writeReq{wsRef: wsRef, actor: actor, fn: fn})
}

// writeBulk is write for a mutation too large to log (a bulk load): it
// commits straight to bbolt, and nothing of it is recorded.
func (s *Store) writeBulk(wsRef string, actor model.Actor, fn func(w *wtx) error) error {
	return s.writeReq(&writeReq{wsRef: wsRef, actor: actor, fn: fn, bulk: true})
}

func (s *Store) writeReq(req *writeReq) error {
	err := s.submit(req)
	if err == nil && req.note != nil {
		for _, name := range req.names {
			s.noteWritten(name, req.note.Seq)
		}
		s.publish(*req.note)
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
	return classify(s.submit(&writeReq{raw: fn}))
}

// view runs fn in a read transaction that sees every acknowledged write.
// While acknowledged writes wait in the open batch (batch.go), fn runs
// inside it, on the committer; otherwise in a bbolt read transaction of
// its own, beside others. Never call it from inside a write: the write
// holds the committer that would run it.
func (s *Store) view(fn func(tx *txn) error) error {
	if s.batchOpen.Load() {
		q := &readReq{fn: fn, done: make(chan error, 1)}
		if err := s.enqueue(func() { s.reads <- q }); err != nil {
			return err
		}
		return <-q.done
	}
	return s.db.View(func(tx *bolt.Tx) error { return fn(wrapTx(tx, nil)) })
}

// viewSettled runs fn in a bbolt read transaction after the open batch
// has committed: for long reads (a whole-file check) that should not hold
// the committer.
func (s *Store) viewSettled(fn func(tx *txn) error) error {
	if err := s.Checkpoint(); err != nil {
		return err
	}
	return s.db.View(func(tx *bolt.Tx) error { return fn(wrapTx(tx, nil)) })
}

// submit queues req for the committer and waits for its answer.
func (s *Store) submit(req *writeReq) error {
	req.done = make(chan error, 1)
	if err := s.enqueue(func() { s.writes <- req }); err != nil {
		return err
	}
	return <-req.done
}

// enqueue runs send under the read lock: Close takes the write lock before
// it stops the committer, so everything enqueued is answered.
func (s *Store) enqueue(send func()) error {
	s.closeMu.RLock()
	defer s.closeMu.RUnlock()
	if s.closed {
		return ErrClosed
	}
	send()
	return nil
}

// writeReq is one queued mutation: fn on a workspace, or raw.
type writeReq struct {
	wsRef string
	actor model.Actor
	fn    func(w *wtx) error
	raw   func(tx *txn) error
	bulk  bool
	done  chan error
	note  *Notification
	names []string // the workspace's names, for WrittenSeq
	rec   recorder
}

// readReq is a read to run inside the open batch.
type readReq struct {
	fn   func(tx *txn) error
	done chan error
}

// apply runs one write inside the batch's transaction.
func (s *Store) apply(tx *txn, r *writeReq) error {
	if r.raw != nil {
		return r.raw(tx)
	}
	r.note = nil
	rec, err := liveWorkspace(tx, r.wsRef)
	if err != nil {
		return err
	}
	w := &wtx{s: s, tx: tx, ws: openWS(tx, rec.ID), wsRec: rec, actor: r.actor, now: s.clock()}
	w.ws.now = w.now
	if r.bulk {
		w.ws.hold()
	}
	if err := r.fn(w); err != nil {
		return err
	}
	if err := w.ws.flushHeld(); err != nil {
		return err
	}
	if w.seq > 0 {
		r.note = &Notification{WorkspaceID: rec.ID, Seq: w.seq, Global: w.glob}
		r.names = []string{r.wsRef, rec.ID, w.wsRec.Slug}
	}
	return nil
}

// stamp records one mutation: it bumps the workspace seq, appends the
// change-log entry and the journal entry, and queues the change for sync
// when the workspace is linked. It returns the new seq.
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
	meta := w.tx.Bucket(bMeta)
	g := int64(getU64(meta.Get(kGlobal))) + 1
	if err := meta.Put(kGlobal, u64(uint64(g))); err != nil {
		return 0, err
	}
	journal := w.tx.Bucket(bJournal)
	journal.FillPercent = appendFill
	if err := journal.Put(u64(uint64(g)), cat(mustID(w.ws.id), seqKey(seq))); err != nil {
		return 0, err
	}
	if w.ws.root.Get(kSyncLinked) != nil && w.actor.Source != model.SourceSync {
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

// kSyncLinked marks (in the workspace's root bucket) a workspace whose
// mutations are queued for a remote Pad.
var kSyncLinked = []byte("sync_linked")

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
