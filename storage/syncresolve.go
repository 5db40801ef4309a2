package storage

import (
	"slices"

	"github.com/padd/padd/model"
	"github.com/padd/padd/storage/internal/records"
)

// A sync resolution that keeps a value writes the item as the user's own
// change (queued for push, stamped, in the change log) and settles the
// conflict in that one transaction: storage's write transaction, so it
// stays here while the rest of the sync bookkeeping is storage/syncstate's.

// LocalWrite is the change to an item that a sync resolution makes to
// keep a value (ResolveSyncConflictWith): the user's own write.
type LocalWrite struct{ w *wtx }

// UpdateItem changes the item as Store.UpdateItem does.
func (l *LocalWrite) UpdateItem(ref string, in ItemUpdate) error {
	_, err := l.w.updateItem(ref, in)
	return err
}

// SetArchived archives or restores the item.
func (l *LocalWrite) SetArchived(ref string, archive bool) error {
	_, err := l.w.setArchived(ref, archive)
	return err
}

// MoveItem moves the item as Store.MoveItem does.
func (l *LocalWrite) MoveItem(ref string, in MoveInput) error {
	_, err := l.w.moveItem(ref, in)
	return err
}

// EditComment replaces a comment's body.
func (l *LocalWrite) EditComment(itemRef, commentID, body string) error {
	_, err := l.w.editComment(itemRef, commentID, body)
	return err
}

// ReleaseHeld lets the item's own value of part, a part padd held past
// its limits (SyncBase.Held) without the remote's value, go to the
// remote: the part moves from Held to Released, which the engine's next
// push of the item sends whatever the base holds, and the item is marked
// to be pushed (SetRelationWait's mark, which the engine's drain pushes,
// after a restart too). False: the part is not held.
func (l *LocalWrite) ReleaseHeld(itemID, part string) (bool, error) {
	b := l.w.ws
	base, err := records.GetBase(b, itemID)
	if err != nil || base == nil || !slices.Contains(base.Held, part) {
		return false, err
	}
	id, ok := records.IDKey(base.ItemID)
	if !ok {
		return false, model.Invalid("item id %q is not an id", itemID)
	}
	base.Held = slices.DeleteFunc(slices.Clone(base.Held), func(p string) bool { return p == part })
	if !slices.Contains(base.Released, part) {
		base.Released = append(slices.Clone(base.Released), part)
	}
	if err := records.PutBase(b, *base, l.w.now); err != nil {
		return false, err
	}
	return true, b.SyncBase().Put(records.RelationWaitKey(id), []byte{1})
}

// ResolveSyncConflictWith resolves conflict id together with write, the
// local change that keeps the chosen value, in one transaction: a crash
// leaves both or neither, never the value written and the conflict open
// (or the conflict settled and the value lost).
func (s *Store) ResolveSyncConflictWith(ws string, id int64, how ConflictState, actor model.Actor, write func(*LocalWrite) error) (*SyncConflict, error) {
	var out *SyncConflict
	err := s.write(ws, actor, func(w *wtx) (err error) {
		if err := write(&LocalWrite{w}); err != nil {
			return err
		}
		out, err = records.ResolveConflict(w.ws, id, how, s.base.Clock())
		return err
	})
	return out, err
}
