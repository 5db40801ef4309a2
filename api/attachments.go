package api

// Attachments (pad-inventory §1.13, ATT-01..04): files people and agents
// attach to items, stored by padd as content-addressed blobs
// (docs/ATTACHMENTS.md).

// MaxAttachmentBytes is the largest upload padd takes (Pad's default
// cap); more is refused 413 too_large with details.reason "attachment".
const MaxAttachmentBytes = 25 << 20

// MaxAttachmentResourceBytes is the largest image the MCP attachment
// resource hands an agent, before base64 (Pad's cap).
const MaxAttachmentResourceBytes = 1 << 20

// Attachment is one row of GET /workspaces/{ws}/attachments (Pad's row,
// with its item's title, slug and collection).
type Attachment struct {
	ID          string `json:"id"`
	WorkspaceID string `json:"workspace_id"`
	// ItemID is null for an unattached upload.
	ItemID      *string `json:"item_id,omitempty"`
	UploadedBy  string  `json:"uploaded_by"`
	ContentHash string  `json:"content_hash"`
	MimeType    string  `json:"mime_type"`
	SizeBytes   int64   `json:"size_bytes"`
	Filename    string  `json:"filename"`
	// FilenameSource is caller, normalised or substituted (ATT-01).
	FilenameSource string  `json:"filename_source,omitempty"`
	Width          *int    `json:"width,omitempty"`
	Height         *int    `json:"height,omitempty"`
	CreatedAt      string  `json:"created_at"`
	Imported       bool    `json:"imported,omitempty"`
	ItemTitle      *string `json:"item_title,omitempty"`
	ItemSlug       *string `json:"item_slug,omitempty"`
	ItemDeleted    bool    `json:"item_deleted,omitempty"`
	CollectionSlug *string `json:"collection_slug,omitempty"`
	// padd's: the item's ref, the MIME's category and the download path.
	ItemRef  string `json:"item_ref,omitempty"`
	Category string `json:"category"`
	URL      string `json:"url"`
}

// AttachmentList answers GET /workspaces/{ws}/attachments.
type AttachmentList struct {
	Attachments []Attachment `json:"attachments"`
	Total       int          `json:"total"`
	Limit       int          `json:"limit"`
	Offset      int          `json:"offset"`
}

// StorageUsage answers GET /workspaces/{ws}/storage/usage (WS-07):
// Pad's members, of which a padd has no plan, no limit (-1) and no
// override, and padd's count of the attachments summed.
type StorageUsage struct {
	UsedBytes      int64  `json:"used_bytes"`
	LimitBytes     int64  `json:"limit_bytes"` // -1: unlimited
	Plan           string `json:"plan"`
	OverrideActive bool   `json:"override_active"`
	Attachments    int    `json:"attachments"` // padd: how many rows used_bytes sums
}

// AttachmentUpload answers POST /workspaces/{ws}/attachments (201): Pad's
// upload reply, and padd's item ref and hash.
type AttachmentUpload struct {
	ID         string `json:"id"`
	URL        string `json:"url"`
	MIME       string `json:"mime"`
	Size       int64  `json:"size"`
	Width      *int   `json:"width"`
	Height     *int   `json:"height"`
	Filename   string `json:"filename"`
	Category   string `json:"category"`
	RenderMode string `json:"render_mode"`
	// padd's.
	ItemRef     string `json:"item_ref,omitempty"`
	ContentHash string `json:"content_hash"`
}

// AttachRequest is the body of POST /workspaces/{ws}/attachments/{id}/attach:
// the item (ref, slug or id) to bind an unattached upload to (ATT-03).
type AttachRequest struct {
	Item string `json:"item"`
}

// AttachmentMeta is what a HEAD of an attachment tells (ATT-01 show):
// padctl attachment show and pad_attachment show answer it.
type AttachmentMeta struct {
	ID           string `json:"id"`
	MIME         string `json:"mime"`
	Size         int64  `json:"size"`
	Filename     string `json:"filename,omitempty"`
	ETag         string `json:"etag,omitempty"`
	LastModified string `json:"last_modified,omitempty"`
	// Variant is what a download sent: "original" or a thumbnail (padd's
	// X-Pad-Attachment-Variant); not part of the shown metadata.
	Variant string `json:"-"`
}

// AttachmentPath is the download path of an attachment.
func AttachmentPath(ws, id string) string {
	return "/api/v1" + wsPath(ws) + "/attachments/" + PathEscape(id)
}

// Transform operations (Pad's).
const (
	TransformRotate = "rotate"
	TransformCrop   = "crop"
)

// TransformRequest is the body of POST .../attachments/{id}/transform:
// rotate by Degrees (90, 180 or 270, clockwise) or crop to Rect.
type TransformRequest struct {
	Operation string         `json:"operation"`
	Degrees   int            `json:"degrees,omitempty"`
	Rect      *TransformRect `json:"rect,omitempty"`
}

// TransformRect is a crop in the original's pixels, origin top left.
type TransformRect struct {
	X int `json:"x"`
	Y int `json:"y"`
	W int `json:"w"`
	H int `json:"h"`
}

// Variants a download takes as ?variant= (Pad's): the original, or a
// thumbnail whose longer edge is 256 (thumb-sm) or 1024 (thumb-md)
// pixels. An attachment with no thumbnail answers with the original; the
// header X-Pad-Attachment-Variant (padd's) says which was sent.
const (
	VariantOriginal = "original"
	VariantThumbSm  = "thumb-sm"
	VariantThumbMd  = "thumb-md"
)
