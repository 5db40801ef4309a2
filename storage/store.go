// Package storage keeps padd's workspaces in one bbolt file. It is the
// only package that imports bbolt. Every mutation writes the entity, its
// list indexes, the change-log entry, the activity entry, the version
// record, the idempotency record and (for a workspace linked to a remote)
// the sync outbox entry, all at one new workspace seq, in the committer's
// open transaction; it is answered once its record is in the write-ahead
// log (batch.go, wal.go), and the transaction commits to the file in
// batches. Readers that need to follow changes read the change log;
// Subscribe only says that it grew.
package storage

import (
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/padd/padd/model"
	bolt "go.etcd.io/bbolt"
)

// SchemaVersion is the on-disk layout version this build writes.
const SchemaVersion = 5

// ErrLocked means another process holds the database file.
var ErrLocked = errors.New("database is locked by another process")

// ErrClosed says the store was closed under a caller: a write made after
// Close began, or a background loop that should stop.
var ErrClosed = errors.New("storage: the database is closed")

// IsLocked reports whether err says the database is held by another process.
func IsLocked(err error) bool { return errors.Is(err, ErrLocked) }

// Options tune Open.
type Options struct {
	// Timeout bounds the wait for the file lock (default 1s). padd never
	// hangs on a lock held by another process.
	Timeout time.Duration
	// Now is the clock (default time.Now); tests control it.
	Now func() time.Time
	// Logger receives storage diagnostics (default slog.Default()).
	Logger *slog.Logger
	// NoSync skips fsync: for bulk loads and benchmarks only, never in padd.
	NoSync bool
}

// Store is an open padd database.
type Store struct {
	db  *bolt.DB
	now func() time.Time
	log *slog.Logger

	mu   sync.Mutex
	subs map[int]chan Notification
	next int

	// written maps a workspace's names (id, slug, and any name a write
	// was given) to its seq after the last acknowledged write (see
	// WrittenSeq).
	written sync.Map

	clockMu sync.Mutex
	last    time.Time

	wal       *wal
	lsn       uint64        // the last log record written (committer's)
	b         batch         // the open batch (committer's)
	stuck     error         // why writes are refused, until a checkpoint succeeds (committer's)
	ckptAge   time.Duration // checkpointAge; tests hold a batch open longer
	stuckAt   time.Time     // when a checkpoint last failed (committer's)
	broken    error         // the open batch was lost: every write is refused until a restart (committer's)
	batchOpen atomic.Bool
	reads     chan *readReq
	ckpts     chan chan error

	writes        chan *writeReq
	closing       chan struct{}
	committerDone chan struct{}
	closeMu       sync.RWMutex
	closed        bool
}

// Notification says a workspace's change log grew to Seq. Global is the
// journal position of the same commit (the cursor of the all-workspaces
// stream).
type Notification struct {
	WorkspaceID string
	Seq         int64
	Global      int64
}

// Top-level buckets.
var (
	bMeta       = []byte("meta")
	bWorkspaces = []byte("workspaces")
	bWSSlugs    = []byte("ws_slugs")
	bJournal    = []byte("journal")
	bWS         = []byte("ws")
)

var kSchemaVersion = []byte("schema_version")

// migrations[i] moves a database from version i to i+1. Version 0 is an
// empty file.
var migrations = []func(tx *txn) error{
	func(tx *txn) error {
		for _, b := range [][]byte{bMeta, bWorkspaces, bWSSlugs, bJournal, bWS} {
			if _, err := tx.CreateBucketIfNotExists(b); err != nil {
				return err
			}
		}
		return nil
	},
	// 1 -> 2: the patches and builtin_origin buckets of every workspace.
	ensureWSSubBuckets,
	// 2 -> 3: leases, reminders (and the top-level due index), and the
	// project views' records, built from each workspace's items.
	migrateViews,
	// 3 -> 4: item records may be binary (storage/itemcodec.go). Nothing
	// to rewrite: JSON records still read and turn binary when their item
	// next changes. The version is what makes an older padd refuse this
	// database ("upgrade padd") instead of failing on every binary item.
	func(*txn) error { return nil },
	// 4 -> 5: the (status, rank) pair streams next and ready read
	// (index.go), for every stored item.
	migratePairStreams,
}

// Open opens (creating if needed) the database at path. It fails with
// ErrLocked rather than wait more than Options.Timeout for another
// process's lock, and refuses a database written by a newer padd.
func Open(path string, opt Options) (*Store, error) {
	if opt.Timeout == 0 {
		opt.Timeout = time.Second
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	if opt.Logger == nil {
		opt.Logger = slog.Default()
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("create data directory: %w", err)
	}
	// The array freelist hands out the lowest free pages first, so one
	// commit's pages sit close together and the fdatasync that commits
	// them is a few sequential writes, not dozens of scattered ones: a
	// create at 100k items went from 4.7 to 2.3-2.8 ms median (the map
	// freelist picks free pages in map order). Its linear scan is cheap
	// at padd's few thousand free pages.
	db, err := bolt.Open(path, 0o600, &bolt.Options{
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
	db.NoSync = opt.NoSync
	s := &Store{db: db, now: opt.Now, log: opt.Logger, subs: map[int]chan Notification{},
		writes: make(chan *writeReq, maxGroup), reads: make(chan *readReq, maxGroup), ckpts: make(chan chan error, 1), ckptAge: checkpointAge,
		closing: make(chan struct{}), committerDone: make(chan struct{})}
	// The log is replayed before any migration: its records were made on
	// the layout the file has now.
	if s.wal, err = openWAL(path+WALSuffix, opt.NoSync); err == nil {
		if err = s.recoverWAL(); err != nil {
			s.wal.close()
		}
	}
	if err != nil {
		db.Close()
		return nil, classify(err)
	}
	if err := s.migrate(); err != nil {
		s.wal.close()
		db.Close()
		return nil, classify(err)
	}
	go s.committer()
	// The clock starts at the newest change on file, so change-log times
	// never go back across a restart (ChangesByTime relies on it).
	_ = s.view(func(tx *txn) error { s.last = newestChangeTime(tx); return nil })
	return s, nil
}

func (s *Store) migrate() error {
	return s.db.Update(func(btx *bolt.Tx) error {
		tx := wrapTx(btx, nil) // before the log: committed directly, synced
		v := 0
		if m := tx.Bucket(bMeta); m != nil {
			if b := m.Get(kSchemaVersion); len(b) == 8 {
				v = int(binary.BigEndian.Uint64(b))
			}
		}
		if v > SchemaVersion {
			return fmt.Errorf("database has layout version %d but this padd understands up to %d: upgrade padd", v, SchemaVersion)
		}
		for ; v < SchemaVersion; v++ {
			if err := migrations[v](tx); err != nil {
				return fmt.Errorf("migrate database from layout %d to %d: %w", v, v+1, err)
			}
			s.log.Info("database migrated", "from", v, "to", v+1)
		}
		return tx.Bucket(bMeta).Put(kSchemaVersion, u64(SchemaVersion))
	})
}

// Close closes the database. In-flight transactions finish first.
func (s *Store) Close() error {
	s.closeMu.Lock()
	if !s.closed {
		s.closed = true
		close(s.closing)
	}
	s.closeMu.Unlock()
	<-s.committerDone // queued writes finish; later ones get ErrClosed
	s.mu.Lock()
	for _, ch := range s.subs {
		close(ch)
	}
	s.subs = nil // closed: later subscribers get a closed channel
	s.mu.Unlock()
	werr := s.wal.close()
	return errors.Join(s.db.Close(), werr)
}

// Path is the database file.
func (s *Store) Path() string { return s.db.Path() }

// Check runs bbolt's consistency check; nil means the file is sound.
func (s *Store) Check() error {
	return s.viewSettled(func(tx *txn) error {
		var errs []error
		for err := range tx.Check() {
			errs = append(errs, err)
		}
		return errors.Join(errs...)
	})
}

// Size is the database file's size in bytes.
func (s *Store) Size() (int64, error) {
	var n int64
	err := s.view(func(tx *txn) error { n = tx.Size(); return nil })
	return n, err
}

// Subscribe returns a channel told about every commit. A slow reader
// loses intermediate notifications, never the last one: it re-reads the
// change log from its own cursor. The channel closes when the store
// does, also for a subscriber that comes after Close.
func (s *Store) Subscribe() (<-chan Notification, func()) {
	ch := make(chan Notification, 64)
	s.mu.Lock()
	if s.subs == nil {
		s.mu.Unlock()
		close(ch)
		return ch, func() {}
	}
	id := s.next
	s.next++
	s.subs[id] = ch
	s.mu.Unlock()
	return ch, func() {
		s.mu.Lock()
		if c, ok := s.subs[id]; ok {
			close(c)
			delete(s.subs, id)
		}
		s.mu.Unlock()
	}
}

func (s *Store) publish(n Notification) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, ch := range s.subs {
		select {
		case ch <- n:
		default:
			// Full: drop the oldest so the newest position gets through.
			select {
			case <-ch:
			default:
			}
			select {
			case ch <- n:
			default:
			}
		}
	}
}

// clock returns now, never earlier than the last time it returned, so
// change-log times are monotonic even if the wall clock steps back.
func (s *Store) clock() time.Time {
	s.clockMu.Lock()
	defer s.clockMu.Unlock()
	t := s.now().UTC()
	if t.Before(s.last) {
		t = s.last
	}
	s.last = t
	return t
}

// ErrNotFound is wrapped by every not_found refusal from storage.
var errInternal = func(format string, args ...any) error {
	return model.Errorf(model.CodeServerError, format, args...)
}
