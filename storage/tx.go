package storage

import (
	"strconv"
	"time"

	"github.com/padd/padd/model"
	bolt "go.etcd.io/bbolt"
)

// wtx is one mutation: one bbolt transaction on one workspace.
type wtx struct {
	s     *Store
	tx    *bolt.Tx
	ws    *wsb
	wsRec *model.Workspace
	actor model.Actor
	now   time.Time
	seq   int64 // the last seq this transaction assigned
	glob  int64 // the journal position of the last stamp
}

// write runs fn as one mutation of the live workspace named by ref (slug
// or id), and returns once it is durable. After the commit, subscribers
// hear the new head.
//
// Writes go through one committer goroutine that runs every write queued
// while the previous commit was syncing in a single transaction (group
// commit): a lone write waits for nothing extra, and concurrent writers
// share one fsync instead of queueing for one each. fn must keep its
// effects inside the transaction and what it captures: if another write
// in its group is refused, the group runs again without it.
func (s *Store) write(wsRef string, actor model.Actor, fn func(w *wtx) error) error {
	req := &writeReq{wsRef: wsRef, actor: actor, fn: fn, done: make(chan error, 1)}
	// Enqueue under the read lock: Close takes the write lock before it
	// stops the committer, so every write enqueued is answered.
	s.closeMu.RLock()
	if s.closed {
		s.closeMu.RUnlock()
		return ErrClosed
	}
	s.writes <- req
	s.closeMu.RUnlock()
	err := <-req.done
	if err == nil && req.note != nil {
		s.publish(*req.note)
	}
	return err
}

// writeReq is one queued mutation.
type writeReq struct {
	wsRef string
	actor model.Actor
	fn    func(w *wtx) error
	done  chan error
	note  *Notification
}

// maxGroup bounds how many writes share one transaction.
const maxGroup = 256

// committer runs queued writes in groups until Close.
func (s *Store) committer() {
	defer close(s.committerDone)
	for {
		var first *writeReq
		select {
		case first = <-s.writes:
		case <-s.closing:
			for {
				select {
				case r := <-s.writes:
					r.done <- ErrClosed
				default:
					return
				}
			}
		}
		group := []*writeReq{first}
	collect:
		for len(group) < maxGroup {
			select {
			case r := <-s.writes:
				group = append(group, r)
			default:
				break collect
			}
		}
		s.commitGroup(group)
	}
}

// commitGroup commits a group in one transaction. A write that is refused
// gets its refusal and the group runs again without it, so a refusal
// never leaves a trace and never costs the others their write.
func (s *Store) commitGroup(group []*writeReq) {
	for len(group) > 0 {
		failed, ferr := -1, error(nil)
		err := s.db.Update(func(tx *bolt.Tx) error {
			for i, r := range group {
				if err := s.apply(tx, r); err != nil {
					failed, ferr = i, err
					return err
				}
			}
			return nil
		})
		switch {
		case err == nil:
			for _, r := range group {
				r.done <- nil
			}
			return
		case failed < 0: // the commit itself failed: nobody's write landed
			err = classify(err) // a full disk is a coded 507, not a bare failure
			for _, r := range group {
				r.done <- err
			}
			return
		}
		group[failed].done <- ferr
		group = append(group[:failed:failed], group[failed+1:]...)
	}
}

// apply runs one write inside the group's transaction.
func (s *Store) apply(tx *bolt.Tx, r *writeReq) error {
	r.note = nil
	rec, err := liveWorkspace(tx, r.wsRef)
	if err != nil {
		return err
	}
	w := &wtx{s: s, tx: tx, ws: openWS(tx, rec.ID), wsRec: rec, actor: r.actor, now: s.clock()}
	w.ws.now = w.now
	if err := r.fn(w); err != nil {
		return err
	}
	if w.seq > 0 {
		r.note = &Notification{WorkspaceID: rec.ID, Seq: w.seq, Global: w.glob}
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
	b, err := encode(a)
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
	if err := decode(raw, &a); err != nil {
		return a, errInternal("activity entry unreadable: %v", err)
	}
	a.WorkspaceID = b.id
	if a.ID == "" {
		a.ID = "act-" + strconv.FormatInt(a.Seq, 10)
	}
	return a, nil
}
