package records

import (
	"time"

	"github.com/padd/padd/model"
)

// The attachment rows of a workspace (storage/attachments.go).
var (
	BAttachments = []byte("attachments")
	BAttItem     = []byte("att_item")
)

func (rec *AttachmentRecord) View(id, wsID string) Attachment {
	return Attachment{ID: id, WorkspaceID: wsID, ItemID: rec.ItemID, Filename: rec.Filename, FilenameSource: rec.FilenameSource,
		MIME: rec.MIME, Size: rec.Size, Hash: rec.Hash, Width: rec.Width, Height: rec.Height, UploadedBy: rec.UploadedBy,
		CreatedAt: rec.CreatedAt, Imported: rec.Imported}
}

// AttachmentRecord is the stored row.
type AttachmentRecord struct {
	ItemID         string      `json:"item_id,omitempty"`
	Filename       string      `json:"filename"`
	FilenameSource string      `json:"filename_source,omitempty"`
	MIME           string      `json:"mime"`
	Size           int64       `json:"size"`
	Hash           string      `json:"hash"`
	Width          int         `json:"w,omitempty"`
	Height         int         `json:"h,omitempty"`
	UploadedBy     model.Actor `json:"by"`
	CreatedAt      time.Time   `json:"at"`
	Imported       bool        `json:"imported,omitempty"`
}

// Attachment is one row as readers see it.
type Attachment struct {
	ID          string
	WorkspaceID string
	ItemID      string // "" when unattached
	// Filename is the name to show and to offer on download; never a path.
	Filename string
	// FilenameSource says where Filename came from: caller, normalised,
	// substituted, derived (Pad's vocabulary, ATT-01).
	FilenameSource string
	MIME           string
	Size           int64
	Hash           string // sha256 hex of the bytes: the blob's name and the ETag
	Width, Height  int    // images whose header was readable; 0 otherwise
	UploadedBy     model.Actor
	CreatedAt      time.Time
	Imported       bool
	// Of the item, when attached: its ref, title, collection, archived.
	ItemRef, ItemTitle, CollectionSlug string
	ItemArchived                       bool
}

func AttachmentNotFound(id string) error {
	return model.NotFound("Attachment not found: %s", id).With("attachment_id", id)
}

// AttBuckets opens (in a write, creating) the attachment buckets; nil
// in a read of a workspace that has never had an attachment.
func AttBuckets(b *Wsb) (rows, byItem *Bucket, err error) {
	if b.Writable {
		if rows, err = b.Root.CreateBucketIfNotExists(BAttachments); err != nil {
			return nil, nil, err
		}
		byItem, err = b.Root.CreateBucketIfNotExists(BAttItem)
		return rows, byItem, err
	}
	return b.Root.Bucket(BAttachments), b.Root.Bucket(BAttItem), nil
}

func GetAttachmentRecord(rows *Bucket, id string) (*AttachmentRecord, []byte, error) {
	k, ok := IDKey(id)
	if !ok || rows == nil {
		return nil, nil, AttachmentNotFound(id)
	}
	raw := rows.Get(k)
	if raw == nil {
		return nil, nil, AttachmentNotFound(id)
	}
	var rec AttachmentRecord
	if err := Decode(raw, &rec); err != nil {
		return nil, nil, ErrInternal("attachment %s unreadable: %v", id, err)
	}
	return &rec, k, nil
}

// decorate fills the item's ref, title and collection of an attached row.
func DecorateAttachment(b *Wsb, a *Attachment, colls map[string]*model.Collection) error {
	if a.ItemID == "" {
		return nil
	}
	k, ok := IDKey(a.ItemID)
	if !ok {
		return nil
	}
	it, err := GetItem(b, k, false)
	if err != nil || it == nil {
		return err
	}
	c := colls[it.CollectionID]
	if c == nil {
		if c, err = GetCollection(b, MustID(it.CollectionID)); err != nil || c == nil {
			return err
		}
		colls[it.CollectionID] = c
	}
	a.ItemRef, a.ItemTitle, a.CollectionSlug = RefOf(c, it.Number), it.Title, c.Slug
	a.ItemArchived = it.DeletedAt != nil || c.ArchivedAt != nil
	return nil
}

// ReadAttachment reads one row.
func ReadAttachment(b *Base, ws, id string) (*Attachment, error) {
	var out *Attachment
	err := b.Read(ws, func(r *Rtx) error {
		rows, _, _ := AttBuckets(r.WS)
		rec, _, err := GetAttachmentRecord(rows, id)
		if err != nil {
			return err
		}
		a := rec.View(id, r.WS.ID)
		if err := DecorateAttachment(r.WS, &a, map[string]*model.Collection{}); err != nil {
			return err
		}
		out = &a
		return nil
	})
	return out, err
}

// ReadAttachmentHashes is the set of blob hashes some row of any workspace
// (archived ones too) names: what the sweep keeps.
func ReadAttachmentHashes(b *Base) (map[string]bool, error) {
	out := map[string]bool{}
	err := b.View(func(tx *Txn) error {
		root := tx.Bucket(BWS)
		if root == nil {
			return nil
		}
		return root.ForEachBucket(func(wsID []byte) error {
			rows := root.Bucket(wsID).Bucket(BAttachments)
			if rows == nil {
				return nil
			}
			return rows.ForEach(func(k, raw []byte) error {
				var rec AttachmentRecord
				if err := Decode(raw, &rec); err != nil {
					return ErrInternal("attachment %s unreadable: %v", IDString(k), err)
				}
				out[rec.Hash] = true
				return nil
			})
		})
	})
	return out, err
}
