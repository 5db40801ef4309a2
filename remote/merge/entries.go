package merge

import (
	"slices"

	"github.com/padd/padd/model"
)

// mergeEntries merges a note or decision list (model.IsEntryList: lists
// that only grow) that both sides grew since base: the remote's list,
// then the entries the local side added that the remote did not add
// too (model.SameEntry: the same id, or the same words, which is how a
// server that gives an appended entry an id of its own hands padd's
// back). ok is false when a side changed the list otherwise (an entry
// edited or removed): that is a conflict like any field's.
func mergeEntries(key string, base, local, remote any) (merged any, ok bool) {
	localAdded, lok := model.EntriesAdded(present(base), present(local))
	remoteAdded, rok := model.EntriesAdded(present(base), present(remote))
	if !lok || !rok {
		return nil, false
	}
	rl, _ := model.Entries(present(remote))
	out := slices.Clone(rl)
	taken := make([]bool, len(remoteAdded))
	for _, e := range localAdded {
		dup := false
		for i, re := range remoteAdded {
			if !taken[i] && model.SameEntry(key, e, re) {
				taken[i], dup = true, true
				break
			}
		}
		if !dup {
			out = append(out, e)
		}
	}
	return out, true
}

// present is a field's value with Missing as nil.
func present(v any) any {
	if v == Missing {
		return nil
	}
	return v
}
