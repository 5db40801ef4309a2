package daemon

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/padd/padd/api"
	"github.com/padd/padd/blobstore"
	"github.com/padd/padd/bundle"
	"github.com/padd/padd/model"
	"github.com/padd/padd/storage"
)

// Workspace export in Pad's format (docs/BUNDLES.md); its routes, with
// those of import (h_import.go) and item artifacts (h_artifact.go).

func (s *Server) exportRoutes() {
	s.handle("GET /api/v1/workspaces/{ws}/export", s.exportWorkspace)
	s.handle("POST /api/v1/workspaces/import", s.importWorkspace)
	s.handle("GET /api/v1/workspaces/import-status", s.importStatus)
	s.handle("GET /api/v1/workspaces/{ws}/items/{ref}/export", s.exportArtifact)
	s.handle("POST /api/v1/workspaces/{ws}/import-artifact", s.importArtifact)
}

// MaxImportJSON bounds an import sent as the JSON export (Pad's 64 MiB).
const MaxImportJSON = 64 << 20

// importReadTimeout bounds each read of an import's body (Pad's 60 s):
// a client that stops sending is let go, however long the whole takes.
const importReadTimeout = 60 * time.Second

// exportWorkspace answers the JSON export, or with ?format=tar the
// bundle. The export is written to a file beside the database from one
// read transaction, then sent from it: memory stays flat however large
// the workspace, a slow client holds no transaction, and the bundle's
// tar header knows the JSON's size.
func (s *Server) exportWorkspace(w http.ResponseWriter, r *http.Request) error {
	format := r.URL.Query().Get("format")
	if format != "" && !strings.EqualFold(format, "tar") && !strings.EqualFold(format, "json") {
		return model.BadRequest("format must be json or tar, got %q", model.Excerpt(format)).With("param", "format")
	}
	dir := filepath.Dir(s.store.Path())
	sweepExportFiles(dir, time.Now().Add(-24*time.Hour))
	f, err := os.CreateTemp(dir, exportFilePattern)
	if err != nil {
		return err
	}
	defer func() { _ = f.Close(); _ = os.Remove(f.Name()) }()
	ew := newExportWriter(f, time.Now())
	if err := s.store.ExportWorkspace(r.PathValue("ws"), ew); err != nil {
		return err
	}
	if err := ew.finish(); err != nil {
		return err
	}
	size, err := f.Seek(0, io.SeekCurrent)
	if err != nil {
		return err
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	slug := ew.slug
	if !strings.EqualFold(format, "tar") {
		w.Header().Set("Content-Type", api.ExportContentType)
		w.Header().Set("Content-Disposition", fmt.Sprintf(`attachment; filename="%s-export.json"`, slug))
		w.Header().Set("Content-Length", fmt.Sprint(size))
		w.WriteHeader(200)
		_, err := io.Copy(w, f)
		return s.afterHeader(r, err)
	}
	w.Header().Set("Content-Type", api.BundleContentType)
	w.Header().Set("Content-Disposition", fmt.Sprintf(`attachment; filename="%s-export.tar.gz"`, slug))
	var blobs *blobstore.Store
	if len(ew.manifest) > 0 {
		if blobs, err = s.blobs(); err != nil {
			return err
		}
	}
	w.Header().Set("Trailer", api.BundleStatusTrailer)
	w.WriteHeader(200)
	if err := bundle.Write(w, f, size, ew.manifest, blobs); err != nil {
		return s.afterHeader(r, err)
	}
	w.Header().Set(api.BundleStatusTrailer, api.BundleStatusOK)
	return nil
}

// exportFilePattern names an export's file beside the database while it
// is sent.
const exportFilePattern = ".export-*.json"

// sweepExportFiles removes the export files in dir last written before
// cutoff: left by a padd stopped while it sent them (no export takes a
// day).
func sweepExportFiles(dir string, cutoff time.Time) {
	old, _ := filepath.Glob(filepath.Join(dir, exportFilePattern))
	for _, p := range old {
		if st, err := os.Stat(p); err == nil && st.ModTime().Before(cutoff) {
			_ = os.Remove(p)
		}
	}
}

// afterHeader logs an error met after the answer began: it cannot be
// answered any more, and the bundle's missing trailer (or the JSON's
// short length) tells the client.
func (s *Server) afterHeader(r *http.Request, err error) error {
	if err != nil && r.Context().Err() == nil {
		s.log.Warn("export stopped part way", "path", r.URL.Path, "err", err)
	}
	return nil
}

// exportWriter writes pad-export.json record by record as
// storage.ExportWorkspace hands them over: each kind is one array,
// opened at its first record.
type exportWriter struct {
	w       *bufio.Writer
	enc     *json.Encoder
	at      time.Time
	slug    string
	section string
	first   bool
	done    map[string]bool
	err     error
	// manifest is the attachments' manifest, written after the JSON.
	manifest []api.AttachmentManifestEntry
}

func newExportWriter(f io.Writer, at time.Time) *exportWriter {
	bw := bufio.NewWriterSize(f, 256<<10)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	return &exportWriter{w: bw, enc: enc, at: at, done: map[string]bool{}}
}

// put writes v as the next record of section.
func (e *exportWriter) put(section string, v any) error {
	if e.err != nil {
		return e.err
	}
	if section != e.section {
		e.closeSection()
		e.section, e.first, e.done[section] = section, true, true
		_, e.err = fmt.Fprintf(e.w, ",\n%q: [\n", section)
	}
	if !e.first {
		_, _ = e.w.WriteString(",")
	}
	e.first = false
	if e.err == nil {
		e.err = e.enc.Encode(v)
	}
	return e.err
}

func (e *exportWriter) closeSection() {
	if e.section != "" && e.err == nil {
		_, e.err = e.w.WriteString("]")
	}
	e.section = ""
}

// finish closes the document: collections and items are always there
// (Pad's members without omitempty), the other kinds only when some.
func (e *exportWriter) finish() error {
	e.closeSection()
	for _, s := range []string{"collections", "items"} {
		if !e.done[s] && e.err == nil {
			_, e.err = fmt.Fprintf(e.w, ",\n%q: []", s)
		}
	}
	if e.err == nil {
		_, e.err = e.w.WriteString("\n}\n")
	}
	if e.err == nil {
		e.err = e.w.Flush()
	}
	return e.err
}

func (e *exportWriter) Workspace(ws *model.Workspace) error {
	e.slug = ws.Slug
	m := api.WorkspaceExportMeta{Name: ws.Name, Slug: ws.Slug, Description: ws.Description, Settings: workspaceSettings(ws.Context),
		Template: ws.Template}
	if l := ws.ReportLayout; l != nil {
		rl := api.ReportLayout(*l)
		m.ReportLayout = &rl
	}
	meta, err := json.Marshal(m)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(e.w, "{\"version\": %d,\n\"exported_at\": %q,\n\"workspace\": %s", api.ExportVersion,
		e.at.UTC().Format(time.RFC3339), meta)
	return err
}

func exportTime(t time.Time) string { return t.UTC().Format(time.RFC3339) }

func (e *exportWriter) Collection(c *model.Collection) error {
	schema := c.Schema
	if schema.Fields == nil {
		schema.Fields = []model.FieldDef{}
	}
	out := api.CollectionExport{ID: c.ID, Name: c.Name, Slug: c.Slug, Icon: c.Icon, Description: c.Description,
		Schema: jsonText(schema), Settings: jsonText(c.Settings), Prefix: c.Prefix, SortOrder: c.SortOrder,
		IsDefault: c.IsDefault, IsSystem: c.IsSystem, CreatedAt: exportTime(c.CreatedAt), UpdatedAt: exportTime(c.UpdatedAt),
		FormerPrefixes: c.FormerPrefixes}
	if c.ArchivedAt != nil {
		out.ArchivedAt = exportTime(*c.ArchivedAt)
	}
	return e.put("collections", out)
}

func (e *exportWriter) Role(r *model.Role) error {
	return e.put("roles", api.RoleExport{Slug: r.Slug, Name: r.Name, Icon: r.Icon, Description: r.Description,
		Tools: r.Tools, SortOrder: r.SortOrder})
}

func (e *exportWriter) SavedView(v *model.SavedView) error {
	return e.put("saved_views", api.SavedViewExport{CollectionID: v.CollectionID, Name: v.Name, Slug: v.Slug,
		ViewType: v.ViewType, Config: string(v.Config), SortOrder: v.SortOrder})
}

func (e *exportWriter) Item(it *model.Item, x storage.ItemExtras) error {
	fields := any(it.Fields)
	if it.Fields == nil {
		fields = map[string]any{}
	}
	tags := it.Tags
	if tags == nil {
		tags = []string{}
	}
	return e.put("items", api.ItemExport{ID: it.ID, CollectionID: it.CollectionID, Title: it.Title, Slug: it.Slug,
		Content: it.Content, Fields: jsonText(fields), Tags: jsonText(tags), Pinned: it.Pinned, SortOrder: it.SortOrder,
		ParentID: it.ParentID, CreatedBy: it.CreatedBy.Kind, LastModifiedBy: it.LastModifiedBy.Kind,
		Source: it.CreatedBy.Source, ItemNumber: it.Number, CreatedAt: exportTime(it.CreatedAt),
		UpdatedAt: exportTime(it.UpdatedAt), CreatedByName: it.CreatedBy.Name, LastModifiedByName: it.LastModifiedBy.Name,
		Role: x.Role, AssignedUserID: it.AssignedUserID, RoleSortOrder: it.RoleSortOrder, LibraryOrigin: libraryOrigin(x.Origin)})
}

func libraryOrigin(o *storage.LibraryOrigin) *api.LibraryOriginExport {
	if o == nil {
		return nil
	}
	return &api.LibraryOriginExport{Key: o.Key, SeedHash: o.SeedHash}
}

func (e *exportWriter) Comment(c *model.Comment) error {
	return e.put("comments", api.CommentExport{ID: c.ID, ItemID: c.ItemID, Author: c.Author.Name, Body: c.Body,
		CreatedBy: c.Author.Kind, Source: c.Author.Source, CreatedAt: exportTime(c.CreatedAt),
		UpdatedAt: exportTime(c.UpdatedAt), ParentID: c.ParentID, Reactions: exportReactions(c.Reactions)})
}

// exportReactions are a comment's reactions in padd's member of the
// export (Pad's export carries none).
func exportReactions(rs []model.Reaction) []api.ReactionExport {
	var out []api.ReactionExport
	for _, r := range rs {
		out = append(out, api.ReactionExport{Emoji: r.Emoji, UserID: r.UserID, Actor: r.Actor.Kind,
			ActorName: r.Actor.Name, CreatedAt: exportTime(r.CreatedAt)})
	}
	return out
}

func (e *exportWriter) Link(l *model.Link) error {
	return e.put("item_links", api.ItemLinkExport{ID: l.ID, SourceID: l.SourceID, TargetID: l.TargetID,
		LinkType: l.Type, CreatedBy: l.CreatedBy.Kind, CreatedAt: exportTime(l.CreatedAt), CreatedByName: l.CreatedBy.Name})
}

func (e *exportWriter) Version(v *model.Version) error {
	sum := sha256.Sum256([]byte(v.Content))
	return e.put("item_versions", api.ItemVersionExport{ID: v.ID, ItemID: v.ItemID, Content: v.Content,
		ChangeSummary: v.Summary, CreatedBy: v.Actor.Kind, Source: v.Actor.Source, CreatedAt: exportTime(v.CreatedAt),
		BodySHA256: hex.EncodeToString(sum[:]), Title: v.Title, CreatedByName: v.Actor.Name})
}

func (e *exportWriter) Attachment(a *storage.Attachment) error {
	m := api.AttachmentManifestEntry{ID: a.ID, Filename: a.Filename, MIME: a.MIME, SizeBytes: a.Size, ContentHash: a.Hash,
		ItemID: a.ItemID, UploadedBy: a.UploadedBy.Kind, UploadedByName: a.UploadedBy.Name,
		CreatedAt: exportTime(a.CreatedAt)}
	if a.Width > 0 && a.Height > 0 {
		wd, ht := a.Width, a.Height
		m.Width, m.Height = &wd, &ht
	}
	e.manifest = append(e.manifest, m)
	return nil
}
