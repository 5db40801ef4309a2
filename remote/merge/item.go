// Package merge is the three-way merge of an item the sync engine runs
// when both padd and the remote Pad server changed it since the last
// version both sides agreed on (the base). It is pure: no I/O, no clock,
// no schema. The engine checks the merged item against its collection's
// schema (a move changes which fields are valid) like any other write.
package merge

import (
	"maps"
	"slices"

	"github.com/padd/padd/model"
)

// Item is what of an item the merge compares: the parts a person edits.
// Collection and Parent name a collection and an item the same way on all
// three sides (the engine maps the remote's ids before merging).
type Item struct {
	Title      string
	Content    string
	Fields     map[string]any
	Tags       []string // a set: order and repeats carry no meaning
	Parent     string
	Collection string
	Pinned     bool
	Archived   bool // Pad's delete of an item is an archive (deleted_at)
	// Touched: the side did work on the item that the parts do not show
	// (a comment or link the other side has not had yet). An archive
	// against it is an archive against an edit. Not a part: it is never
	// merged and never written.
	Touched bool
}

// Merge merges local and remote against base, per part: title, content
// (line by line, see Text), each key of Fields (added, changed or removed
// on one side), tags (as a set: both sides' additions and removals), parent,
// collection, pinned and archived. A part only one side changed takes that
// side's value; the same change on both sides is no conflict; a part both
// changed differently takes the remote's value (the team sees one truth)
// and is listed as a Conflict with its three values. Implementation notes
// and decisions only grow: entries both sides added are all kept, the
// remote's first.
//
// Rules for the structural cases, so that nobody's text is lost (stated in
// docs/SYNC.md, "Merge rules"):
//   - Archive against edit: one side archived the item and the other
//     edited it (any part, or Touched it). The item stays alive, with
//     every edit merged, and a WhatArchived conflict tells the user. Both
//     sides archiving is an archive.
//   - Edit against restore: one side restored an archived item and the
//     other edited it while archived. Only one side changed Archived, so
//     the item is alive, with the edit: no conflict.
//   - Move against edit: one side moved the item to another collection
//     and the other edited it. A move and an edit are different parts, so
//     they merge: the item moves and keeps the edit. Two moves to
//     different collections conflict like any part (the remote's wins).
//   - Delete against edit: a nil local or remote is an item gone for good
//     on that side (the remote no longer has it). If the other side
//     changed the item since base, the item lives on as that side has it
//     and a WhatDeleted conflict tells the user; otherwise it is deleted
//     (Merged is nil).
//
// A nil base (no version in common) merges as an empty item, so every
// part the two sides hold differently is a conflict.
func Merge(base, local, remote *Item) Result {
	if base == nil {
		base = &Item{}
	}
	var res Result
	switch {
	case local == nil && remote == nil:
	case local == nil || remote == nil:
		alive := local
		if alive == nil {
			alive = remote
		}
		if !same(base, alive) {
			c := *alive
			c.Fields, c.Tags = maps.Clone(c.Fields), slices.Clone(c.Tags)
			res.Merged = &c
			res.Conflicts = []Conflict{{What: WhatDeleted, Base: false, Local: local == nil, Remote: remote == nil}}
		}
	default:
		res.Merged = mergeParts(base, local, remote, &res.Conflicts)
	}
	res.WriteLocal = !same(res.Merged, local)
	res.Push = !same(res.Merged, remote)
	switch {
	case len(res.Conflicts) > 0:
		res.Outcome = Conflicted
	case !res.WriteLocal && !res.Push:
		res.Outcome = Unchanged
	case !res.Push:
		res.Outcome = TakeRemote
	case !res.WriteLocal:
		res.Outcome = KeepLocal
	default:
		res.Outcome = Merged
	}
	return res
}

// mergeParts merges two live items part by part, adding the conflicts
// to *cs.
func mergeParts(base, local, remote *Item, cs *[]Conflict) *Item {
	m := &Item{
		Title:      pick(WhatTitle, base.Title, local.Title, remote.Title, cs),
		Parent:     pick(WhatParent, base.Parent, local.Parent, remote.Parent, cs),
		Collection: pick(WhatCollection, base.Collection, local.Collection, remote.Collection, cs),
		Pinned:     pick(WhatPinned, base.Pinned, local.Pinned, remote.Pinned, cs),
		Tags:       mergeTags(base.Tags, local.Tags, remote.Tags),
		Fields:     mergeFields(base.Fields, local.Fields, remote.Fields, cs),
	}
	content, hunks := Text(base.Content, local.Content, remote.Content)
	m.Content = content
	if len(hunks) > 0 {
		*cs = append(*cs, Conflict{What: WhatContent, Base: base.Content, Local: local.Content, Remote: remote.Content, Hunks: hunks})
	}

	// Archive against edit: the item stays alive with the edit.
	archivedL := local.Archived && !base.Archived
	archivedR := remote.Archived && !base.Archived
	if archivedL != archivedR && (archivedL && edited(base, remote) || archivedR && edited(base, local)) {
		m.Archived = false
		*cs = append(*cs, Conflict{What: WhatArchived, Base: base.Archived, Local: local.Archived, Remote: remote.Archived})
	} else {
		m.Archived = pick(WhatArchived, base.Archived, local.Archived, remote.Archived, cs)
	}
	return m
}

// pick is the three-way merge of one comparable part.
func pick[T comparable](what string, base, local, remote T, cs *[]Conflict) T {
	switch {
	case local == remote || local == base:
		return remote
	case remote == base:
		return local
	}
	*cs = append(*cs, Conflict{What: what, Base: base, Local: local, Remote: remote})
	return remote
}

// mergeFields merges the field maps key by key, in key order. A key
// absent on a side is Missing there; a side that removed a key the other
// left alone removes it. A note or decision list both sides grew keeps
// both sides' entries (mergeEntries).
func mergeFields(base, local, remote map[string]any, cs *[]Conflict) map[string]any {
	keys := make([]string, 0, len(remote))
	for _, m := range []map[string]any{base, local, remote} {
		for k := range m {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	keys = slices.Compact(keys)
	var merged map[string]any
	for _, k := range keys {
		b, l, r := value(base, k), value(local, k), value(remote, k)
		v := r
		switch {
		case equal(l, r) || equal(l, b):
		case equal(r, b):
			v = l
		default:
			if model.IsEntryList(k) {
				if m, ok := mergeEntries(k, b, l, r); ok {
					v = m
					break
				}
			}
			*cs = append(*cs, Conflict{What: WhatField, Key: k, Base: b, Local: l, Remote: r})
		}
		if v != Missing {
			if merged == nil {
				merged = make(map[string]any, len(keys))
			}
			merged[k] = v
		}
	}
	return merged
}

// value is m's value for k, or Missing.
func value(m map[string]any, k string) any {
	if v, ok := m[k]; ok {
		return v
	}
	return Missing
}

// equal compares two field values (or Missing) as JSON: 3 equals 3.0.
func equal(a, b any) bool {
	if a == Missing || b == Missing {
		return a == b
	}
	return model.EqualJSON(a, b)
}

// mergeTags merges tags as sets: the remote's tags in the remote's order,
// less those the local side removed, then those the local side added in
// the local order.
func mergeTags(base, local, remote []string) []string {
	inBase, inLocal := set(base), set(local)
	var merged []string
	seen := make(map[string]bool, len(remote)+len(local))
	for _, t := range remote {
		if !seen[t] && !(inBase[t] && !inLocal[t]) {
			seen[t] = true
			merged = append(merged, t)
		}
	}
	for _, t := range local {
		if !seen[t] && !inBase[t] {
			seen[t] = true
			merged = append(merged, t)
		}
	}
	return merged
}

func set(tags []string) map[string]bool {
	s := make(map[string]bool, len(tags))
	for _, t := range tags {
		s[t] = true
	}
	return s
}

// edited reports whether x changed any part of base but Archived, or
// was touched.
func edited(base, x *Item) bool {
	if x.Touched {
		return true
	}
	y := *x
	y.Archived = base.Archived
	return !same(base, &y)
}

// same reports whether two items (or nils) hold the same parts: tags as
// sets, fields as JSON values.
func same(a, b *Item) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Title == b.Title && a.Content == b.Content && a.Parent == b.Parent &&
		a.Collection == b.Collection && a.Pinned == b.Pinned && a.Archived == b.Archived &&
		maps.Equal(set(a.Tags), set(b.Tags)) && sameFields(a.Fields, b.Fields)
}

func sameFields(a, b map[string]any) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		w, ok := b[k]
		if !ok || !model.EqualJSON(v, w) {
			return false
		}
	}
	return true
}
