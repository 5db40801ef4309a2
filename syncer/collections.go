package syncer

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/padd/padd/api"
	"github.com/padd/padd/model"
	"github.com/padd/padd/remote"
	"github.com/padd/padd/remote/merge"
	"github.com/padd/padd/storage"
)

// Collections keep one slug on both sides. A collection's schema,
// settings, icon and description are merged three ways, against the
// version both sides last agreed on (storage.SyncCollectionBase), on pull
// and on push alike (reconcileCollection); a push is guarded by the
// remote's updated_at, read just before. Names are not synced: Pad gives
// a renamed collection a new slug.

// maxCollectionRetries bounds how many times a push that lost the race to
// another writer (409) reads the remote again and merges again.
const maxCollectionRetries = 3

// remoteCollection is the remote slug of a local collection, creating it
// on the remote (or mapping the remote's of the same slug, and merging
// the two) when it has none yet.
func (w *worker) remoteCollection(ctx context.Context, c *remote.Client, link *storage.RemoteLink, localID string) (string, error) {
	lc, err := w.m.views.GetCollectionAnyState(w.wsID, localID)
	if err != nil {
		return "", err
	}
	if _, ok, err := w.m.sync.SyncRemoteID(w.wsID, storage.SyncCollection, lc.ID); err != nil || ok {
		return lc.Slug, err
	}
	rcs, err := c.ListCollections(ctx, link.RemoteWorkspaceID)
	if err != nil {
		return "", err
	}
	for i := range rcs {
		if rc := &rcs[i]; rc.Slug == lc.Slug {
			if err := w.m.store.SyncApply(w.wsID, syncActor, func(t *storage.SyncTx) error {
				return t.MapID(storage.SyncCollection, lc.ID, rc.ID)
			}); err != nil {
				return "", err
			}
			return lc.Slug, w.reconcileCollection(ctx, c, link, lc.ID, rc, true)
		}
	}
	loc := localCollection(&lc.Collection)
	schema, err := w.schemaOut(loc.Schema, nil)
	if err != nil {
		return "", err
	}
	rc, err := c.CreateCollection(ctx, link.RemoteWorkspaceID, api.CollectionCreate{Name: lc.Name, Slug: lc.Slug,
		Prefix: lc.Prefix, Icon: lc.Icon, Description: lc.Description, Schema: flex(schema), Settings: flex(loc.Settings),
		IsSystem: lc.IsSystem})
	if err != nil {
		return "", err
	}
	return lc.Slug, w.m.store.SyncApply(w.wsID, syncActor, func(t *storage.SyncTx) error {
		if err := t.MapID(storage.SyncCollection, lc.ID, rc.ID); err != nil {
			return err
		}
		return setCollectionBase(t, lc.ID, rc)
	})
}

// pushCollection pushes a collection created or edited here: merged with
// the remote's as it is now, and sent guarded by its updated_at.
func (w *worker) pushCollection(ctx context.Context, c *remote.Client, link *storage.RemoteLink, ch model.Change) (bool, error) {
	lc, err := w.m.views.GetCollectionAnyState(w.wsID, ch.ID)
	if model.IsNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	rid, mapped, err := w.m.sync.SyncRemoteID(w.wsID, storage.SyncCollection, lc.ID)
	if err != nil {
		return false, err
	}
	if !mapped {
		_, err := w.remoteCollection(ctx, c, link, lc.ID)
		return false, err
	}
	if ch.Op != model.OpUpdated {
		return false, nil
	}
	rc, err := w.readRemoteCollection(ctx, c, link, rid)
	if err != nil {
		return false, err
	}
	if rc == nil {
		return false, w.keepRefused(&lc.Collection, nil, "the remote no longer has it; padd keeps it")
	}
	return false, w.reconcileCollection(ctx, c, link, lc.ID, rc, true)
}

// readRemoteCollection reads the remote's collection of id rid as it is
// now; nil when the remote no longer has it (or has archived it).
func (w *worker) readRemoteCollection(ctx context.Context, c *remote.Client, link *storage.RemoteLink, rid string) (*api.Collection, error) {
	rcs, err := c.ListCollections(ctx, link.RemoteWorkspaceID)
	if err != nil {
		return nil, err
	}
	for i := range rcs {
		if rcs[i].ID == rid && rcs[i].DeletedAt == nil && rcs[i].ArchivedAt == nil {
			return &rcs[i], nil
		}
	}
	return nil, nil
}

// pullCollections maps the remote's collections to local ones (by id,
// else by slug) and merges each with padd's; a new one is created
// locally.
func (w *worker) pullCollections(ctx context.Context, c *remote.Client, link *storage.RemoteLink) error {
	rcs, err := c.ListCollections(ctx, link.RemoteWorkspaceID)
	if err != nil {
		return err
	}
	for i := range rcs {
		rc := &rcs[i]
		if rc.DeletedAt != nil || rc.ArchivedAt != nil {
			continue
		}
		rem, err := decodeRemoteCollection(rc, w.lookIn)
		if err != nil {
			if err := w.setAside(storage.SyncConflict{Reason: fmt.Sprintf("the remote's collection %s: %v", rc.Slug, err)}); err != nil {
				return err
			}
			continue
		}
		var local string
		err = w.m.store.SyncApply(w.wsID, syncActor, func(t *storage.SyncTx) error {
			var ok bool
			if local, ok = t.LocalID(storage.SyncCollection, rc.ID); ok {
				return nil
			}
			lc, err := t.Collection(rc.Slug)
			if err != nil {
				return err
			}
			if lc != nil {
				local = lc.ID
				return t.MapID(storage.SyncCollection, local, rc.ID)
			}
			nc, err := t.CreateCollection(storage.CollectionCreate{Name: rc.Name, Slug: rc.Slug, Prefix: rc.Prefix,
				Icon: rc.Icon, Description: rc.Description, Schema: &rem.Schema, Settings: &rem.Settings, IsSystem: rc.IsSystem})
			if err != nil {
				return err
			}
			if err := t.MapID(storage.SyncCollection, nc.ID, rc.ID); err != nil {
				return err
			}
			return setCollectionBase(t, nc.ID, rc)
		})
		if isRefusal(err) {
			if err := w.setAside(storage.SyncConflict{Reason: fmt.Sprintf("padd refused the remote's collection %s: %v", rc.Slug, err)}); err != nil {
				return err
			}
			continue
		}
		if err == nil {
			err = w.reconcileCollection(ctx, c, link, local, rc, false)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// reconcileCollection brings a mapped collection to one version on both
// sides: the merge of padd's, the remote's (rc, as just read) and the
// base. The merged one is written here and, where it differs from rc,
// sent guarded by rc's updated_at; a 409 reads the remote again and
// merges again. pushing says padd has a change of the collection to
// send; a pull sends only then (else a change the remote once refused
// would be sent again at every pull: it is re-sent when the user edits
// the collection again).
//
// What the merge cannot keep of padd's side (a part both sides changed,
// where the remote's value wins) and a change the remote refuses are set
// aside with padd's whole collection as it was; padd's collection is
// never rolled back by a refusal.
func (w *worker) reconcileCollection(ctx context.Context, c *remote.Client, link *storage.RemoteLink, localID string, rc *api.Collection, pushing bool) error {
	for attempt := 0; ; attempt++ {
		lc, err := w.m.views.GetCollectionAnyState(w.wsID, localID)
		if model.IsNotFound(err) {
			return nil
		}
		if err != nil {
			return err
		}
		rem, err := decodeRemoteCollection(rc, w.lookIn)
		if err != nil {
			return w.setAside(storage.SyncConflict{Reason: fmt.Sprintf("the remote's collection %s: %v", rc.Slug, err)})
		}
		loc := localCollection(&lc.Collection)
		stored, err := w.m.sync.SyncCollectionBase(w.wsID, localID)
		if err != nil {
			return err
		}
		// Whether padd has a change to send is read from the outbox (a
		// scan of it) only where it matters: no base, or a difference.
		if !pushing && stored == nil {
			if pushing, err = w.m.sync.OutboxHolds(w.wsID, model.EntityCollection, localID); err != nil {
				return err
			}
		}
		base := &loc // no base and nothing of padd's to send: padd's side is what both had
		switch {
		case stored != nil:
			base = baseCollection(stored)
		case pushing:
			base = nil
		}
		res := merge.MergeCollection(base, &loc, &rem)
		if res.Push && !pushing {
			if pushing, err = w.m.sync.OutboxHolds(w.wsID, model.EntityCollection, localID); err != nil {
				return err
			}
		}
		if len(res.Conflicts) > 0 {
			if err := w.keepRefused(&lc.Collection, rc, "both sides changed "+conflictParts(res.Conflicts)+
				"; the remote's values are in the collection now"); err != nil {
				return err
			}
		}
		send := res.Push && pushing
		err = w.m.store.SyncApply(w.wsID, syncActor, func(t *storage.SyncTx) error {
			if res.WriteLocal {
				m := res.Merged
				if _, _, err := t.UpdateCollection(localID, storage.CollectionUpdate{Icon: &m.Icon, Description: &m.Description,
					Schema: &m.Schema, Settings: &m.Settings}); err != nil {
					return err
				}
			}
			if res.Push {
				return nil // the base moves when the remote has it too
			}
			return setCollectionBase(t, localID, rc)
		})
		if isRefusal(err) {
			return w.setAside(storage.SyncConflict{Part: "collection:" + lc.Slug, Remote: collectionJSON(&rem),
				Reason: fmt.Sprintf("padd refused the remote's collection %s merged with its own: %v", lc.Slug, err)})
		}
		if err != nil || !send {
			return err
		}
		up, err := w.collectionUpdate(&res.Merged, &rem, rc)
		if err != nil {
			return err
		}
		out, err := c.UpdateCollection(ctx, link.RemoteWorkspaceID, rc.Slug, up, rc.UpdatedAt)
		if _, stale := remote.AsConflict(err); stale && attempt < maxCollectionRetries {
			rid := rc.ID
			if rc, err = w.readRemoteCollection(ctx, c, link, rid); err != nil {
				return err
			}
			if rc == nil {
				return w.keepRefused(&lc.Collection, nil, "the remote no longer has it; padd keeps it")
			}
			continue
		}
		if err != nil {
			if r := refused(err); isRefusal(r) {
				return w.keepRefused(&lc.Collection, rc, fmt.Sprintf("the remote refused it: %v; padd keeps it, and sends it again with its next edit", err))
			}
			return err
		}
		return w.m.store.SyncApply(w.wsID, syncActor, func(t *storage.SyncTx) error {
			return setCollectionBase(t, localID, out)
		})
	}
}

// keepRefused sets aside what of padd's collection did not reach the
// remote, with the whole of it as padd has it (Local: the body of a
// collection PATCH that sends it again) and the remote's (Remote), so
// that nothing is lost and the user can see and apply it again.
func (w *worker) keepRefused(lc *model.Collection, rc *api.Collection, why string) error {
	loc := localCollection(lc)
	sc := storage.SyncConflict{Part: "collection:" + lc.Slug, Local: collectionJSON(&loc),
		Reason: fmt.Sprintf("collection %s: %s (padd's whole collection as it was is in this record: local)", lc.Slug, why)}
	if rc != nil {
		if rem, err := decodeRemoteCollection(rc, w.lookIn); err == nil {
			sc.Remote = collectionJSON(&rem)
		}
	}
	return w.setAside(sc)
}

// conflictParts names the parts of a collection both sides changed.
func conflictParts(cs []merge.Conflict) string {
	parts := make([]string, 0, len(cs))
	for _, c := range cs {
		p := c.What
		if c.Key != "" {
			p += " " + c.Key
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, ", ")
}

// collectionUpdate is the PATCH that makes the remote's collection (rem,
// as rc says it) the merged one: only the parts that differ, the schema's
// relation defaults in the remote's ids.
func (w *worker) collectionUpdate(m, rem *merge.Collection, rc *api.Collection) (api.CollectionUpdate, error) {
	var up api.CollectionUpdate
	if m.Icon != rem.Icon {
		up.Icon = &m.Icon
	}
	if m.Description != rem.Description {
		up.Description = &m.Description
	}
	if !sameJSON(m.Schema, rem.Schema) {
		theirs, _, err := collectionParts(rc)
		if err != nil {
			return up, err
		}
		schema, err := w.schemaOut(m.Schema, theirs)
		if err != nil {
			return up, err
		}
		up.Schema = flex(schema)
	}
	if !sameJSON(m.Settings, rem.Settings) {
		up.Settings = flex(m.Settings)
	}
	return up, nil
}

// setCollectionBase records rc (the remote's collection, which padd now
// holds too) as the collection's base.
func setCollectionBase(t *storage.SyncTx, localID string, rc *api.Collection) error {
	rem, err := decodeRemoteCollection(rc, lookInTx(t))
	if err != nil {
		return err
	}
	return t.SetCollectionBase(storage.SyncCollectionBase{CollectionID: localID, Icon: rem.Icon, Description: rem.Description,
		Schema: rem.Schema, Settings: rem.Settings, RemoteUpdatedAt: rc.UpdatedAt.UTC().Format(time.RFC3339Nano)})
}

// The three sides of a collection as merge compares them. Settings leave
// out tracks_work, padd's own (Pad keeps no such setting).
func localCollection(c *model.Collection) merge.Collection {
	s := c.Settings
	s.TracksWork = nil
	return merge.Collection{Icon: c.Icon, Description: c.Description, Schema: c.Schema, Settings: s}
}

func baseCollection(b *storage.SyncCollectionBase) *merge.Collection {
	return &merge.Collection{Icon: b.Icon, Description: b.Description, Schema: b.Schema, Settings: b.Settings}
}

// decodeRemoteCollection is the remote's collection as merge compares
// it, its relation defaults in padd's ids by look (schemaIn).
func decodeRemoteCollection(rc *api.Collection, look func(string) (string, bool)) (merge.Collection, error) {
	schema, settings, err := collectionParts(rc)
	if err != nil {
		return merge.Collection{}, err
	}
	out := merge.Collection{Icon: rc.Icon, Description: rc.Description, Schema: schemaIn(*schema, look)}
	if settings != nil {
		out.Settings = *settings
	}
	out.Settings.TracksWork = nil
	return out, nil
}

// collectionJSON is a collection side as the body of a collection PATCH
// (schema and settings as objects, which padd takes).
func collectionJSON(m *merge.Collection) json.RawMessage {
	b, err := json.Marshal(map[string]any{"icon": m.Icon, "description": m.Description, "schema": m.Schema, "settings": m.Settings})
	if err != nil {
		return nil
	}
	return b
}

// collectionParts decodes a remote collection's schema and settings
// (JSON text on Pad's wire).
func collectionParts(rc *api.Collection) (*model.Schema, *model.Settings, error) {
	var schema model.Schema
	if strings.TrimSpace(rc.Schema) != "" {
		if err := json.Unmarshal([]byte(rc.Schema), &schema); err != nil {
			return nil, nil, fmt.Errorf("its schema is not {\"fields\":[...]}: %w", err)
		}
	}
	var settings *model.Settings
	if s := strings.TrimSpace(rc.Settings); s != "" && s != "{}" && s != "null" {
		settings = &model.Settings{}
		if err := json.Unmarshal([]byte(s), settings); err != nil {
			return nil, nil, fmt.Errorf("its settings are not an object: %w", err)
		}
	}
	return &schema, settings, nil
}

func sameJSON(a, b any) bool {
	x, err1 := json.Marshal(a)
	y, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && string(x) == string(y)
}
