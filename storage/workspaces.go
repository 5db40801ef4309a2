package storage

import (
	"bytes"
	"strings"
	"time"

	"github.com/padd/padd/model"
	"github.com/padd/padd/storage/internal/records"
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

func putWorkspace(tx *records.Txn, w *model.Workspace) error {
	rec := *w
	rec.Seq = 0 // the head lives in the counters bucket
	b, err := records.Encode(rec)
	if err != nil {
		return err
	}
	return tx.Bucket(records.BWorkspaces).Put(records.MustID(w.ID), b)
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
	err := s.base.Update(func(tx *records.Txn) error {
		now := s.base.Clock()
		slugs := tx.Bucket(records.BWSSlugs)
		slug := model.UniqueSlug(model.WorkspaceSlug(in.Slug, name), func(c string) bool { return slugs.Get([]byte(c)) != nil })
		ws := &model.Workspace{ID: records.NewID(), Name: name, Slug: slug, Description: in.Description,
			Template: tmpl.Name, SortOrder: tx.Bucket(records.BWorkspaces).KeyN(),
			CreatedAt: records.Tstamp(now), UpdatedAt: records.Tstamp(now)}
		if err := putWorkspace(tx, ws); err != nil {
			return err
		}
		if err := slugs.Put([]byte(slug), records.MustID(ws.ID)); err != nil {
			return err
		}
		b, err := records.CreateWSBuckets(tx, ws.ID)
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
		ws.UpdatedAt = records.Tstamp(w.now)
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
		t := records.Tstamp(w.now)
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
	err := s.base.Update(func(tx *records.Txn) error {
		ws, err := records.FindWorkspace(tx, ref)
		if err != nil {
			return err
		}
		if ws == nil || ws.DeletedAt == nil {
			return model.NotFound("no deleted workspace %q to restore; `workspace deleted` lists them", ref).With("scope", "workspace")
		}
		now := s.base.Clock()
		if now.Sub(*ws.DeletedAt) > RestoreWindow {
			return model.NotFound("workspace %q was deleted more than 30 days ago and can no longer be restored", ref).With("scope", "workspace")
		}
		ws.DeletedAt = nil
		ws.UpdatedAt = records.Tstamp(now)
		w := &wtx{tx: tx, ws: records.OpenWS(tx, ws.ID), wsRec: ws, actor: actor, now: now}
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
	err := s.base.Update(func(tx *records.Txn) error {
		cutoff := s.base.Now().Add(-RestoreWindow)
		var victims []*model.Workspace
		err := tx.Bucket(records.BWorkspaces).ForEach(func(k, _ []byte) error {
			w, err := records.GetWorkspace(tx, k)
			if err == nil && w.DeletedAt != nil && w.DeletedAt.Before(cutoff) {
				victims = append(victims, w)
			}
			return err
		})
		if err != nil {
			return err
		}
		for _, w := range victims {
			id := records.MustID(w.ID)
			if err := tx.Bucket(records.BWS).DeleteBucket(id); err != nil {
				return err
			}
			if err := tx.Bucket(records.BWorkspaces).Delete(id); err != nil {
				return err
			}
			if got := tx.Bucket(records.BWSSlugs).Get([]byte(w.Slug)); bytes.Equal(got, id) {
				if err := tx.Bucket(records.BWSSlugs).Delete([]byte(w.Slug)); err != nil {
					return err
				}
			}
			purged = append(purged, w.Slug)
		}
		return nil
	})
	return purged, err
}
