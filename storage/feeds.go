package storage

import (
	"bytes"
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

// boundLimit applies a page-size default (for n <= 0) and ceiling.
func boundLimit(n, def, ceiling int) int {
	if n <= 0 {
		return def
	}
	return min(n, ceiling)
}

// eachReverse visits the keys under prefix from the largest down,
// starting strictly below before (nil: from the largest key under
// prefix). fn returns false to stop. c is a cursor of one of b's
// buckets; the walk stops with b's read (check).
func (b *wsb) eachReverse(c *cursor, prefix, before []byte, fn func(k, v []byte) (bool, error)) error {
	if before == nil {
		before = prefixEnd(prefix)
	}
	var k, v []byte
	if before == nil {
		k, v = c.Last()
	} else if k, v = c.Seek(before); k == nil {
		k, v = c.Last()
	} else {
		k, v = c.Prev()
	}
	for ; k != nil && bytes.HasPrefix(k, prefix); k, v = c.Prev() {
		if err := b.check(); err != nil {
			return err
		}
		more, err := fn(k, v)
		if err != nil || !more {
			return err
		}
	}
	return nil
}

// prefixEnd is the smallest key greater than every key under prefix, or
// nil when there is none (an empty or all-0xff prefix).
func prefixEnd(prefix []byte) []byte {
	end := append([]byte(nil), prefix...)
	for i := len(end) - 1; i >= 0; i-- {
		if end[i] < 0xff {
			end[i]++
			return end[:i+1]
		}
	}
	return nil
}

// Head is the workspace's current seq: the last change-log position.
func (s *Store) Head(ws string) (int64, error) {
	var head int64
	err := s.read(ws, func(r *rtx) error { head = r.ws.counter(kSeq); return nil })
	return head, err
}

// GlobalHead is the journal's last position (all workspaces).
func (s *Store) GlobalHead() (int64, error) {
	var head int64
	err := s.view(func(tx *txn) error {
		head = int64(getU64(tx.Bucket(bMeta).Get(kGlobal)))
		return nil
	})
	return head, err
}

// ChangesSince returns the workspace's change log after afterSeq
// (exclusive), ascending, at most limit entries (default
// DefaultChangesLimit, capped at MaxChangesLimit), and the head seq read
// in the same transaction. The next page starts after the last entry.
func (s *Store) ChangesSince(ctx context.Context, ws string, afterSeq int64, limit int) ([]model.Change, int64, error) {
	limit = boundLimit(limit, DefaultChangesLimit, MaxChangesLimit)
	afterSeq = max(afterSeq, 0)
	var out []model.Change
	var head int64
	err := s.readCtx(ctx, ws, func(r *rtx) error {
		head = r.ws.counter(kSeq)
		if afterSeq >= head {
			return nil
		}
		out = make([]model.Change, 0, min(int64(limit), head-afterSeq))
		c := r.ws.changes().Cursor()
		for k, v := c.Seek(seqKey(afterSeq + 1)); k != nil && len(out) < limit; k, v = c.Next() {
			if err := r.ws.check(); err != nil {
				return err
			}
			ch, err := decodeChange(v)
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
func (s *Store) JournalSince(ctx context.Context, afterGlobal int64, limit int) ([]JournalEntry, int64, error) {
	limit = boundLimit(limit, DefaultChangesLimit, MaxChangesLimit)
	afterGlobal = max(afterGlobal, 0)
	var out []JournalEntry
	var head int64
	err := s.viewCtx(ctx, func(tx *txn, st *stopper) error {
		head = int64(getU64(tx.Bucket(bMeta).Get(kGlobal)))
		if afterGlobal >= head {
			return nil
		}
		out = make([]JournalEntry, 0, min(int64(limit), head-afterGlobal))
		// By raw id key: the lookup then costs no allocation per entry.
		spaces := map[string]*wsb{} // nil value: purged
		c := tx.Bucket(bJournal).Cursor()
		for k, v := c.Seek(u64(uint64(afterGlobal + 1))); k != nil && len(out) < limit; k, v = c.Next() {
			if err := st.check(); err != nil {
				return err
			}
			if len(v) != 24 {
				return errInternal("journal entry %d is malformed", getU64(k))
			}
			b, seen := spaces[string(v[:16])]
			if !seen {
				if tx.Bucket(bWS).Bucket(v[:16]) != nil {
					b = openWS(tx, idString(v[:16]))
				}
				spaces[string(v[:16])] = b
			}
			if b == nil {
				continue
			}
			raw := b.changes().Get(v[16:])
			if raw == nil {
				return errInternal("journal entry %d names change %d of workspace %s, which is missing", getU64(k), getU64(v[16:]), b.id)
			}
			ch, err := decodeChange(raw)
			if err != nil {
				return err
			}
			out = append(out, JournalEntry{Global: int64(getU64(k)), WorkspaceID: b.id, Seq: ch.Seq, Change: ch})
		}
		return nil
	})
	if err != nil {
		return nil, 0, err
	}
	return out, head, nil
}

// newestChangeTime is the time of the newest change still on file. Open
// seeds the store's clock with it so change-log times stay monotonic in
// seq across a restart with the wall clock stepped back: ChangesByTime
// binary-searches on them.
func newestChangeTime(tx *txn) time.Time {
	c := tx.Bucket(bJournal).Cursor()
	for k, v := c.Last(); k != nil; k, v = c.Prev() {
		if len(v) != 24 {
			continue
		}
		root := tx.Bucket(bWS).Bucket(v[:16])
		if root == nil {
			continue // purged
		}
		if raw := root.Bucket(bChanges).Get(v[16:]); raw != nil {
			if ch, err := decodeChange(raw); err == nil {
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

func skinny(b *wsb, it *model.Item, colls map[string]*model.Collection) (SkinnyItem, error) {
	it.Content = ""
	v, err := view(b, it, colls)
	if err != nil {
		return SkinnyItem{}, err
	}
	return SkinnyItem{ItemView: v, Unparented: isUnparented(b, it)}, nil
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
	b        *wsb
	items    map[string]*model.Item // loaded, by id; nil when missing
	deferred map[string]bool        // the entry at item.Seq names the item
	emitted  map[string]bool
}

func newItemWalk(b *wsb) *itemWalk {
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
		if k, ok := idKey(id); ok {
			var err error
			if it, err = getItem(w.b, k, false); err != nil {
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
		if raw := w.b.changes().Get(seqKey(it.Seq)); raw != nil {
			later, err := decodeChange(raw)
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
func (s *Store) ItemsChangedSince(ctx context.Context, ws string, afterSeq int64, limit int) (*ItemChanges, error) {
	limit = boundLimit(limit, DefaultItemChangesLimit, MaxItemChangesLimit)
	afterSeq = max(afterSeq, 0)
	out := &ItemChanges{Cursor: afterSeq}
	err := s.readCtx(ctx, ws, func(r *rtx) error {
		b := r.ws
		head := b.counter(kSeq)
		walk := newItemWalk(b)
		colls := map[string]*model.Collection{}
		c := b.changes().Cursor()
		k, v := c.Seek(seqKey(afterSeq + 1))
		for ; k != nil && len(out.Changes) < limit; k, v = c.Next() {
			if err := b.check(); err != nil {
				return err
			}
			ch, err := decodeChange(v)
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
func (s *Store) ItemsIndex(ctx context.Context, ws, collection string, includeArchived bool) (*ItemsIndexResult, error) {
	out := &ItemsIndexResult{Items: []SkinnyItem{}}
	err := s.readCtx(ctx, ws, func(r *rtx) error {
		b := r.ws
		out.Cursor = b.counter(kSeq)
		lives := []byte{lifeLive}
		if includeArchived {
			lives = append(lives, lifeArchived)
		}
		var prefixes [][]byte
		if collection != "" {
			c, err := findCollection(b, collection)
			if err != nil || c == nil {
				return err
			}
			for _, l := range lives {
				prefixes = append(prefixes, collPrefix(mustID(c.ID), l))
			}
		} else {
			for _, l := range lives {
				prefixes = append(prefixes, []byte{kindAll, l})
			}
		}
		colls := map[string]*model.Collection{}
		m := newMerged(b.index(), prefixes)
		for suffix, collID := m.next(); suffix != nil; suffix, collID = m.next() {
			if err := b.check(); err != nil {
				return err
			}
			c := colls[idString(collID)]
			if c == nil {
				var err error
				if c, err = getCollection(b, collID); err != nil {
					return err
				}
				if c == nil {
					return errInternal("index entry names a missing collection %s", idString(collID))
				}
				colls[c.ID] = c
			}
			if c.ArchivedAt != nil && !includeArchived {
				continue
			}
			it, err := getItem(b, suffix[9:], false)
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
func (s *Store) ChangesByTime(ctx context.Context, ws string, sinceUnixMs int64, cursor string, limit int) (*TimeChanges, error) {
	limit = boundLimit(limit, DefaultTimeChangesLimit, DefaultTimeChangesLimit)
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
	err := s.readCtx(ctx, ws, func(r *rtx) error {
		b := r.ws
		if cursor == "" {
			cur = timeCursor{ws: b.id, sinceMs: sinceUnixMs, bound: b.counter(kSeq)}
			// The newest change's time, not the wall clock: a write in
			// flight as this walk began is invisible to it but gets a later
			// time (writes take the clock in commit order), so a follower
			// that sends ServerTime as its next since cannot skip it.
			if raw := b.changes().Get(seqKey(cur.bound)); raw != nil {
				ch, err := decodeChange(raw)
				if err != nil {
					return err
				}
				cur.serverTime = ch.At.UnixMilli()
			}
			cur.pos = firstAtOrAfter(b.changes(), time.UnixMilli(sinceUnixMs).UTC().Truncate(time.Second), cur.bound) - 1
		} else if cur.ws != b.id {
			return model.BadRequest("cursor belongs to another workspace's walk").With("cursor", cursor)
		}
		out.ServerTime = cur.serverTime
		walk := newItemWalk(b)
		colls := map[string]*model.Collection{}
		c := b.changes().Cursor()
		for k, v := c.Seek(seqKey(cur.pos + 1)); k != nil && int64(getU64(k)) <= cur.bound; k, v = c.Next() {
			if err := b.check(); err != nil {
				return err
			}
			ch, err := decodeChange(v)
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
			it.Content = string(b.content().Get(mustID(it.ID)))
			iv, err := view(b, it, colls)
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

// firstAtOrAfter binary-searches the change log (times are
// non-decreasing in seq: the store's clock never goes back) for the
// first seq at or after t, or bound+1 when there is none.
func firstAtOrAfter(changes *bucket, t time.Time, bound int64) int64 {
	c := changes.Cursor()
	// reached reports whether the first entry at or after seq x is at or
	// after t; it is monotone in x.
	reached := func(x int64) bool {
		k, v := c.Seek(seqKey(x))
		if k == nil || int64(getU64(k)) > bound {
			return true
		}
		ch, err := decodeChange(v)
		return err != nil || !ch.At.Before(t)
	}
	lo, hi := int64(1), bound+1
	for lo < hi {
		mid := lo + (hi-lo)/2
		if reached(mid) {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return lo
}
