// Package views holds padd's reads over the store: the entity reads (an
// item, items and lists, comments, links and deps, collections,
// workspaces, roles, playbooks, reminders, stars, watches), the
// change-log feeds the event stream, sync, the mirrors and the search
// index follow, and the read models: the project views (dashboard, next,
// report, stale, standup, catch-up, changelog), an item's context,
// backlinks and children, the activity and audit feeds, the version
// history's reads, tags, the session bootstrap, and the reads the
// daemon's doors answer (a comment, a star, a change's description).
// They read the records storage writes (storage/internal/records) in one
// read transaction each, and write nothing. Whoever holds the store makes
// its Views once (Of) and keeps it.
package views

import (
	"github.com/padd/padd/storage"
	"github.com/padd/padd/storage/internal/records"
)

// Views reads one store.
type Views struct {
	base *records.Base
}

// Of is the read models of st.
func Of(st *storage.Store) *Views { return &Views{base: st.Base()} }
