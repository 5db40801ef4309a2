package records

import (
	"context"
	"encoding/base64"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/padd/padd/model"
)

// The change-log readers. Every follower (the indexer, the sync engine,
// the doors' delta feeds, CLI caches) reads through these, so they share
// one cursor model: a workspace seq (or a journal position) with an
// exclusive lower bound, ascending.

// Change-log page sizes.
const (
	DefaultChangesLimit     = 1000
	MaxChangesLimit         = 10000
	DefaultItemChangesLimit = 5000  // Pad's /items-changes default
	MaxItemChangesLimit     = 50000 // and its ceiling
	DefaultTimeChangesLimit = 1000  // Pad's /changes default and cap
)

// Head is the workspace's current seq: the last change-log position.
func ReadHead(db *Base, ws string) (int64, error) {
	var head int64
	err := db.Read(ws, func(r *Rtx) error { head = r.WS.Counter(KSeq); return nil })
	return head, err
}

// GlobalHead is the journal's last position (all workspaces).
func ReadGlobalHead(db *Base) (int64, error) {
	var head int64
	err := db.View(func(tx *Txn) error {
		head = int64(GetU64(tx.Bucket(BMeta).Get(KGlobal)))
		return nil
	})
	return head, err
}

// ChangesSince returns the workspace's change log after afterSeq
// (exclusive), ascending, at most limit entries (default
// DefaultChangesLimit, capped at MaxChangesLimit), and the head seq read
// in the same transaction. The next page starts after the last entry.
func ChangesSince(ctx context.Context, db *Base, ws string, afterSeq int64, limit int) ([]model.Change, int64, error) {
	limit = BoundLimit(limit, DefaultChangesLimit, MaxChangesLimit)
	afterSeq = max(afterSeq, 0)
	var out []model.Change
	var head int64
	err := db.ReadCtx(ctx, ws, func(r *Rtx) error {
		head = r.WS.Counter(KSeq)
		if afterSeq >= head {
			return nil
		}
		out = make([]model.Change, 0, min(int64(limit), head-afterSeq))
		c := r.WS.Changes().Cursor()
		for k, v := c.Seek(SeqKey(afterSeq + 1)); k != nil && len(out) < limit; k, v = c.Next() {
			if err := r.WS.Check(); err != nil {
				return err
			}
			ch, err := DecodeChange(v)
			if err != nil {
				return err
			}
			out = append(out, ch)
		}
		return nil
	})
	if err != nil {
		return nil, 0, err
	}
	return out, head, nil
}

// JournalEntry is one position of the all-workspaces journal.
type JournalEntry struct {
	Global      int64
	WorkspaceID string
	Seq         int64
	Change      model.Change
}

// JournalSince returns journal entries after afterGlobal (exclusive),
// ascending, at most limit, and the journal head. Entries of purged
// workspaces are skipped, and the walk goes on past them until the page
// is full, so an empty page always means the follower has caught up: it
// may move its cursor to head.
func JournalSince(ctx context.Context, db *Base, afterGlobal int64, limit int) ([]JournalEntry, int64, error) {
	limit = BoundLimit(limit, DefaultChangesLimit, MaxChangesLimit)
	afterGlobal = max(afterGlobal, 0)
	var out []JournalEntry
	var head int64
	err := db.ViewCtx(ctx, func(tx *Txn, st *Stopper) error {
		head = int64(GetU64(tx.Bucket(BMeta).Get(KGlobal)))
		if afterGlobal >= head {
			return nil
		}
		out = make([]JournalEntry, 0, min(int64(limit), head-afterGlobal))
		// By raw id key: the lookup then costs no allocation per entry.
		spaces := map[string]*Wsb{} // nil value: purged
		c := tx.Bucket(BJournal).Cursor()
		for k, v := c.Seek(U64(uint64(afterGlobal + 1))); k != nil && len(out) < limit; k, v = c.Next() {
			if err := st.Check(); err != nil {
				return err
			}
			if len(v) != 24 {
				return ErrInternal("journal entry %d is malformed", GetU64(k))
			}
			b, seen := spaces[string(v[:16])]
			if !seen {
				if tx.Bucket(BWS).Bucket(v[:16]) != nil {
					b = OpenWS(tx, IDString(v[:16]))
				}
				spaces[string(v[:16])] = b
			}
			if b == nil {
				continue
			}
			raw := b.Changes().Get(v[16:])
			if raw == nil {
				return ErrInternal("journal entry %d names change %d of workspace %s, which is missing", GetU64(k), GetU64(v[16:]), b.ID)
			}
			ch, err := DecodeChange(raw)
			if err != nil {
				return err
			}
			out = append(out, JournalEntry{Global: int64(GetU64(k)), WorkspaceID: b.ID, Seq: ch.Seq, Change: ch})
		}
		return nil
	})
	if err != nil {
		return nil, 0, err
	}
	return out, head, nil
}

// NewestChangeTime is the time of the newest change still on file. Open
// seeds the store's clock with it so change-log times stay monotonic in
// seq across a restart with the wall clock stepped back: ChangesByTime
// binary-searches on them.
func NewestChangeTime(tx *Txn) time.Time {
	c := tx.Bucket(BJournal).Cursor()
	for k, v := c.Last(); k != nil; k, v = c.Prev() {
		if len(v) != 24 {
			continue
		}
		root := tx.Bucket(BWS).Bucket(v[:16])
		if root == nil {
			continue // purged
		}
		if raw := root.Bucket(BChanges).Get(v[16:]); raw != nil {
			if ch, err := DecodeChange(raw); err == nil {
				return ch.At
			}
		}
	}
	return time.Time{}
}

// SkinnyItem is an item as the sync feeds send it: without its body,
// plus the structural unparented bit Pad projects there.
type SkinnyItem struct {
	*ItemView
	Unparented bool
}

func skinny(b *Wsb, it *model.Item, colls map[string]*model.Collection) (SkinnyItem, error) {
	it.Content = ""
	v, err := View(b, it, colls)
	if err != nil {
		return SkinnyItem{}, err
	}
	return SkinnyItem{ItemView: v, Unparented: IsUnparented(b, it)}, nil
}

// ItemChange is one row of Pad's /items-changes: the item as it stands
// now, and whether it is archived (a tombstone for the follower).
type ItemChange struct {
	SkinnyItem
	Deleted bool
}

// ItemChanges is one /items-changes page.
type ItemChanges struct {
	Changes []ItemChange
	// Cursor is the next afterSeq: the largest seq in the page, or the
	// head when the walk reached it (the entries after the last row are
	// then all stale or not item changes), else afterSeq.
	Cursor int64
}

// itemWalk follows the change log and yields each changed item once, at
// its latest change (the entry at item.Seq), so rows come in seq order
// and a follower re-reading from any cursor misses nothing.
type itemWalk struct {
	b        *Wsb
	items    map[string]*model.Item // loaded, by id; nil when missing
	deferred map[string]bool        // the entry at item.Seq names the item
	emitted  map[string]bool
}

func newItemWalk(b *Wsb) *itemWalk {
	return &itemWalk{b: b, items: map[string]*model.Item{}, deferred: map[string]bool{}, emitted: map[string]bool{}}
}

// at reports the item an entry yields, or nil.
func (w *itemWalk) at(ch *model.Change) (*model.Item, error) {
	id := ch.ItemID
	if ch.Entity == model.EntityItem {
		id = ch.ID
	}
	if id == "" || w.emitted[id] {
		return nil, nil
	}
	it, loaded := w.items[id]
	if !loaded {
		if k, ok := IDKey(id); ok {
			var err error
			if it, err = GetItem(w.b, k, false); err != nil {
				return nil, err
			}
		}
		w.items[id] = it
	}
	switch {
	case it == nil:
		return nil, nil
	case it.Seq == ch.Seq:
		return it, nil
	case ch.Entity != model.EntityItem:
		return nil, nil // a comment or link: the item itself did not change
	case it.Seq < ch.Seq:
		return it, nil
	}
	// Changed again later. That entry yields it, unless a mutation
	// rewrote the item under another entity's entry (which names no
	// item): then this, its last own entry, must.
	d, known := w.deferred[id]
	if !known {
		if raw := w.b.Changes().Get(SeqKey(it.Seq)); raw != nil {
			later, err := DecodeChange(raw)
			if err != nil {
				return nil, err
			}
			d = later.ItemID == id || later.Entity == model.EntityItem && later.ID == id
		}
		w.deferred[id] = d
	}
	if d {
		return nil, nil
	}
	return it, nil
}

// ItemsChangedSince answers Pad's /items-changes: items whose latest
// change is after afterSeq, ascending by seq, each once, without bodies,
// archived ones included with Deleted set. limit defaults to 5000 and is
// capped at 50000.
func ItemsChangedSince(ctx context.Context, db *Base, ws string, afterSeq int64, limit int) (*ItemChanges, error) {
	limit = BoundLimit(limit, DefaultItemChangesLimit, MaxItemChangesLimit)
	afterSeq = max(afterSeq, 0)
	out := &ItemChanges{Cursor: afterSeq}
	err := db.ReadCtx(ctx, ws, func(r *Rtx) error {
		b := r.WS
		head := b.Counter(KSeq)
		walk := newItemWalk(b)
		colls := map[string]*model.Collection{}
		c := b.Changes().Cursor()
		k, v := c.Seek(SeqKey(afterSeq + 1))
		for ; k != nil && len(out.Changes) < limit; k, v = c.Next() {
			if err := b.Check(); err != nil {
				return err
			}
			ch, err := DecodeChange(v)
			if err != nil {
				return err
			}
			it, err := walk.at(&ch)
			if err != nil {
				return err
			}
			if it == nil {
				continue
			}
			walk.emitted[it.ID] = true
			row, err := skinny(b, it, colls)
			if err != nil {
				return err
			}
			out.Changes = append(out.Changes, ItemChange{SkinnyItem: row, Deleted: it.DeletedAt != nil})
			out.Cursor = ch.Seq
		}
		if k == nil {
			out.Cursor = max(out.Cursor, head)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// ItemsIndexResult is Pad's /items-index: every item of the workspace
// (or of one collection) without bodies, most recently updated first,
// and the cursor to follow with ItemsChangedSince.
type ItemsIndexResult struct {
	Items []SkinnyItem
	// Cursor is the head seq read in the same transaction as the list,
	// so ItemsChangedSince(Cursor) continues with no gap.
	Cursor int64
}

// ItemsIndex lists the workspace's items for a follower's bootstrap.
// An unknown collection gives an empty list, as Pad's does. Items of
// archived collections count as archived.
func ItemsIndex(ctx context.Context, db *Base, ws, collection string, includeArchived bool) (*ItemsIndexResult, error) {
	out := &ItemsIndexResult{Items: []SkinnyItem{}}
	err := db.ReadCtx(ctx, ws, func(r *Rtx) error {
		b := r.WS
		out.Cursor = b.Counter(KSeq)
		lives := []byte{LifeLive}
		if includeArchived {
			lives = append(lives, LifeArchived)
		}
		var prefixes [][]byte
		if collection != "" {
			c, err := FindCollection(b, collection)
			if err != nil || c == nil {
				return err
			}
			for _, l := range lives {
				prefixes = append(prefixes, CollPrefix(MustID(c.ID), l))
			}
		} else {
			for _, l := range lives {
				prefixes = append(prefixes, []byte{KindAll, l})
			}
		}
		colls := map[string]*model.Collection{}
		m := NewMerged(b.Index(), prefixes)
		for suffix, collID := m.Next(); suffix != nil; suffix, collID = m.Next() {
			if err := b.Check(); err != nil {
				return err
			}
			c := colls[IDString(collID)]
			if c == nil {
				var err error
				if c, err = GetCollection(b, collID); err != nil {
					return err
				}
				if c == nil {
					return ErrInternal("index entry names a missing collection %s", IDString(collID))
				}
				colls[c.ID] = c
			}
			if c.ArchivedAt != nil && !includeArchived {
				continue
			}
			it, err := GetItem(b, suffix[9:], false)
			if err != nil {
				return err
			}
			row, err := skinny(b, it, colls)
			if err != nil {
				return err
			}
			out.Items = append(out.Items, row)
		}
		// Pad's order ignores pinning: updated_at descending, then id.
		sort.SliceStable(out.Items, func(i, j int) bool {
			a, b := out.Items[i], out.Items[j]
			if !a.UpdatedAt.Equal(b.UpdatedAt) {
				return a.UpdatedAt.After(b.UpdatedAt)
			}
			return a.ID < b.ID
		})
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// TimeChanges is one page of Pad's /changes.
type TimeChanges struct {
	// Items are the items updated at or after since, with bodies,
	// archived ones included (with DeletedAt).
	Items []*ItemView
	// Deleted are the ids of the archived ones among Items.
	Deleted []string
	// ServerTime (unix ms) is the same on every page of one walk; it is
	// a safe next since only once HasMore is false.
	ServerTime int64
	HasMore    bool
	NextCursor string
}

// timeCursor is a /changes walk position. It carries the walk's since,
// server time and upper bound so later pages answer the same question.
type timeCursor struct {
	ws         string
	sinceMs    int64
	serverTime int64
	pos        int64 // the last seq the previous page consumed
	bound      int64 // the head when the walk began
}

func (c timeCursor) String() string {
	raw := fmt.Sprintf("t1|%s|%d|%d|%d|%d", c.ws, c.sinceMs, c.serverTime, c.pos, c.bound)
	return base64.RawURLEncoding.EncodeToString([]byte(raw))
}

func parseTimeCursor(s string) (timeCursor, error) {
	bad := model.BadRequest("cursor is not one this server issued: start the walk again from since").With("cursor", s)
	raw, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return timeCursor{}, bad
	}
	parts := strings.Split(string(raw), "|")
	if len(parts) != 6 || parts[0] != "t1" {
		return timeCursor{}, bad
	}
	var n [4]int64
	for i := range n {
		if n[i], err = strconv.ParseInt(parts[i+2], 10, 64); err != nil || n[i] < 0 {
			return timeCursor{}, bad
		}
	}
	return timeCursor{ws: parts[1], sinceMs: n[0], serverTime: n[1], pos: n[2], bound: n[3]}, nil
}

// ChangesByTime answers Pad's /changes: items updated at or after
// sinceUnixMs (truncated to whole seconds, inclusive), with full bodies,
// archived ones included and their ids in Deleted. A walk's first page
// names since (>= 0); later pages pass NextCursor, with sinceUnixMs < 0
// or equal to the walk's. limit defaults to and is capped at 1000.
//
// Pages are positions in write order (seq): an item changed during a
// walk may appear twice. The walk stops at the head it began with;
// changes after that have times at or after ServerTime and arrive in the
// next walk.
func ChangesByTime(ctx context.Context, db *Base, ws string, sinceUnixMs int64, cursor string, limit int) (*TimeChanges, error) {
	limit = BoundLimit(limit, DefaultTimeChangesLimit, DefaultTimeChangesLimit)
	var cur timeCursor
	if cursor != "" {
		var err error
		if cur, err = parseTimeCursor(cursor); err != nil {
			return nil, err
		}
		if sinceUnixMs >= 0 && sinceUnixMs != cur.sinceMs {
			return nil, model.BadRequest("since %d does not match the cursor's walk (since %d): send the cursor alone or with its own since", sinceUnixMs, cur.sinceMs).With("since", sinceUnixMs)
		}
	} else if sinceUnixMs < 0 {
		return nil, model.BadRequest("since must be a valid unix timestamp in milliseconds")
	}
	out := &TimeChanges{Items: []*ItemView{}, Deleted: []string{}}
	err := db.ReadCtx(ctx, ws, func(r *Rtx) error {
		b := r.WS
		if cursor == "" {
			cur = timeCursor{ws: b.ID, sinceMs: sinceUnixMs, bound: b.Counter(KSeq)}
			// The newest change's time, not the wall clock: a write in
			// flight as this walk began is invisible to it but gets a later
			// time (writes take the clock in commit order), so a follower
			// that sends ServerTime as its next since cannot skip it.
			if raw := b.Changes().Get(SeqKey(cur.bound)); raw != nil {
				ch, err := DecodeChange(raw)
				if err != nil {
					return err
				}
				cur.serverTime = ch.At.UnixMilli()
			}
			cur.pos = FirstAtOrAfter(b.Changes(), time.UnixMilli(sinceUnixMs).UTC().Truncate(time.Second), cur.bound) - 1
		} else if cur.ws != b.ID {
			return model.BadRequest("cursor belongs to another workspace's walk").With("cursor", cursor)
		}
		out.ServerTime = cur.serverTime
		walk := newItemWalk(b)
		colls := map[string]*model.Collection{}
		c := b.Changes().Cursor()
		for k, v := c.Seek(SeqKey(cur.pos + 1)); k != nil && int64(GetU64(k)) <= cur.bound; k, v = c.Next() {
			if err := b.Check(); err != nil {
				return err
			}
			ch, err := DecodeChange(v)
			if err != nil {
				return err
			}
			it, err := walk.at(&ch)
			if err != nil {
				return err
			}
			if it == nil {
				continue
			}
			if len(out.Items) == limit {
				out.HasMore = true // found one more: stop before it
				break
			}
			walk.emitted[it.ID] = true
			it.Content = string(b.Content().Get(MustID(it.ID)))
			iv, err := View(b, it, colls)
			if err != nil {
				return err
			}
			out.Items = append(out.Items, iv)
			if it.DeletedAt != nil {
				out.Deleted = append(out.Deleted, it.ID)
			}
			cur.pos = ch.Seq
		}
		if out.HasMore {
			out.NextCursor = cur.String()
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
