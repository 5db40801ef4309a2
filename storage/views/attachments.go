package views

import (
	"github.com/padd/padd/storage"
	"github.com/padd/padd/storage/internal/records"
)

// GetAttachment reads one row.
func (s *Views) GetAttachment(ws, id string) (*storage.Attachment, error) {
	return records.ReadAttachment(s.base, ws, id)
}

// AttachmentHashes is the set of blob hashes some row of any workspace
// (archived ones too) names: what the sweep keeps.
func (s *Views) AttachmentHashes() (map[string]bool, error) {
	return records.ReadAttachmentHashes(s.base)
}

// AttachmentUsage sums the sizes of the workspace's attachment rows. It
// reads every row, as an attachment list does, and no item.
func (s *Views) AttachmentUsage(ws string) (*storage.AttachmentUsage, error) {
	out := &storage.AttachmentUsage{}
	err := s.base.Read(ws, func(r *records.Rtx) error {
		rows, _, _ := records.AttBuckets(r.WS)
		if rows == nil {
			return nil
		}
		return rows.ForEach(func(k, raw []byte) error {
			var rec records.AttachmentRecord
			if err := records.Decode(raw, &rec); err != nil {
				return records.ErrInternal("attachment %s unreadable: %v", records.IDString(k), err)
			}
			out.Bytes += rec.Size
			out.Count++
			return nil
		})
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// ListAttachments lists a workspace's attachments, filtered, sorted and
// paged (ATT-01). Total counts every row the filter selects.
func (s *Views) ListAttachments(ws string, f storage.AttachmentFilter) (*storage.AttachmentPage, error) {
	return records.ReadAttachments(s.base, ws, f)
}
