// Package storage keeps padd's workspaces in one database file, on the
// engine (storage/engine: a write-ahead log and a batched committer over
// bbolt). Every mutation writes the entity, its list indexes, the
// change-log entry, the activity entry, the version record, the
// idempotency record and (for a workspace linked to a remote) the sync
// outbox entry, all at one new workspace seq, as one engine write; it is
// answered once the engine has it durable. Readers that need to follow
// changes read the change log; Subscribe only says that it grew.
//
// storage holds the store's life (open, migrations, close) and the
// writes: the entities', a pull's (SyncApply), an import's; and the
// export. The reads (entity reads, the change-log feeds, the read models)
// are in storage/views, a linked workspace's sync bookkeeping in
// storage/syncstate, the mirror folders' state in storage/mirrorstate;
// what they all build on (transactions, keys, codecs, the list index, the
// readers of single records) is in storage/internal/records.
package storage

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/padd/padd/internal/eventbus"
	"github.com/padd/padd/storage/engine"
	"github.com/padd/padd/storage/internal/records"
)

// SchemaVersion is the on-disk layout version this build writes.
const SchemaVersion = 7

// ErrLocked means another process holds the database file.
var ErrLocked = engine.ErrLocked

// ErrClosed says the store was closed under a caller: a write made after
// Close began, or a background loop that should stop.
var ErrClosed = engine.ErrClosed

// WALSuffix names the write-ahead log: the database file's name with it
// appended.
const WALSuffix = engine.WALSuffix

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
	// LogSync, when set, replaces the fdatasync of the write-ahead log
	// (engine.Options.LogSync): tests inject a failing disk with it.
	LogSync func(f *os.File) error
	// ReadCheck, when set, is called with the read's context at each
	// look a long read takes at it (every checkEvery rows, before the
	// look): tests hold a read there mid-walk.
	ReadCheck func(ctx context.Context)

	// ImportStep, when set, is called after each chunk of an import
	// commits, before the next: tests hold an import there.
	ImportStep func(ctx context.Context, chunk int)

	// checkpointAge is the engine's CheckpointAge; tests hold a batch
	// open longer.
	checkpointAge time.Duration
}

// Store is an open padd database.
type Store struct {
	base records.Base // the engine, the clock, the long reads' hook: what the jobs share
	log  *slog.Logger

	notes eventbus.Bus[Notification]

	// written maps a workspace's names (id, slug, and any name a write
	// was given) to its seq after the last acknowledged write (see
	// WrittenSeq).
	written sync.Map

	imports    sync.Map                             // *importProgress -> true: the imports being written
	importStep func(ctx context.Context, chunk int) // Options.ImportStep
}

// Notification says a workspace's change log grew to Seq. Global is the
// journal position of the same commit (the cursor of the all-workspaces
// stream).
type Notification struct {
	WorkspaceID string
	Seq         int64
	Global      int64
}

var kSchemaVersion = []byte("schema_version")

// migrations[i] moves a database from version i to i+1. Version 0 is an
// empty file.
var migrations = []func(tx *records.Txn) error{
	func(tx *records.Txn) error {
		for _, b := range [][]byte{records.BMeta, records.BWorkspaces, records.BWSSlugs, records.BJournal, records.BWS} {
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
	migrateProjectRecords,
	// 3 -> 4: item records may be binary (storage/itemcodec.go). Nothing
	// to rewrite: JSON records still read and turn binary when their item
	// next changes. The version is what makes an older padd refuse this
	// database ("upgrade padd") instead of failing on every binary item.
	func(*records.Txn) error { return nil },
	// 4 -> 5: the (status, rank) pair streams next and ready read
	// (index.go), for every stored item.
	migratePairStreams,
	// 5 -> 6: the sync buckets of every workspace (storage/syncmigrate.go).
	migrateSyncState,
	// 6 -> 7: the mirror folders' bucket (storage/mirrorstate).
	func(tx *records.Txn) error {
		_, err := tx.CreateBucketIfNotExists(records.BMirrors)
		return err
	},
}

// Open opens (creating if needed) the database at path. It fails with
// ErrLocked rather than wait more than Options.Timeout for another
// process's lock, and refuses a database written by a newer padd.
func Open(path string, opt Options) (*Store, error) {
	if opt.Now == nil {
		opt.Now = time.Now
	}
	if opt.Logger == nil {
		opt.Logger = slog.Default()
	}
	s := &Store{base: records.Base{Now: opt.Now, ReadCheck: opt.ReadCheck, Log: opt.Logger}, log: opt.Logger, importStep: opt.ImportStep}
	db, err := engine.Open(path, engine.Options{Timeout: opt.Timeout, Logger: opt.Logger, NoSync: opt.NoSync, LogSync: opt.LogSync,
		CheckpointAge: opt.checkpointAge, FillPercent: records.ReplayFill, Setup: s.setup})
	if err != nil {
		return nil, records.EngineErr(err)
	}
	s.base.DB = db
	// The clock starts at the newest change on file, so change-log times
	// never go back across a restart (ChangesByTime relies on it).
	_ = s.base.View(func(tx *records.Txn) error { s.base.StartClock(records.NewestChangeTime(tx)); return nil })
	return s, nil
}

// setup is what the engine runs at open, after the log's replay: it
// drops what interrupted imports staged, and runs the migrations when
// the layout is not current, committed straight to the file (synced);
// nothing at all (no commit) when there is nothing to do.
func (s *Store) setup(tx *records.Txn) error {
	dropped, err := dropStagedImports(tx)
	if err != nil {
		return fmt.Errorf("remove the data of interrupted imports: %w", err)
	}
	if dropped > 0 {
		s.log.Info("removed what imports a stop or a crash interrupted left; nothing of them was visible", "imports", dropped)
	}
	if layoutVersion(tx) == SchemaVersion {
		if dropped == 0 {
			return engine.ErrUnchanged
		}
		return nil
	}
	return s.migrate(tx)
}

// layoutVersion is the layout the file has (0: a new file).
func layoutVersion(tx *records.Txn) int {
	if m := tx.Bucket(records.BMeta); m != nil {
		if b := m.Get(kSchemaVersion); len(b) == 8 {
			return int(binary.BigEndian.Uint64(b))
		}
	}
	return 0
}

// migrate brings the layout to SchemaVersion.
func (s *Store) migrate(tx *records.Txn) error {
	v := layoutVersion(tx)
	if v > SchemaVersion {
		return fmt.Errorf("database has layout version %d but this padd understands up to %d: upgrade padd", v, SchemaVersion)
	}
	for ; v < SchemaVersion; v++ {
		if err := migrations[v](tx); err != nil {
			return fmt.Errorf("migrate database from layout %d to %d: %w", v, v+1, err)
		}
		s.log.Info("database migrated", "from", v, "to", v+1)
	}
	return tx.Bucket(records.BMeta).Put(kSchemaVersion, records.U64(SchemaVersion))
}

// Close closes the database. In-flight transactions finish first: queued
// writes finish, later ones get ErrClosed.
func (s *Store) Close() error {
	err := s.base.DB.Close()
	s.notes.Close()
	return err
}

// Base is what storage's jobs share (the engine, the clock, the long
// reads' hook), for storage's sibling packages: its type is internal.
func (s *Store) Base() *records.Base { return &s.base }

// Path is the database file.
func (s *Store) Path() string { return s.base.DB.Path() }

// Check runs bbolt's consistency check; nil means the file is sound.
func (s *Store) Check() error { return records.EngineErr(s.base.DB.Check()) }

// Checkpoint commits every acknowledged write to the database file.
// padd does it on its own; tests and whole-file reads ask for it.
func (s *Store) Checkpoint() error { return records.EngineErr(s.base.DB.Checkpoint()) }

// Size is the database file's size in bytes.
func (s *Store) Size() (int64, error) {
	var n int64
	err := s.base.View(func(tx *records.Txn) error { n = tx.Size(); return nil })
	return n, err
}

// Subscribe returns a channel told about every commit. A slow reader
// loses intermediate notifications, never the last one: it re-reads the
// change log from its own cursor. The channel closes when the store
// does, also for a subscriber that comes after Close.
func (s *Store) Subscribe() (<-chan Notification, func()) { return s.notes.Subscribe() }

func (s *Store) publish(n Notification) { s.notes.Publish(n) }
