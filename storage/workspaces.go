package storage

import (
	"bytes"
	"sort"
	"strings"
	"time"

	"github.com/padd/padd/model"
)

// RestoreWindow is how long a deleted workspace can be restored.
const RestoreWindow = 30 * 24 * time.Hour

// WorkspaceCreate is a new workspace.
type WorkspaceCreate struct {
	Name        string
	Slug        string // requested; canonicalised, -2/-3 on collision
	Description string
	Template    string // "" = the default template
}

// WorkspaceUpdate changes a workspace; nil members are left alone.
type WorkspaceUpdate struct {
	Name        *string
	Description *string
	SortOrder   *int
}

func getWorkspace(tx *txn, id []byte) (*model.Workspace, error) {
	b := tx.Bucket(bWorkspaces).Get(id)
	if b == nil {
		return nil, nil
	}
	w, err := wsCache.decode(id, b, "workspace")
	if err != nil {
		return nil, err
	}
	if ws := openWS(tx, w.ID); ws != nil {
		w.Seq = ws.counter(kSeq)
	}
	return w, nil
}

// wsCache keeps decoded workspace records: every request resolves its
// workspace first.
var wsCache = newDecodedCache[model.Workspace]()

// findWorkspace resolves a slug or id to a workspace record, deleted or not.
func findWorkspace(tx *txn, ref string) (*model.Workspace, error) {
	if id, ok := idKey(ref); ok {
		return getWorkspace(tx, id)
	}
	id := tx.Bucket(bWSSlugs).Get([]byte(ref))
	if id == nil {
		if c := model.CanonicalSlug(ref); c != ref && c != "" {
			id = tx.Bucket(bWSSlugs).Get([]byte(c))
		}
	}
	if id == nil {
		return nil, nil
	}
	return getWorkspace(tx, id)
}

func liveWorkspace(tx *txn, ref string) (*model.Workspace, error) {
	w, err := findWorkspace(tx, ref)
	if err != nil {
		return nil, err
	}
	if w == nil || w.DeletedAt != nil {
		return nil, model.WorkspaceNotFound(ref)
	}
	return w, nil
}

func putWorkspace(tx *txn, w *model.Workspace) error {
	rec := *w
	rec.Seq = 0 // the head lives in the counters bucket
	b, err := encode(rec)
	if err != nil {
		return err
	}
	return tx.Bucket(bWorkspaces).Put(mustID(w.ID), b)
}

// CreateWorkspace creates a workspace seeded from a template.
func (s *Store) CreateWorkspace(in WorkspaceCreate, actor model.Actor) (*model.Workspace, error) {
	if err := CheckInput(in); err != nil {
		return nil, err
	}
	name := strings.TrimSpace(in.Name)
	if name == "" {
		return nil, model.BadRequest("Workspace name is required")
	}
	tmpl, ok := model.TemplateByName(in.Template)
	if !ok {
		return nil, model.Invalid("unknown template %q (known: %s)", in.Template, strings.Join(model.TemplateNames(), ", ")).With("template", in.Template)
	}
	var out *model.Workspace
	var note Notification
	err := s.update(func(tx *txn) error {
		now := s.clock()
		slugs := tx.Bucket(bWSSlugs)
		slug := model.UniqueSlug(model.WorkspaceSlug(in.Slug, name), func(c string) bool { return slugs.Get([]byte(c)) != nil })
		ws := &model.Workspace{ID: newID(), Name: name, Slug: slug, Description: in.Description,
			Template: tmpl.Name, SortOrder: tx.Bucket(bWorkspaces).KeyN(),
			CreatedAt: tstamp(now), UpdatedAt: tstamp(now)}
		if err := putWorkspace(tx, ws); err != nil {
			return err
		}
		if err := slugs.Put([]byte(slug), mustID(ws.ID)); err != nil {
			return err
		}
		b, err := createWSBuckets(tx, ws.ID)
		if err != nil {
			return err
		}
		w := &wtx{tx: tx, ws: b, wsRec: ws, actor: actor, now: now}
		seq, err := w.stamp(model.EntityWorkspace, model.OpCreated, ws.ID, "", "")
		if err != nil {
			return err
		}
		if err := w.activity(seq, "", "workspace_created", map[string]any{"template": tmpl.Name}); err != nil {
			return err
		}
		for i, ct := range tmpl.Collections {
			set := ct.Settings
			if _, err := w.createCollection(CollectionCreate{
				Name: ct.Name, Slug: ct.Slug, Prefix: ct.Prefix, Icon: ct.Icon,
				Description: ct.Description, Schema: &ct.Schema, Settings: &set,
				IsSystem: ct.IsSystem, IsDefault: true, SortOrder: &i,
			}); err != nil {
				return err
			}
		}
		ws.Seq = w.seq
		out = ws
		note = Notification{WorkspaceID: ws.ID, Seq: w.seq, Global: w.glob}
		return nil
	})
	if err != nil {
		return nil, err
	}
	s.publish(note)
	return out, nil
}

// ListWorkspaces lists the live workspaces in their order.
func (s *Store) ListWorkspaces() ([]model.Workspace, error) {
	return s.listWorkspaces(func(w *model.Workspace) bool { return w.DeletedAt == nil })
}

// ListDeletedWorkspaces lists deleted workspaces still inside the
// restore window, most recently deleted first.
func (s *Store) ListDeletedWorkspaces() ([]model.Workspace, error) {
	cutoff := s.now().Add(-RestoreWindow)
	out, err := s.listWorkspaces(func(w *model.Workspace) bool {
		return w.DeletedAt != nil && w.DeletedAt.After(cutoff)
	})
	sort.SliceStable(out, func(i, j int) bool { return out[i].DeletedAt.After(*out[j].DeletedAt) })
	return out, err
}

func (s *Store) listWorkspaces(keep func(*model.Workspace) bool) ([]model.Workspace, error) {
	var out []model.Workspace
	err := s.view(func(tx *txn) error {
		return tx.Bucket(bWorkspaces).ForEach(func(k, _ []byte) error {
			w, err := getWorkspace(tx, k)
			if err != nil {
				return err
			}
			if keep(w) {
				out = append(out, *w)
			}
			return nil
		})
	})
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].SortOrder != out[j].SortOrder {
			return out[i].SortOrder < out[j].SortOrder
		}
		return out[i].ID < out[j].ID
	})
	return out, err
}

// GetWorkspace resolves a live workspace by slug or id.
func (s *Store) GetWorkspace(ref string) (*model.Workspace, error) {
	var out *model.Workspace
	err := s.view(func(tx *txn) error {
		w, err := liveWorkspace(tx, ref)
		out = w
		return err
	})
	return out, err
}

// UpdateWorkspace changes a workspace's name, description or order.
func (s *Store) UpdateWorkspace(ref string, in WorkspaceUpdate, actor model.Actor) (*model.Workspace, error) {
	if err := CheckInput(in); err != nil {
		return nil, err
	}
	var out *model.Workspace
	err := s.write(ref, actor, func(w *wtx) error {
		ws := w.wsRec
		if in.Name != nil {
			n := strings.TrimSpace(*in.Name)
			if n == "" {
				return model.BadRequest("Workspace name cannot be empty")
			}
			ws.Name = n
		}
		if in.Description != nil {
			ws.Description = *in.Description
		}
		if in.SortOrder != nil {
			ws.SortOrder = *in.SortOrder
		}
		ws.UpdatedAt = tstamp(w.now)
		seq, err := w.stamp(model.EntityWorkspace, model.OpUpdated, ws.ID, "", "")
		if err != nil {
			return err
		}
		if err := putWorkspace(w.tx, ws); err != nil {
			return err
		}
		ws.Seq = seq
		out = ws
		return w.activity(seq, "", "workspace_updated", nil)
	})
	return out, err
}

// DeleteWorkspace soft-deletes a workspace; it can be restored for
// RestoreWindow, then PurgeWorkspaces removes it.
func (s *Store) DeleteWorkspace(ref string, actor model.Actor) error {
	return s.write(ref, actor, func(w *wtx) error {
		t := tstamp(w.now)
		w.wsRec.DeletedAt = &t
		seq, err := w.stamp(model.EntityWorkspace, model.OpDeleted, w.wsRec.ID, "", "")
		if err != nil {
			return err
		}
		if err := putWorkspace(w.tx, w.wsRec); err != nil {
			return err
		}
		return w.activity(seq, "", "workspace_deleted", nil)
	})
}

// RestoreWorkspace brings back a workspace deleted less than
// RestoreWindow ago.
func (s *Store) RestoreWorkspace(ref string, actor model.Actor) (*model.Workspace, error) {
	var out *model.Workspace
	var note Notification
	err := s.update(func(tx *txn) error {
		ws, err := findWorkspace(tx, ref)
		if err != nil {
			return err
		}
		if ws == nil || ws.DeletedAt == nil {
			return model.NotFound("no deleted workspace %q to restore; `workspace deleted` lists them", ref).With("scope", "workspace")
		}
		now := s.clock()
		if now.Sub(*ws.DeletedAt) > RestoreWindow {
			return model.NotFound("workspace %q was deleted more than 30 days ago and can no longer be restored", ref).With("scope", "workspace")
		}
		ws.DeletedAt = nil
		ws.UpdatedAt = tstamp(now)
		w := &wtx{tx: tx, ws: openWS(tx, ws.ID), wsRec: ws, actor: actor, now: now}
		seq, err := w.stamp(model.EntityWorkspace, model.OpRestored, ws.ID, "", "")
		if err != nil {
			return err
		}
		if err := putWorkspace(tx, ws); err != nil {
			return err
		}
		ws.Seq = seq
		out = ws
		note = Notification{WorkspaceID: ws.ID, Seq: seq, Global: w.glob}
		return w.activity(seq, "", "workspace_restored", nil)
	})
	if err == nil {
		s.publish(note)
	}
	return out, err
}

// PurgeWorkspaces removes workspaces deleted more than RestoreWindow
// ago, with all their data. It returns the purged slugs.
func (s *Store) PurgeWorkspaces() ([]string, error) {
	var purged []string
	err := s.update(func(tx *txn) error {
		cutoff := s.now().Add(-RestoreWindow)
		var victims []*model.Workspace
		err := tx.Bucket(bWorkspaces).ForEach(func(k, _ []byte) error {
			w, err := getWorkspace(tx, k)
			if err == nil && w.DeletedAt != nil && w.DeletedAt.Before(cutoff) {
				victims = append(victims, w)
			}
			return err
		})
		if err != nil {
			return err
		}
		for _, w := range victims {
			id := mustID(w.ID)
			if err := tx.Bucket(bWS).DeleteBucket(id); err != nil {
				return err
			}
			if err := tx.Bucket(bWorkspaces).Delete(id); err != nil {
				return err
			}
			if got := tx.Bucket(bWSSlugs).Get([]byte(w.Slug)); bytes.Equal(got, id) {
				if err := tx.Bucket(bWSSlugs).Delete([]byte(w.Slug)); err != nil {
					return err
				}
			}
			purged = append(purged, w.Slug)
		}
		return nil
	})
	return purged, err
}
