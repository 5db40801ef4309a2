package records

import (
	"github.com/padd/padd/model"
)

// Item numbers and provisional refs.
//
// An unlinked workspace numbers its items from its own counter
// (kItemNumber), as Pad does. Once a workspace is linked to a remote Pad,
// item numbers are the remote's: an item pulled from the remote takes the
// remote's number, and an item made here gets a provisional number from a
// second counter (kProvisional) until the remote numbers it. A
// provisional number is stored negated (-n), so it can never equal a
// number Pad assigns, and its ref is "<PREFIX>-L<n>": Pad's refs are
// digits after the dash, so no ref the server gives can be equal to it.
// When the remote's number is adopted, the item's number becomes the
// remote's and the provisional ref stays in the refs bucket, where it
// resolves like an old ref after a move.

// RefText spells an item's ref: PREFIX-N, or PREFIX-LN for a provisional
// (negative) number.
func RefText(prefix string, n int64) string { return model.Ref{Prefix: prefix, Number: n}.String() }

// ParseItemRef reads "TASK-12" and "TASK-L12" (any case) into a prefix
// and a number, negative for a provisional ref.
func ParseItemRef(s string) (prefix string, n int64, ok bool) {
	r, ok := model.ParseItemRef(s)
	return r.Prefix, r.Number, ok
}
