package storage

import (
	"fmt"
	"time"

	bolt "go.etcd.io/bbolt"
)

// The committer goroutine owns the open batch: one bbolt write
// transaction that holds every write acknowledged since the last
// checkpoint. Writes queued while the previous group was being logged run
// as the next group, and share one log record and one fdatasync (group
// commit). Reads that arrive while the batch is open run inside it, so
// they see every acknowledged write; a checkpoint commits the batch and
// reads go back to bbolt read transactions of their own.
//
// A batch commits when it is checkpointAge old, holds checkpointBytes of
// records, on Checkpoint and on Close. A write that is refused after it
// had changed something is undone by rolling the transaction back and
// replaying the batch's records into a new one: a refusal never leaves a
// trace and never costs the others their write.
type batch struct {
	tx    *bolt.Tx
	recs  [][]byte // the records of the acknowledged writes in tx, in order
	bytes int
	dirty bool // tx holds changes: the records', or a large group's on its way to a commit
}

const (
	// maxGroup bounds how many writes share one record.
	maxGroup = 256
	// checkpointAge bounds how long acknowledged writes wait for bbolt:
	// a longer wait shares a commit among more writes, and holds more
	// dirty pages in memory and more log to replay after a crash.
	checkpointAge   = 50 * time.Millisecond
	checkpointBytes = 8 << 20
	// directBytes is the size of a group's record past which the group
	// commits straight to bbolt instead of the log: a bulk load would
	// otherwise write everything twice.
	directBytes = 1 << 20
	// retryAfter spaces the retries of a checkpoint that failed (a full
	// disk), while writes are refused.
	retryAfter = time.Second
)

// kWALApplied (meta) is the LSN of the last log record the file holds.
var kWALApplied = []byte("wal_applied")

// committer runs queued writes, reads in the open batch, and checkpoints,
// until Close.
func (s *Store) committer() {
	defer close(s.committerDone)
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	armed := false
	arm := func(d time.Duration) {
		if !armed {
			timer.Reset(d)
			armed = true
		}
	}
	for {
		select {
		case first := <-s.writes:
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
			if s.b.bytes >= checkpointBytes {
				_ = s.checkpoint() // a failure keeps the batch and sets stuck
			}
			switch {
			case s.b.tx == nil:
			case s.stuck != nil:
				arm(retryAfter)
			default:
				arm(s.ckptAge)
			}
		case q := <-s.reads:
			q.done <- s.runRead(q.fn)
		case c := <-s.ckpts:
			c <- s.checkpoint()
		case <-timer.C:
			armed = false
			if s.checkpoint() != nil {
				arm(retryAfter)
			}
		case <-s.closing:
			s.drain()
			return
		}
	}
}

// drain answers what is queued at Close: reads run, writes are refused
// with ErrClosed, and the batch commits (or stays in the log, to be
// replayed at the next open).
func (s *Store) drain() {
	for {
		select {
		case r := <-s.writes:
			r.done <- ErrClosed
		case q := <-s.reads:
			q.done <- s.runRead(q.fn)
		case c := <-s.ckpts:
			c <- s.checkpoint()
		default:
			if err := s.checkpoint(); err != nil {
				s.log.Error("the last writes could not be committed to the database at close; they are kept in the write-ahead log and will be replayed at the next start", "err", err)
			}
			if s.b.tx != nil {
				_ = s.b.tx.Rollback()
				s.b = batch{}
			}
			return
		}
	}
}

func (s *Store) runRead(fn func(*txn) error) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = errInternal("read failed: %v", p)
		}
	}()
	if s.broken != nil {
		return s.broken // the file lacks acknowledged writes: answer nothing rather than wrong
	}
	if s.b.tx == nil {
		return s.db.View(func(tx *bolt.Tx) error { return fn(wrapTx(tx, nil)) })
	}
	return fn(wrapTx(s.b.tx, nil))
}

// applySafe runs one write, turning a panic into a refusal. A bulk write
// is not recorded.
func (s *Store) applySafe(r *writeReq) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = errInternal("write failed: %v", p)
			r.rec.buf = append(r.rec.buf, 0) // its changes, if any, must be undone
		}
	}()
	rec := &r.rec
	if r.bulk {
		rec = nil
	}
	return s.apply(wrapTx(s.b.tx, rec), r)
}

// commitBulk runs a bulk write in the open batch and commits the batch
// with it: it was not logged, so the commit is what makes it durable.
func (s *Store) commitBulk(r *writeReq) {
	if err := s.writable(); err != nil {
		r.done <- err
		return
	}
	if err := s.applySafe(r); err != nil {
		// Unrecorded: whatever it changed goes with a rebuild.
		if rerr := s.rebuild(nil); rerr != nil {
			err = rerr
		}
		r.done <- err
		return
	}
	s.b.dirty = true
	r.done <- s.checkpoint() // a failed commit rebuilds the batch without it
}

// commitGroup runs a group in the open batch, logs the mutations of those
// that succeeded as one record, and answers each.
func (s *Store) commitGroup(group []*writeReq) {
	answer := func(rs []*writeReq, err error) {
		for _, r := range rs {
			r.done <- err
		}
	}
	if err := s.writable(); err != nil {
		answer(group, err)
		return
	}
	var ok, bulk []*writeReq
	defer func() {
		for _, r := range bulk {
			s.commitBulk(r)
		}
	}()
	size := 0
	for i, r := range group {
		if r.bulk {
			bulk = append(bulk, r)
			continue
		}
		r.rec.buf = r.rec.buf[:0]
		err := s.applySafe(r)
		if err == nil {
			ok = append(ok, r)
			size += len(r.rec.buf)
			continue
		}
		if len(r.rec.buf) > 0 {
			if rerr := s.rebuild(ok); rerr != nil {
				answer(append(ok, group[i:]...), rerr)
				return
			}
		}
		r.done <- err
	}
	if size >= directBytes {
		s.b.dirty = true
		answer(ok, s.checkpoint()) // on failure the group is rolled back with the commit
		return
	}
	if size > 0 {
		rec := ok[0].rec.buf
		if len(ok) > 1 {
			rec = make([]byte, 0, size)
			for _, r := range ok {
				rec = append(rec, r.rec.buf...)
			}
		}
		if err := s.wal.append(s.lsn+1, rec); err != nil {
			err = classify(err)
			if rerr := s.rebuild(nil); rerr != nil {
				err = rerr
			}
			answer(ok, err)
			return
		}
		s.lsn++
		s.b.recs = append(s.b.recs, rec)
		s.b.bytes += len(rec)
		s.b.dirty = true
	}
	answer(ok, nil)
}

// writable opens the batch for the next group, or says why no write can
// be taken: the open batch was lost (restart padd), or the last
// checkpoint failed and a retry fails too (a full disk).
func (s *Store) writable() error {
	if s.broken != nil {
		return s.broken
	}
	if s.stuck != nil {
		if time.Since(s.stuckAt) < retryAfter {
			return s.stuck // a retry a moment ago failed: refuse without another
		}
		if err := s.checkpoint(); err != nil {
			return err
		}
	}
	return s.begin()
}

// begin opens the batch if none is open.
func (s *Store) begin() error {
	if s.b.tx != nil {
		return nil
	}
	tx, err := s.db.Begin(true)
	if err != nil {
		return fmt.Errorf("begin write transaction: %w", err)
	}
	s.b = batch{tx: tx}
	s.batchOpen.Store(true)
	return nil
}

// rebuild replaces the batch's transaction by a new one holding only the
// acknowledged records and then extra's: it undoes whatever else the old
// one held.
func (s *Store) rebuild(extra []*writeReq) error {
	if s.b.tx != nil {
		_ = s.b.tx.Rollback()
		s.b.tx = nil
	}
	tx, err := s.db.Begin(true)
	if err == nil {
		for _, rec := range s.b.recs {
			if err = replay(tx, rec); err != nil {
				break
			}
		}
		for _, r := range extra {
			if err != nil {
				break
			}
			err = replay(tx, r.rec.buf)
		}
		if err != nil {
			_ = tx.Rollback()
		}
	}
	if err != nil {
		// The acknowledged writes are safe in the log, but this process
		// can no longer show them: stop writing, so nothing diverges.
		s.broken = errInternal("padd could not rebuild its open batch of writes (%v); the writes are safe in the write-ahead log: restart padd to replay them", err)
		s.log.Error("open batch lost; restart padd to replay the write-ahead log", "err", err)
		return s.broken
	}
	s.b.tx = tx
	s.b.dirty = len(s.b.recs) > 0 || len(extra) > 0
	return nil
}

// checkpoint commits the open batch (synced) with the LSN of its last
// record, and starts the log over.
func (s *Store) checkpoint() error {
	if s.broken != nil {
		return s.broken
	}
	if s.b.tx == nil || !s.b.dirty {
		// Nothing acknowledged waits: the transaction changed nothing.
		if s.b.tx != nil {
			_ = s.b.tx.Rollback()
		}
		s.b = batch{}
		s.batchOpen.Store(false)
		s.stuck = nil
		return nil
	}
	err := s.b.tx.Bucket(bMeta).Put(kWALApplied, u64(s.lsn))
	if err == nil {
		err = s.b.tx.Commit() // on failure bbolt has rolled it back
		if err != nil {
			s.b.tx = nil
		}
	}
	if err != nil {
		err = classify(err)
		if rerr := s.rebuild(nil); rerr != nil {
			return rerr
		}
		if s.stuck == nil {
			s.log.Warn("the database could not take the latest writes; they are safe in the write-ahead log, and new writes are refused until it can", "err", err)
		}
		s.stuck, s.stuckAt = err, time.Now()
		return err
	}
	s.b = batch{}
	s.stuck = nil
	s.batchOpen.Store(false)
	s.wal.reset()
	return nil
}

// Checkpoint commits every acknowledged write to the database file.
// padd does it on its own; tests and whole-file reads ask for it.
func (s *Store) Checkpoint() error {
	c := make(chan error, 1)
	if err := s.enqueue(func() { s.ckpts <- c }); err != nil {
		return err
	}
	return <-c
}

// recover replays the log records past the file's last checkpoint: the
// writes acknowledged before a crash.
func (s *Store) recoverWAL() error {
	var applied uint64
	if err := s.db.View(func(tx *bolt.Tx) error {
		if m := tx.Bucket(bMeta); m != nil {
			applied = getU64(m.Get(kWALApplied))
		}
		return nil
	}); err != nil {
		return err
	}
	recs, err := s.wal.scan(applied)
	if err != nil {
		return err
	}
	s.lsn = applied
	if len(recs) == 0 {
		s.wal.reset()
		return nil
	}
	last := recs[len(recs)-1].lsn
	err = s.db.Update(func(tx *bolt.Tx) error {
		for _, r := range recs {
			if err := replay(tx, r.payload); err != nil {
				return fmt.Errorf("record %d: %w", r.lsn, err)
			}
		}
		return tx.Bucket(bMeta).Put(kWALApplied, u64(last))
	})
	if err != nil {
		return fmt.Errorf("replay the write-ahead log: %w", err)
	}
	s.lsn = last
	s.wal.reset()
	s.log.Info("replayed writes from the write-ahead log", "records", len(recs), "last", last)
	return nil
}
