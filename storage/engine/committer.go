package engine

import (
	"encoding/binary"
	"errors"
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
// A batch commits when it is Options.CheckpointAge old, holds
// checkpointBytes of records, on Checkpoint and on Close. A write that is
// refused after it had changed something is undone by rolling the
// transaction back and replaying the batch's records into a new one: a
// refusal never leaves a trace and never costs the others their write.
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
	checkpointAge   = 50 * time.Millisecond // the default of Options.CheckpointAge
	checkpointBytes = 8 << 20
	// directBytes is the size of a group's record past which the group
	// commits straight to bbolt instead of the log: a bulk load would
	// otherwise write everything twice.
	directBytes = 1 << 20
	// retryAfter spaces the retries of a checkpoint that failed (a full
	// disk), while writes are refused.
	retryAfter = time.Second
)

// kWALApplied (in the top-level bucket bMeta) is the LSN of the last log
// record the file holds.
var (
	bMeta       = []byte("meta")
	kWALApplied = []byte("wal_applied")
)

// putApplied records in tx that the file holds the log up to lsn.
func putApplied(tx *bolt.Tx, lsn uint64) error {
	m, err := tx.CreateBucketIfNotExists(bMeta)
	if err != nil {
		return err
	}
	return m.Put(kWALApplied, binary.BigEndian.AppendUint64(nil, lsn))
}

// committer runs queued writes, reads in the open batch, and checkpoints,
// until Close.
func (db *DB) committer() {
	defer close(db.committerDone)
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
		case first := <-db.writes:
			group := []*writeReq{first}
		collect:
			for len(group) < maxGroup {
				select {
				case r := <-db.writes:
					group = append(group, r)
				default:
					break collect
				}
			}
			db.commitGroup(group)
			if db.b.bytes >= checkpointBytes {
				_ = db.checkpoint() // a failure keeps the batch and sets stuck
			}
			switch {
			case db.stuck != nil || db.logFailed != nil:
				arm(retryAfter)
			case db.b.tx != nil:
				arm(db.ckptAge)
			}
		case q := <-db.reads:
			q.done <- db.runRead(q.fn)
		case c := <-db.ckpts:
			c <- db.checkpoint()
		case <-timer.C:
			armed = false
			if db.checkpoint() != nil || db.retryLog() != nil {
				arm(retryAfter)
			}
		case <-db.closing:
			db.drain()
			return
		}
	}
}

// drain answers what is queued at Close: reads run, writes are refused
// with ErrClosed, and the batch commits (or stays in the log, to be
// replayed at the next open).
func (db *DB) drain() {
	for {
		select {
		case r := <-db.writes:
			r.done <- ErrClosed
		case q := <-db.reads:
			q.done <- db.runRead(q.fn)
		case c := <-db.ckpts:
			c <- db.checkpoint()
		default:
			if err := db.checkpoint(); err != nil {
				db.log.Error("the last writes could not be committed to the database at close; they are kept in the write-ahead log and will be replayed at the next start", "err", err)
			}
			if db.logFailed != nil {
				if err := db.wal.invalidate(); err != nil {
					db.log.Error("padd could not take back the write-ahead log's failed record at close: the writes answered as of unknown outcome will be replayed at the next start", "err", err)
				}
			}
			if db.b.tx != nil {
				_ = db.b.tx.Rollback()
				db.b = batch{}
			}
			return
		}
	}
}

func (db *DB) runRead(fn func(*Tx) error) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fault("read failed: %v", p)
		}
	}()
	if db.broken != nil {
		return db.broken // the file lacks acknowledged writes: answer nothing rather than wrong
	}
	if db.b.tx == nil {
		return db.db.View(func(tx *bolt.Tx) error { return db.onCommitter(fn, wrapTx(tx, nil)) })
	}
	return db.onCommitter(fn, wrapTx(db.b.tx, nil))
}

// applySafe runs one write, turning a panic into a refusal. A bulk write
// is not recorded.
func (db *DB) applySafe(r *writeReq) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fault("write failed: %v", p)
			r.rec.buf = append(r.rec.buf, 0) // its changes, if any, must be undone
		}
	}()
	rec := &r.rec
	if r.bulk {
		rec = nil
	}
	return db.onCommitter(r.fn, wrapTx(db.b.tx, rec))
}

// commitBulk runs a bulk write in a transaction of its own and commits
// it: it was not logged, so the commit is what makes it durable. The
// acknowledged writes of the open batch commit first, so that nothing
// acknowledged is in the bulk write's transaction and reads need not run
// inside it: while the bulk write runs they read the file in read
// transactions of their own, and a load written in chunks holds no read
// for the length of a chunk.
func (db *DB) commitBulk(r *writeReq) {
	// The reads queued for the open batch are answered first, not after
	// the bulk write.
	for queued := true; queued; {
		select {
		case q := <-db.reads:
			q.done <- db.runRead(q.fn)
		default:
			queued = false
		}
	}
	if err := db.checkpoint(); err != nil {
		r.done <- err
		return
	}
	if err := db.writable(); err != nil {
		r.done <- err
		return
	}
	db.batchOpen.Store(false)
	if err := db.applySafe(r); err != nil {
		// Unrecorded and alone in its transaction: whatever it changed
		// goes with a rollback.
		_ = db.b.tx.Rollback()
		db.b = batch{}
		r.done <- err
		return
	}
	db.b.dirty = true
	r.done <- db.checkpoint() // a failed commit rebuilds the batch without it
}

// commitGroup runs a group in the open batch, logs the mutations of those
// that succeeded as one record, and answers each.
func (db *DB) commitGroup(group []*writeReq) {
	answer := func(rs []*writeReq, err error) {
		for _, r := range rs {
			r.done <- err
		}
	}
	if err := db.writable(); err != nil {
		answer(group, err)
		return
	}
	var ok, bulk []*writeReq
	defer func() {
		for _, r := range bulk {
			db.commitBulk(r)
		}
	}()
	size := 0
	for i, r := range group {
		if r.bulk {
			bulk = append(bulk, r)
			continue
		}
		r.rec.buf = r.rec.buf[:0]
		err := db.applySafe(r)
		if err == nil {
			ok = append(ok, r)
			size += len(r.rec.buf)
			continue
		}
		if len(r.rec.buf) > 0 {
			if rerr := db.rebuild(ok); rerr != nil {
				answer(append(ok, group[i:]...), rerr)
				return
			}
		}
		r.done <- err
	}
	if size >= directBytes {
		db.b.dirty = true
		answer(ok, db.checkpoint()) // on failure the group is rolled back with the commit
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
		if err := db.wal.append(db.lsn+1, rec); err != nil {
			err = db.appendFailed(err)
			if rerr := db.rebuild(nil); rerr != nil {
				err = rerr
			}
			answer(ok, err)
			return
		}
		db.lsn++
		db.b.recs = append(db.b.recs, rec)
		db.b.bytes += len(rec)
		db.b.dirty = true
	}
	answer(ok, nil)
}

// appendFailed takes back the record of a failed append
// (wal.invalidate) and says what the group's writers are told: a full
// disk as NoSpace, any other failure as a LogError. When the record
// cannot be taken back, the outcome is unknown, and writes are refused
// until a retry (retryLog) takes it back: no record may follow it.
func (db *DB) appendFailed(err error) error {
	err = classify(err)
	if ierr := db.wal.invalidate(); ierr != nil {
		db.logFailed, db.logTried = err, time.Now()
		db.log.Error("the disk failed to store the write-ahead log and padd could not take the failed record back; writes are refused until it can, retried once a second",
			"err", err, "take_back_err", ierr)
		return &LogError{Err: err, Unknown: true}
	}
	if errors.Is(err, ErrNoSpace) {
		return err // nothing was kept, as for any write a full disk refuses
	}
	db.log.Warn("the disk failed to store the write-ahead log; the writes of the failed record were refused and taken back", "err", err)
	return &LogError{Err: err}
}

// retryLog takes back a failed append's record that could not be taken
// back before, at most once a second: nil once it is, else the refusal
// of a write until then.
func (db *DB) retryLog() error {
	if db.logFailed == nil {
		return nil
	}
	if time.Since(db.logTried) >= retryAfter {
		err := db.wal.invalidate()
		if err == nil {
			db.log.Info("the write-ahead log's failed record is taken back; writes resume", "err", db.logFailed)
			db.logFailed = nil
			return nil
		}
		db.logTried = time.Now()
	}
	return &LogError{Err: db.logFailed, Earlier: true}
}

// writable opens the batch for the next group, or says why no write can
// be taken: the open batch was lost (restart padd), a failed record of
// the log is not taken back yet, or the last checkpoint failed and a
// retry fails too (a full disk).
func (db *DB) writable() error {
	if db.broken != nil {
		return db.broken
	}
	if err := db.retryLog(); err != nil {
		return err
	}
	if db.stuck != nil {
		if time.Since(db.stuckAt) < retryAfter {
			return db.stuck // a retry a moment ago failed: refuse without another
		}
		if err := db.checkpoint(); err != nil {
			return err
		}
	}
	return db.begin()
}

// begin opens the batch if none is open.
func (db *DB) begin() error {
	if db.b.tx == nil {
		tx, err := db.db.Begin(true)
		if err != nil {
			return fmt.Errorf("begin write transaction: %w", err)
		}
		db.b = batch{tx: tx}
	}
	db.batchOpen.Store(true)
	return nil
}

// rebuild replaces the batch's transaction by a new one holding only the
// acknowledged records and then extra's: it undoes whatever else the old
// one held.
func (db *DB) rebuild(extra []*writeReq) error {
	if db.b.tx != nil {
		_ = db.b.tx.Rollback()
		db.b.tx = nil
	}
	tx, err := db.db.Begin(true)
	if err == nil {
		for _, rec := range db.b.recs {
			if err = replay(tx, rec, db.fill); err != nil {
				break
			}
		}
		for _, r := range extra {
			if err != nil {
				break
			}
			err = replay(tx, r.rec.buf, db.fill)
		}
		if err != nil {
			_ = tx.Rollback()
		}
	}
	if err != nil {
		// The acknowledged writes are safe in the log, but this process
		// can no longer show them: stop writing, so nothing diverges.
		db.broken = fault("padd could not rebuild its open batch of writes (%v); the writes are safe in the write-ahead log: restart padd to replay them", err)
		db.log.Error("open batch lost; restart padd to replay the write-ahead log", "err", err)
		return db.broken
	}
	db.b.tx = tx
	db.b.dirty = len(db.b.recs) > 0 || len(extra) > 0
	return nil
}

// checkpoint commits the open batch (synced) with the LSN of its last
// record, and starts the log over.
func (db *DB) checkpoint() error {
	if db.broken != nil {
		return db.broken
	}
	if db.b.tx == nil || !db.b.dirty {
		// Nothing acknowledged waits: the transaction changed nothing.
		if db.b.tx != nil {
			_ = db.b.tx.Rollback()
		}
		db.b = batch{}
		db.batchOpen.Store(false)
		db.stuck = nil
		return nil
	}
	err := putApplied(db.b.tx, db.lsn)
	if err == nil {
		err = db.b.tx.Commit() // on failure bbolt has rolled it back
		if err != nil {
			db.b.tx = nil
		}
	}
	if err != nil {
		err = classify(err)
		if rerr := db.rebuild(nil); rerr != nil {
			return rerr
		}
		if db.stuck == nil {
			db.log.Warn("the database could not take the latest writes; they are safe in the write-ahead log, and new writes are refused until it can", "err", err)
		}
		db.stuck, db.stuckAt = err, time.Now()
		return err
	}
	db.b = batch{}
	db.stuck = nil
	db.batchOpen.Store(false)
	db.wal.reset()
	return nil
}

// recoverWAL replays the log records past the file's last checkpoint: the
// writes acknowledged before a crash.
func (db *DB) recoverWAL() error {
	var applied uint64
	if err := db.db.View(func(tx *bolt.Tx) error {
		if m := tx.Bucket(bMeta); m != nil {
			if v := m.Get(kWALApplied); len(v) == 8 {
				applied = binary.BigEndian.Uint64(v)
			}
		}
		return nil
	}); err != nil {
		return err
	}
	recs, err := db.wal.scan(applied)
	if err != nil {
		return err
	}
	db.lsn = applied
	if len(recs) == 0 {
		db.wal.reset()
		return nil
	}
	last := recs[len(recs)-1].lsn
	err = db.db.Update(func(tx *bolt.Tx) error {
		for _, r := range recs {
			if err := replay(tx, r.payload, db.fill); err != nil {
				return fmt.Errorf("record %d: %w", r.lsn, err)
			}
		}
		return putApplied(tx, last)
	})
	if err != nil {
		return fmt.Errorf("replay the write-ahead log: %w", err)
	}
	db.lsn = last
	db.wal.reset()
	db.log.Info("replayed writes from the write-ahead log", "records", len(recs), "last", last)
	return nil
}
