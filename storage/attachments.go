package storage

import (
	"cmp"
	"strings"
	"time"

	"github.com/padd/padd/model"
	"github.com/padd/padd/storage/internal/records"
)

// Attachments are rows naming blobs (package blobstore, beside the
// database) by their sha256. Two per-workspace buckets, made on the first
// attachment (so no layout migration: a database without them has none):
//
//	attachments   attachment id(16)            -> records.AttachmentRecord (JSON)
//	att_item      item id(16) | attachment id(16) -> nothing
//
// A row is written only after its blob is durable (the caller's part, in
// daemon); a row deleted leaves its blob to the start-up sweep, which
// keeps every blob some row of any workspace names (AttachmentHashes).
// Each change is stamped as entity "attachment" with the item it is on,
// so the search index re-reads that item (its filenames are searchable).
// The buckets are records.BAttachments and records.BAttItem.

// Limits of an attachment row.
const (
	MaxAttachmentFilename = 255 // bytes, after cleaning
	DefaultAttachmentPage = records.DefaultAttachmentPage
	MaxAttachmentPage     = records.MaxAttachmentPage
)

// Attachment is records.Attachment, the type storage's callers name.
type Attachment = records.Attachment

// AttachmentFilter selects and pages an attachment list (ATT-01).
type AttachmentFilter = records.AttachmentFilter

// AttachmentPage is one page of an attachment list.
type AttachmentPage = records.AttachmentPage

// AttachmentSorts are the sort orders an attachment list takes.
var AttachmentSorts = records.AttachmentSorts

// AttachmentCategories are the categories an attachment list filters by.
var AttachmentCategories = records.AttachmentCategories

// AttachmentCategory is the category of a MIME type (Pad's buckets).
func AttachmentCategory(mime string) string { return records.AttachmentCategory(mime) }

// NewAttachment is what CreateAttachment stores. The blob named by Hash
// must already be durable.
type NewAttachment struct {
	ItemRef        string // "" leaves it unattached
	Filename       string
	FilenameSource string
	MIME           string
	Size           int64
	Hash           string
	Width, Height  int
	// CreatedAt is when it was uploaded, kept by a write that copies the
	// remote (zero: now; a user's upload is always now).
	CreatedAt time.Time
	// UploadedBy is the row's uploader when not the writer (a transform's
	// result keeps its original's, as on Pad); zero: the writer.
	UploadedBy model.Actor
}

// CleanFilename makes a caller's file name safe to keep and to show: the
// last element of any path (either slash), control characters and
// quotes dropped, at most MaxAttachmentFilename bytes of valid UTF-8.
// An empty result is substituted by "attachment". source says which of
// Pad's filename_source values applies.
func CleanFilename(name string) (clean, source string) {
	orig := name
	if i := strings.LastIndexAny(name, `/\`); i >= 0 {
		name = name[i+1:]
	}
	name = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || r == '"' || r == 0xfffd || (r >= 0x80 && r < 0xa0) {
			return -1
		}
		return r
	}, strings.ToValidUTF8(name, ""))
	name = strings.TrimSpace(name)
	for len(name) > MaxAttachmentFilename {
		_, size := lastRune(name)
		name = name[:len(name)-size]
	}
	switch {
	case name == "" || name == "." || name == "..":
		return "attachment", "substituted"
	case name != orig:
		return name, "normalised"
	}
	return name, "caller"
}

func lastRune(s string) (rune, int) {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i]&0xc0 != 0x80 {
			return rune(s[i]), len(s) - i
		}
	}
	return 0, len(s)
}

func putAttachment(rows *records.Bucket, k []byte, rec *records.AttachmentRecord) error {
	raw, err := records.Encode(rec)
	if err != nil {
		return err
	}
	return rows.Put(k, raw)
}

// CreateAttachment stores the row of a durable blob, attached to the
// live item ItemRef names or unattached.
func (s *Store) CreateAttachment(ws string, in NewAttachment, actor model.Actor) (*Attachment, error) {
	var out *Attachment
	err := s.write(ws, actor, func(w *wtx) error {
		var err error
		out, err = w.createAttachment("", in)
		return err
	})
	return out, err
}

// createAttachment writes row id ("" for a new one; in a write that
// copies the remote, the remote's own, so references to it in text hold
// as they are).
func (w *wtx) createAttachment(id string, in NewAttachment) (*Attachment, error) {
	if !validHash(in.Hash) || in.Size < 0 {
		return nil, model.Invalid("an attachment names its blob by sha256 (64 lower-case hex digits) and a size").With("field", "hash")
	}
	var it *model.Item
	var c *model.Collection
	if in.ItemRef != "" {
		var err error
		if it, c, err = w.annotatedItem(in.ItemRef); err != nil {
			return nil, err
		}
	}
	rows, byItem, err := records.AttBuckets(w.ws)
	if err != nil {
		return nil, err
	}
	if id == "" {
		id = records.NewID()
	}
	k, ok := records.IDKey(id)
	if !ok {
		return nil, model.Invalid("attachment id %q is not an id", id)
	}
	if rows.Get(k) != nil {
		return nil, model.Conflict("attachment %s exists already", id).With("attachment_id", id)
	}
	id = records.IDString(k)
	name, src := CleanFilename(in.Filename)
	if in.FilenameSource != "" && src == "caller" {
		src = in.FilenameSource
	}
	rec := &records.AttachmentRecord{Filename: name, FilenameSource: src, MIME: in.MIME, Size: in.Size, Hash: in.Hash,
		Width: in.Width, Height: in.Height, UploadedBy: w.actor, CreatedAt: records.Tstamp(w.now)}
	if w.replica && !in.CreatedAt.IsZero() {
		rec.CreatedAt = records.Tstamp(in.CreatedAt)
	}
	if in.UploadedBy.Kind != "" {
		rec.UploadedBy = in.UploadedBy
	}
	collID := ""
	if it != nil {
		rec.ItemID, collID = it.ID, c.ID
		if err := byItem.Put(records.Cat(records.MustID(it.ID), k), nil); err != nil {
			return nil, err
		}
	}
	if err := putAttachment(rows, k, rec); err != nil {
		return nil, err
	}
	a := rec.View(id, w.ws.ID)
	if it != nil {
		a.ItemRef, a.ItemTitle, a.CollectionSlug = records.RefOf(c, it.Number), it.Title, c.Slug
	}
	return &a, w.attachmentLogged(model.OpCreated, "attachment_added", &a, collID)
}

// attachmentLogged stamps an attachment's change (with the item it is
// on, so the search index re-reads that item) and its feed entry.
func (w *wtx) attachmentLogged(op, action string, a *Attachment, collID string) error {
	seq, err := w.stamp(model.EntityAttachment, op, a.ID, a.ItemID, collID)
	if err != nil {
		return err
	}
	meta := map[string]any{"seq": seq, "attachment_id": a.ID, "filename": a.Filename}
	if a.ItemRef != "" {
		meta["ref"] = a.ItemRef
	}
	return w.activity(seq, a.ItemID, action, meta)
}

// AttachmentUsage is what a workspace's attachments take (WS-07): the
// size of every row, counted once per row as Pad counts it (identical
// content is one blob on disk but two rows here).
type AttachmentUsage struct {
	Bytes int64
	Count int
}

// AttachAttachment binds an unattached row to a live item (ATT-03). An
// attached row is refused with 409 conflict, whichever item it is on:
// attach is never a move.
func (s *Store) AttachAttachment(ws, id, itemRef string, actor model.Actor) (*Attachment, error) {
	var out *Attachment
	err := s.write(ws, actor, func(w *wtx) error {
		var err error
		out, err = w.attachAttachment(id, itemRef)
		return err
	})
	return out, err
}

func (w *wtx) attachAttachment(id, itemRef string) (*Attachment, error) {
	rows, byItem, err := records.AttBuckets(w.ws)
	if err != nil {
		return nil, err
	}
	rec, k, err := records.GetAttachmentRecord(rows, id)
	if err != nil {
		return nil, err
	}
	if rec.ItemID != "" {
		a := rec.View(id, w.ws.ID)
		_ = records.DecorateAttachment(w.ws, &a, map[string]*model.Collection{})
		return nil, model.Conflict("Attachment %s is already attached to %s; attach is never a move: upload it again for another item",
			id, cmp.Or(a.ItemRef, rec.ItemID)).With("attachment_id", id).With("item_ref", a.ItemRef)
	}
	it, c, err := w.annotatedItem(itemRef)
	if err != nil {
		return nil, err
	}
	rec.ItemID = it.ID
	if err := records.FirstErr(putAttachment(rows, k, rec), byItem.Put(records.Cat(records.MustID(it.ID), k), nil)); err != nil {
		return nil, err
	}
	a := rec.View(records.IDString(k), w.ws.ID)
	a.ItemRef, a.ItemTitle, a.CollectionSlug = records.RefOf(c, it.Number), it.Title, c.Slug
	return &a, w.attachmentLogged(model.OpUpdated, "attachment_attached", &a, c.ID)
}

// DeleteAttachment removes a row. Its blob stays until the start-up
// sweep finds no row naming it.
func (s *Store) DeleteAttachment(ws, id string, actor model.Actor) (*Attachment, error) {
	var out *Attachment
	err := s.write(ws, actor, func(w *wtx) error {
		var err error
		out, err = w.deleteAttachment(id)
		return err
	})
	return out, err
}

func (w *wtx) deleteAttachment(id string) (*Attachment, error) {
	rows, byItem, err := records.AttBuckets(w.ws)
	if err != nil {
		return nil, err
	}
	rec, k, err := records.GetAttachmentRecord(rows, id)
	if err != nil {
		return nil, err
	}
	a := rec.View(records.IDString(k), w.ws.ID)
	if err := records.DecorateAttachment(w.ws, &a, map[string]*model.Collection{}); err != nil {
		return nil, err
	}
	collID := ""
	if rec.ItemID != "" {
		if err := byItem.Delete(records.Cat(records.MustID(rec.ItemID), k)); err != nil {
			return nil, err
		}
		if it, _ := records.GetItem(w.ws, records.MustID(rec.ItemID), false); it != nil {
			collID = it.CollectionID
		}
	}
	if err := rows.Delete(k); err != nil {
		return nil, err
	}
	return &a, w.attachmentLogged(model.OpDeleted, "attachment_deleted", &a, collID)
}
