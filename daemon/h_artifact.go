package daemon

import (
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/padd/padd/api"
	"github.com/padd/padd/artifact"
	"github.com/padd/padd/model"
	"github.com/padd/padd/storage"
)

// Item artifacts (ITM-19): one playbook or convention as portable text.

// exportArtifact answers a playbook or convention as artifact text
// (ITM-19), with a provenance block naming the workspace, the caller and
// the time.
func (s *Server) exportArtifact(w http.ResponseWriter, r *http.Request) error {
	ws := r.PathValue("ws")
	v, err := s.views.GetItem(ws, r.PathValue("ref"))
	if err != nil {
		return err
	}
	kind := artifact.KindOfCollection(v.Collection.Slug)
	if kind == "" {
		return api.Errorf(api.CodeUnsupportedCollection,
			"%s is in %s, whose items are not artifacts: only playbooks and conventions export as artifacts", v.Ref, v.Collection.Slug).
			With("collection", v.Collection.Slug)
	}
	wsRec, err := s.views.GetWorkspace(ws)
	if err != nil {
		return err
	}
	out, err := artifact.Encode(artifact.Doc{Kind: kind, Title: v.Title, Fields: v.Fields, Body: v.Content,
		Provenance: artifact.Provenance{Workspace: wsRec.Slug, ExportedAt: time.Now().UTC().Format(time.RFC3339), Author: actor(r).Name}})
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
	art, err := artifact.Decode(raw)
	if err != nil {
		var ae *artifact.Error
		if errors.As(err, &ae) {
			return api.Errorf(ae.Code, "%s", ae.Message)
		}
		return err
	}
	if strings.TrimSpace(art.Title) == "" {
		return model.BadRequest("Title is required").With("field", "title")
	}
	slug := artifact.Collection(art.Kind)
	coll, err := s.views.GetCollection(ws, slug)
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
	create := storage.ItemCreate{Collection: coll.ID, Title: art.Title, Content: art.Body + artifact.Footer(art.Provenance), Fields: fields}
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
