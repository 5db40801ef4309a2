package merge

import "fmt"

// Outcome says what a merge of one item asks of the sync engine.
type Outcome int

const (
	// Unchanged: local and remote agree (neither changed, or both made
	// the same change). Nothing to write on either side.
	Unchanged Outcome = iota
	// TakeRemote: only the remote changed (a fast-forward). Write the
	// merged item (the remote's) locally; nothing to push.
	TakeRemote
	// KeepLocal: only the local side changed. Push the merged item (the
	// local one); nothing to write locally.
	KeepLocal
	// Merged: both changed, with no conflict. Write the merged item
	// locally and push it.
	Merged
	// Conflicted: both changed the same thing differently, or a rule of
	// the structural cases applied (see Merge). The conflicts say what;
	// WriteLocal and Push say where the merged item goes.
	Conflicted
)

func (o Outcome) String() string {
	switch o {
	case Unchanged:
		return "unchanged"
	case TakeRemote:
		return "take_remote"
	case KeepLocal:
		return "keep_local"
	case Merged:
		return "merged"
	case Conflicted:
		return "conflicted"
	}
	return fmt.Sprintf("Outcome(%d)", int(o))
}

// What a conflict is about.
const (
	WhatTitle      = "title"
	WhatContent    = "content"
	WhatField      = "field" // Conflict.Key names the field
	WhatParent     = "parent"
	WhatCollection = "collection"
	WhatPinned     = "pinned"
	WhatArchived   = "archived" // one side archived, the other edited
	WhatDeleted    = "deleted"  // one side deleted, the other edited
)

// missing is the type of Missing.
type missing struct{}

// Missing stands in a field conflict for a side that has no value for the
// key (it never had one, or removed it).
var Missing any = missing{}

// Conflict is one thing both sides changed differently, with its three
// values, so that padd can keep the local one as a version of the item and
// as a conflict record. The merged item holds the remote's value, except
// for WhatArchived and WhatDeleted, where the item stays alive with the
// edit (see Merge).
//
// Values by What: strings for title, content, parent and collection; bool
// for pinned; the field's value or Missing for a field; for archived and
// deleted, whether each side is archived (or deleted).
type Conflict struct {
	What   string
	Key    string // the field's key when What is WhatField
	Base   any
	Local  any
	Remote any
	// Hunks are the regions of the content both sides changed
	// differently (What is WhatContent).
	Hunks []Hunk
}

// Result is the merge of one item.
type Result struct {
	Outcome Outcome
	// Merged is the item both sides should hold, or nil when it is
	// deleted. Its Fields map and Tags slice are its own; the field
	// values in the map are the inputs'.
	Merged    *Item
	Conflicts []Conflict
	// WriteLocal: Merged differs from the local item.
	WriteLocal bool
	// Push: Merged differs from the remote item.
	Push bool
}
