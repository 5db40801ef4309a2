// Package engine is a key-value store with a write-ahead log and a
// batched group committer over bbolt. It is the only package of padd that
// imports bbolt, and it knows nothing of what its callers keep in it.
//
// All writes go through one committer goroutine that keeps one bbolt
// write transaction open (the batch, committer.go). A write is a callback
// over the engine's Tx; while it runs, the Tx's buckets write down every
// put, delete and bucket change it makes (rec.go). The records of the
// writes queued together go to the log beside the file (wal.go) as one
// checksummed record with one fdatasync, and then the writes are
// answered: a write is durable when Write returns nil. A write the disk
// failed to log is refused, and its record taken back before any later
// write is taken (logfail.go). The batch commits to the file later, with
// many writes at once (a checkpoint), and Open replays the log's records
// past the last checkpoint.
//
// The engine keeps one key of its own in the file: the LSN of the last
// log record a checkpoint committed, under wal_applied in the top-level
// bucket meta (made when missing). Callers may keep their own keys in
// meta too.
package engine

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	bolt "go.etcd.io/bbolt"
)

// ErrLocked means another process holds the database file.
var ErrLocked = errors.New("database is locked by another process")

// ErrClosed says the database was closed under a caller: a write made
// after Close began, or a background loop that should stop.
var ErrClosed = errors.New("storage: the database is closed")

// ErrNotOpen is what a read transaction of its own (not in the open
// batch) answers once the file is closed.
var ErrNotOpen = bolt.ErrDatabaseNotOpen

// ErrUnchanged is what Options.Setup returns when the file needs no
// change: Open then succeeds without committing.
var ErrUnchanged = errors.New("engine: setup has nothing to change")

// TooLarge reports whether err is bbolt's refusal of a key or value past
// the sizes it holds (bolt.MaxKeySize, bolt.MaxValueSize).
func TooLarge(err error) bool {
	return errors.Is(err, bolt.ErrKeyTooLarge) || errors.Is(err, bolt.ErrValueTooLarge)
}

// Options tune Open.
type Options struct {
	// Timeout bounds the wait for the file lock (default 1s): Open never
	// hangs on a lock held by another process.
	Timeout time.Duration
	// Logger receives the engine's diagnostics (default slog.Default()).
	Logger *slog.Logger
	// NoSync skips fsync: for bulk loads, benchmarks and tests only.
	NoSync bool
	// CheckpointAge bounds how long acknowledged writes wait for a
	// checkpoint (default 50ms): a longer wait shares a commit among more
	// writes, and holds more dirty pages in memory and more log to replay
	// after a crash. Tests hold a batch open longer.
	CheckpointAge time.Duration
	// FillPercent, when set, gives the split fill of the bucket called
	// name for the writes replay makes into it (0: bbolt's default). A
	// write sets its own with Bucket.SetFillPercent; a replayed record
	// holds only the names.
	FillPercent func(name []byte) float64
	// LogSync, when set, replaces the fdatasync of the log (not used
	// with NoSync): tests inject a failing disk with it.
	LogSync func(f *os.File) error
	// Setup, when set, runs at Open after the log's replay and before any
	// write, in one transaction committed (synced) straight to the file:
	// layout migrations. Its changes are not logged. Setup returns
	// ErrUnchanged when the file needs nothing: its transaction is then
	// rolled back, and Open writes nothing (no synced commit at every
	// start of an up-to-date file).
	Setup func(tx *Tx) error
}

// DB is an open database: the bbolt file, its log and the committer.
type DB struct {
	db   *bolt.DB
	log  *slog.Logger
	fill func(name []byte) float64

	wal       *wal
	lsn       uint64        // the last log record written (committer's)
	b         batch         // the open batch (committer's)
	stuck     error         // why writes are refused, until a checkpoint succeeds (committer's)
	ckptAge   time.Duration // Options.CheckpointAge
	stuckAt   time.Time     // when a checkpoint last failed (committer's)
	broken    error         // the open batch was lost: every write is refused until a restart (committer's)
	logFailed error         // a failed append's record is not taken back: writes are refused until it is (committer's)
	logTried  time.Time     // when taking it back last failed (committer's)
	batchOpen atomic.Bool
	// inCallback is set while the committer runs a callback (nested.go).
	inCallback atomic.Bool
	reads      chan *readReq
	ckpts      chan chan error

	writes        chan *writeReq
	closing       chan struct{}
	committerDone chan struct{}
	closeMu       sync.RWMutex
	closed        bool
}

// writeReq is one queued write.
type writeReq struct {
	fn   func(tx *Tx) error
	bulk bool
	done chan error
	rec  recorder
}

// readReq is a read to run inside the open batch.
type readReq struct {
	fn   func(tx *Tx) error
	done chan error
}

// Open opens (creating if needed) the database at path and its log at
// path+WALSuffix, replays the log, runs Options.Setup and starts the
// committer. It fails with ErrLocked rather than wait more than
// Options.Timeout for another process's lock. A disk-full failure is
// marked ErrNoSpace.
func Open(path string, opt Options) (*DB, error) {
	if opt.Timeout == 0 {
		opt.Timeout = time.Second
	}
	if opt.Logger == nil {
		opt.Logger = slog.Default()
	}
	if opt.CheckpointAge == 0 {
		opt.CheckpointAge = checkpointAge
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("create data directory: %w", err)
	}
	// The array freelist hands out the lowest free pages first, so one
	// commit's pages sit close together and the fdatasync that commits
	// them is a few sequential writes, not dozens of scattered ones (the
	// map freelist picks free pages in map order; docs/PERFORMANCE.md,
	// "Why the code is as it is").
	// Its linear scan is cheap at padd's few thousand free pages.
	bdb, err := bolt.Open(path, 0o600, &bolt.Options{
		Timeout:        opt.Timeout,
		NoFreelistSync: false,
		FreelistType:   bolt.FreelistArrayType,
		NoGrowSync:     false,
	})
	if errors.Is(err, bolt.ErrTimeout) {
		return nil, fmt.Errorf("open %s: %w", path, ErrLocked)
	}
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	bdb.NoSync = opt.NoSync
	db := &DB{db: bdb, log: opt.Logger, fill: opt.FillPercent, ckptAge: opt.CheckpointAge,
		writes: make(chan *writeReq, maxGroup), reads: make(chan *readReq, maxGroup), ckpts: make(chan chan error, 1),
		closing: make(chan struct{}), committerDone: make(chan struct{})}
	// The log is replayed before Setup: its records were made on the
	// layout the file has now.
	if db.wal, err = openWAL(path+WALSuffix, opt.NoSync, opt.LogSync); err == nil {
		if err = db.recoverWAL(); err != nil {
			db.wal.close()
		}
	}
	if err != nil {
		bdb.Close()
		return nil, classify(err)
	}
	if opt.Setup != nil {
		err := bdb.Update(func(tx *bolt.Tx) error { return opt.Setup(wrapTx(tx, nil)) })
		if err != nil && !errors.Is(err, ErrUnchanged) {
			db.wal.close()
			bdb.Close()
			return nil, classify(err)
		}
	}
	go db.committer()
	return db, nil
}

// Close commits the open batch and closes the file and the log. Queued
// reads are answered first; queued and later writes get ErrClosed. A
// batch that cannot commit stays in the log, replayed at the next Open.
func (db *DB) Close() error {
	db.closeMu.Lock()
	if !db.closed {
		db.closed = true
		close(db.closing)
	}
	db.closeMu.Unlock()
	<-db.committerDone
	werr := db.wal.close()
	return errors.Join(db.db.Close(), werr)
}

// Path is the database file.
func (db *DB) Path() string { return db.db.Path() }

// Check runs bbolt's consistency check of the whole file, after a
// checkpoint; nil means the file is sound. It runs in a bbolt write
// transaction it rolls back, so no commit runs beside it: the check
// reads the freelist, which a commit starting beside a read transaction
// changes under it (the race detector sees it).
func (db *DB) Check() error {
	if err := db.Checkpoint(); err != nil {
		return err
	}
	var errs []error
	err := db.db.Update(func(tx *bolt.Tx) error {
		for err := range tx.Check() {
			errs = append(errs, err)
		}
		return errCheckDone
	})
	if err != nil && !errors.Is(err, errCheckDone) {
		return err
	}
	return errors.Join(errs...)
}

// errCheckDone rolls Check's transaction back.
var errCheckDone = errors.New("check done")

// Write runs fn as one write, and returns once it is durable: fn's
// mutations are in the log, or (for a group too large to log) committed
// to the file. An error from fn refuses the write and undoes whatever fn
// changed; a panic in fn does too, answered as ErrFault. fn runs on the
// committer: it must not call the DB (see ErrReadInWrite).
func (db *DB) Write(fn func(tx *Tx) error) error {
	return db.submit(&writeReq{fn: fn})
}

// WriteBulk is Write for a write too large to log (a bulk load): it
// commits straight to the file, in a transaction of its own (the open
// batch commits first), and nothing of it is recorded. Reads go on beside
// it in read transactions of their own; writes wait for it, so a long
// load is written as many bulk writes, each a chunk of it.
func (db *DB) WriteBulk(fn func(tx *Tx) error) error {
	return db.submit(&writeReq{fn: fn, bulk: true})
}

// View runs fn in a read transaction that sees every acknowledged write.
// While acknowledged writes wait in the open batch, fn runs inside it, on
// the committer (a panic in fn is then answered as ErrFault); otherwise
// in a bbolt read transaction of its own, beside others, also while a
// bulk write runs (it is not acknowledged before it commits).
func (db *DB) View(fn func(tx *Tx) error) error {
	if db.insideCallback() {
		return ErrReadInWrite
	}
	if db.batchOpen.Load() {
		q := &readReq{fn: fn, done: make(chan error, 1)}
		if err := db.enqueue(func() { db.reads <- q }); err != nil {
			return err
		}
		return <-q.done
	}
	return db.db.View(func(tx *bolt.Tx) error { return fn(wrapTx(tx, nil)) })
}

// ViewSettled runs fn in a bbolt read transaction after the open batch
// has committed: for long reads (a whole-file check) that should not hold
// the committer.
func (db *DB) ViewSettled(fn func(tx *Tx) error) error {
	if err := db.Checkpoint(); err != nil {
		return err
	}
	return db.db.View(func(tx *bolt.Tx) error { return fn(wrapTx(tx, nil)) })
}

// Checkpoint commits every acknowledged write to the database file. The
// committer does it on its own; tests and whole-file reads ask for it.
func (db *DB) Checkpoint() error {
	if db.insideCallback() {
		return ErrReadInWrite
	}
	c := make(chan error, 1)
	if err := db.enqueue(func() { db.ckpts <- c }); err != nil {
		return err
	}
	return <-c
}

// BatchOpen reports whether a batch is open: acknowledged writes may be
// in the log and not yet in the file.
func (db *DB) BatchOpen() bool { return db.batchOpen.Load() }

// SetNoSync turns fsync off or on for the log and the checkpoints: for
// benchmark and test setup only. Call it between writes.
func (db *DB) SetNoSync(on bool) {
	db.db.NoSync = on
	db.wal.noSync = on
}

// submit queues req for the committer and waits for its answer.
func (db *DB) submit(req *writeReq) error {
	if db.insideCallback() {
		return ErrReadInWrite
	}
	req.done = make(chan error, 1)
	if err := db.enqueue(func() { db.writes <- req }); err != nil {
		return err
	}
	return <-req.done
}

// enqueue runs send under the read lock: Close takes the write lock before
// it stops the committer, so everything enqueued is answered.
func (db *DB) enqueue(send func()) error {
	db.closeMu.RLock()
	defer db.closeMu.RUnlock()
	if db.closed {
		return ErrClosed
	}
	send()
	return nil
}

// File is a bbolt file opened read-only, without a log or a committer:
// for reading a file another program keeps (Bleve's root.bolt).
type File struct {
	db *bolt.DB
}

// OpenFile opens the bbolt file at path read-only, waiting at most
// timeout for a writer's lock.
func OpenFile(path string, timeout time.Duration) (*File, error) {
	db, err := bolt.Open(path, 0, &bolt.Options{ReadOnly: true, Timeout: timeout})
	if err != nil {
		return nil, err
	}
	return &File{db: db}, nil
}

// View runs fn in a read transaction.
func (f *File) View(fn func(tx *Tx) error) error {
	return f.db.View(func(tx *bolt.Tx) error { return fn(wrapTx(tx, nil)) })
}

// Close closes the file.
func (f *File) Close() error { return f.db.Close() }
