package views

import (
	"cmp"
	"slices"

	"github.com/padd/padd/storage/internal/records"
)

// TagCount is one tag and how many live items carry it.
type TagCount struct {
	Tag   string
	Count int
}

// Tags lists the tags of a workspace's live items (not archived, not in
// an archived collection) with how many items carry each, the most used
// first, then by tag: Pad's GET .../tags. It reads every item's record
// (not its content), so its cost follows the workspace's size.
func (s *Views) Tags(wsRef string) ([]TagCount, error) {
	counts := map[string]int{}
	err := s.base.Read(wsRef, func(r *records.Rtx) error {
		cs, err := records.CollectionsOf(r.WS)
		if err != nil {
			return err
		}
		archived := map[string]bool{}
		for _, c := range cs {
			if c.ArchivedAt != nil {
				archived[c.ID] = true
			}
		}
		c := r.WS.Items().Cursor()
		for k, _ := c.First(); k != nil; k, _ = c.Next() {
			it, err := records.GetItem(r.WS, k, false)
			if err != nil {
				return err
			}
			if it == nil || it.DeletedAt != nil || archived[it.CollectionID] {
				continue
			}
			for i, t := range it.Tags {
				if !slices.Contains(it.Tags[:i], t) { // an item counts once per tag
					counts[t]++
				}
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	out := make([]TagCount, 0, len(counts))
	for t, n := range counts {
		out = append(out, TagCount{Tag: t, Count: n})
	}
	slices.SortFunc(out, func(a, b TagCount) int {
		return cmp.Or(cmp.Compare(b.Count, a.Count), cmp.Compare(a.Tag, b.Tag))
	})
	return out, nil
}
