package daemon

import (
	"encoding/json"
	"net/http"

	"github.com/padd/padd/api"
	"github.com/padd/padd/model"
	"github.com/padd/padd/storage"
)

var modelTemplates = model.Templates

func (s *Server) collectionRoutes() {
	s.handle("GET /api/v1/workspaces/{ws}/collections", s.listCollections)
	s.handle("POST /api/v1/workspaces/{ws}/collections", s.createCollection)
	s.handle("GET /api/v1/workspaces/{ws}/collections/{coll}", s.getCollection)
	s.handle("PATCH /api/v1/workspaces/{ws}/collections/{coll}", s.updateCollection)
	s.handle("DELETE /api/v1/workspaces/{ws}/collections/{coll}", s.archiveCollection)
	s.handle("GET /api/v1/workspaces/{ws}/archived-collections", s.listArchivedCollections)
	s.handle("POST /api/v1/workspaces/{ws}/archived-collections/{coll}/restore", s.restoreCollection)
}

func (s *Server) listCollections(w http.ResponseWriter, r *http.Request) error {
	cs, err := s.views.ListCollections(r.PathValue("ws"))
	if err != nil {
		return err
	}
	out := make([]api.Collection, 0, len(cs))
	for _, c := range cs {
		out = append(out, wireCollectionInfo(c))
	}
	writeJSON(w, 200, out)
	return nil
}

func (s *Server) listArchivedCollections(w http.ResponseWriter, r *http.Request) error {
	cs, err := s.views.ListArchivedCollections(r.PathValue("ws"))
	if err != nil {
		return err
	}
	out := make([]map[string]any, 0, len(cs))
	for _, c := range cs {
		out = append(out, map[string]any{"id": c.ID, "name": c.Name, "slug": c.Slug, "prefix": c.Prefix,
			"icon": c.Icon, "item_count": c.ItemCount, "archived_at": c.ArchivedAt})
	}
	writeJSON(w, 200, out)
	return nil
}

func (s *Server) getCollection(w http.ResponseWriter, r *http.Request) error {
	c, err := s.views.GetCollection(r.PathValue("ws"), r.PathValue("coll"))
	if err != nil {
		return err
	}
	writeJSON(w, 200, wireCollectionInfo(*c))
	return nil
}

// decodeSchema reads a schema member sent as an object or as JSON text.
func decodeSchema(f api.Flex) (*model.Schema, error) {
	if !f.Present() {
		return nil, nil
	}
	v, err := f.Value()
	if err != nil {
		return nil, model.Invalid("schema is not valid JSON: %v", err)
	}
	if v == nil {
		return nil, nil
	}
	var s model.Schema
	if err := remarshal(v, &s); err != nil {
		return nil, model.Invalid("schema must be {\"fields\":[...]}: %v", err)
	}
	return &s, nil
}

func decodeSettings(f api.Flex) (*model.Settings, error) {
	if !f.Present() {
		return nil, nil
	}
	v, err := f.Value()
	if err != nil {
		return nil, model.Invalid("settings is not valid JSON: %v", err)
	}
	if v == nil {
		return nil, nil
	}
	if _, ok := v.(map[string]any); !ok {
		return nil, model.Invalid(`"settings" must be a JSON object or a JSON-encoded string`)
	}
	var set model.Settings
	if err := remarshal(v, &set); err != nil {
		return nil, model.Invalid("settings: %v", err)
	}
	return &set, nil
}

func decodeBool(f api.Flex, name string) (*bool, error) {
	if !f.Present() {
		return nil, nil
	}
	var b bool
	if err := json.Unmarshal(f, &b); err != nil {
		return nil, model.Invalid("%s must be true or false", name).With("field", name)
	}
	return &b, nil
}

// collectionParts decodes the members a collection create and update
// share, each sent as a JSON value or as JSON text.
func collectionParts(schema, settings, tracksWork api.Flex) (*model.Schema, *model.Settings, *bool, error) {
	sc, err := decodeSchema(schema)
	if err != nil {
		return nil, nil, nil, err
	}
	set, err := decodeSettings(settings)
	if err != nil {
		return nil, nil, nil, err
	}
	tw, err := decodeBool(tracksWork, "tracks_work")
	return sc, set, tw, err
}

// remarshal converts a decoded JSON value into a typed struct.
func remarshal(v any, into any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, into)
}

func (s *Server) createCollection(w http.ResponseWriter, r *http.Request) error {
	var in api.CollectionCreate
	if err := decodeBody(r, &in); err != nil {
		return err
	}
	schema, set, tw, err := collectionParts(in.Schema, in.Settings, in.TracksWork)
	if err != nil {
		return err
	}
	create := storage.CollectionCreate{Name: in.Name, Slug: in.Slug,
		Prefix: in.Prefix, Icon: in.Icon, Description: in.Description, Schema: schema, FieldsDSL: in.Fields,
		Settings: set, TracksWork: tw, IsSystem: in.IsSystem, SortOrder: in.SortOrder}
	if err := checkInput(create); err != nil {
		return err
	}
	c, err := s.store.CreateCollection(r.PathValue("ws"), create, actor(r))
	if err != nil {
		return err
	}
	writeJSON(w, 201, wireCollection(c, 0, 0))
	return nil
}

func (s *Server) updateCollection(w http.ResponseWriter, r *http.Request) error {
	var in api.CollectionUpdate
	if err := decodeBody(r, &in); err != nil {
		return err
	}
	schema, set, tw, err := collectionParts(in.Schema, in.Settings, in.TracksWork)
	if err != nil {
		return err
	}
	ws := r.PathValue("ws")
	update := storage.CollectionUpdate{Name: in.Name,
		Prefix: in.Prefix, Icon: in.Icon, Description: in.Description, Schema: schema, FieldsDSL: in.Fields,
		Settings: set, TracksWork: tw, SortOrder: in.SortOrder, ExpectedUpdatedAt: in.ExpectedUpdatedAt}
	if err := checkInput(update); err != nil {
		return err
	}
	c, warn, err := s.store.UpdateCollection(ws, r.PathValue("coll"), update, actor(r))
	if err != nil {
		return err
	}
	ci, err := s.views.GetCollectionAnyState(ws, c.ID)
	if err != nil {
		return err
	}
	out := wireCollectionInfo(*ci)
	out.Warnings = wireWarnings(warn)
	writeJSON(w, 200, out)
	return nil
}

func (s *Server) archiveCollection(w http.ResponseWriter, r *http.Request) error {
	if err := s.store.ArchiveCollection(r.PathValue("ws"), r.PathValue("coll"), actor(r)); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func (s *Server) restoreCollection(w http.ResponseWriter, r *http.Request) error {
	ws := r.PathValue("ws")
	c, err := s.store.RestoreCollection(ws, r.PathValue("coll"), actor(r))
	if err != nil {
		return err
	}
	ci, err := s.views.GetCollection(ws, c.ID)
	if err != nil {
		return err
	}
	writeJSON(w, 200, wireCollectionInfo(*ci))
	return nil
}
