// Package records is what storage's jobs share: the engine's
// transactions under storage's names, the workspace's buckets and keys,
// the record codecs, the list index and its streams, the project views'
// records kept on write, the readers of single records (an item, a
// collection, a role, a lease) every job builds on, and the sync state's
// records (link, id map, bases, cursors, in-flight record, conflicts),
// which storage's SyncTx writes with the entities and syncstate keeps.
// It is internal to storage: storage (the store's life and the entity
// writes) and its sibling packages (views, the read models; syncstate,
// the sync bookkeeping) use it; nothing else can.
package records

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/padd/padd/model"
	"github.com/padd/padd/storage/engine"
)

// Txn, Bucket and Cursor are the engine's transaction, bucket and cursor
// under the short names storage uses.
type (
	Txn    = engine.Tx
	Bucket = engine.Bucket
	Cursor = engine.Cursor
)

// Top-level buckets.
var (
	BMeta       = []byte("meta")
	BWorkspaces = []byte("workspaces")
	BWSSlugs    = []byte("ws_slugs")
	BJournal    = []byte("journal")
	BWS         = []byte("ws")
	// BMirrors is the mirror folders' state (storage/mirrorstate):
	// bookkeeping outside any workspace's seq, like sync's.
	BMirrors = []byte("mirrors")
)

// Base is what every job of storage reads and writes through: the
// engine, the clock, the hook long reads call, and the logger of the
// reads that skip a damaged record and say so.
type Base struct {
	DB        *engine.DB
	Now       func() time.Time      // Options.Now
	ReadCheck func(context.Context) // Options.ReadCheck
	Log       *slog.Logger          // Options.Logger

	clockMu sync.Mutex
	last    time.Time
}

// StartClock sets the time Clock never goes back from: the newest
// change on file, so change-log times never go back across a restart
// (ChangesByTime relies on it).
func (s *Base) StartClock(t time.Time) { s.last = t }

// Clock returns now, never earlier than the last time it returned, so
// change-log times are monotonic even if the wall clock steps back.
func (s *Base) Clock() time.Time {
	s.clockMu.Lock()
	defer s.clockMu.Unlock()
	t := s.Now().UTC()
	if t.Before(s.last) {
		t = s.last
	}
	s.last = t
	return t
}

// ErrInternal is storage's 500 server_error.
var ErrInternal = func(format string, args ...any) error {
	return model.Errorf(model.CodeServerError, format, args...)
}

// FirstErr is the first of errs that is not nil.
func FirstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}
