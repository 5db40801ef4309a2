package records

import (
	"encoding/json"
	"slices"
	"time"

	"github.com/padd/padd/model"
)

// Sync conflicts and set-aside entries. A conflict is a part of an item
// both sides changed differently since the base: the remote's value won in
// the item, the local one is kept as a version of the item and here. A
// set-aside entry is a change the other side refused (or that failed
// padd's validation), with the reason, kept so the rest can flow.

// SyncEntryKind says whether an entry is a conflict or a set-aside change.
type SyncEntryKind string

const (
	EntryConflict SyncEntryKind = "conflict"
	EntrySetAside SyncEntryKind = "set_aside"
)

// ConflictState is where a conflict or set-aside entry stands.
type ConflictState string

const (
	ConflictOpen       ConflictState = "open"
	ResolvedKeepLocal  ConflictState = "keep_local"
	ResolvedKeepRemote ConflictState = "keep_remote"
	ResolvedMerged     ConflictState = "merged"
)

func (s ConflictState) resolution() bool {
	return s == ResolvedKeepLocal || s == ResolvedKeepRemote || s == ResolvedMerged
}

// MaxConflictValue bounds each of a conflict's base, local and remote
// values: a longer value is cut and marked Truncated (the local value in
// full is the version LocalVersionSeq names; the remote's is the item's).
const MaxConflictValue = 256 << 10

// SyncConflict is one conflict or set-aside entry.
type SyncConflict struct {
	ID     int64         `json:"id"`
	Kind   SyncEntryKind `json:"kind"`
	ItemID string        `json:"item_id,omitempty"`
	// Part is what conflicted: title, content, tags, parent, collection,
	// archived, deleted, or "fields.<key>".
	Part   string          `json:"part,omitempty"`
	Base   json.RawMessage `json:"base,omitempty"`
	Local  json.RawMessage `json:"local,omitempty"`
	Remote json.RawMessage `json:"remote,omitempty"`
	// Truncated names the values cut at MaxConflictValue.
	Truncated []string `json:"truncated,omitempty"`
	// LocalVersionSeq is the item version that keeps the local value.
	LocalVersionSeq int64 `json:"local_version_seq,omitempty"`
	// OutboxSeq and Reason say which change was set aside and why.
	OutboxSeq  int64         `json:"outbox_seq,omitempty"`
	Reason     string        `json:"reason,omitempty"`
	At         time.Time     `json:"at"`
	State      ConflictState `json:"state"`
	ResolvedAt time.Time     `json:"resolved_at,omitzero"`
}

var kConflictSeq = []byte("conflict_seq")

// AddConflict stores a new entry, open, and returns its id.
func AddConflict(b *Wsb, c SyncConflict, now time.Time) (int64, error) {
	if !Linked(b) {
		return 0, model.Conflict("workspace is not linked to a remote")
	}
	switch c.Kind {
	case EntryConflict:
		if _, ok := IDKey(c.ItemID); !ok || c.Part == "" {
			return 0, model.Invalid("a conflict names its item and part")
		}
	case EntrySetAside:
		if c.Reason == "" {
			return 0, model.Invalid("a set-aside entry says why")
		}
	default:
		return 0, model.Invalid("unknown sync entry kind %q", c.Kind)
	}
	for _, v := range []struct {
		name string
		val  *json.RawMessage
	}{{"base", &c.Base}, {"local", &c.Local}, {"remote", &c.Remote}} {
		if len(*v.val) > MaxConflictValue {
			cut, _ := json.Marshal(string((*v.val)[:MaxConflictValue]))
			*v.val = cut
			c.Truncated = append(c.Truncated, v.name)
		} else if len(*v.val) > 0 && !json.Valid(*v.val) {
			return 0, model.Invalid("the conflict's %s value is not JSON", v.name)
		}
	}
	sb := b.Sync()
	if c.Kind == EntrySetAside {
		if id := openSetAside(b, c); id != 0 {
			return id, nil
		}
	}
	id := int64(GetU64(sb.Get(kConflictSeq))) + 1
	c.ID, c.State, c.At, c.ResolvedAt = id, ConflictOpen, Tstamp(now), time.Time{}
	raw, err := Encode(c)
	if err != nil {
		return 0, err
	}
	return id, FirstErr(sb.Put(kConflictSeq, U64(uint64(id))), b.SyncConfl().Put(U64(uint64(id)), raw))
}

// setAsideLookback bounds how many of the newest entries openSetAside
// reads.
const setAsideLookback = 512

// openSetAside finds an open set-aside entry that says what c says (the
// same change refused again, at the next cycle): the engine records one
// refusal once, not once a cycle.
func openSetAside(b *Wsb, c SyncConflict) int64 {
	cur := b.SyncConfl().Cursor()
	n := 0
	for k, v := cur.Last(); k != nil && n < setAsideLookback; k, v = cur.Prev() {
		n++
		var e SyncConflict
		if Decode(v, &e) != nil {
			continue // an unreadable entry is no match (syncstate's SyncConflicts reports it)
		}
		if e.State == ConflictOpen && e.Kind == EntrySetAside && e.ItemID == c.ItemID && e.OutboxSeq == c.OutboxSeq &&
			e.Reason == c.Reason {
			return e.ID
		}
	}
	return 0
}

// HeldSetAside records the set-aside entries of a part of an item that
// padd held past its limits in the remote's version before and holds
// still or no more, one reason a value (none: the part is within the
// limits now). A reason already recorded, open or settled keeping the
// remote's (the user saw it: the same value again is no news), is not
// recorded again; the open entries of the part with another reason (a
// value the remote no longer has) are settled keeping the remote's. It
// reads every entry, so the engine calls it only for a part that was
// held.
func HeldSetAside(b *Wsb, itemID, part string, reasons []string, now time.Time) error {
	var settle []int64
	seen := map[string]bool{}
	err := b.SyncConfl().ForEach(func(_, raw []byte) error {
		var e SyncConflict
		if Decode(raw, &e) != nil || e.Kind != EntrySetAside || e.ItemID != itemID || e.Part != part {
			return nil // an unreadable entry is no match (syncstate's SyncConflicts reports it)
		}
		switch {
		case slices.Contains(reasons, e.Reason) && (e.State == ConflictOpen || e.State == ResolvedKeepRemote):
			seen[e.Reason] = true
		case e.State == ConflictOpen:
			settle = append(settle, e.ID)
		}
		return nil
	})
	for _, id := range settle {
		if err != nil {
			break
		}
		_, err = ResolveConflict(b, id, ResolvedKeepRemote, now)
	}
	for _, r := range reasons {
		if err != nil {
			break
		}
		if !seen[r] {
			seen[r] = true
			_, err = AddConflict(b, SyncConflict{Kind: EntrySetAside, ItemID: itemID, Part: part, Reason: r}, now)
		}
	}
	return err
}

func GetConflict(b *Wsb, id int64) (*SyncConflict, error) {
	raw := b.SyncConfl().Get(U64(uint64(id)))
	if raw == nil {
		return nil, model.NotFound("sync conflict %d not found", id)
	}
	var c SyncConflict
	if err := Decode(raw, &c); err != nil {
		return nil, model.Errorf(model.CodeStoredStateUnreadable, "stored sync conflict %d is unreadable: %v", id, err)
	}
	return &c, nil
}

// ResolveConflict settles an open entry. Settling one already settled the
// same way is a no-op; another way is refused.
func ResolveConflict(b *Wsb, id int64, how ConflictState, now time.Time) (*SyncConflict, error) {
	if !how.resolution() {
		return nil, model.Invalid("resolve with keep_local, keep_remote or merged, not %q", how)
	}
	c, err := GetConflict(b, id)
	if err != nil {
		return nil, err
	}
	if c.State == how {
		return c, nil
	}
	if c.State != ConflictOpen {
		return nil, model.Conflict("sync conflict %d is already resolved (%s)", id, c.State)
	}
	c.State, c.ResolvedAt = how, Tstamp(now)
	raw, err := Encode(c)
	if err != nil {
		return nil, err
	}
	return c, b.SyncConfl().Put(U64(uint64(id)), raw)
}
