// Package syncstate keeps a linked workspace's sync bookkeeping: its
// link to a remote Pad, the id map between local and remote ids, the
// bases merges start from, the outbox of local changes still to push,
// the remote feeds' cursors and the in-flight record, and the conflicts
// and set-aside entries. The sync engine reads and keeps it here; what a
// pull writes with the entities it changes goes through storage's
// SyncTx, in the entities' own transaction. Both keep the same records
// (storage/internal/records).
package syncstate

import (
	"github.com/padd/padd/storage"
	"github.com/padd/padd/storage/internal/records"
)

// State is the sync bookkeeping of one store.
type State struct {
	base *records.Base
}

// Of is the sync bookkeeping of st.
func Of(st *storage.Store) *State { return &State{base: st.Base()} }
