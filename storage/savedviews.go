package storage

import (
	"encoding/json"
	"strings"

	"github.com/padd/padd/model"
	"github.com/padd/padd/storage/internal/records"
)

// Saved views of a collection (Pad's /collections/{coll}/views); the
// bucket's layout is in storage/internal/records/savedviews.go, the
// reads in storage/views.

// SavedViewCreate is a new saved view. An empty Slug is derived from
// Name; an empty ViewType is "list"; Config is a JSON object or a
// string holding one (model.ParseViewConfig).
type SavedViewCreate struct {
	Name     string
	Slug     string
	ViewType string
	Config   json.RawMessage
	// SortOrder is for an import; Pad's create takes none.
	SortOrder int
}

// SavedViewUpdate changes a saved view; nil members are left alone.
type SavedViewUpdate struct {
	Name      *string
	ViewType  *string
	Config    json.RawMessage // nil: left alone
	SortOrder *int
}

// CreateSavedView adds a saved view to collection coll (slug, alias or
// id) of workspace ws.
func (s *Store) CreateSavedView(ws, coll string, in SavedViewCreate, actor model.Actor) (*model.SavedView, error) {
	var out *model.SavedView
	err := s.write(ws, actor, func(w *wtx) (err error) {
		c, err := records.LiveCollection(w.ws, coll)
		if err != nil {
			return err
		}
		out, err = w.createSavedView(c, in)
		return err
	})
	return out, err
}

func (w *wtx) createSavedView(c *model.Collection, in SavedViewCreate) (*model.SavedView, error) {
	if err := CheckInput(in); err != nil {
		return nil, err
	}
	name := strings.TrimSpace(in.Name)
	if name == "" {
		return nil, model.BadRequest("Name is required").With("field", "name")
	}
	viewType, err := model.CheckViewType(in.ViewType)
	if err != nil {
		return nil, err
	}
	config, err := model.ParseViewConfig(in.Config)
	if err != nil {
		return nil, err
	}
	existing, err := records.SavedViewsOf(w.ws, c.ID)
	if err != nil {
		return nil, err
	}
	if len(existing) >= model.MaxSavedViews {
		return nil, model.Invalid("collection %s has %d saved views, the most it may have; delete one first", c.Slug, len(existing)).
			With("limit", model.MaxSavedViews).With("collection", c.Slug)
	}
	taken, err := savedViewSlugs(w.ws)
	if err != nil {
		return nil, err
	}
	base := model.CanonicalSlug(in.Slug)
	if base == "" {
		base = model.CanonicalSlug(name)
	}
	if base == "" {
		base = "view"
	}
	bk, err := records.SavedViewsForWrite(w.ws)
	if err != nil {
		return nil, err
	}
	sv := &model.SavedView{ID: records.NewID(), WorkspaceID: w.ws.ID, CollectionID: c.ID, Name: name,
		Slug: model.UniqueSlug(base, func(s string) bool { return taken[s] }), ViewType: viewType, Config: config,
		SortOrder: in.SortOrder, CreatedAt: records.Tstamp(w.now), UpdatedAt: records.Tstamp(w.now)}
	seq, err := w.stamp(model.EntitySavedView, model.OpCreated, sv.ID, "", c.ID)
	if err != nil {
		return nil, err
	}
	sv.Seq = seq
	return sv, records.FirstErr(records.PutSavedView(bk, sv),
		w.activity(seq, "", "saved_view_created", map[string]any{"seq": seq, "view": sv.Slug, "collection": c.Slug}))
}

// savedViewSlugs are the slugs the workspace's saved views hold: a
// view's slug is unique in its workspace, as in Pad.
func savedViewSlugs(b *records.Wsb) (map[string]bool, error) {
	all, err := records.AllSavedViews(b)
	taken := make(map[string]bool, len(all))
	for _, sv := range all {
		taken[sv.Slug] = true
	}
	return taken, err
}

// savedViewOf finds saved view id of collection coll, refusing one that
// is missing or another collection's with Pad's not_found.
func savedViewOf(b *records.Wsb, coll, id string) (*model.SavedView, *model.Collection, error) {
	c, err := records.LiveCollection(b, coll)
	if err != nil {
		return nil, nil, err
	}
	if key, ok := records.IDKey(strings.TrimSpace(id)); ok {
		sv, err := records.GetSavedView(b, key)
		if err != nil {
			return nil, nil, err
		}
		if sv != nil && sv.CollectionID == c.ID {
			return sv, c, nil
		}
	}
	return nil, nil, model.NotFound("View not found").With("view", model.Excerpt(id)).With("collection", c.Slug)
}

// UpdateSavedView changes saved view id of collection coll. An update
// that changes nothing writes nothing.
func (s *Store) UpdateSavedView(ws, coll, id string, in SavedViewUpdate, actor model.Actor) (*model.SavedView, error) {
	if err := CheckInput(in); err != nil {
		return nil, err
	}
	var out *model.SavedView
	err := s.write(ws, actor, func(w *wtx) error {
		sv, c, err := savedViewOf(w.ws, coll, id)
		if err != nil {
			return err
		}
		next := *sv
		if in.Name != nil {
			if next.Name = strings.TrimSpace(*in.Name); next.Name == "" {
				return model.BadRequest("a saved view's name cannot be empty").With("field", "name")
			}
		}
		if in.ViewType != nil {
			if next.ViewType, err = model.CheckViewType(*in.ViewType); err != nil {
				return err
			}
		}
		if in.Config != nil {
			if next.Config, err = model.ParseViewConfig(in.Config); err != nil {
				return err
			}
		}
		if in.SortOrder != nil {
			next.SortOrder = *in.SortOrder
		}
		out = sv
		if next.Name == sv.Name && next.ViewType == sv.ViewType && string(next.Config) == string(sv.Config) && next.SortOrder == sv.SortOrder {
			return nil
		}
		seq, err := w.stamp(model.EntitySavedView, model.OpUpdated, sv.ID, "", c.ID)
		if err != nil {
			return err
		}
		next.UpdatedAt, next.Seq = records.Tstamp(w.now), seq
		out = &next
		bk, err := records.SavedViewsForWrite(w.ws)
		if err != nil {
			return err
		}
		return records.FirstErr(records.PutSavedView(bk, &next),
			w.activity(seq, "", "saved_view_updated", map[string]any{"seq": seq, "view": next.Slug, "collection": c.Slug}))
	})
	return out, err
}

// DeleteSavedView removes saved view id of collection coll.
func (s *Store) DeleteSavedView(ws, coll, id string, actor model.Actor) error {
	return s.write(ws, actor, func(w *wtx) error {
		sv, c, err := savedViewOf(w.ws, coll, id)
		if err != nil {
			return err
		}
		seq, err := w.stamp(model.EntitySavedView, model.OpDeleted, sv.ID, "", c.ID)
		if err != nil {
			return err
		}
		bk, err := records.SavedViewsForWrite(w.ws)
		if err != nil {
			return err
		}
		return records.FirstErr(records.DeleteSavedView(bk, sv),
			w.activity(seq, "", "saved_view_deleted", map[string]any{"seq": seq, "view": sv.Slug, "collection": c.Slug}))
	})
}

// importSavedViews writes an import's saved views, each into the
// collection its key names.
func (w *wtx) importSavedViews(views []ImportSavedView, colls map[string]*model.Collection) error {
	for i, v := range views {
		c := colls[v.CollectionKey]
		if c == nil {
			return refusal(model.Invalid("saved view %q names collection %q, which the export does not hold", model.Excerpt(v.Create.Name), model.Excerpt(v.CollectionKey)), "saved_view", i)
		}
		if _, err := w.createSavedView(c, v.Create); err != nil {
			return refusal(err, "saved_view", i)
		}
	}
	return nil
}

// ImportSavedView is a saved view of an import: the key of its
// collection in the import, and the view.
type ImportSavedView struct {
	CollectionKey string
	Create        SavedViewCreate
}

// exportSavedViews hands the workspace's saved views to an export.
func exportSavedViews(b *records.Wsb, sink ExportSink) error {
	all, err := records.AllSavedViews(b)
	if err != nil {
		return err
	}
	for _, sv := range all {
		if err := sink.SavedView(sv); err != nil {
			return err
		}
	}
	return nil
}
