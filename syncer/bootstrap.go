package syncer

import (
	"context"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/padd/padd/api"
	"github.com/padd/padd/model"
	"github.com/padd/padd/remote"
	"github.com/padd/padd/storage"
)

// The first exchange of a new link: a clone pulls the whole remote
// workspace; a link to an empty remote pushes the whole local one. Both
// are idempotent (what is mapped is not done again), so a padd killed
// halfway starts over where the map says.

// cloneBatch is how many pulled items one transaction writes.
const cloneBatch = 200

// cloneAll pulls the remote workspace whole: collections, then every
// item with its body (a page of a thousand per request, parents before
// children), then each item's comments and links, then the seq feed from
// the cursor the index gave.
func (w *worker) cloneAll(ctx context.Context, c *remote.Client, link *storage.RemoteLink) error {
	rws := link.RemoteWorkspaceID
	if err := w.pullCollections(ctx, c, link); err != nil {
		return err
	}
	// The index's cursor is where the seq feed goes on from; a server
	// without the seq feed is followed by time from a little before the
	// lists are read (rows repeat; a version applied twice is an echo).
	var cursor remote.Seq
	since := time.Now().Add(-5 * time.Minute).UnixMilli()
	idx, err := c.ItemsIndex(ctx, rws)
	switch {
	case remote.IsNotFound(err) && !remote.IsWorkspaceGone(err):
	case err != nil:
		return err
	default:
		cursor = idx.Cursor
	}
	rcs, err := c.ListCollections(ctx, rws)
	if err != nil {
		return err
	}
	var all []api.Item
	for _, rc := range rcs {
		if rc.DeletedAt != nil || rc.ArchivedAt != nil {
			continue
		}
		for offset := 0; ; {
			page, more, err := c.ListItems(ctx, rws, rc.Slug, 0, offset)
			if err != nil {
				return err
			}
			all = append(all, page...)
			offset += len(page)
			if !more || len(page) == 0 {
				break
			}
		}
	}
	// The export, read once for the comments and links, also says which
	// item a child's answer names is its parent (cloneParents).
	th, err := w.readExport(ctx, c, link, "the clone reads each item's comments instead")
	if err != nil {
		return err
	}
	parents, err := w.cloneParents(ctx, c, link, all, th)
	if err != nil {
		return err
	}
	all = parentsFirst(all, parents)
	for start := 0; start < len(all); start += cloneBatch {
		if err := w.applyBatch(ctx, c, link, all[start:min(start+cloneBatch, len(all))], parents); err != nil {
			return err
		}
	}
	// Relation values that named an item of a later page are merged now;
	// an item the lists did not hold is read by itself.
	if err := w.resolveWaiting(ctx, c, link, true); err != nil {
		return err
	}
	if err := w.defaultsArrived(ctx, c, link); err != nil {
		return err
	}
	if err := w.cloneThreads(ctx, c, link, all, th); err != nil {
		return err
	}
	if err := w.asideIfRefused(w.pullAttachments(ctx, c, link, ""), "the remote's attachments"); err != nil {
		return err
	}
	w.mu.Lock()
	w.want.threads = map[string]bool{} // read above
	w.mu.Unlock()
	cur, err := w.m.sync.SyncCursors(w.wsID)
	if err != nil {
		return err
	}
	return w.m.store.SyncApply(w.wsID, syncActor, func(t *storage.SyncTx) error {
		cur.ItemsChangesSeq = int64(cursor)
		if cursor == 0 {
			cur.ChangesSince = strconv.FormatInt(since, 10)
		}
		return firstErr(t.SetCursors(cur), t.UpdateLink(func(l *storage.RemoteLink) error { l.Bootstrap = ""; return nil }))
	})
}

// cloneThreads brings the cloned items' comments and links. The remote's
// workspace export, when it gives one, holds them in one answer: an item
// whose comments it holds whole (Threads.Whole) takes them from there,
// and its links are written as they are. Every other item is read item
// by item: an archived one (Pad exports live items only), one whose
// thread the export flattens (Pad's export does not say which comment a
// reply answers), and all of them when the export is refused (Pad
// exports only to a workspace owner).
func (w *worker) cloneThreads(ctx context.Context, c *remote.Client, link *storage.RemoteLink, all []api.Item, th *remote.Threads) error {
	if th != nil { // every link is read here: the stream's connect need not again
		w.mu.Lock()
		w.want.export, w.exportRead = false, time.Now()
		w.mu.Unlock()
	}
	var listed, exported []string
	links := map[string]linkPull{}
	for i := range all {
		switch id := all[i].ID; {
		case th == nil || !th.Items[id]:
			listed = append(listed, id)
			links[id] = allLinks
		case !th.Whole(id):
			listed = append(listed, id)
			links[id] = noLinks // a live item's links are all in the export
		case len(th.Comments[id]) > 0:
			exported = append(exported, id)
		}
	}
	if err := inParallel(ctx, cloneReaders, len(exported), func(ctx context.Context, i int) error {
		litem, ok, err := w.m.sync.SyncLocalID(w.wsID, storage.SyncItem, exported[i])
		if err != nil || !ok {
			return err
		}
		return w.applyComments(litem, th.Thread(exported[i]))
	}); err != nil {
		return err
	}
	if th != nil {
		if err := w.applyLinks(th.Links); err != nil {
			return err
		}
	}
	return inParallel(ctx, cloneReaders, len(listed), func(ctx context.Context, i int) error {
		return w.pullComments(ctx, c, link, listed[i], links[listed[i]])
	})
}

// readExport reads the remote's workspace export for its comments and
// links (remote.ExportThreads). A server that cannot give it (Pad gives
// it only to the workspace's owner; a broken answer) answers nil
// threads, logged with what is done instead; a remote that cannot be
// reached, or refuses the token, is an error as for any read.
func (w *worker) readExport(ctx context.Context, c *remote.Client, link *storage.RemoteLink, instead string) (*remote.Threads, error) {
	th, err := c.ExportThreads(ctx, link.RemoteWorkspaceID)
	switch {
	case err == nil:
		return th, nil
	case remote.IsWorkspaceGone(err), remote.IsTokenRefused(err) && !remote.IsForbidden(err), remote.IsUnreachable(err), ctx.Err() != nil:
		// A 403 is Pad's refusal to export to any user but the
		// workspace's owner: a member reads item by item instead.
		return nil, err
	}
	w.m.log.Info("sync: the remote's export was not read; "+instead, "workspace", w.slug, "err", err)
	return nil, nil
}

// cloneReaders is how many items' comments and links a clone reads at
// once. Each read waits on a round trip and then on its own commit, so a
// few in flight keep the link and the disk busy (the store commits
// concurrent writes together); the client's pacing still bounds the rate
// against a server with a limiter.
const cloneReaders = 8

// inParallel calls f for 0..n-1 from up to workers goroutines, and
// answers the first error (the calls not yet started are not made).
func inParallel(ctx context.Context, workers, n int, f func(ctx context.Context, i int) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var next atomic.Int64
	var once sync.Once
	var first error
	var wg sync.WaitGroup
	for range min(workers, n) {
		wg.Go(func() {
			for ctx.Err() == nil {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				if err := f(ctx, i); err != nil {
					once.Do(func() { first = err; cancel() })
					return
				}
			}
		})
	}
	wg.Wait()
	if first == nil {
		first = ctx.Err()
	}
	return first
}

// cloneParents is each listed item's parent's remote id, by the item's
// remote id: as its answer names it where that is sure (remoteParentOf),
// else by its links, from the export (th, nil: not read) when it holds
// the item, else read from the remote (an item that implements another
// or has a parent, on a server whose answers do not say which). A parent
// named by ref is found among the listed items.
func (w *worker) cloneParents(ctx context.Context, c *remote.Client, link *storage.RemoteLink, items []api.Item, th *remote.Threads) (map[string]string, error) {
	byRef := make(map[string]string, len(items))
	for i := range items {
		if items[i].Ref != "" {
			byRef[items[i].Ref] = items[i].ID
		}
	}
	out := map[string]string{}
	var unsure []int
	for i := range items {
		id, ref, sure := remoteParentOf(&items[i])
		if !sure {
			unsure = append(unsure, i)
			continue
		}
		if id == "" && ref != "" {
			id = byRef[ref]
		}
		if id != "" {
			out[items[i].ID] = id
		}
	}
	exported := map[string]string{} // the export's parent links, by child
	if th != nil {
		for i := range th.Links {
			if l := &th.Links[i]; model.NormalizeLinkType(l.LinkType) == model.LinkParent {
				exported[l.SourceID] = l.TargetID
			}
		}
	}
	var mu sync.Mutex
	err := inParallel(ctx, cloneReaders, len(unsure), func(ctx context.Context, n int) error {
		it := &items[unsure[n]]
		p := column(it)
		switch {
		case th != nil && th.Items[it.ID]:
			if x := exported[it.ID]; x != "" {
				p = x
			}
		default:
			links, err := c.ListLinks(ctx, link.RemoteWorkspaceID, it.ID)
			if err != nil && (!remote.IsNotFound(err) || remote.IsWorkspaceGone(err)) {
				return err // an item gone since is the pull's to find
			}
			p = parentOfLinks(it.ID, links, p)
		}
		if p != "" {
			mu.Lock()
			out[it.ID] = p
			mu.Unlock()
		}
		return nil
	})
	return out, err
}

// applyBatch writes pulled items in one transaction, each under its
// parent as parents names it (parentIDs); when padd refuses one of
// them, the batch is written item by item so that only that one is set
// aside.
func (w *worker) applyBatch(ctx context.Context, c *remote.Client, link *storage.RemoteLink, items []api.Item, parents map[string]string) error {
	err := w.m.store.SyncApply(w.wsID, syncActor, func(t *storage.SyncTx) error {
		for i := range items {
			rem, err := decodeRemote(&items[i], func(id string) (string, bool) { return t.LocalID(storage.SyncAttachment, id) })
			if err != nil {
				return model.Invalid("%v", err)
			}
			rem.limitsIn()
			coll, ok := t.LocalID(storage.SyncCollection, items[i].CollectionID)
			if !ok {
				return model.Invalid("item %s is in a collection the remote does not list", items[i].Ref)
			}
			rem.side.Collection = coll
			if p := parents[items[i].ID]; p != "" {
				rem.side.Parent, _ = t.LocalID(storage.SyncItem, p)
			}
			if lc, err := t.Collection(coll); err != nil {
				return err
			} else if lc != nil {
				relationsIn(lc.Schema, rem, lookInTx(t), nil) // an item of a later page waits for it
			}
			if _, err := w.applyItem(t, rem); err != nil {
				return err
			}
		}
		return nil
	})
	if !isRefusal(err) || len(items) == 1 {
		if err != nil && len(items) == 1 {
			return w.applyRemote(ctx, c, link, &items[0], 0)
		}
		return err
	}
	for i := range items {
		if err := w.applyBatch(ctx, c, link, items[i:i+1], parents); err != nil {
			return err
		}
	}
	return nil
}

// parentsFirst orders items so that each comes after its parent
// (parents, by remote id; when the parent is among them); otherwise the
// order is kept.
func parentsFirst(items []api.Item, parents map[string]string) []api.Item {
	byID := make(map[string]int, len(items))
	for i := range items {
		byID[items[i].ID] = i
	}
	out := make([]api.Item, 0, len(items))
	state := make([]byte, len(items)) // 0 new, 1 on the path, 2 placed
	var place func(i, depth int)
	place = func(i, depth int) {
		if state[i] != 0 {
			return
		}
		state[i] = 1
		if p := parents[items[i].ID]; p != "" && depth < maxParentDepth*16 {
			if j, ok := byID[p]; ok {
				place(j, depth+1)
			}
		}
		state[i] = 2
		out = append(out, items[i])
	}
	for i := range items {
		place(i, 0)
	}
	return out
}

// pushAll pushes the whole local workspace to an empty remote: its
// collections, its items in number order (parents first), the
// attachments, then the items' comments and links.
func (w *worker) pushAll(ctx context.Context, c *remote.Client, link *storage.RemoteLink) error {
	colls, err := w.m.views.ListCollections(w.wsID)
	if err != nil {
		return err
	}
	for _, lc := range colls {
		if _, err := w.remoteCollection(ctx, c, link, lc.ID); err != nil {
			return refusedOr(w, err)
		}
	}
	idx, err := w.m.views.ItemsIndex(ctx, w.wsID, "", true)
	if err != nil {
		return err
	}
	ids := make([]*storage.ItemView, 0, len(idx.Items))
	for _, it := range idx.Items {
		ids = append(ids, it.ItemView)
	}
	slices.SortFunc(ids, func(a, b *storage.ItemView) int {
		return int(abs(a.Number) - abs(b.Number))
	})
	for _, v := range ids {
		if _, err := w.pushItem(ctx, c, link, v.ID, 0, 0); err != nil {
			if err := refusedOr(w, refused(err)); err != nil {
				return err
			}
		}
	}
	for _, lc := range colls {
		// A relation default naming an item went without it (the items
		// came after): the collection is sent again now they are there.
		if hasRelationDefault(lc.Schema) {
			if _, err := w.pushCollection(ctx, c, link, model.Change{Entity: model.EntityCollection, Op: model.OpUpdated, ID: lc.ID}); err != nil {
				return refusedOr(w, err)
			}
		}
	}
	if err := w.pushAllAttachments(ctx, c, link, ids); err != nil {
		return err
	}
	for _, v := range ids {
		lcs, err := w.m.views.ListComments(w.wsID, v.ID)
		if err != nil {
			return err
		}
		for i := range lcs {
			if lcs[i].DeletedAt != nil {
				continue
			}
			if _, ok, err := w.m.sync.SyncRemoteID(w.wsID, storage.SyncComment, lcs[i].ID); err != nil || ok {
				if err != nil {
					return err
				}
				continue
			}
			if err := w.createComment(ctx, c, link, &lcs[i], 0); err != nil {
				if err := refusedOr(w, refused(err)); err != nil {
					return err
				}
			}
		}
		links, err := w.m.views.ListLinks(w.wsID, v.ID)
		if err != nil {
			return err
		}
		for _, l := range links {
			if l.Link.SourceID != v.ID {
				continue
			}
			ch := model.Change{Entity: model.EntityLink, Op: model.OpCreated, ID: l.Link.ID, ItemID: v.ID}
			if _, err := w.pushLink(ctx, c, link, ch); err != nil {
				if err := refusedOr(w, refused(err)); err != nil {
					return err
				}
			}
		}
	}
	return w.m.sync.UpdateSyncLink(w.wsID, func(l *storage.RemoteLink) error { l.Bootstrap = ""; return nil })
}

func abs(n int64) int64 {
	if n < 0 {
		return -n
	}
	return n
}

// refusedOr sets a refused change aside (nil) or returns the error.
func refusedOr(w *worker, err error) error {
	if err == nil || !isRefusal(err) {
		return err
	}
	return w.setAside(storage.SyncConflict{Reason: err.Error()})
}
