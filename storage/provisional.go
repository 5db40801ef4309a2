package storage

import (
	"github.com/padd/padd/model"
	"github.com/padd/padd/storage/internal/records"
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

// kProvisional counts the workspace's provisional numbers.
var kProvisional = []byte("provisional_number")

// nextNumber is the number of an item created in b without a number of
// its own: provisional while the workspace is linked, else the next of
// the workspace's counter.
func nextNumber(b *records.Wsb) (int64, error) {
	if records.Linked(b) {
		n, err := b.Bump(kProvisional)
		return -n, err
	}
	return b.Bump(records.KItemNumber)
}

// claimNumber makes the remote's number the item's own. The ref the item
// had keeps resolving (it stays in the refs bucket).
func (w *wtx) claimNumber(it *model.Item, number int64) error {
	if it.Number == number {
		return nil
	}
	if err := w.takeNumber(number, it.ID); err != nil {
		return err
	}
	return w.renumber(it, number)
}

// takeNumber frees the remote's number for item self. An item that holds
// it locally (one numbered before the workspace was linked and not yet
// numbered by the remote) is given a provisional number instead: the
// remote's numbering wins. The workspace's own counter is raised past the
// number, so a workspace unlinked later numbers on without reusing it.
func (w *wtx) takeNumber(number int64, self string) error {
	if number <= 0 {
		return model.Invalid("a remote item number must be positive, not %d", number).With("field", "number")
	}
	b := w.ws
	if holder := b.Nums().Get(records.U64(uint64(number))); holder != nil && records.IDString(holder) != self {
		other, err := records.GetItem(b, holder, true)
		if err != nil {
			return err
		}
		if other != nil {
			p, err := b.Bump(kProvisional)
			if err != nil {
				return err
			}
			if err := w.renumber(other, -p); err != nil {
				return err
			}
		}
	}
	if b.Counter(records.KItemNumber) < number {
		return b.Counters().Put(records.KItemNumber, records.U64(uint64(number)))
	}
	return nil
}

// renumber gives a stored item a new number as one mutation of its own:
// the change-log entry lets every reader (the search index, the event
// stream) see the new ref, and the activity entry tells the user which
// ref the item had.
func (w *wtx) renumber(it *model.Item, number int64) error {
	b := w.ws
	c, err := records.GetCollection(b, records.MustID(it.CollectionID))
	if err != nil {
		return err
	}
	if c == nil {
		return records.ErrInternal("item %s names a missing collection", it.ID)
	}
	old := *it
	id := records.MustID(it.ID)
	oldRef, newRef := records.RefOf(c, old.Number), records.RefOf(c, number)
	if got := b.Nums().Get(records.U64(uint64(old.Number))); string(got) == string(id) {
		if err := b.Nums().Delete(records.U64(uint64(old.Number))); err != nil {
			return err
		}
	}
	it.Number = number
	seq, err := w.stamp(model.EntityItem, model.OpUpdated, it.ID, it.ID, c.ID)
	if err != nil {
		return err
	}
	it.Seq = seq
	unpar := records.IsUnparented(b, it)
	return records.FirstErr(
		putItem(b, it),
		b.Nums().Put(records.U64(uint64(number)), id),
		b.Refs().Put([]byte(newRef), id),
		w.reindex(&old, it, unpar, unpar),
		w.activity(seq, it.ID, "updated", map[string]any{"seq": seq, "prev_seq": old.Seq,
			"changes": map[string]any{"ref": map[string]any{"from": oldRef, "to": newRef}}}),
	)
}
