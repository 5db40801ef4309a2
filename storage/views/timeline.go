package views

import (
	"bytes"
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/padd/padd/model"
	"github.com/padd/padd/storage/internal/records"
)

// An item's timeline (Pad's GET .../items/{ref}/timeline): its comments,
// activity, versions, implementation notes and decision-log entries in
// one stream, newest first, paged by a (created_at, id) cursor.

// Timeline page sizes: Pad's default and cap.
const (
	DefaultTimelineLimit = 50
	MaxTimelineLimit     = 200
)

// Timeline entry kinds, as Pad names them.
const (
	TimelineComment  = "comment"
	TimelineActivity = "activity"
	TimelineVersion  = "version"
	TimelineNote     = "note"
	TimelineDecision = "decision"
)

// TimelineQuery is one page's request. Before zero is the first page;
// BeforeID "" with a Before keeps every entry at that second (Pad's
// meaning of a cursor sent without its id).
type TimelineQuery struct {
	Before   time.Time
	BeforeID string
	Limit    int
}

// TimelineEntry is one entry: exactly one of the kind's payloads is set.
// CreatedAt is at whole seconds, the space Pad's cursor compares in.
type TimelineEntry struct {
	ID        string
	Kind      string
	CreatedAt time.Time
	Actor     model.Actor
	Comment   *model.Comment
	// Replies are the comment's replies read on the same page, oldest
	// first; a reply whose parent is on another page is an entry itself.
	Replies  []model.Comment
	Activity *ActivityView
	Version  *model.Version
	// Entry is a note's or decision's stored object, as the item holds it.
	Entry map[string]any
}

// TimelinePage is one page, newest first.
type TimelinePage struct {
	Entries []TimelineEntry
	HasMore bool
}

// timelineCursor is Pad's keep predicate: strictly older than the
// cursor's second, or at that second with a lower id.
type timelineCursor struct {
	before   time.Time
	beforeID string
	sameSec  bool // a cursor without an id keeps its whole second
}

func (c timelineCursor) keep(at time.Time, id string) bool {
	at = at.Truncate(time.Second)
	if at.Before(c.before) {
		return true
	}
	if !at.Equal(c.before) {
		return false
	}
	return c.sameSec || c.beforeID != "" && id < c.beforeID
}

// Timeline reads one page of an item's timeline (archived items too).
// Each source is read newest first up to three times the page (Pad's
// over-fetch, for the entries the merge drops), so a page costs the
// item's comments (read whole, as its comment list is) plus at most the
// activity and versions of this item newer than the cursor and 3×limit
// more: never more than the one item's own history.
func (s *Views) Timeline(ctx context.Context, ws, itemRef string, q TimelineQuery) (*TimelinePage, error) {
	limit := records.BoundLimit(q.Limit, DefaultTimelineLimit, MaxTimelineLimit)
	per := 3 * limit
	cur := timelineCursor{before: time.Now().UTC().Add(time.Minute).Truncate(time.Second)}
	if !q.Before.IsZero() {
		cur.before = q.Before.UTC().Truncate(time.Second)
		cur.beforeID = q.BeforeID
		cur.sameSec = q.BeforeID == ""
	}
	out := &TimelinePage{Entries: []TimelineEntry{}}
	err := s.base.ReadCtx(ctx, ws, func(r *records.Rtx) error {
		b := r.WS
		it, err := records.ItemByRef(b, itemRef, false)
		if err != nil {
			return err
		}
		key := records.MustID(it.ID)
		comments, cFull, err := timelineComments(b, key, cur, per)
		if err != nil {
			return err
		}
		acts, aFull, err := timelineActivity(b, key, cur, per)
		if err != nil {
			return err
		}
		vers, vFull, err := timelineVersions(b, key, cur, per)
		if err != nil {
			return err
		}
		en := newEnricher(b)
		entries, err := mergeTimeline(en, comments, acts, vers)
		if err != nil {
			return err
		}
		entries = append(entries, structuredEntries(it, cur)...)
		sort.SliceStable(entries, func(i, j int) bool {
			a, b := entries[i], entries[j]
			if !a.CreatedAt.Equal(b.CreatedAt) {
				return a.CreatedAt.After(b.CreatedAt)
			}
			return a.ID > b.ID
		})
		if len(entries) > limit {
			entries, out.HasMore = entries[:limit], true
		} else {
			out.HasMore = cFull || aFull || vFull
		}
		out.Entries = append(out.Entries, entries...)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// timelineComments is the item's comments the cursor keeps, the newest
// per of them. Comment keys are ids, which are time-ordered only for the
// ones padd made (a synced comment keeps Pad's id), so all are read and
// sorted; full says per were kept and more may follow.
func timelineComments(b *records.Wsb, key []byte, cur timelineCursor, per int) (list []model.Comment, full bool, err error) {
	c := b.Comments().Cursor()
	for k, v := c.Seek(key); k != nil && bytes.HasPrefix(k, key); k, v = c.Next() {
		var cm model.Comment
		if err := records.Decode(v, &cm); err != nil {
			return nil, false, model.Errorf(model.CodeStoredStateUnreadable, "stored comment %s is unreadable: %v", records.IDString(k[16:]), err)
		}
		if cur.keep(cm.CreatedAt, cm.ID) {
			list = append(list, cm)
		}
	}
	sort.SliceStable(list, func(i, j int) bool { return newer(list[i].CreatedAt, list[i].ID, list[j].CreatedAt, list[j].ID) })
	if len(list) >= per {
		list, full = list[:per], true
	}
	return list, full, nil
}

// newer orders (created_at, id) pairs newest first at whole seconds.
func newer(at time.Time, id string, bt time.Time, bid string) bool {
	at, bt = at.Truncate(time.Second), bt.Truncate(time.Second)
	if !at.Equal(bt) {
		return at.After(bt)
	}
	return id > bid
}

// walkNewest walks an item's rows newest first (by their key, which for
// activity and versions follows time) and keeps the ones the cursor
// keeps until per are kept and the second has moved on, so the entries
// of the last second kept are all read. full says a row was left.
func walkNewest[T any](b *records.Wsb, c *records.Cursor, key []byte, per int, decode func(k, v []byte) (T, time.Time, string, error),
	cur timelineCursor) (list []T, full bool, err error) {
	var last time.Time
	err = b.EachReverse(c, key, nil, func(k, v []byte) (bool, error) {
		x, at, id, err := decode(k, v)
		if err != nil {
			return false, err
		}
		if !cur.keep(at, id) {
			return true, nil
		}
		at = at.Truncate(time.Second)
		if len(list) >= per && !at.Equal(last) {
			full = true
			return false, nil
		}
		list, last = append(list, x), at
		return true, nil
	})
	return list, full, err
}

func timelineActivity(b *records.Wsb, key []byte, cur timelineCursor, per int) ([]model.Activity, bool, error) {
	return walkNewest(b, b.ActItem().Cursor(), key, per, func(k, _ []byte) (model.Activity, time.Time, string, error) {
		raw := b.Activity().Get(k[16:])
		if raw == nil {
			return model.Activity{}, time.Time{}, "", records.ErrInternal("activity index names a missing entry %d", records.GetU64(k[16:]))
		}
		a, err := records.DecodeActivity(b, raw)
		return a, a.CreatedAt, a.ID, err
	}, cur)
}

func timelineVersions(b *records.Wsb, key []byte, cur timelineCursor, per int) ([]model.Version, bool, error) {
	return walkNewest(b, b.Versions().Cursor(), key, per, func(k, v []byte) (model.Version, time.Time, string, error) {
		ver, err := records.DecodeVersion(b, k, v)
		if err != nil {
			return model.Version{}, time.Time{}, "", err
		}
		return *ver, ver.CreatedAt, ver.ID, nil
	}, cur)
}

// mergeTimeline makes entries of the three stored sources with Pad's
// rules: a reply goes under its parent when the parent is on the page; a
// comment's own "commented" activity, reads and searches, empty updates
// and an update at a version's second are left out (the version or the
// comment says it).
func mergeTimeline(en *enricher, comments []model.Comment, acts []model.Activity, vers []model.Version) ([]TimelineEntry, error) {
	var out []TimelineEntry
	onPage := map[string]int{} // comment id -> its entry's index
	commentIDs := map[string]bool{}
	for _, c := range comments {
		commentIDs[c.ID] = true
	}
	// Oldest first, so a parent's entry exists before its replies and
	// replies read oldest first under it.
	for i := len(comments) - 1; i >= 0; i-- {
		c := comments[i]
		if j, ok := onPage[c.ParentID]; ok && c.ParentID != "" {
			out[j].Replies = append(out[j].Replies, c)
			continue
		}
		onPage[c.ID] = len(out)
		out = append(out, TimelineEntry{ID: c.ID, Kind: TimelineComment, CreatedAt: c.CreatedAt.Truncate(time.Second),
			Actor: c.Author, Comment: &comments[i]})
	}
	verSecs := map[int64]bool{}
	for _, v := range vers {
		verSecs[v.CreatedAt.Unix()] = true
	}
	for _, a := range acts {
		switch a.Action {
		case "read", "searched":
			continue
		case "commented":
			if id, _ := a.Metadata["comment_id"].(string); commentIDs[id] {
				continue
			}
		case "updated":
			if verSecs[a.CreatedAt.Unix()] || len(a.Metadata) == 0 {
				continue
			}
		}
		v, err := en.view(a)
		if err != nil {
			return nil, err
		}
		out = append(out, TimelineEntry{ID: a.ID, Kind: TimelineActivity, CreatedAt: a.CreatedAt.Truncate(time.Second),
			Actor: a.Actor, Activity: &v})
	}
	for i := range vers {
		v := &vers[i]
		out = append(out, TimelineEntry{ID: v.ID, Kind: TimelineVersion, CreatedAt: v.CreatedAt.Truncate(time.Second),
			Actor: v.Actor, Version: v})
	}
	return out, nil
}

// structuredEntries are the item's implementation notes and decisions
// the cursor keeps. As Pad: an entry without a readable created_at is
// dated at the item's creation, one without an id (or repeating one)
// gets "<kind>-idx-<i>", and created_by is its actor's kind.
func structuredEntries(it *model.Item, cur timelineCursor) []TimelineEntry {
	var out []TimelineEntry
	used := map[string]bool{}
	for _, kind := range []struct{ field, name string }{
		{model.FieldImplementationNotes, TimelineNote}, {model.FieldDecisionLog, TimelineDecision}} {
		list, _ := model.Entries(it.Fields[kind.field])
		for i, raw := range list {
			e, ok := raw.(map[string]any)
			if !ok {
				continue
			}
			id, _ := e["id"].(string)
			if id == "" || used[id] {
				id = fmt.Sprintf("%s-idx-%d", kind.name, i)
				for used[id] {
					id += "x"
				}
			}
			used[id] = true
			at := it.CreatedAt
			if s, _ := e["created_at"].(string); s != "" {
				if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
					at = t
				}
			}
			at = at.UTC().Truncate(time.Second)
			if !cur.keep(at, id) {
				continue
			}
			by, _ := e["created_by"].(string)
			out = append(out, TimelineEntry{ID: id, Kind: kind.name, CreatedAt: at,
				Actor: model.Actor{Kind: by, Source: "structured"}, Entry: e})
		}
	}
	return out
}
