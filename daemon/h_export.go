package daemon

import (
	"archive/tar"
	"bufio"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/padd/padd/api"
	"github.com/padd/padd/model"
	"github.com/padd/padd/storage"
)

// Workspace export and import in Pad's format (docs/BUNDLES.md).

func (s *Server) exportRoutes() {
	s.handle("GET /api/v1/workspaces/{ws}/export", s.exportWorkspace)
	s.handle("POST /api/v1/workspaces/import", s.importWorkspace)
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
	w.Header().Set("Trailer", api.BundleStatusTrailer)
	w.WriteHeader(200)
	if err := writeBundle(w, f, size); err != nil {
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

// writeBundle writes the tar.gz bundle: pad-export.json (size bytes from
// export), then the attachment manifest, always in that order and with
// fixed headers, so two bundles of one workspace differ only where the
// JSON's exported_at does.
func writeBundle(w io.Writer, export io.Reader, size int64) error {
	// Fastest compression: a bundle is written for a copy or a backup,
	// and the export's JSON still shrinks to about a third of its size.
	gz, err := gzip.NewWriterLevel(w, gzip.BestSpeed)
	if err != nil {
		return err
	}
	tw := tar.NewWriter(gz)
	epoch := time.Unix(0, 0).UTC()
	if err := tw.WriteHeader(&tar.Header{Name: api.BundleExportEntry, Mode: 0o644, Size: size, ModTime: epoch,
		Typeflag: tar.TypeReg, Format: tar.FormatPAX}); err != nil {
		return err
	}
	if n, err := io.Copy(tw, export); err != nil || n != size {
		return errors.Join(err, fmt.Errorf("export file: copied %d of %d bytes", n, size))
	}
	manifest, err := json.MarshalIndent(api.AttachmentManifest{Version: api.BundleManifestVer, Entries: []api.AttachmentManifestEntry{}}, "", "  ")
	if err != nil {
		return err
	}
	if err := tw.WriteHeader(&tar.Header{Name: api.BundleManifestEntry, Mode: 0o644, Size: int64(len(manifest)),
		ModTime: epoch, Typeflag: tar.TypeReg, Format: tar.FormatPAX}); err != nil {
		return err
	}
	if _, err := tw.Write(manifest); err != nil {
		return err
	}
	return errors.Join(tw.Close(), gz.Close())
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
	meta, err := json.Marshal(api.WorkspaceExportMeta{Name: ws.Name, Slug: ws.Slug, Description: ws.Description, Settings: "{}"})
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
		IsDefault: c.IsDefault, IsSystem: c.IsSystem, CreatedAt: exportTime(c.CreatedAt), UpdatedAt: exportTime(c.UpdatedAt)}
	if c.ArchivedAt != nil {
		out.ArchivedAt = exportTime(*c.ArchivedAt)
	}
	return e.put("collections", out)
}

func (e *exportWriter) Role(r *model.Role) error {
	return e.put("roles", api.RoleExport{Slug: r.Slug, Name: r.Name, Icon: r.Icon, Description: r.Description,
		Tools: r.Tools, SortOrder: r.SortOrder})
}

func (e *exportWriter) Item(it *model.Item, role string) error {
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
		Role: role, AssignedUserID: it.AssignedUserID})
}

func (e *exportWriter) Comment(c *model.Comment) error {
	return e.put("comments", api.CommentExport{ID: c.ID, ItemID: c.ItemID, Author: c.Author.Name, Body: c.Body,
		CreatedBy: c.Author.Kind, Source: c.Author.Source, CreatedAt: exportTime(c.CreatedAt),
		UpdatedAt: exportTime(c.UpdatedAt), ParentID: c.ParentID})
}

func (e *exportWriter) Link(l *model.Link) error {
	return e.put("item_links", api.ItemLinkExport{ID: l.ID, SourceID: l.SourceID, TargetID: l.TargetID,
		LinkType: l.Type, CreatedBy: l.CreatedBy.Kind, CreatedAt: exportTime(l.CreatedAt)})
}

func (e *exportWriter) Version(v *model.Version) error {
	sum := sha256.Sum256([]byte(v.Content))
	return e.put("item_versions", api.ItemVersionExport{ID: v.ID, ItemID: v.ItemID, Content: v.Content,
		ChangeSummary: v.Summary, CreatedBy: v.Actor.Kind, Source: v.Actor.Source, CreatedAt: exportTime(v.CreatedAt),
		BodySHA256: hex.EncodeToString(sum[:]), Title: v.Title})
}

// importWorkspace creates a workspace from Pad's JSON export or bundle,
// chosen by Content-Type as Pad's server does. Everything is read and
// checked before anything is written, and the write is one transaction:
// a refused or interrupted import leaves nothing behind.
func (s *Server) importWorkspace(w http.ResponseWriter, r *http.Request) error {
	body := &importBody{r: r.Body, rc: http.NewResponseController(w)}
	var exp *api.WorkspaceExport
	var summary api.ImportSummary
	var err error
	if isBundle(r.Header.Get("Content-Type")) {
		var b *Bundle
		b, err = ReadBundle(body, DefaultBundleLimits())
		if err == nil {
			exp = b.Export
			summary.InBundle.Attachments = len(b.Manifest.Entries)
			if n := len(b.Manifest.Entries); n > 0 {
				summary.NotModelled = map[string]int{"attachments": n}
			}
			for k, n := range b.Skipped {
				summary.NotModelled = addCount(summary.NotModelled, k, n)
			}
		}
	} else {
		if r.ContentLength > MaxImportJSON {
			return importTooLarge()
		}
		exp, err = readExportJSON(body, MaxImportJSON)
	}
	if body.err != nil {
		return api.Errorf(api.CodeImportInterrupted, "the import's body stopped arriving (%v); nothing was imported, send it again", body.err)
	}
	if err != nil {
		return err
	}
	in, notModelled, err := importInput(exp, r.URL.Query().Get("name"))
	if err != nil {
		return err
	}
	for k, n := range notModelled {
		summary.NotModelled = addCount(summary.NotModelled, k, n)
	}
	summary.InBundle.Collections = len(exp.Collections)
	summary.InBundle.Items = len(exp.Items)
	summary.InBundle.Comments = len(exp.Comments)
	summary.InBundle.Links = len(exp.ItemLinks)
	summary.InBundle.Versions = len(exp.ItemVersions)
	summary.InBundle.Roles = len(exp.Roles)
	out, err := s.store.ImportWorkspace(in, actor(r))
	if err != nil {
		return err
	}
	for k, n := range out.Skipped {
		summary.NotModelled = addCount(summary.NotModelled, k, n)
	}
	summary.Imported = api.ImportCounts{Collections: out.Imported.Collections, Items: out.Imported.Items,
		Comments: out.Imported.Comments, Links: out.Imported.Links, Versions: out.Imported.Versions, Roles: out.Imported.Roles}
	writeJSON(w, 201, api.ImportResult{Workspace: wireWorkspace(out.Workspace), ImportSummary: summary})
	return nil
}

func addCount(m map[string]int, k string, n int) map[string]int {
	if n == 0 {
		return m
	}
	if m == nil {
		m = map[string]int{}
	}
	m[k] += n
	return m
}

func isBundle(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		mt = strings.ToLower(strings.TrimSpace(strings.Split(contentType, ";")[0]))
	}
	for _, t := range api.BundleContentTypes {
		if mt == t {
			return true
		}
	}
	return false
}

func importTooLarge() error {
	return api.Errorf(api.CodeTooLarge, "a JSON import is at most %d bytes; send the tar.gz bundle (Content-Type %s) for more",
		MaxImportJSON, api.BundleContentType).With("reason", "body").With("limit_bytes", MaxImportJSON)
}

// importBody reads an import's body, each read under its own deadline,
// and keeps the first transport error: that is an interrupted import,
// not a bad one.
type importBody struct {
	r   io.Reader
	rc  *http.ResponseController
	err error
}

func (b *importBody) Read(p []byte) (int, error) {
	if b.rc != nil {
		_ = b.rc.SetReadDeadline(time.Now().Add(importReadTimeout))
	}
	n, err := b.r.Read(p)
	if err != nil && err != io.EOF && b.err == nil {
		var mbe *http.MaxBytesError
		if !errors.As(err, &mbe) {
			b.err = err
		}
	}
	if err == io.EOF && b.rc != nil {
		_ = b.rc.SetReadDeadline(time.Time{})
	}
	return n, err
}

// readExportJSON decodes the JSON export from r; more than limit bytes
// are refused as too large.
func readExportJSON(r io.Reader, limit int64) (*api.WorkspaceExport, error) {
	r = io.LimitReader(r, limit+1)
	cr := &countReader{r: r}
	var exp api.WorkspaceExport
	dec := json.NewDecoder(cr)
	if err := dec.Decode(&exp); err != nil {
		if cr.n > limit {
			return nil, importTooLarge()
		}
		return nil, model.BadRequest("the export is not the JSON of Pad's WorkspaceExport: %v", err).With("reason", "json")
	}
	if cr.n > limit {
		return nil, importTooLarge()
	}
	if _, err := dec.Token(); err != io.EOF {
		if cr.n > limit {
			return nil, importTooLarge()
		}
		return nil, model.BadRequest("the export has data after its JSON value").With("reason", "json")
	}
	return &exp, nil
}

type countReader struct {
	r io.Reader
	n int64
}

func (c *countReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// BundleLimits bound what a bundle may make padd read.
type BundleLimits struct {
	// Compressed bytes of the body.
	MaxCompressed int64
	// Decompressed bytes of the whole tar stream.
	MaxExpanded int64
	// Entries of the tar.
	MaxEntries int
	// Bytes of pad-export.json and of the manifest.
	MaxExport, MaxManifest int64
	// Decompressed bytes past RatioFloor may be at most MaxRatio times the
	// compressed bytes read: a gzip bomb is refused within its first
	// RatioFloor bytes, however large it claims to be.
	RatioFloor, MaxRatio int64
}

// DefaultBundleLimits are padd's caps (docs/BUNDLES.md).
func DefaultBundleLimits() BundleLimits {
	return BundleLimits{MaxCompressed: 2 << 30, MaxExpanded: 4 << 30, MaxEntries: 100_000,
		MaxExport: 100 << 20, MaxManifest: 16 << 20, RatioFloor: 16 << 20, MaxRatio: 200}
}

// Bundle is what ReadBundle read: the export, the manifest (empty when
// the bundle has none), and what it skipped, by kind.
type Bundle struct {
	Export   *api.WorkspaceExport
	Manifest api.AttachmentManifest
	Skipped  map[string]int
}

func badBundle(reason, format string, args ...any) *api.Error {
	return api.Errorf(api.CodeBadBundle, format, args...).With("reason", reason)
}

// ReadBundle reads a tar.gz bundle as hostile input: every entry name is
// checked (no absolute path, no "..", no duplicate, nothing but regular
// files and directories), the entry count, the decompressed bytes and
// their ratio to the compressed ones are capped, pad-export.json comes
// first and the manifest second, and every blob's bytes must hash to its
// manifest entry. Blobs are hashed as they stream by, never held.
func ReadBundle(r io.Reader, lim BundleLimits) (*Bundle, error) {
	comp := &countReader{r: io.LimitReader(r, lim.MaxCompressed+1)}
	gz, err := gzip.NewReader(bufio.NewReaderSize(comp, 32<<10))
	if err != nil {
		return nil, badBundle("gzip", "the bundle is not gzip: %v", err)
	}
	exp := &expandReader{r: gz, comp: comp, lim: lim}
	tr := tar.NewReader(exp)
	out := &Bundle{Skipped: map[string]int{}}
	seen := map[string]bool{}
	manifest := map[string]*api.AttachmentManifestEntry{}
	hashed := map[string]bool{}
	manifestSeen := false
	for entries := 0; ; entries++ {
		hdr, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, exp.fail(err)
		}
		if entries >= lim.MaxEntries {
			return nil, badBundle("too_many_entries", "the bundle has more than %d entries", lim.MaxEntries).With("limit", lim.MaxEntries)
		}
		name := hdr.Name
		if why := unsafeEntry(name); why != "" {
			return nil, badBundle("unsafe_entry", "bundle entry %q %s", model.Excerpt(name), why).With("entry", model.Excerpt(name))
		}
		switch hdr.Typeflag {
		case tar.TypeReg, tar.TypeRegA: //nolint:staticcheck // older tars mark regular files so
		case tar.TypeDir:
			continue
		default:
			return nil, badBundle("unsafe_entry", "bundle entry %q is not a regular file (type %q)", model.Excerpt(name), hdr.Typeflag).
				With("entry", model.Excerpt(name))
		}
		clean := strings.TrimPrefix(name, "./")
		if seen[clean] {
			return nil, badBundle("duplicate_entry", "bundle entry %q appears twice", model.Excerpt(name)).With("entry", model.Excerpt(name))
		}
		seen[clean] = true
		if hdr.Size < 0 || hdr.Size > lim.MaxExpanded {
			return nil, badBundle("too_large", "bundle entry %q declares %d bytes", model.Excerpt(name), hdr.Size).With("entry", model.Excerpt(name))
		}
		switch {
		case clean == api.BundleExportEntry:
			if entries != 0 {
				return nil, badBundle("order", "pad-export.json must be the bundle's first entry")
			}
			if hdr.Size > lim.MaxExport {
				return nil, badBundle("too_large", "pad-export.json is %d bytes; at most %d", hdr.Size, lim.MaxExport).With("limit", lim.MaxExport)
			}
			e, err := readExportJSON(tr, hdr.Size)
			if err != nil {
				if exp.err != nil {
					return nil, exp.err
				}
				var ae *api.Error
				if errors.As(err, &ae) || model.ErrorCodeOf(err) != "" {
					return nil, badBundle("json", "the bundle's pad-export.json is not Pad's WorkspaceExport: %v", err)
				}
				return nil, exp.fail(err)
			}
			out.Export = e
		case clean == api.BundleManifestEntry:
			if out.Export == nil {
				return nil, badBundle("order", "the attachment manifest comes before pad-export.json")
			}
			manifestSeen = true
			if hdr.Size > lim.MaxManifest {
				return nil, badBundle("too_large", "the attachment manifest is %d bytes; at most %d", hdr.Size, lim.MaxManifest)
			}
			if err := json.NewDecoder(io.LimitReader(tr, hdr.Size)).Decode(&out.Manifest); err != nil {
				if exp.err != nil {
					return nil, exp.err
				}
				return nil, badBundle("manifest", "the attachment manifest is not JSON: %v", err)
			}
			if out.Manifest.Version > api.BundleManifestVer {
				return nil, badBundle("manifest", "attachment manifest version %d is newer than padd reads (%d)", out.Manifest.Version, api.BundleManifestVer)
			}
			for i := range out.Manifest.Entries {
				m := &out.Manifest.Entries[i]
				p := BundleBlobPath(m.ID, m.Filename)
				if unsafeEntry(p) != "" || manifest[p] != nil {
					return nil, badBundle("manifest", "attachment manifest entry %d (%q) is unsafe or given twice", i, model.Excerpt(m.ID))
				}
				manifest[p] = m
			}
		case strings.HasPrefix(clean, "attachments/"):
			if !manifestSeen {
				return nil, badBundle("order", "blob %q comes before pad-export.json and the manifest", model.Excerpt(name))
			}
			m := manifest[clean]
			h := sha256.New()
			n, err := io.Copy(h, tr)
			if err != nil {
				return nil, exp.fail(err)
			}
			if m == nil {
				out.Skipped["blob_not_in_manifest"]++
				continue
			}
			if n != m.SizeBytes || !strings.EqualFold(hex.EncodeToString(h.Sum(nil)), m.ContentHash) {
				return nil, badBundle("blob_hash_mismatch", "blob %q does not match its manifest entry (size %d, sha256 %s)",
					model.Excerpt(name), m.SizeBytes, model.Excerpt(m.ContentHash)).With("entry", model.Excerpt(name))
			}
			hashed[clean] = true
		default:
			if _, err := io.Copy(io.Discard, tr); err != nil {
				return nil, exp.fail(err)
			}
			out.Skipped["unknown_entry"]++
		}
	}
	// The gzip stream must end where the tar does (a second stream or
	// trailing bytes are read and capped too).
	if _, err := io.Copy(io.Discard, exp); err != nil {
		return nil, exp.fail(err)
	}
	if out.Export == nil {
		return nil, badBundle("missing_export", "the bundle holds no pad-export.json")
	}
	if n := len(manifest) - len(hashed); n > 0 {
		out.Skipped["blob_missing"] += n
	}
	return out, nil
}

// BundleBlobPath is a blob's entry name: its id and the lower-cased
// extension of its filename (.bin without one), as Pad names them.
func BundleBlobPath(id, filename string) string {
	ext := strings.ToLower(path.Ext(strings.ReplaceAll(filename, "\\", "/")))
	if ext == "" {
		ext = ".bin"
	}
	return "attachments/" + id + ext
}

// unsafeEntry says what is wrong with a tar entry name, or "".
func unsafeEntry(name string) string {
	switch {
	case name == "":
		return "has no name"
	case !utf8.ValidString(name):
		return "is not valid UTF-8"
	case strings.ContainsAny(name, "\x00\\:"):
		return "holds a NUL, a backslash or a colon"
	case strings.HasPrefix(name, "/"):
		return "is an absolute path"
	}
	for _, seg := range strings.Split(strings.TrimSuffix(name, "/"), "/") {
		if seg == ".." {
			return "climbs out with .."
		}
	}
	if c := path.Clean(name); c != strings.TrimSuffix(strings.TrimPrefix(name, "./"), "/") {
		return "is not a clean path"
	}
	return ""
}

// expandReader reads the decompressed stream under the caps.
type expandReader struct {
	r    io.Reader
	comp *countReader
	lim  BundleLimits
	n    int64
	err  error // a cap's refusal
}

func (e *expandReader) Read(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.r.Read(p)
	e.n += int64(n)
	switch {
	case e.comp.n > e.lim.MaxCompressed:
		e.err = badBundle("too_large", "the bundle is over %d bytes", e.lim.MaxCompressed).With("limit", e.lim.MaxCompressed)
	case e.n > e.lim.MaxExpanded:
		e.err = badBundle("too_large", "the bundle decompresses to over %d bytes", e.lim.MaxExpanded).With("limit", e.lim.MaxExpanded)
	case e.n > e.lim.RatioFloor && e.n > e.lim.MaxRatio*e.comp.n:
		e.err = badBundle("compression_ratio", "the bundle decompresses more than %d times (%d bytes from %d): refused as a gzip bomb",
			e.lim.MaxRatio, e.n, e.comp.n).With("limit", e.lim.MaxRatio)
	}
	if e.err != nil {
		return 0, e.err
	}
	return n, err
}

// fail is the refusal for an error met reading the tar: a cap's, or a
// damaged stream's.
func (e *expandReader) fail(err error) error {
	if e.err != nil {
		return e.err
	}
	var ae *api.Error
	if errors.As(err, &ae) {
		return ae
	}
	return badBundle("damaged", "the bundle is damaged or cut short: %v", err)
}

// parseExportTime reads an export's timestamp: RFC 3339, or SQLite's
// "2006-01-02 15:04:05". Empty is the zero time (the import's own).
func parseExportTime(s string) (time.Time, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, true
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02 15:04:05", "2006-01-02 15:04:05Z07:00", "2006-01-02T15:04:05"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), true
		}
	}
	return time.Time{}, false
}

// exportActor is who an export names: its kind (Pad's created_by is
// "user", "agent" or "system", the last for what a template seeded),
// name and door. padd's actors are users or agents: "system" is kept as
// a user's name.
func exportActor(kind, name, source string) model.Actor {
	a := model.Actor{Kind: model.ActorUser, Name: model.LocalUserName, Source: source}
	switch {
	case kind == model.ActorAgent:
		a.Kind, a.Name = model.ActorAgent, name
	case name != "":
		a.Name = name
	case kind != "" && kind != model.ActorUser:
		a.Name = kind
	}
	return a
}

// importInput checks an export against Pad's format and padd's model and
// converts it. What padd does not model is counted in the map, by kind;
// a record that breaks the format or a rule refuses the import, naming it.
func importInput(exp *api.WorkspaceExport, name string) (storage.ImportInput, map[string]int, error) {
	var in storage.ImportInput
	nm := map[string]int{}
	bad := func(entity string, i int, format string, args ...any) error {
		return model.Invalid(format, args...).With("entity", entity).With("index", i)
	}
	if exp.Version != api.ExportVersion {
		return in, nil, api.Errorf(api.CodeBadBundle, "export version %d is not one padd reads (%d)", exp.Version, api.ExportVersion).
			With("reason", "version")
	}
	in.Name, in.Slug, in.Description = exp.Workspace.Name, exp.Workspace.Slug, exp.Workspace.Description
	if n := strings.TrimSpace(name); n != "" {
		in.Name, in.Slug = n, n
	}
	if strings.TrimSpace(in.Name) == "" {
		in.Name = in.Slug
	}
	if err := checkInput(storage.WorkspaceCreate{Name: in.Name, Slug: in.Slug, Description: in.Description}); err != nil {
		return in, nil, err
	}
	if st := strings.TrimSpace(exp.Workspace.Settings); st != "" && st != "{}" && st != "null" {
		nm["workspace_settings"]++
	}
	stamp := func(entity string, i int, s string) (time.Time, error) {
		t, ok := parseExportTime(s)
		if !ok {
			return t, bad(entity, i, "%s %d has a timestamp padd cannot read: %q", entity, i, model.Excerpt(s))
		}
		return t, nil
	}
	for i, c := range exp.Collections {
		var schema model.Schema
		if strings.TrimSpace(c.Schema) != "" {
			if err := json.Unmarshal([]byte(c.Schema), &schema); err != nil {
				return in, nil, bad("collection", i, "collection %q: its schema is not {\"fields\":[...]}: %v", model.Excerpt(c.Slug), err)
			}
		}
		var settings *model.Settings
		if st := strings.TrimSpace(c.Settings); st != "" && st != "{}" && st != "null" {
			settings = &model.Settings{}
			if err := json.Unmarshal([]byte(st), settings); err != nil {
				return in, nil, bad("collection", i, "collection %q: its settings are not an object: %v", model.Excerpt(c.Slug), err)
			}
			nm["collection_settings_keys"] += droppedKeys(st, settings)
		}
		if t := strings.TrimSpace(c.Traits); t != "" && t != "{}" && t != "null" {
			nm["collection_traits"]++
		}
		sort := c.SortOrder
		create := storage.CollectionCreate{Name: c.Name, Slug: c.Slug, Prefix: c.Prefix, Icon: c.Icon,
			Description: c.Description, Schema: &schema, Settings: settings, IsSystem: c.IsSystem, IsDefault: c.IsDefault,
			SortOrder: &sort}
		if err := checkInput(create); err != nil {
			return in, nil, withEntity(err, "collection", i)
		}
		ic := storage.ImportCollection{Key: c.ID, Create: create}
		var err error
		if ic.CreatedAt, err = stamp("collection", i, c.CreatedAt); err != nil {
			return in, nil, err
		}
		if ic.UpdatedAt, err = stamp("collection", i, c.UpdatedAt); err != nil {
			return in, nil, err
		}
		if c.ArchivedAt != "" {
			t, err := stamp("collection", i, c.ArchivedAt)
			if err != nil {
				return in, nil, err
			}
			ic.ArchivedAt = &t
		}
		in.Collections = append(in.Collections, ic)
	}
	for i, r := range exp.Roles {
		rc := storage.RoleCreate{Slug: r.Slug, Name: r.Name, Icon: r.Icon, Description: r.Description, Tools: r.Tools, SortOrder: r.SortOrder}
		if err := checkInput(rc); err != nil {
			return in, nil, withEntity(err, "role", i)
		}
		in.Roles = append(in.Roles, rc)
	}
	for i, it := range exp.Items {
		fields, err := api.DecodeObject(it.Fields)
		if err != nil {
			return in, nil, bad("item", i, "item %q: %v", model.Excerpt(it.Title), err)
		}
		var tags []string
		if t := strings.TrimSpace(it.Tags); t != "" && t != "null" {
			if err := json.Unmarshal([]byte(t), &tags); err != nil {
				return in, nil, bad("item", i, "item %q: tags are not a JSON list of strings: %v", model.Excerpt(it.Title), err)
			}
		}
		if it.CollabSetAside != nil {
			nm["item_collab_set_aside"]++
		}
		if it.BuiltinOrigin != nil {
			nm["item_builtin_origin"]++
		}
		ii := storage.ImportItem{Key: it.ID, CollectionKey: it.CollectionID, ParentKey: it.ParentID, Title: it.Title,
			Content: it.Content, Slug: it.Slug, Fields: fields, Tags: tags, Pinned: it.Pinned, SortOrder: it.SortOrder,
			Number: it.ItemNumber, Role: it.Role, AssignedUserID: it.AssignedUserID,
			CreatedBy:      exportActor(it.CreatedBy, it.CreatedByName, it.Source),
			LastModifiedBy: exportActor(it.LastModifiedBy, it.LastModifiedByName, it.Source)}
		if err := checkInput(storage.ItemCreate{Title: ii.Title, Content: ii.Content, Fields: ii.Fields, Tags: ii.Tags}); err != nil {
			return in, nil, withEntity(err, "item", i)
		}
		if ii.CreatedAt, err = stamp("item", i, it.CreatedAt); err != nil {
			return in, nil, err
		}
		if ii.UpdatedAt, err = stamp("item", i, it.UpdatedAt); err != nil {
			return in, nil, err
		}
		in.Items = append(in.Items, ii)
	}
	for i, c := range exp.Comments {
		if err := checkInput(storage.CommentCreate{Body: c.Body}); err != nil {
			return in, nil, withEntity(err, "comment", i)
		}
		ic := storage.ImportComment{Key: c.ID, ItemKey: c.ItemID, ParentKey: c.ParentID, Body: c.Body,
			Author: exportActor(c.CreatedBy, c.Author, c.Source)}
		var err error
		if ic.CreatedAt, err = stamp("comment", i, c.CreatedAt); err != nil {
			return in, nil, err
		}
		if ic.UpdatedAt, err = stamp("comment", i, c.UpdatedAt); err != nil {
			return in, nil, err
		}
		in.Comments = append(in.Comments, ic)
	}
	for i, l := range exp.ItemLinks {
		if _, _, _, ok := model.CanonicalLink(l.SourceID, l.TargetID, l.LinkType); !ok || l.SourceID == l.TargetID {
			nm["link_type_"+model.Excerpt(l.LinkType)]++
			continue
		}
		at, err := stamp("link", i, l.CreatedAt)
		if err != nil {
			return in, nil, err
		}
		in.Links = append(in.Links, storage.ImportLink{SourceKey: l.SourceID, TargetKey: l.TargetID, Type: l.LinkType,
			CreatedBy: exportActor(l.CreatedBy, "", ""), CreatedAt: at})
	}
	in.Versions = map[string][]storage.ImportVersion{}
	for i, v := range exp.ItemVersions {
		if v.IsDiff {
			nm["diff_versions"]++
			continue
		}
		if v.BodySHA256 != "" {
			sum := sha256.Sum256([]byte(v.Content))
			if !strings.EqualFold(hex.EncodeToString(sum[:]), v.BodySHA256) {
				return in, nil, api.Errorf(api.CodeBadBundle, "item version %d: its body does not match its body_sha256", i).
					With("reason", "version_hash_mismatch").With("entity", "version").With("index", i)
			}
		}
		at, err := stamp("version", i, v.CreatedAt)
		if err != nil {
			return in, nil, err
		}
		in.Versions[v.ItemID] = append(in.Versions[v.ItemID], storage.ImportVersion{Title: v.Title, Content: v.Content,
			Summary: v.ChangeSummary, Actor: exportActor(v.CreatedBy, "", v.Source), CreatedAt: at})
	}
	for k, vs := range in.Versions {
		slices.SortStableFunc(vs, func(a, b storage.ImportVersion) int { return a.CreatedAt.Compare(b.CreatedAt) })
		in.Versions[k] = vs
	}
	return in, nm, nil
}

// withEntity names the record a refusal is about.
func withEntity(err error, entity string, i int) error {
	if e, ok := model.AsError(err); ok {
		return e.With("entity", entity).With("index", i)
	}
	return err
}

// droppedKeys counts the members of the JSON object text that decoding
// into v did not keep.
func droppedKeys(text string, v any) int {
	var in map[string]any
	if json.Unmarshal([]byte(text), &in) != nil {
		return 0
	}
	var kept map[string]any
	b, err := json.Marshal(v)
	if err != nil || json.Unmarshal(b, &kept) != nil {
		return 0
	}
	n := 0
	for k := range in {
		if _, ok := kept[k]; !ok {
			n++
		}
	}
	return n
}

// exportArtifact answers a playbook or convention as artifact text
// (ITM-19), with a provenance block naming the workspace, the caller and
// the time.
func (s *Server) exportArtifact(w http.ResponseWriter, r *http.Request) error {
	ws := r.PathValue("ws")
	v, err := s.store.GetItem(ws, r.PathValue("ref"))
	if err != nil {
		return err
	}
	kind := api.ArtifactKindOfCollection(v.Collection.Slug)
	if kind == "" {
		return api.Errorf(api.CodeUnsupportedCollection,
			"%s is in %s, whose items are not artifacts: only playbooks and conventions export as artifacts", v.Ref, v.Collection.Slug).
			With("collection", v.Collection.Slug)
	}
	wsRec, err := s.store.GetWorkspace(ws)
	if err != nil {
		return err
	}
	out, err := api.EncodeArtifact(api.Artifact{Kind: kind, Title: v.Title, Fields: v.Fields, Body: v.Content,
		Provenance: api.Provenance{Workspace: wsRec.Slug, ExportedAt: time.Now().UTC().Format(time.RFC3339), Author: actor(r).Name}})
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", api.ArtifactContentType)
	w.Header().Set("Content-Disposition", fmt.Sprintf("attachment; filename=%q", v.Slug+".pad.md"))
	w.WriteHeader(200)
	_, _ = w.Write(out)
	return nil
}

// importArtifact creates an item from artifact text in the collection of
// its kind, as Pad does: a select value this workspace's schema lacks is
// cleared, the status starts at draft, a playbook's invocation slug
// already in use gets -2, -3, ... (each with a warning), and the body
// ends with a line saying where the artifact came from.
func (s *Server) importArtifact(w http.ResponseWriter, r *http.Request) error {
	ws := r.PathValue("ws")
	if r.ContentLength > api.MaxArtifactBytes {
		return artifactTooLarge()
	}
	var raw []byte
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt == "application/json" {
		// padd's addition: {"artifact": "<text>"}, as the MCP door sends it.
		var in struct {
			Artifact string `json:"artifact"`
		}
		if err := decodeBody(r, &in); err != nil {
			return err
		}
		raw = []byte(in.Artifact)
	} else {
		var err error
		if raw, err = io.ReadAll(io.LimitReader(r.Body, api.MaxArtifactBytes+1)); err != nil {
			return model.BadRequest("could not read the artifact: %v", err)
		}
	}
	if len(raw) > api.MaxArtifactBytes {
		return artifactTooLarge()
	}
	art, err := api.DecodeArtifact(raw)
	if err != nil {
		var ae *api.ArtifactError
		if errors.As(err, &ae) {
			return api.Errorf(ae.Code, "%s", ae.Message)
		}
		return err
	}
	if strings.TrimSpace(art.Title) == "" {
		return model.BadRequest("Title is required").With("field", "title")
	}
	slug := api.ArtifactCollection(art.Kind)
	coll, err := s.store.GetCollection(ws, slug)
	if model.IsNotFound(err) {
		return model.NotFound("this workspace has no collection that takes %q artifacts (%s)", art.Kind, slug).With("scope", "collection")
	}
	if err != nil {
		return err
	}
	fields := map[string]any{}
	warnings := []string{}
	for k, v := range art.Fields {
		fields[k] = v
	}
	for _, def := range coll.Schema.Fields {
		val, ok := fields[def.Key].(string)
		if def.Type != model.TypeSelect || !ok || val == "" || len(def.Options) == 0 || slices.Contains(def.Options, val) {
			continue
		}
		delete(fields, def.Key)
		warnings = append(warnings, fmt.Sprintf("field %q value %q is not a valid option in this workspace; cleared on import", def.Key, val))
	}
	if cur, _ := fields["status"].(string); cur != "draft" {
		fields["status"] = "draft"
		if cur != "" {
			warnings = append(warnings, fmt.Sprintf("status %q reset to \"draft\" on import", cur))
		}
	}
	create := storage.ItemCreate{Collection: coll.ID, Title: art.Title, Content: art.Body + api.ArtifactFooter(art.Provenance), Fields: fields}
	if err := checkInput(create); err != nil {
		return err
	}
	want, _ := fields["invocation_slug"].(string)
	for n := 2; ; n++ {
		res, err := s.store.CreateItem(ws, create, actor(r))
		if e, ok := model.AsError(err); ok && want != "" && e.Code == model.CodeConflict && e.Details["field"] == "invocation_slug" && n < 100 {
			fields["invocation_slug"] = fmt.Sprintf("%s-%d", want, n)
			continue
		}
		if err != nil {
			return err
		}
		if got := fields["invocation_slug"]; want != "" && got != want {
			warnings = append(warnings, fmt.Sprintf("invocation_slug %q was already in use; imported as %q", want, got))
		}
		writeJSON(w, 201, api.ArtifactImport{Ref: res.Item.Ref, Slug: res.Item.Slug, Warnings: warnings})
		return nil
	}
}

func artifactTooLarge() error {
	return api.Errorf(api.CodeTooLarge, "an artifact is at most %d bytes", api.MaxArtifactBytes).
		With("reason", "body").With("limit_bytes", api.MaxArtifactBytes)
}
