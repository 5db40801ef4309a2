package daemon

import (
	"errors"
	"io"
	"log/slog"
	"mime"
	"mime/multipart"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/padd/padd/api"
	"github.com/padd/padd/blobstore"
	"github.com/padd/padd/images"
	"github.com/padd/padd/model"
	"github.com/padd/padd/storage"
	"github.com/padd/padd/storage/views"
)

// Attachments (docs/ATTACHMENTS.md): the bytes are blobs in BlobDir
// beside the database, the rows are storage's. An upload streams the body
// to a staged blob (hashed on the way), commits the blob (synced, renamed,
// directory synced) and only then writes the row: a crash between the two
// leaves an orphan blob for the start-up sweep, never a row without bytes.

// BlobDir is the blob directory's name in the data directory.
const BlobDir = blobstore.DirName

// OrphanGrace is how old an unnamed blob must be before the start-up
// sweep removes it: older than any upload still on its way to its row.
const OrphanGrace = time.Hour

// attachState is the server's blob store, opened on first use beside the
// database, and its upload cap.
type attachState struct {
	once  sync.Once
	blobs *blobstore.Store
	err   error
	// max is the largest upload (0: api.MaxAttachmentBytes); tests lower it.
	max int64
}

func (s *Server) blobs() (*blobstore.Store, error) {
	s.att.once.Do(func() {
		s.att.blobs, s.att.err = blobstore.Open(filepath.Join(filepath.Dir(s.store.Path()), BlobDir))
	})
	if s.att.err != nil {
		return nil, api.Errorf(api.CodeServerError, "padd cannot open its attachment directory: %v", s.att.err)
	}
	return s.att.blobs, nil
}

func (s *Server) attachMax() int64 {
	if s.att.max > 0 {
		return s.att.max
	}
	return api.MaxAttachmentBytes
}

// SweepOrphanBlobs removes the blobs no attachment row names (and
// temporary files a stopped upload left) once older than OrphanGrace.
// padd runs it at start-up, before it serves.
func SweepOrphanBlobs(dataDir string, store *storage.Store, log *slog.Logger) {
	blobs, err := blobstore.Open(filepath.Join(dataDir, BlobDir))
	if err != nil {
		log.Warn("attachment sweep skipped: cannot open the blob directory", "err", err)
		return
	}
	named, err := views.Of(store).AttachmentHashes()
	if err != nil {
		log.Warn("attachment sweep skipped: cannot read the attachment rows", "err", err)
		return
	}
	res, err := blobs.Sweep(OrphanGrace, func(h string) bool { return named[h] })
	if err != nil {
		log.Warn("attachment sweep stopped part way", "err", err)
	}
	if res.Orphans > 0 || res.Temps > 0 || res.Derived > 0 {
		log.Info("attachment sweep removed unnamed blobs", "blobs", res.Orphans, "thumbnails", res.Derived, "bytes", res.Bytes, "temporary_files", res.Temps)
	}
}

func (s *Server) attachmentRoutes() {
	s.handle("GET /api/v1/workspaces/{ws}/attachments", s.listAttachments)
	s.handle("POST /api/v1/workspaces/{ws}/attachments", s.uploadAttachment)
	s.handle("GET /api/v1/workspaces/{ws}/attachments/{id}", s.downloadAttachment) // HEAD too
	s.handle("DELETE /api/v1/workspaces/{ws}/attachments/{id}", s.deleteAttachment)
	s.handle("POST /api/v1/workspaces/{ws}/attachments/{id}/attach", s.attachAttachment)
	s.handle("POST /api/v1/workspaces/{ws}/attachments/{id}/transform", s.transformAttachment)
	s.handle("GET /api/v1/workspaces/{ws}/storage/usage", s.storageUsage)
}

// storageUsage answers what the workspace's attachments take, as Pad's
// does for an owner with no plan limit (WS-07).
func (s *Server) storageUsage(w http.ResponseWriter, r *http.Request) error {
	u, err := s.views.AttachmentUsage(r.PathValue("ws"))
	if err != nil {
		return err
	}
	writeJSON(w, 200, api.StorageUsage{UsedBytes: u.Bytes, LimitBytes: -1, Attachments: u.Count})
	return nil
}

// wireAttachment is a row as sent.
func wireAttachment(ws string, a *storage.Attachment) api.Attachment {
	out := api.Attachment{ID: a.ID, WorkspaceID: a.WorkspaceID, UploadedBy: actorName(a.UploadedBy), ContentHash: a.Hash,
		MimeType: a.MIME, SizeBytes: a.Size, Filename: a.Filename, FilenameSource: a.FilenameSource,
		CreatedAt: a.CreatedAt.UTC().Format(time.RFC3339), Imported: a.Imported, ItemRef: a.ItemRef,
		Category: storage.AttachmentCategory(a.MIME), URL: api.AttachmentPath(ws, a.ID)}
	if a.ItemID != "" {
		out.ItemID = &a.ItemID
		out.ItemDeleted = a.ItemArchived
		if a.ItemRef != "" {
			title, ref, coll := a.ItemTitle, a.ItemRef, a.CollectionSlug
			out.ItemTitle, out.ItemSlug, out.CollectionSlug = &title, &ref, &coll
		}
	}
	if a.Width > 0 && a.Height > 0 {
		wd, ht := a.Width, a.Height
		out.Width, out.Height = &wd, &ht
	}
	return out
}

// actorName is who uploaded: an agent's name, else the actor's kind.
func actorName(a model.Actor) string {
	if a.Name != "" {
		return a.Name
	}
	return a.Kind
}

func (s *Server) listAttachments(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	f := storage.AttachmentFilter{ItemRef: strings.TrimSpace(q.Get("item_id")), Category: strings.ToLower(strings.TrimSpace(q.Get("category"))),
		Collection: strings.TrimSpace(q.Get("collection")), Sort: strings.ToLower(strings.TrimSpace(q.Get("sort")))}
	switch v := strings.ToLower(strings.TrimSpace(q.Get("item"))); v {
	case "attached":
		f.Attached = true
	case "unattached":
		f.Unattached = true
	case "":
	default:
		if f.ItemRef == "" { // padd also takes ?item=<ref>
			f.ItemRef = q.Get("item")
		}
	}
	var err error
	if f.Limit, f.Offset, err = pageParams(r, storage.DefaultAttachmentPage, storage.MaxAttachmentPage); err != nil {
		return err
	}
	page, err := s.views.ListAttachments(r.PathValue("ws"), f)
	if err != nil {
		return err
	}
	out := api.AttachmentList{Attachments: make([]api.Attachment, 0, len(page.Attachments)), Total: page.Total, Limit: page.Limit, Offset: page.Offset}
	for i := range page.Attachments {
		out.Attachments = append(out.Attachments, wireAttachment(r.PathValue("ws"), &page.Attachments[i]))
	}
	writeJSON(w, 200, out)
	return nil
}

// attachmentTooLarge is the 413 of an upload over the cap.
func (s *Server) attachmentTooLarge() error {
	return api.Errorf(api.CodeTooLarge, "an attachment is at most %d bytes (%d MiB); this one is larger", s.attachMax(), s.attachMax()>>20).
		With("reason", "attachment").With("limit_bytes", s.attachMax())
}

// uploadAttachment takes the file as Pad does, multipart/form-data with a
// "file" part (and an optional "item_id" part), or as padd's raw body
// (any other Content-Type) with ?filename=. ?item_id= (a ref, slug or id)
// attaches it; without one it is unattached. The body is streamed to the
// blob, never held whole.
func (s *Server) uploadAttachment(w http.ResponseWriter, r *http.Request) error {
	ws, q := r.PathValue("ws"), r.URL.Query()
	blobs, err := s.blobs()
	if err != nil {
		return err
	}
	max := s.attachMax()
	if r.ContentLength > max+64<<10 { // the multipart envelope's room
		return s.attachmentTooLarge()
	}
	itemRef := strings.TrimSpace(q.Get("item_id"))
	// Refuse a missing workspace or item before a byte is stored.
	if itemRef != "" {
		v, err := s.views.GetItem(ws, itemRef)
		if err != nil {
			return err
		}
		if v.DeletedAt != nil || (v.Collection != nil && v.Collection.ArchivedAt != nil) {
			return model.Errorf(model.CodeArchived, "Item %s is archived; restore it first (item restore) to attach files to it", v.Ref).With("ref", v.Ref)
		}
	} else if _, err := s.views.GetWorkspace(ws); err != nil {
		return err
	}
	body := &importBody{r: r.Body, rc: http.NewResponseController(w)}
	var st *blobstore.Staged
	defer func() {
		if st != nil {
			st.Discard()
		}
	}()
	filename := q.Get("filename")
	stage := func(rd io.Reader) error {
		var err error
		st, err = blobs.Stage(rd, max)
		switch {
		case body.err != nil:
			return api.Errorf(api.CodeImportInterrupted, "the upload's body stopped arriving (%v); nothing was stored, send it again", body.err).
				With("reason", "body")
		case errors.Is(err, blobstore.ErrTooLarge):
			return s.attachmentTooLarge()
		case err != nil:
			return storageFault(err)
		}
		return nil
	}
	mt, params, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if mt == "multipart/form-data" {
		if params["boundary"] == "" {
			return model.BadRequest("a multipart upload needs a boundary in its Content-Type")
		}
		mr := multipart.NewReader(body, params["boundary"])
		for {
			part, err := mr.NextPart()
			if err == io.EOF {
				break
			}
			if err != nil {
				if body.err != nil {
					return api.Errorf(api.CodeImportInterrupted, "the upload's body stopped arriving (%v); nothing was stored, send it again", body.err)
				}
				return model.BadRequest("the multipart body is malformed: %v", err)
			}
			switch part.FormName() {
			case "file":
				if st != nil {
					return model.BadRequest("an upload carries one \"file\" part; this one has more")
				}
				if fn := part.FileName(); fn != "" && filename == "" {
					filename = fn
				}
				if err := stage(part); err != nil {
					return err
				}
			case "item_id":
				v, err := io.ReadAll(io.LimitReader(part, 1<<10))
				if err != nil {
					return model.BadRequest("the multipart body is malformed: %v", err)
				}
				if ref := strings.TrimSpace(string(v)); ref != "" {
					if itemRef != "" && itemRef != ref {
						return model.BadRequest("item_id is given twice with different values (%q and %q)", itemRef, ref).With("reason", "item_id_conflict")
					}
					itemRef = ref
				}
			default:
				if _, err := io.Copy(io.Discard, io.LimitReader(part, 64<<10)); err != nil {
					return model.BadRequest("the multipart body is malformed: %v", err)
				}
			}
		}
		if st == nil {
			return model.Invalid("the multipart upload has no \"file\" part").With("field", "file")
		}
	} else {
		if filename == "" {
			if _, p, err := mime.ParseMediaType(r.Header.Get("Content-Disposition")); err == nil {
				filename = p["filename"]
			}
		}
		if err := stage(body); err != nil {
			return err
		}
	}
	sniffed := http.DetectContentType(st.Head)
	hash, size := st.Hash, st.Size
	if _, err := st.Commit(); err != nil {
		return storageFault(err)
	}
	wd, ht := imageSize(blobs, sniffed, hash)
	a, err := s.store.CreateAttachment(ws, storage.NewAttachment{ItemRef: itemRef, Filename: filename, MIME: sniffed,
		Size: size, Hash: hash, Width: wd, Height: ht}, actor(r))
	if err != nil {
		return err // the blob, if new, is an orphan the sweep takes
	}
	out := api.AttachmentUpload{ID: a.ID, URL: api.AttachmentPath(ws, a.ID), MIME: a.MIME, Size: a.Size, Filename: a.Filename,
		Category: storage.AttachmentCategory(a.MIME), RenderMode: renderMode(a.MIME), ItemRef: a.ItemRef, ContentHash: a.Hash}
	if a.Width > 0 && a.Height > 0 {
		out.Width, out.Height = &a.Width, &a.Height
	}
	writeJSON(w, http.StatusCreated, out)
	return nil
}

// storageFault is a failure to write a blob: a full disk is 507, the
// rest a server error.
func storageFault(err error) error {
	if storage.IsNoSpace(err) {
		return api.Errorf(api.CodeInsufficientStorage, "the disk holding padd's attachments is full: free some space and upload again (%v)", err)
	}
	return api.Errorf(api.CodeServerError, "padd could not store the attachment: %v", err)
}

// imageSize reads an image's width and height from its header (0, 0 when
// it is not an image or its header is not readable).
func imageSize(blobs *blobstore.Store, mimeType, hash string) (int, int) {
	if !strings.HasPrefix(mimeType, "image/") {
		return 0, 0
	}
	f, err := blobs.Open(hash)
	if err != nil {
		return 0, 0
	}
	defer f.Close()
	w, h, _ := images.Size(f)
	return w, h
}

// inlineSafe are the types a browser may show in place: passive media,
// PDF and plain text. Anything else is sent as a download, and with
// nosniff, so an uploaded page or script never runs as padd's origin.
var inlineSafe = map[string]bool{"image/png": true, "image/jpeg": true, "image/gif": true, "image/webp": true, "image/bmp": true,
	"application/pdf": true, "text/plain": true, "audio/mpeg": true, "audio/wave": true, "audio/wav": true, "audio/ogg": true,
	"video/mp4": true, "video/webm": true, "video/ogg": true, "audio/aiff": true, "audio/midi": true, "video/avi": true}

func baseMIME(t string) string {
	mt, _, _ := strings.Cut(t, ";")
	return strings.TrimSpace(strings.ToLower(mt))
}

func renderMode(t string) string {
	switch {
	case strings.HasPrefix(baseMIME(t), "image/") && inlineSafe[baseMIME(t)]:
		return "inline"
	case inlineSafe[baseMIME(t)]:
		return "chip"
	}
	return "download"
}

// downloadAttachment sends the bytes (GET) or only the headers (HEAD),
// of the original or of the thumbnail ?variant= names (h_thumbnail.go),
// with ETag (the content hash), Last-Modified (the upload), a type and
// disposition that never let the content run, Range and conditional
// requests (http.ServeContent).
func (s *Server) downloadAttachment(w http.ResponseWriter, r *http.Request) error {
	variant := r.URL.Query().Get("variant")
	if err := checkVariant(variant); err != nil {
		return err
	}
	a, err := s.views.GetAttachment(r.PathValue("ws"), r.PathValue("id"))
	if err != nil {
		return err
	}
	blobs, err := s.blobs()
	if err != nil {
		return err
	}
	if sent, err := s.serveThumbnail(w, r, blobs, a, variant); sent || err != nil {
		return err
	}
	f, err := blobs.Open(a.Hash)
	if err != nil {
		return api.Errorf(api.CodeServerError, "attachment %s's bytes are missing from padd's blob directory (%v); upload it again", a.ID, err)
	}
	defer f.Close()
	h := w.Header()
	ct, disposition := a.MIME, "attachment"
	if inlineSafe[baseMIME(ct)] {
		disposition = "inline"
	}
	if ct == "" {
		ct = "application/octet-stream"
	}
	h.Set("Content-Type", ct)
	h.Set("Content-Disposition", contentDisposition(disposition, a.Filename))
	h.Set("ETag", `"`+a.Hash+`"`)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", "default-src 'none'; sandbox")
	h.Set("Cache-Control", "private, max-age=3600")
	h.Set("X-Pad-Attachment-Id", a.ID)
	h.Set(variantHeader, api.VariantOriginal)
	http.ServeContent(w, r, "", a.CreatedAt, f)
	return nil
}

// contentDisposition formats the header with the name quoted or, when
// it is not plain ASCII, in RFC 5987's filename* form beside an ASCII
// fallback: a name can never end the header or add one.
func contentDisposition(kind, name string) string {
	ascii := strings.Map(func(r rune) rune {
		if r < 0x20 || r > 0x7e || r == '"' || r == '\\' {
			return '_'
		}
		return r
	}, name)
	out := kind + `; filename="` + ascii + `"`
	if ascii != name {
		if v := mime.FormatMediaType(kind, map[string]string{"filename": name}); v != "" {
			if _, p, ok := strings.Cut(v, "; "); ok && strings.HasPrefix(p, "filename*=") {
				out += "; " + p
			}
		}
	}
	return out
}

func (s *Server) deleteAttachment(w http.ResponseWriter, r *http.Request) error {
	if _, err := s.store.DeleteAttachment(r.PathValue("ws"), r.PathValue("id"), actor(r)); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// attachAttachment binds an unattached upload to an item (ATT-03): 409
// when it is attached already (attach is never a move).
func (s *Server) attachAttachment(w http.ResponseWriter, r *http.Request) error {
	var in api.AttachRequest
	if err := decodeBody(r, &in); err != nil {
		return err
	}
	if strings.TrimSpace(in.Item) == "" {
		return model.Invalid("item is required: the ref, slug or id of the item to attach to").With("field", "item")
	}
	a, err := s.store.AttachAttachment(r.PathValue("ws"), r.PathValue("id"), strings.TrimSpace(in.Item), actor(r))
	if err != nil {
		return err
	}
	writeJSON(w, 200, wireAttachment(r.PathValue("ws"), a))
	return nil
}
