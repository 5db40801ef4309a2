package daemon

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/padd/padd/api"
	"github.com/padd/padd/bundle"
	"github.com/padd/padd/model"
	"github.com/padd/padd/storage"
)

// Workspace import from Pad's JSON export or bundle (docs/BUNDLES.md):
// the bundle reader and its caps, and the conversion into storage's
// import.

// importWorkspace creates a workspace from Pad's JSON export or bundle,
// chosen by Content-Type as Pad's server does. The body is read and its
// JSON checked first; the workspace is then written in chunks while padd
// goes on answering, and appears whole or not at all
// (storage.ImportWorkspace): a refused, interrupted or stopped import
// leaves nothing behind.
func (s *Server) importWorkspace(w http.ResponseWriter, r *http.Request) error {
	claim, done, err := s.imports.claim(r, s.now())
	if err != nil || done != nil {
		if done != nil {
			done.replay(w)
		}
		return err
	}
	defer func() { claim.end(s.now()) }()
	// The import stops when its client goes away or padd stops.
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	go func() {
		select {
		case <-s.done:
			cancel()
		case <-ctx.Done():
		}
	}()
	body := &importBody{r: r.Body, rc: http.NewResponseController(w)}
	defer body.watch(ctx)()
	var doc *exportDoc
	var summary api.ImportSummary
	var b *bundle.Bundle
	if isBundle(r.Header.Get("Content-Type")) {
		blobs, berr := s.blobs()
		if berr != nil {
			return berr
		}
		b, err = bundle.Read(body, bundle.DefaultLimits(), blobs, func(r io.Reader, size int64) error {
			e, err := readExport(r, size, size)
			var ae *api.Error
			if ne := (*notExport)(nil); errors.As(err, &ne) {
				return ne.refusal(true)
			} else if errors.As(err, &ae) {
				return bundle.Refused("json", "the bundle's pad-export.json: %s", ae.Message)
			} else if err != nil {
				return err
			}
			e.bundle = true
			doc = e
			return nil
		})
		if ae := (*api.Error)(nil); err != nil && !errors.As(err, &ae) {
			err = storageFault(err) // the blob store's
		}
		if err == nil {
			// Staged blobs not committed below are removed: a refused
			// import leaves no file behind.
			defer b.Discard()
			summary.InBundle.Attachments = len(b.Manifest.Entries)
			for k, n := range b.Skipped {
				summary.NotModelled = addCount(summary.NotModelled, k, n)
			}
		}
	} else {
		if r.ContentLength > MaxImportJSON {
			return importTooLarge()
		}
		doc, err = readExport(body, r.ContentLength, MaxImportJSON)
		if ne := (*notExport)(nil); errors.As(err, &ne) {
			err = ne.refusal(false)
		} else if ae := (*api.Error)(nil); err != nil && !errors.As(err, &ae) && model.ErrorCodeOf(err) == "" {
			// A read that failed: an interrupted import when the
			// transport failed (body.gone, below).
			err = (&notExport{why: err.Error()}).refusal(false)
		}
	}
	if stopping := s.stopping(); stopping != nil && err != nil {
		return stopping
	}
	if body.gone() != nil {
		return api.Errorf(api.CodeImportInterrupted, "the import's body stopped arriving (%v); nothing was imported, send it again", body.gone())
	}
	if err != nil {
		return err
	}
	name := r.URL.Query().Get("name")
	in, notModelled, err := importMeta(&doc.meta, name)
	if err != nil {
		return err
	}
	src, err := newExportSource(doc, notModelled)
	if err != nil {
		return err
	}
	if err := s.nameFree(name); err != nil {
		return err
	}
	in.Source = src
	summary.InBundle.Collections = len(doc.meta.Collections)
	summary.InBundle.Items = len(doc.items)
	summary.InBundle.Comments = len(doc.comments)
	summary.InBundle.Links = len(doc.links)
	summary.InBundle.Versions = len(doc.versions)
	summary.InBundle.Roles = len(doc.meta.Roles)
	if b != nil {
		// The blobs go in place before the rows that name them commit.
		var skipped map[string]int
		if in.Attachments, skipped, err = s.bundleAttachments(b); err != nil {
			return err
		}
		for k, n := range skipped {
			summary.NotModelled = addCount(summary.NotModelled, k, n)
		}
	}
	out, err := s.store.ImportWorkspace(ctx, in, actor(r))
	if storage.IsImportStopped(err) {
		if stopping := s.stopping(); stopping != nil {
			return stopping
		}
		return api.Errorf(api.CodeImportInterrupted, "the import's client went away; nothing was imported")
	}
	if err != nil {
		return err
	}
	for k, n := range notModelled {
		summary.NotModelled = addCount(summary.NotModelled, k, n)
	}
	for k, n := range out.Skipped {
		summary.NotModelled = addCount(summary.NotModelled, k, n)
	}
	summary.Imported = api.ImportCounts{Collections: out.Imported.Collections, Items: out.Imported.Items,
		Comments: out.Imported.Comments, Links: out.Imported.Links, Versions: out.Imported.Versions, Roles: out.Imported.Roles,
		Attachments: out.Imported.Attachments}
	res := api.ImportResult{Workspace: wireWorkspace(out.Workspace), ImportSummary: summary}
	w.Header().Set(api.ImportDroppedRelationDefaultsHeader, strconv.Itoa(summary.NotModelled[storage.SkippedRelationDefaults]))
	w.Header().Set(api.ImportCollapsedDuplicateKeysHeader, strconv.Itoa(summary.NotModelled[model.SkippedDuplicateFieldKeys]))
	claim.complete(res, w.Header().Clone(), s.now())
	writeJSON(w, 201, res)
	return nil
}

// nameFree refuses an import named after a live workspace: the caller
// chose the name for a new workspace, and two with one name read alike
// in every list. An import without a name keeps the bundle's, as Pad
// does (a copy beside its original). It is read before the import's own
// write, so two imports given one name at the same moment can both pass.
func (s *Server) nameFree(name string) error {
	name = strings.TrimSpace(name)
	if name == "" {
		return nil
	}
	wss, err := s.views.ListWorkspaces()
	if err != nil {
		return err
	}
	for _, w := range wss {
		if strings.EqualFold(strings.TrimSpace(w.Name), name) {
			return api.Errorf(api.CodeConflict, "a workspace named %q exists (%s); an import with a name makes a new workspace, and two of one name would read alike",
				model.Excerpt(w.Name), w.Slug).With("field", "name").With("reason", "name_taken").With("workspace", w.Slug)
		}
	}
	return nil
}

// stopping is the refusal of an import padd's stop ended, or nil while
// padd runs.
func (s *Server) stopping() error {
	select {
	case <-s.done:
		return api.Errorf(api.CodeUnavailable, "padd is stopping; nothing was imported: send the import again once padd is back")
	default:
		return nil
	}
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
	r  io.Reader
	rc *http.ResponseController

	mu      sync.Mutex
	err     error
	reading bool // watch's reads: the body is being read
}

func (b *importBody) Read(p []byte) (int, error) {
	b.mu.Lock()
	if b.err != nil {
		b.mu.Unlock()
		return 0, b.err
	}
	b.reading = true
	_ = b.rc.SetReadDeadline(time.Now().Add(importReadTimeout))
	b.mu.Unlock()
	n, err := b.r.Read(p)
	b.mu.Lock()
	defer b.mu.Unlock()
	if err != nil && err != io.EOF && b.err == nil {
		var mbe *http.MaxBytesError
		if !errors.As(err, &mbe) {
			b.err = err
		}
	}
	if err == io.EOF {
		b.reading = false
		_ = b.rc.SetReadDeadline(time.Time{})
	}
	return n, err
}

// gone is the transport error that stopped the body, or nil.
func (b *importBody) gone() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.err
}

// watch ends a read of the body that waits when ctx ends (padd
// stopping), rather than after its deadline; the returned func ends the
// watch, before the handler returns.
func (b *importBody) watch(ctx context.Context) func() {
	stop := context.AfterFunc(ctx, func() {
		b.mu.Lock()
		defer b.mu.Unlock()
		if b.reading {
			_ = b.rc.SetReadDeadline(time.Now())
		}
	})
	return func() {
		stop()
		b.mu.Lock()
		b.reading = false
		b.mu.Unlock()
	}
}

// notExport is a document that is not Pad's WorkspaceExport, and why in
// words: the import says it as its own, a bundle of its pad-export.json.
type notExport struct{ why string }

func (e *notExport) Error() string { return e.why }

// refusal is the import's refusal of it: a bad request, or from a bundle
// a bad bundle.
func (e *notExport) refusal(inBundle bool) error {
	if inBundle {
		return bundle.Refused("json", "the bundle's pad-export.json is not Pad's workspace export: %s", e.why)
	}
	return model.BadRequest("the import is not Pad's workspace export: %s", e.why).With("reason", "json")
}

// exportProblem says in words why a document starting with head is not
// Pad's export, from what the JSON decoder met (err): the decoder's own
// words ("invalid character 'o' in literal null") tell a person nothing.
func exportProblem(head []byte, err error) string {
	var syntax *json.SyntaxError
	var kind *json.UnmarshalTypeError
	text := bytes.TrimLeft(head, " \t\r\n")
	switch {
	case len(text) == 0 && (errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)):
		return "it is empty"
	case bundle.LooksGzipped(head):
		return "it is gzip-compressed, as a tar.gz bundle is: send it as a bundle (Content-Type application/gzip), as padctl workspace import does"
	case len(text) > 0 && text[0] != '{':
		return fmt.Sprintf("it is not JSON, or not a JSON object as Pad's export is: it starts with %s", bundle.Quote(head))
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
		return "its JSON stops before its end: the file may be cut short"
	case errors.As(err, &syntax):
		return fmt.Sprintf("its JSON is broken at byte %d", syntax.Offset)
	case errors.As(err, &kind):
		return fmt.Sprintf("its %q is %s where Pad's export has %s", kind.Field, jsonKind(kind.Value), goKind(kind.Type))
	}
	return err.Error()
}

// jsonKind names a JSON value's kind as json.UnmarshalTypeError spells it.
func jsonKind(v string) string {
	switch word, _, _ := strings.Cut(v, " "); word {
	case "array", "object":
		return "an " + word
	case "bool":
		return "true or false"
	case "":
		return "a value"
	default:
		return "a " + word
	}
}

// goKind names the JSON kind a Go type decodes from.
func goKind(t reflect.Type) string {
	if t == nil {
		return "another kind of value"
	}
	switch t.Kind() {
	case reflect.Pointer:
		return goKind(t.Elem())
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Uint, reflect.Uint8, reflect.Uint16,
		reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Struct, reflect.Map:
		return "an object"
	}
	return "another kind of value"
}

// bundleAttachments commits the staged blob of each manifest entry (the
// originals: thumbnails and other variants are counted and left out) and
// turns the entries into storage's import rows. The type is sniffed
// from the bytes, as for an upload, not taken from the manifest.
func (s *Server) bundleAttachments(b *bundle.Bundle) ([]storage.ImportAttachment, map[string]int, error) {
	blobs, err := s.blobs()
	if err != nil {
		return nil, nil, err
	}
	var out []storage.ImportAttachment
	skipped := map[string]int{}
	for i := range b.Manifest.Entries {
		m := &b.Manifest.Entries[i]
		st := b.Staged[bundle.BlobPath(m.ID, m.Filename)]
		if st == nil {
			continue // counted as blob_missing
		}
		if (m.Variant != "" && m.Variant != "original") || m.ParentID != "" {
			skipped["attachment_variant"]++
			continue
		}
		mt := http.DetectContentType(st.Head)
		hash, size := st.Hash, st.Size
		if _, err := st.Commit(); err != nil {
			return nil, nil, storageFault(err)
		}
		wd, ht := imageSize(blobs, mt, hash)
		kind := m.UploadedBy
		if kind != model.ActorAgent {
			kind = model.ActorUser
		}
		at, _ := parseExportTime(m.CreatedAt)
		out = append(out, storage.ImportAttachment{Key: m.ID, ItemKey: m.ItemID, Filename: m.Filename, MIME: mt, Size: size, Hash: hash,
			Width: wd, Height: ht, UploadedBy: exportActor(kind, m.UploadedByName, ""), CreatedAt: at})
	}
	return out, skipped, nil
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

// importMeta checks the export's version, workspace, collections and
// roles against Pad's format and padd's model and converts them; the
// items, comments, links and versions are converted as the import writes
// them (exportSource). What padd does not model is counted in the map,
// by kind; a record that breaks the format or a rule refuses the import,
// naming it.
func importMeta(exp *api.WorkspaceExport, name string) (storage.ImportInput, map[string]int, error) {
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
	if t, ok := model.TemplateByName(exp.Workspace.Template); ok && t.Name == exp.Workspace.Template {
		in.Template = t.Name
	}
	if l := exp.Workspace.ReportLayout; l != nil {
		clean, err := model.CleanReportLayout(model.ReportLayout(*l))
		if err != nil {
			return in, nil, bad("workspace", 0, "report_layout: %v", err)
		}
		in.ReportLayout = &clean
	}
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
		var err error
		if in.Context, err = importSettings(st, nm); err != nil {
			return in, nil, withEntity(err, "workspace", 0)
		}
	}
	for i, c := range exp.Collections {
		var schema model.Schema
		if strings.TrimSpace(c.Schema) != "" {
			if err := json.Unmarshal([]byte(c.Schema), &schema); err != nil {
				return in, nil, bad("collection", i, "collection %q: its schema is not {\"fields\":[...]}: %v", model.Excerpt(c.Slug), err)
			}
		}
		var repeats int
		if schema, repeats = model.CollapseRepeatedKeys(schema); repeats > 0 {
			nm[model.SkippedDuplicateFieldKeys] += repeats
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
			SortOrder: &sort, SharedPrefix: true}
		if err := checkInput(create); err != nil {
			return in, nil, withEntity(err, "collection", i)
		}
		ic := storage.ImportCollection{Key: c.ID, Create: create, FormerPrefixes: c.FormerPrefixes}
		var err error
		if ic.CreatedAt, err = importTime("collection", i, c.CreatedAt); err != nil {
			return in, nil, err
		}
		if ic.UpdatedAt, err = importTime("collection", i, c.UpdatedAt); err != nil {
			return in, nil, err
		}
		if c.ArchivedAt != "" {
			t, err := importTime("collection", i, c.ArchivedAt)
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
	for _, v := range exp.SavedViews {
		in.SavedViews = append(in.SavedViews, storage.ImportSavedView{CollectionKey: v.CollectionID,
			Create: storage.SavedViewCreate{Name: v.Name, Slug: v.Slug, ViewType: v.ViewType,
				Config: json.RawMessage(strconv.Quote(v.Config)), SortOrder: v.SortOrder}})
	}
	return in, nm, nil
}

// importSettings reads the workspace's context from an export's settings
// text (Pad's, and padd's: {"context": ...}); every other setting is
// counted as not modelled, under workspace_settings.
func importSettings(text string, nm map[string]int) (*model.WorkspaceContext, error) {
	var members map[string]json.RawMessage
	if err := json.Unmarshal([]byte(text), &members); err != nil {
		return nil, model.Invalid("the workspace's settings are not a JSON object: %v", err).With("field", "settings")
	}
	var ctx *model.WorkspaceContext
	for k, raw := range members {
		if k != "context" || isJSONNull(raw) {
			nm["workspace_settings"]++
			continue
		}
		// Read as Pad reads it: a member padd does not know (a newer
		// Pad's) is counted, not refused, so the import goes on.
		var c model.WorkspaceContext
		var known map[string]json.RawMessage
		if json.Unmarshal(raw, &c) != nil || json.Unmarshal(raw, &known) != nil {
			return nil, model.Invalid("the workspace's context is not Pad's object (repositories, paths, commands, stack, deployment, assumptions)").
				With("field", "settings.context")
		}
		for m := range known {
			if !slices.Contains(model.WorkspaceContextMembers, m) {
				nm["workspace_context_members"]++
			}
		}
		if err := c.Check(); err != nil {
			return nil, err
		}
		ctx = &c
	}
	return ctx, nil
}

// importOrigin is an exported library origin as the import keeps it, or
// nil when it is malformed: a key within a field value's limit and a
// sha256 in hex (Pad skips a malformed origin too).
func importOrigin(o *api.LibraryOriginExport) *storage.LibraryOrigin {
	key, hash := strings.TrimSpace(o.Key), strings.ToLower(o.SeedHash)
	if key == "" || model.LimitFieldValue.Check(key) != nil || len(hash) != 64 {
		return nil
	}
	if _, err := hex.DecodeString(hash); err != nil {
		return nil
	}
	return &storage.LibraryOrigin{Key: key, SeedHash: hash}
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
