package daemon

import (
	"errors"
	"io"
	"net/http"
	"strings"

	"github.com/padd/padd/api"
	"github.com/padd/padd/blobstore"
	"github.com/padd/padd/images"
	"github.com/padd/padd/storage"
)

// Thumbnails (docs/ATTACHMENTS.md): Pad's variants thumb-sm and thumb-md,
// asked for as ?variant= on the download. padd makes one on the first
// request, under the same caps as a transform, and keeps it as a file
// derived from the original's blob (blobstore's derived files, swept with
// their blob), so the next request, from any row naming the same bytes,
// reads it. An attachment that has no thumbnail (not an image padd reads,
// over the caps, already small enough) answers with the original, as
// Pad's download does when no variant row exists.

// thumbnailEdge is each variant's longer edge in pixels (Pad's).
var thumbnailEdge = map[string]int{api.VariantThumbSm: 256, api.VariantThumbMd: 1024}

// variantHeader names what a download sent: "original" or the variant.
const variantHeader = "X-Pad-Attachment-Variant"

// checkVariant refuses a variant Pad does not know.
func checkVariant(v string) error {
	if _, ok := thumbnailEdge[v]; ok || v == "" || v == api.VariantOriginal {
		return nil
	}
	return api.Errorf(api.CodeBadVariant, "unknown variant %q; padd serves thumb-sm, thumb-md and original", truncateVariant(v)).
		With("field", "variant")
}

func truncateVariant(v string) string {
	if len(v) > 40 {
		return v[:40] + "..."
	}
	return v
}

// serveThumbnail sends a's variant, made now if it is not kept yet; false
// when a has no such thumbnail and the original is to be sent instead.
func (s *Server) serveThumbnail(w http.ResponseWriter, r *http.Request, blobs *blobstore.Store, a *storage.Attachment, variant string) (bool, error) {
	edge, ok := thumbnailEdge[variant]
	if !ok {
		return false, nil
	}
	_, mimeType, ext := images.OutputFormat(strings.TrimPrefix(baseMIME(a.MIME), "image/"))
	f, err := blobs.OpenDerived(a.Hash, variant)
	if errors.Is(err, blobstore.ErrNotFound) {
		made, merr := s.makeThumbnail(r, blobs, a, variant, edge)
		if merr != nil && r.Context().Err() != nil {
			return false, merr // the client went away while it waited
		}
		if merr != nil || !made {
			if merr != nil {
				s.log.Warn("thumbnail not made; the original is sent", "attachment_id", a.ID, "variant", variant, "err", merr)
			}
			return false, nil
		}
		f, err = blobs.OpenDerived(a.Hash, variant)
	}
	if err != nil {
		return false, nil
	}
	defer f.Close()
	h := w.Header()
	h.Set("Content-Type", mimeType)
	h.Set("Content-Disposition", contentDisposition("inline", derivedName(a.Filename, variant, ext)))
	h.Set("ETag", `"`+a.Hash+"."+variant+`"`)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", "default-src 'none'; sandbox")
	h.Set("Cache-Control", "private, max-age=3600")
	h.Set("X-Pad-Attachment-Id", a.ID)
	h.Set(variantHeader, variant)
	http.ServeContent(w, r, "", a.CreatedAt, f)
	return true, nil
}

// makeThumbnail derives a's variant, its longer edge edge pixels, and
// keeps it; false (and no error) when a has none: not a PNG, JPEG or GIF,
// over the caps, undecodable, or no larger than the variant already.
func (s *Server) makeThumbnail(r *http.Request, blobs *blobstore.Store, a *storage.Attachment, variant string, edge int) (bool, error) {
	src, err := blobs.Open(a.Hash)
	if err != nil {
		return false, err
	}
	defer src.Close()
	hdr, err := images.ReadHeader(src)
	cfg, format := hdr.Config, hdr.Format
	if err != nil || !hdr.Workable() || checkPixels(hdr) != nil {
		return false, nil
	}
	if cfg.Width <= edge && cfg.Height <= edge {
		return false, nil
	}
	release, err := images.Acquire(r.Context())
	if err != nil {
		return false, err
	}
	defer release()
	// Another request may have made it while this one waited.
	if f, err := blobs.OpenDerived(a.Hash, variant); err == nil {
		f.Close()
		return true, nil
	}
	if _, err := src.Seek(0, io.SeekStart); err != nil {
		return false, err
	}
	m, err := images.Decode(src)
	if err != nil {
		return false, nil
	}
	dw, dh := images.FitSize(cfg.Width, cfg.Height, edge)
	small := images.Shrink(m, dw, dh)
	m = nil
	outFmt, _, _ := images.OutputFormat(format)
	st, err := s.stageImage(blobs, small, outFmt)
	if err != nil {
		return false, err
	}
	defer st.Discard()
	if err := st.CommitDerived(a.Hash, variant); err != nil {
		return false, err
	}
	return true, nil
}
