package syncer

import (
	"context"
	"time"

	"github.com/padd/padd/api"
	"github.com/padd/padd/model"
	"github.com/padd/padd/remote"
	"github.com/padd/padd/storage"
)

// remoteCollection is the remote slug of a local collection, creating it
// on the remote (or mapping the remote's of the same slug) when it has
// none yet. Collections keep one slug on both sides.
func (w *worker) remoteCollection(ctx context.Context, c *remote.Client, link *storage.RemoteLink, localID string) (string, error) {
	lc, err := w.m.store.GetCollectionAnyState(w.wsID, localID)
	if err != nil {
		return "", err
	}
	if _, ok, err := w.m.store.SyncRemoteID(w.wsID, storage.SyncCollection, lc.ID); err != nil || ok {
		return lc.Slug, err
	}
	rcs, err := c.ListCollections(ctx, link.RemoteWorkspaceID)
	if err != nil {
		return "", err
	}
	var rid string
	for _, rc := range rcs {
		if rc.Slug == lc.Slug {
			rid = rc.ID
			if !sameSchemaText(rc.Schema, lc.Schema) {
				if _, err := c.UpdateCollection(ctx, link.RemoteWorkspaceID, rc.Slug, collectionUpdate(&lc.Collection), rc.UpdatedAt); err != nil {
					return "", err
				}
			}
			break
		}
	}
	if rid == "" {
		rc, err := c.CreateCollection(ctx, link.RemoteWorkspaceID, api.CollectionCreate{Name: lc.Name, Slug: lc.Slug,
			Prefix: lc.Prefix, Icon: lc.Icon, Description: lc.Description, Schema: flex(lc.Schema), Settings: flex(lc.Settings),
			IsSystem: lc.IsSystem})
		if err != nil {
			return "", err
		}
		rid = rc.ID
	}
	return lc.Slug, w.m.store.SyncApply(w.wsID, syncActor, func(t *storage.SyncTx) error {
		return t.MapID(storage.SyncCollection, lc.ID, rid)
	})
}

func collectionUpdate(lc *model.Collection) api.CollectionUpdate {
	name, icon, desc := lc.Name, lc.Icon, lc.Description
	return api.CollectionUpdate{Name: &name, Icon: &icon, Description: &desc, Schema: flex(lc.Schema), Settings: flex(lc.Settings)}
}

func sameSchemaText(remoteSchema string, local model.Schema) bool {
	rc := api.Collection{Schema: remoteSchema}
	s, _, err := collectionParts(&rc)
	return err == nil && sameJSON(*s, local)
}

// pushCollection pushes a collection created or edited here (its schema,
// settings, name). The last schema written wins on the remote.
func (w *worker) pushCollection(ctx context.Context, c *remote.Client, link *storage.RemoteLink, ch model.Change) (bool, error) {
	lc, err := w.m.store.GetCollectionAnyState(w.wsID, ch.ID)
	if model.IsNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	_, mapped, err := w.m.store.SyncRemoteID(w.wsID, storage.SyncCollection, lc.ID)
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
	_, err = c.UpdateCollection(ctx, link.RemoteWorkspaceID, lc.Slug, collectionUpdate(&lc.Collection), time.Time{})
	return false, err
}
