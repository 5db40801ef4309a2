// Package views holds padd's read models over the store: the project
// views (dashboard, next, report, stale, standup, catch-up, changelog),
// an item's context, backlinks and children, the activity and audit
// feeds, the version history's reads, tags, the session bootstrap, and
// the reads the daemon's doors answer (a comment, a star, a change's
// description). They read the records storage writes (storage/internal/
// records) in one read transaction each, and write nothing.
package views

import (
	"github.com/padd/padd/storage"
	"github.com/padd/padd/storage/internal/records"
)

// Views reads one store.
type Views struct {
	st   *storage.Store
	base *records.Base
}

// Of is the read models of st.
func Of(st *storage.Store) *Views { return &Views{st: st, base: st.Base()} }
