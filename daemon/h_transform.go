package daemon

import (
	"errors"
	"image"
	"io"
	"net/http"
	"path"
	"strings"

	"github.com/padd/padd/api"
	"github.com/padd/padd/blobstore"
	"github.com/padd/padd/images"
	"github.com/padd/padd/model"
	"github.com/padd/padd/storage"
)

// transformAttachment is Pad's POST .../attachments/{id}/transform
// (docs/ATTACHMENTS.md): rotate an image by 90, 180 or 270 degrees
// clockwise, or crop it to a rectangle of its pixels. The result is a new
// attachment on the same item (the original stays), stored as an upload
// is: a content-addressed blob, durable before its row. The request is
// checked, then the image's header (its pixel count against
// images.MaxPixels), before a pixel is decoded.
func (s *Server) transformAttachment(w http.ResponseWriter, r *http.Request) error {
	ws, id := r.PathValue("ws"), r.PathValue("id")
	var req api.TransformRequest
	if err := decodeBody(r, &req); err != nil {
		return err
	}
	if err := checkTransform(&req); err != nil {
		return err
	}
	a, err := s.views.GetAttachment(ws, id)
	if err != nil {
		return err
	}
	if a.ItemID != "" && a.ItemArchived {
		return model.Errorf(model.CodeArchived, "Item %s is archived; restore it first (item restore) to transform its attachments", a.ItemRef).
			With("ref", a.ItemRef)
	}
	blobs, err := s.blobs()
	if err != nil {
		return err
	}
	f, err := blobs.Open(a.Hash)
	if err != nil {
		return api.Errorf(api.CodeServerError, "attachment %s's bytes are missing from padd's blob directory (%v); upload it again", a.ID, err)
	}
	defer f.Close()
	hdr, err := images.ReadHeader(f)
	cfg, format := hdr.Config, hdr.Format
	if err != nil || !hdr.Workable() {
		return api.Errorf(api.CodeUnsupportedFormat, "attachment %s (%s) is not an image padd can transform: PNG, JPEG and GIF are", a.ID, a.MIME).
			With("mime", a.MIME)
	}
	if err := checkPixels(hdr); err != nil {
		return err
	}
	bounds := image.Rect(0, 0, cfg.Width, cfg.Height)
	if req.Operation == api.TransformCrop {
		rect := image.Rect(req.Rect.X, req.Rect.Y, req.Rect.X+req.Rect.W, req.Rect.Y+req.Rect.H)
		if rect.Intersect(bounds).Empty() {
			return api.Errorf(api.CodeBadTransform, "crop: the rectangle %d,%d %dx%d lies outside the %dx%d image", req.Rect.X, req.Rect.Y, req.Rect.W, req.Rect.H, cfg.Width, cfg.Height).
				With("field", "rect")
		}
	}

	release, err := images.Acquire(r.Context())
	if err != nil {
		return err
	}
	defer release()
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return storageFault(err)
	}
	src, err := images.Decode(f)
	if err != nil {
		return api.Errorf(api.CodeUnsupportedFormat, "attachment %s's %s image cannot be decoded: %v", a.ID, format, err).With("mime", a.MIME)
	}
	var out image.Image
	if req.Operation == api.TransformRotate {
		out = images.Rotate(src, req.Degrees)
	} else {
		out = images.Crop(src, image.Rect(req.Rect.X, req.Rect.Y, req.Rect.X+req.Rect.W, req.Rect.Y+req.Rect.H))
	}
	src = nil
	outFmt, outMIME, ext := images.OutputFormat(format)
	st, err := s.stageImage(blobs, out, outFmt)
	if err != nil {
		return err
	}
	defer st.Discard()
	hash, size := st.Hash, st.Size
	if _, err := st.Commit(); err != nil {
		return storageFault(err)
	}
	wd, ht := out.Bounds().Dx(), out.Bounds().Dy()
	na, err := s.store.CreateAttachment(ws, storage.NewAttachment{ItemRef: a.ItemID, Filename: derivedName(a.Filename, req.Operation, ext),
		FilenameSource: "derived", MIME: outMIME, Size: size, Hash: hash, Width: wd, Height: ht, UploadedBy: a.UploadedBy}, actor(r))
	if err != nil {
		return err // the blob, if new, is an orphan the sweep takes
	}
	resp := api.AttachmentUpload{ID: na.ID, URL: api.AttachmentPath(ws, na.ID), MIME: na.MIME, Size: na.Size, Filename: na.Filename,
		Category: storage.AttachmentCategory(na.MIME), RenderMode: renderMode(na.MIME), ItemRef: na.ItemRef, ContentHash: na.Hash,
		Width: &wd, Height: &ht}
	writeJSON(w, http.StatusCreated, resp)
	return nil
}

// checkTransform refuses an operation Pad refuses, before any byte of
// the image is read.
func checkTransform(req *api.TransformRequest) error {
	switch req.Operation {
	case api.TransformRotate:
		switch req.Degrees {
		case 90, 180, 270:
			return nil
		}
		return api.Errorf(api.CodeBadTransform, "rotate: degrees must be 90, 180 or 270 (clockwise; 270 turns left), not %d", req.Degrees).
			With("field", "degrees")
	case api.TransformCrop:
		switch r := req.Rect; {
		case r == nil:
			return api.Errorf(api.CodeBadTransform, "crop: rect {x, y, w, h} is required").With("field", "rect")
		case r.W <= 0 || r.H <= 0:
			return api.Errorf(api.CodeBadTransform, "crop: the rectangle's w and h must be positive (got %dx%d)", r.W, r.H).With("field", "rect")
		case r.X < 0 || r.Y < 0:
			return api.Errorf(api.CodeBadTransform, "crop: the rectangle's x and y must not be negative (got %d,%d)", r.X, r.Y).With("field", "rect")
		case r.X > images.MaxPixels || r.Y > images.MaxPixels || r.W > images.MaxPixels || r.H > images.MaxPixels:
			return api.Errorf(api.CodeBadTransform, "crop: the rectangle lies outside any image padd transforms").With("field", "rect")
		}
		return nil
	}
	return api.Errorf(api.CodeBadTransform, "operation must be one of: rotate, crop (got %q)", model.Excerpt(req.Operation)).With("field", "operation")
}

// checkPixels refuses an image over images' caps with Pad's code, before
// it is decoded.
func checkPixels(h images.Header) error {
	var tl *images.TooLarge
	if err := images.Check(h); !errors.As(err, &tl) {
		return err
	}
	e := api.Errorf(api.CodeImageTooLarge, "%s", tl.Error()).With("width", tl.Width).With("height", tl.Height)
	if tl.Reason == "pixels" {
		return e.With("limit_pixels", images.MaxPixels)
	}
	return e.With("limit_bytes", images.MaxBytes).With("reason", tl.Reason)
}

// errImageStopped stops an encoder whose output is no longer read.
var errImageStopped = errors.New("image output no longer read")

// stageImage encodes m straight into a staged blob (never whole in
// memory), under the upload cap.
func (s *Server) stageImage(blobs *blobstore.Store, m image.Image, format string) (*blobstore.Staged, error) {
	pr, pw := io.Pipe()
	done := make(chan struct{})
	go func() {
		defer close(done)
		pw.CloseWithError(images.Encode(pw, m, format))
	}()
	st, err := blobs.Stage(pr, s.attachMax())
	pr.CloseWithError(errImageStopped)
	<-done
	switch {
	case errors.Is(err, blobstore.ErrTooLarge):
		return nil, api.Errorf(api.CodeTooLarge, "the worked image is over %d bytes, the most an attachment may be", s.attachMax()).
			With("reason", "transform_result").With("limit_bytes", s.attachMax())
	case err != nil:
		if storage.IsNoSpace(err) {
			return nil, storageFault(err)
		}
		return nil, api.Errorf(api.CodeServerError, "padd could not write the worked image: %v", err)
	}
	return st, nil
}

// derivedName is the name of an image made from another: the original's
// without its extension, what made it (a transform's operation, as Pad
// names it, or a thumbnail's variant), and the new format's extension
// ("shot.rotate.png", "shot.thumb-md.jpg").
func derivedName(orig, op, ext string) string {
	base := strings.TrimSuffix(orig, path.Ext(orig))
	if base == "" {
		base = "attachment"
	}
	return base + "." + op + ext
}
