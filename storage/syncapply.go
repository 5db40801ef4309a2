package storage

import (
	"github.com/padd/padd/model"
	"github.com/padd/padd/storage/internal/records"
)

// SyncTx is one write of the sync engine on a linked workspace: the local
// entity it changes, the id map entries, bases, cursors and outbox
// acknowledgements that go with it commit together or not at all. Its
// item, comment and link writes are the doors' own (the same validation,
// indexes, versions, activity and change-log entries); their actor source
// is "sync", so none of them is queued back for push.
type SyncTx struct {
	w *wtx
}

// SyncApply runs fn as one write of the sync engine on the linked
// workspace ws, durable when it returns. actor is who made the change on
// the remote; its source is always "sync".
func (s *Store) SyncApply(ws string, actor model.Actor, fn func(*SyncTx) error) error {
	actor.Source = model.SourceSync
	return s.write(ws, actor, func(w *wtx) error {
		if !records.Linked(w.ws) {
			return model.Conflict("workspace %q is not linked to a remote", w.wsRec.Slug)
		}
		w.replica = true
		return fn(&SyncTx{w: w})
	})
}

// AdoptRemoteRef makes the remote's number the item's own (the item's
// ref becomes the server's; the provisional ref keeps resolving).
func (s *Store) AdoptRemoteRef(ws, itemID string, number int64) (*ItemView, error) {
	var out *ItemView
	err := s.SyncApply(ws, model.UserActor(model.SourceSync), func(t *SyncTx) (err error) {
		out, err = t.AdoptRef(itemID, number)
		return err
	})
	return out, err
}

// Item reads an item (archived too) as this write sees it: the local
// side a pulled change is merged with.
func (t *SyncTx) Item(ref string) (*ItemView, error) {
	it, err := records.ItemByRef(t.w.ws, ref, true)
	if err != nil {
		return nil, err
	}
	return records.View(t.w.ws, it, nil)
}

// CreateItem creates an item pulled from the remote, with the remote's
// number, as the remote has it: no default fills a field it lacks, and
// its reserved metadata (notes, decisions, a convention's copy, a PR
// link), which no door writes, is written as the system's, checked.
func (t *SyncTx) CreateItem(in ItemCreate, number int64) (*ItemResult, error) {
	if number <= 0 {
		return nil, model.Invalid("an item pulled from the remote needs its number, not %d", number).With("field", "number")
	}
	in.number = number
	fields, reserved, err := model.SplitReserved(in.Fields)
	if err != nil {
		return nil, err
	}
	in.Fields, in.imported = fields, &itemImport{reserved: reserved}
	return t.w.createItem(in)
}

// UpdateItem is the doors' partial update; reserved metadata in its
// fields patch is the remote's, written as the system's (a nil value
// removes it).
func (t *SyncTx) UpdateItem(ref string, in ItemUpdate) (*ItemResult, error) {
	fields, reserved, err := model.SplitReserved(in.FieldsPatch)
	if err != nil {
		return nil, err
	}
	if reserved != nil {
		in.FieldsPatch, in.reserved = fields, reserved
	}
	return t.w.updateItem(ref, in)
}

// MoveItem is the doors' move.
func (t *SyncTx) MoveItem(ref string, in MoveInput) (*ItemResult, error) {
	return t.w.moveItem(ref, in)
}

// SetArchived archives (Pad's delete) or restores an item.
func (t *SyncTx) SetArchived(ref string, archived bool) (*ItemResult, error) {
	return t.w.setArchived(ref, archived)
}

// AdoptRef makes the remote's number the item's own.
func (t *SyncTx) AdoptRef(itemID string, number int64) (*ItemView, error) {
	it, err := records.ItemByRef(t.w.ws, itemID, true)
	if err != nil {
		return nil, err
	}
	if err := t.w.claimNumber(it, number); err != nil {
		return nil, err
	}
	return records.View(t.w.ws, it, nil)
}

// As runs fn with actor as the writes' actor (its source is always
// "sync"): a pulled batch of comments keeps each one's author in one
// transaction.
func (t *SyncTx) As(actor model.Actor, fn func() error) error {
	actor.Source = model.SourceSync
	saved := t.w.actor
	t.w.actor = actor
	defer func() { t.w.actor = saved }()
	return fn()
}

// AddComment adds a comment or reply pulled from the remote.
func (t *SyncTx) AddComment(itemRef string, in CommentCreate) (*model.Comment, error) {
	return t.w.addComment(itemRef, in)
}

// EditComment changes a comment's body.
func (t *SyncTx) EditComment(itemRef, commentID, body string) (*model.Comment, error) {
	return t.w.editComment(itemRef, commentID, body)
}

// DeleteComment deletes a comment (a tombstone when it has replies).
func (t *SyncTx) DeleteComment(itemRef, commentID string) (*CommentDeletion, error) {
	return t.w.deleteComment(itemRef, commentID)
}

// Annotated reports whether padd holds a comment, link or attachment on item id, or
// a child made under it, that the remote has not been sent (it is in the
// outbox): work on the item that its parts do not show, which an archive made on the remote must
// not bury (docs/SYNC.md, "Archive against edit").
func (t *SyncTx) Annotated(id string) (bool, error) {
	c := t.w.ws.Outbox().Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		ch, err := records.DecodeChange(v)
		if err != nil {
			return false, err
		}
		if ch.Op != model.OpCreated {
			continue
		}
		switch ch.Entity {
		case model.EntityItem: // a child made under it
			it, err := records.GetItem(t.w.ws, records.MustID(ch.ID), false)
			if err != nil {
				return false, err
			}
			if it != nil && it.ParentID == id {
				return true, nil
			}
			continue
		case model.EntityComment, model.EntityLink, model.EntityAttachment:
		default:
			continue
		}
		if ch.ItemID == id {
			return true, nil
		}
		if ch.Entity == model.EntityLink {
			l, err := records.GetLink(t.w.ws, records.MustID(ch.ID))
			if err != nil {
				return false, err
			}
			if l != nil && l.TargetID == id {
				return true, nil
			}
		}
	}
	return false, nil
}

// Link reads a link by id (nil: there is none).
func (t *SyncTx) Link(id string) (*model.Link, error) {
	k, ok := records.IDKey(id)
	if !ok {
		return nil, nil
	}
	return records.GetLink(t.w.ws, k)
}

// AddLink links two items as the remote has them: a link type padd
// does not know is kept as it came (model.ForeignLinkType).
func (t *SyncTx) AddLink(sourceRef, targetRef, linkType string) (*LinkResult, error) {
	return t.w.addLink(sourceRef, targetRef, linkType, true)
}

// SetStar stars or unstars an item for the user, as the remote has it.
func (t *SyncTx) SetStar(itemRef string, star bool) (*StarResult, error) {
	return t.w.setStar(itemRef, star)
}

// RemoveLink deletes a link by id.
func (t *SyncTx) RemoveLink(linkID string) (*model.Link, error) { return t.w.removeLinkByID(linkID) }

// CreateAttachment stores the row of a blob pulled from the remote
// (already durable) as attachment id: the remote's own id where it is
// one padd can use, so that references to it in text need no change.
func (t *SyncTx) CreateAttachment(id string, in NewAttachment) (*Attachment, error) {
	return t.w.createAttachment(id, in)
}

// AttachAttachment binds an unattached row to an item, as the remote did.
func (t *SyncTx) AttachAttachment(id, itemRef string) (*Attachment, error) {
	return t.w.attachAttachment(id, itemRef)
}

// DeleteAttachment removes a row the remote deleted.
func (t *SyncTx) DeleteAttachment(id string) (*Attachment, error) { return t.w.deleteAttachment(id) }

// CreateCollection adds a collection pulled from the remote.
func (t *SyncTx) CreateCollection(in CollectionCreate) (*model.Collection, error) {
	return t.w.addCollection(in)
}

// UpdateCollection changes a collection (a schema edit made on the
// remote).
func (t *SyncTx) UpdateCollection(ref string, in CollectionUpdate) (*model.Collection, model.Warnings, error) {
	return t.w.updateCollection(ref, in)
}

// MapID records local <-> remote ids of one entity.
func (t *SyncTx) MapID(k SyncKind, localID, remoteID string) error {
	return records.MapID(t.w.ws, k, localID, remoteID)
}

// UnmapID drops a local entity's id map entries.
func (t *SyncTx) UnmapID(k SyncKind, localID string) error {
	return records.UnmapID(t.w.ws, k, localID)
}

// RemoteID is a local entity's remote id, as this write sees it.
func (t *SyncTx) RemoteID(k SyncKind, localID string) (string, bool) {
	return records.RemoteIDOf(t.w.ws, k, localID)
}

// LocalID is a remote entity's local id, as this write sees it.
func (t *SyncTx) LocalID(k SyncKind, remoteID string) (string, bool) {
	return records.LocalIDOf(t.w.ws, k, remoteID)
}

// MapRemoteRef records which local item a remote ref names.
func (t *SyncTx) MapRemoteRef(ref, itemID string) error {
	return records.MapRemoteRef(t.w.ws, ref, itemID)
}

// ItemByRemoteRef is the local item a remote ref names.
func (t *SyncTx) ItemByRemoteRef(ref string) (string, bool) {
	return records.ItemOfRemoteRef(t.w.ws, ref)
}

// SetBase records an item's base.
func (t *SyncTx) SetBase(b SyncBase) error { return records.PutBase(t.w.ws, b, t.w.now) }

// Base reads an item's base, as this write sees it.
func (t *SyncTx) Base(itemID string) (*SyncBase, error) { return records.GetBase(t.w.ws, itemID) }

// SetCursors records the feeds' cursors.
func (t *SyncTx) SetCursors(c SyncCursors) error {
	return records.PutSyncRecord(t.w.ws, records.KCursors, c)
}

// SetInFlight records the write about to be sent.
func (t *SyncTx) SetInFlight(f SyncInFlight) error { return records.SetInFlight(t.w.ws, f) }

// ClearInFlight drops the in-flight record: its write's outcome is known.
func (t *SyncTx) ClearInFlight() error { return t.w.ws.Sync().Delete(records.KInFlight) }

// AckOutbox drops the queued changes up to and including seq.
func (t *SyncTx) AckOutbox(through int64) error { return records.AckOutbox(t.w.ws, through) }

// AddConflict records a conflict or set-aside entry and returns its id.
func (t *SyncTx) AddConflict(c SyncConflict) (int64, error) {
	return records.AddConflict(t.w.ws, c, t.w.now)
}

// HeldSetAside records the set-aside entries of a part of an item that
// padd held past its limits in the remote's version before: reasons are
// the part's now (none: it is within the limits); what the user saw
// already is not recorded again, and the open entries of a value the
// remote no longer has are settled.
func (t *SyncTx) HeldSetAside(itemID, part string, reasons []string) error {
	return records.HeldSetAside(t.w.ws, itemID, part, reasons, t.w.now)
}

// ResolveConflict settles an entry.
func (t *SyncTx) ResolveConflict(id int64, how ConflictState) (*SyncConflict, error) {
	return records.ResolveConflict(t.w.ws, id, how, t.w.now)
}

// UpdateLink changes the link record (state, last exchange, next try).
func (t *SyncTx) UpdateLink(fn func(*RemoteLink) error) error { return records.UpdateLink(t.w.ws, fn) }

// Collection reads a collection (archived too) by id or slug, as this
// write sees it; nil when there is none.
func (t *SyncTx) Collection(ref string) (*model.Collection, error) {
	return records.FindCollection(t.w.ws, ref)
}

// SetCommentBase records the body both sides hold of a comment.
func (t *SyncTx) SetCommentBase(commentID, body string) error {
	id, ok := records.IDKey(commentID)
	if !ok {
		return model.Invalid("comment id %q is not an id", commentID)
	}
	return t.w.ws.SyncBase().Put(records.CommentBaseKey(id), records.ContentSHA(body))
}

// SetRelationWait marks (on) or unmarks an item as having relation
// values that wait for an item to be mapped.
func (t *SyncTx) SetRelationWait(itemID string, on bool) error {
	id, ok := records.IDKey(itemID)
	if !ok {
		return model.Invalid("item id %q is not an id", itemID)
	}
	if !on {
		if t.w.ws.SyncBase().Get(records.RelationWaitKey(id)) == nil {
			return nil // nearly every base write: no delete to record
		}
		return t.w.ws.SyncBase().Delete(records.RelationWaitKey(id))
	}
	if t.w.ws.Items().Get(id) == nil {
		return model.NotFound("Item not found: %s", itemID)
	}
	return t.w.ws.SyncBase().Put(records.RelationWaitKey(id), []byte{1})
}

// SetCollectionBase records the version of a collection both sides hold.
func (t *SyncTx) SetCollectionBase(b SyncCollectionBase) error {
	id, ok := records.IDKey(b.CollectionID)
	if !ok {
		return model.Invalid("collection id %q is not an id", b.CollectionID)
	}
	c, err := records.GetCollection(t.w.ws, id)
	if err != nil {
		return err
	}
	if c == nil {
		return model.CollectionNotFound(b.CollectionID)
	}
	raw, err := records.Encode(b)
	if err != nil {
		return err
	}
	return t.w.ws.SyncBase().Put(records.CollectionBaseKey(id), raw)
}
