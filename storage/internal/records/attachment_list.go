package records

import (
	"cmp"
	"slices"
	"strings"

	"github.com/padd/padd/model"
)

// The attachment list (storage/views' ListAttachments) and an item's
// attachment names (its search document).

// Limits of an attachment list.
const (
	DefaultAttachmentPage = 50  // Pad's default page
	MaxAttachmentPage     = 200 // Pad's cap
)

// AttachmentFilter selects and pages an attachment list (ATT-01).
type AttachmentFilter struct {
	ItemRef    string // one item's attachments (ref, slug or id)
	Attached   bool   // only those on an item
	Unattached bool   // only those on none
	Category   string // image, video, audio, document, text, archive, other
	Collection string // items of one collection (slug or id)
	Sort       string // created_at[_desc] (default created_at_desc), size[_desc], filename[_desc]
	Limit      int
	Offset     int
}

// AttachmentPage is one page of an attachment list.
type AttachmentPage struct {
	Attachments   []Attachment
	Total         int
	Limit, Offset int
}

// AttachmentSorts are the sort orders an attachment list takes.
var AttachmentSorts = []string{"created_at", "created_at_desc", "size", "size_desc", "filename", "filename_desc"}

// AttachmentCategories are the categories an attachment list filters by.
var AttachmentCategories = []string{"image", "video", "audio", "document", "text", "archive", "other"}

// AttachmentCategory is the category of a MIME type (Pad's buckets).
func AttachmentCategory(mime string) string {
	mime, _, _ = strings.Cut(mime, ";")
	mime = strings.TrimSpace(strings.ToLower(mime))
	switch {
	case strings.HasPrefix(mime, "image/"):
		return "image"
	case strings.HasPrefix(mime, "video/"):
		return "video"
	case strings.HasPrefix(mime, "audio/"):
		return "audio"
	case strings.HasPrefix(mime, "text/"), mime == "application/json", mime == "application/xml":
		return "text"
	case mime == "application/pdf", strings.HasPrefix(mime, "application/vnd.openxmlformats"),
		strings.HasPrefix(mime, "application/vnd.ms-"), strings.HasPrefix(mime, "application/vnd.oasis.opendocument"),
		mime == "application/msword", mime == "application/rtf":
		return "document"
	case mime == "application/zip", mime == "application/x-gzip", mime == "application/gzip",
		mime == "application/x-tar", mime == "application/x-7z-compressed", mime == "application/x-rar-compressed",
		mime == "application/vnd.rar", mime == "application/x-bzip2", mime == "application/x-xz":
		return "archive"
	}
	return "other"
}

// ReadAttachments lists a workspace's attachments, filtered, sorted and
// paged (ATT-01). Total counts every row the filter selects.
func ReadAttachments(base *Base, ws string, f AttachmentFilter) (*AttachmentPage, error) {
	if f.Attached && f.Unattached {
		return nil, model.Invalid("attached and unattached are mutually exclusive; pass at most one").With("field", "attached")
	}
	if f.ItemRef != "" && f.Unattached {
		return nil, model.Invalid("item and unattached are mutually exclusive: item filters to one item's attachments").With("field", "unattached")
	}
	if f.Sort == "" {
		f.Sort = "created_at_desc"
	}
	if !slices.Contains(AttachmentSorts, f.Sort) {
		return nil, model.Invalid("sort %q is not one of %s", f.Sort, strings.Join(AttachmentSorts, ", ")).With("field", "sort")
	}
	if f.Category != "" && !slices.Contains(AttachmentCategories, f.Category) {
		return nil, model.Invalid("category %q is not one of %s", f.Category, strings.Join(AttachmentCategories, ", ")).With("field", "category")
	}
	if f.Limit <= 0 {
		f.Limit = DefaultAttachmentPage
	}
	f.Limit = min(f.Limit, MaxAttachmentPage)
	f.Offset = max(f.Offset, 0)
	out := &AttachmentPage{Attachments: []Attachment{}, Limit: f.Limit, Offset: f.Offset}
	err := base.Read(ws, func(r *Rtx) error {
		rows, byItem, _ := AttBuckets(r.WS)
		if rows == nil {
			if f.ItemRef != "" {
				_, err := ItemByRef(r.WS, f.ItemRef, false)
				return err
			}
			return nil
		}
		colls := map[string]*model.Collection{}
		var coll *model.Collection
		if f.Collection != "" {
			var err error
			if coll, err = FindCollection(r.WS, f.Collection); err != nil {
				return err
			}
		}
		var all []Attachment
		add := func(k, raw []byte) error {
			var rec AttachmentRecord
			if err := Decode(raw, &rec); err != nil {
				return ErrInternal("attachment %s unreadable: %v", IDString(k), err)
			}
			switch {
			case f.Attached && rec.ItemID == "", f.Unattached && rec.ItemID != "":
				return nil
			case f.Category != "" && AttachmentCategory(rec.MIME) != f.Category:
				return nil
			}
			a := rec.View(IDString(k), r.WS.ID)
			if err := DecorateAttachment(r.WS, &a, colls); err != nil {
				return err
			}
			if coll != nil && a.CollectionSlug != coll.Slug {
				return nil
			}
			all = append(all, a)
			return nil
		}
		if f.ItemRef != "" {
			it, err := ItemByRef(r.WS, f.ItemRef, false)
			if err != nil {
				return err
			}
			prefix := MustID(it.ID)
			c := byItem.Cursor()
			for k, _ := c.Seek(prefix); k != nil && len(k) == 32 && string(k[:16]) == string(prefix); k, _ = c.Next() {
				if raw := rows.Get(k[16:]); raw != nil {
					if err := add(k[16:], raw); err != nil {
						return err
					}
				}
			}
		} else if err := rows.ForEach(add); err != nil {
			return err
		}
		sortAttachments(all, f.Sort)
		out.Total = len(all)
		if f.Offset < len(all) {
			out.Attachments = all[f.Offset:min(len(all), f.Offset+f.Limit)]
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

func sortAttachments(all []Attachment, by string) {
	field, desc := strings.CutSuffix(by, "_desc")
	slices.SortStableFunc(all, func(a, b Attachment) int {
		var c int
		switch field {
		case "size":
			c = cmp.Compare(a.Size, b.Size)
		case "filename":
			c = cmp.Compare(strings.ToLower(a.Filename), strings.ToLower(b.Filename))
		default:
			c = a.CreatedAt.Compare(b.CreatedAt)
		}
		if c == 0 {
			c = cmp.Compare(a.ID, b.ID) // ids are time-ordered: creation order
		}
		if desc {
			c = -c
		}
		return c
	})
}

// ItemAttachmentNames are the filenames of an item's attachments, for
// its search document.
func ItemAttachmentNames(b *Wsb, itemID []byte) []string {
	rows, byItem := b.Root.Bucket(BAttachments), b.Root.Bucket(BAttItem)
	if rows == nil || byItem == nil {
		return nil
	}
	var out []string
	c := byItem.Cursor()
	for k, _ := c.Seek(itemID); k != nil && len(k) == 32 && string(k[:16]) == string(itemID); k, _ = c.Next() {
		var rec AttachmentRecord
		if raw := rows.Get(k[16:]); raw != nil && Decode(raw, &rec) == nil {
			out = append(out, rec.Filename)
		}
	}
	return out
}
