package storage

import (
	"github.com/padd/padd/model"
	"github.com/padd/padd/storage/internal/records"
)

// ExportSink takes a workspace's records as ExportWorkspace reads them:
// the workspace, then every collection (archived ones too), role, saved
// view, live item, live comment of a live item, link between live items
// and version of a live item, each kind after the one before, in a fixed
// order (two exports of one workspace are the same). The records are
// the sink's to keep; a sink error stops the export.
type ExportSink interface {
	Workspace(*model.Workspace) error
	Collection(*model.Collection) error
	Role(*model.Role) error
	// SavedView gets each collection's saved views, in their order.
	SavedView(*model.SavedView) error
	// Item gets the item (with its body) and what travels beside it.
	Item(it *model.Item, x ItemExtras) error
	Comment(*model.Comment) error
	Link(*model.Link) error
	// Version gets each version with its body, oldest first per item.
	Version(*model.Version) error
	// Attachment gets each attachment row of a live item, and each
	// unattached one, in id (creation) order.
	Attachment(*Attachment) error
}

// ItemExtras is what an export writes of an item beside its record: its
// agent role's slug and, for an item activated from the built-in
// library, its origin.
type ItemExtras struct {
	Role   string
	Origin *LibraryOrigin
}

// LibraryOrigin names the library entry an item was activated from (its
// key) and the version activated (the entry's hash then).
type LibraryOrigin struct {
	Key, SeedHash string
}

// ExportWorkspace reads the live workspace ws into sink, record by
// record, from one read transaction of its own (a snapshot; writes go
// on beside it). It holds no more than the live items' ids at once.
func (s *Store) ExportWorkspace(ws string, sink ExportSink) error {
	return records.EngineErr(s.base.DB.ViewSettled(func(tx *records.Txn) error {
		rec, err := records.LiveWorkspace(tx, ws)
		if err != nil {
			return err
		}
		b := records.OpenWS(tx, rec.ID)
		if err := sink.Workspace(rec); err != nil {
			return err
		}
		colls, err := records.CollectionsOf(b)
		if err != nil {
			return err
		}
		for _, c := range colls {
			if err := sink.Collection(c); err != nil {
				return err
			}
		}
		roles, err := records.SortedRoles(b)
		if err != nil {
			return err
		}
		roleSlug := make(map[string]string, len(roles))
		for _, r := range roles {
			roleSlug[r.ID] = r.Slug
			if err := sink.Role(r); err != nil {
				return err
			}
		}
		if err := exportSavedViews(b, sink); err != nil {
			return err
		}
		origins := b.Root.Bucket(records.BOrigins)
		live := map[string]bool{}
		cur := b.Items().Cursor()
		for k, _ := cur.First(); k != nil; k, _ = cur.Next() {
			it, err := records.GetItem(b, k, true)
			if err != nil {
				return err
			}
			if it == nil || it.DeletedAt != nil {
				continue
			}
			live[string(k)] = true
			x := ItemExtras{Role: roleSlug[it.AgentRoleID]}
			if origins != nil {
				x.Origin = originOf(origins.Get(k))
			}
			if err := sink.Item(it, x); err != nil {
				return err
			}
		}
		cur = b.Comments().Cursor()
		for k, v := cur.First(); k != nil; k, v = cur.Next() {
			if len(k) < 16 || !live[string(k[:16])] {
				continue
			}
			var cm model.Comment
			if err := records.Decode(v, &cm); err != nil {
				return model.Errorf(model.CodeStoredStateUnreadable, "stored comment %s is unreadable: %v", records.IDString(k[16:]), err)
			}
			if cm.DeletedAt != nil {
				continue
			}
			if cm.ParentID != "" {
				// A reply to a deleted comment goes without its parent:
				// the export holds no tombstones (Pad's neither).
				if pk, ok := records.IDKey(cm.ParentID); !ok || !liveComment(b, k[:16], pk) {
					cm.ParentID = ""
				}
			}
			if err := sink.Comment(&cm); err != nil {
				return err
			}
		}
		cur = b.Links().Cursor()
		for k, _ := cur.First(); k != nil; k, _ = cur.Next() {
			l, err := records.GetLink(b, k)
			if err != nil {
				return err
			}
			if l == nil || !live[string(records.MustID(l.SourceID))] || !live[string(records.MustID(l.TargetID))] {
				continue
			}
			if err := sink.Link(l); err != nil {
				return err
			}
		}
		cur = b.Versions().Cursor()
		for k, v := cur.First(); k != nil; k, v = cur.Next() {
			if len(k) != 24 || !live[string(k[:16])] {
				continue
			}
			ver, err := records.DecodeVersion(b, k, v)
			if err != nil {
				return err
			}
			ver.ItemID = records.IDString(k[:16])
			if err := sink.Version(ver); err != nil {
				return err
			}
		}
		rows, _, _ := records.AttBuckets(b)
		if rows == nil {
			return nil
		}
		cur = rows.Cursor()
		for k, v := cur.First(); k != nil; k, v = cur.Next() {
			var rec records.AttachmentRecord
			if err := records.Decode(v, &rec); err != nil {
				return model.Errorf(model.CodeStoredStateUnreadable, "stored attachment %s is unreadable: %v", records.IDString(k), err)
			}
			if rec.ItemID != "" && !live[string(records.MustID(rec.ItemID))] {
				continue
			}
			a := rec.View(records.IDString(k), b.ID)
			if err := sink.Attachment(&a); err != nil {
				return err
			}
		}
		return nil
	}))
}

// liveComment says comment id of item itemID is there and not deleted.
func liveComment(b *records.Wsb, itemID, id []byte) bool {
	c, err := records.GetComment(b, itemID, id)
	return err == nil && c != nil && c.DeletedAt == nil
}
