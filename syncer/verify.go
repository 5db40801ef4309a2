package syncer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/padd/padd/api"
	"github.com/padd/padd/model"
	"github.com/padd/padd/remote"
	"github.com/padd/padd/storage"
)

// Verify compares a linked workspace with its remote one, entity by
// entity, and says each difference in words (`padctl sync verify`). The
// remote's side is read as a clone reads it: its collections, its items
// with their bodies a page at a time, the comments and links from its
// export where the remote gives one (item by item where it does not: an
// archived item, a thread whose replies the export flattens, a token
// that is not the workspace owner's), its attachments a page at a time.
// The reads go through the workspace's client, so they are paced with
// its sync under the server's limits. progress (nil: none) hears how
// many of the item-by-item reads are done.
//
// What legitimately differs is not a difference: times, link type
// spellings and blocked-by's direction, attachment ids in text (mapped
// as the engine maps them), Pad's parent links (padd holds the parent on
// the item), the order of field keys, tags and comments. A difference
// on an item with an open conflict (or set-aside change) is listed
// apart, as the conflict explains it.
func (m *Manager) Verify(ctx context.Context, ws string, progress func(done, total int)) (*api.SyncVerify, error) {
	w, link, err := m.linkedWorkspace(ws)
	if err != nil {
		return nil, err
	}
	// One verify of a workspace at a time: each reads the whole of both
	// sides.
	m.mu.Lock()
	busy := m.verifying[w.ID]
	if !busy {
		if m.verifying == nil {
			m.verifying = map[string]bool{}
		}
		m.verifying[w.ID] = true
	}
	m.mu.Unlock()
	if busy {
		return nil, model.Conflict("a verify of %s is running already; wait for its answer", w.Slug).With("reason", "verify_running")
	}
	defer func() {
		m.mu.Lock()
		delete(m.verifying, w.ID)
		m.mu.Unlock()
	}()
	wk := m.worker(w.ID)
	if wk == nil {
		return nil, model.Errorf(model.CodeUnavailable, "the sync engine is not running for %s; try again in a moment", w.Slug)
	}
	c, err := wk.clientFor(link)
	if err != nil {
		return nil, model.Invalid("the token of %s cannot be read (%v); give padd one with `padctl sync link`", w.Slug, err).With("reason", "no_token")
	}
	if progress == nil {
		progress = func(int, int) {}
	}
	out := &api.SyncVerify{Workspace: w.Slug, URL: link.BaseURL, RemoteWorkspace: link.RemoteSlug,
		Differences: []api.SyncDifference{}, Conflicts: []api.SyncDifference{}}
	if out.RemoteWorkspace == "" {
		out.RemoteWorkspace = link.RemoteWorkspaceID
	}
	v := &verifier{m: m, ws: w.ID, c: c, rws: link.RemoteWorkspaceID, out: out}
	pending, err := m.sync.OutboxLen(w.ID)
	if err != nil {
		return nil, err
	}
	if err := v.run(ctx, progress); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		var re *remote.Error
		if errors.As(err, &re) {
			return nil, remoteRefusal(err, link.BaseURL)
		}
		return nil, err
	}
	after, err := m.sync.OutboxLen(w.ID)
	if err != nil {
		return nil, err
	}
	out.Pending = max(pending, after)
	v.sort()
	out.Equal = len(out.Differences) == 0 && out.Pending == 0
	return out, nil
}

// verifier is one Verify's state: the remote's side as read, the id maps
// and what open conflicts explain.
type verifier struct {
	m   *Manager
	ws  string
	c   *remote.Client
	rws string
	out *api.SyncVerify

	// id maps, local -> remote and remote -> local
	items, itemsIn       map[string]string
	colls, collsIn       map[string]string
	comments, commentsIn map[string]string
	// explained: local item id -> parts with an open conflict ("*": an
	// open set-aside change on the item)
	explained map[string]map[string]bool

	rcolls    map[string]*api.Collection // live remote collections by id
	ritems    map[string]*api.Item       // remote items by id
	lcolls    map[string]*storage.CollectionInfo
	litems    map[string]*storage.ItemView
	localRefs map[string]string // local item id -> ref, for words
	// unsureParents are the items whose parent is compared with their
	// links (compareThreads).
	unsureParents []unsureParent
}

// verifyReaders is how many item-by-item reads a verify has in flight;
// the client's pacing bounds their rate.
const verifyReaders = cloneReaders

func (v *verifier) run(ctx context.Context, progress func(done, total int)) error {
	// The remote first, then the maps and the local side together: what
	// the sync pulls meanwhile is then in both or in neither.
	if err := v.readRemote(ctx); err != nil {
		return err
	}
	if err := v.readMaps(); err != nil {
		return err
	}
	if err := v.readLocal(ctx); err != nil {
		return err
	}
	if err := v.readUnlisted(ctx); err != nil {
		return err
	}
	v.compareCollections()
	pairs := v.compareItems(ctx)
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := v.compareThreads(ctx, pairs, progress); err != nil {
		return err
	}
	return v.compareAttachments(ctx)
}

func (v *verifier) readMaps() error {
	var err error
	inverse := func(k storage.SyncKind) (map[string]string, map[string]string) {
		if err != nil {
			return nil, nil
		}
		var out map[string]string
		out, err = v.m.sync.SyncMapped(v.ws, k)
		in := make(map[string]string, len(out))
		for l, r := range out {
			in[r] = l
		}
		return out, in
	}
	v.items, v.itemsIn = inverse(storage.SyncItem)
	v.colls, v.collsIn = inverse(storage.SyncCollection)
	v.comments, v.commentsIn = inverse(storage.SyncComment)
	if err != nil {
		return err
	}
	cs, err := v.m.sync.SyncConflicts(v.ws, true)
	if err != nil {
		return err
	}
	v.explained = map[string]map[string]bool{}
	for _, c := range cs {
		if c.ItemID == "" {
			continue
		}
		if v.explained[c.ItemID] == nil {
			v.explained[c.ItemID] = map[string]bool{}
		}
		part := c.Part
		if c.Kind == storage.EntrySetAside {
			part = "*"
		}
		v.explained[c.ItemID][part] = true
	}
	return nil
}

// readRemote reads the remote's collections and their items.
func (v *verifier) readRemote(ctx context.Context) error {
	rcs, err := v.c.ListCollections(ctx, v.rws)
	if err != nil {
		return err
	}
	v.rcolls = map[string]*api.Collection{}
	v.ritems = map[string]*api.Item{}
	for i := range rcs {
		rc := &rcs[i]
		if rc.DeletedAt != nil || rc.ArchivedAt != nil {
			continue
		}
		v.rcolls[rc.ID] = rc
		for offset := 0; ; {
			page, more, err := v.c.ListItems(ctx, v.rws, rc.Slug, 0, offset)
			if err != nil {
				return err
			}
			for j := range page {
				v.ritems[page[j].ID] = &page[j]
			}
			offset += len(page)
			if !more || len(page) == 0 {
				break
			}
		}
	}
	return nil
}

// readUnlisted reads by itself each mapped item the remote's lists lack
// (its collection archived there, or the item deleted for good).
func (v *verifier) readUnlisted(ctx context.Context) error {
	for _, rid := range v.items {
		if v.ritems[rid] != nil {
			continue
		}
		it, err := v.c.GetItem(ctx, v.rws, rid)
		switch {
		case remote.IsNotFound(err) && !remote.IsWorkspaceGone(err):
		case err != nil:
			return err
		default:
			v.ritems[rid] = it
		}
	}
	return nil
}

// verifyBatch is how many local items one read takes.
const verifyBatch = 500

func (v *verifier) readLocal(ctx context.Context) error {
	cs, err := v.m.views.ListCollections(v.ws)
	if err != nil {
		return err
	}
	v.lcolls = map[string]*storage.CollectionInfo{}
	for i := range cs {
		if cs[i].ArchivedAt == nil {
			v.lcolls[cs[i].ID] = &cs[i]
		}
	}
	idx, err := v.m.views.ItemsIndex(ctx, v.ws, "", true)
	if err != nil {
		return err
	}
	ids := make([]string, 0, len(idx.Items))
	for _, it := range idx.Items {
		ids = append(ids, it.ID)
	}
	v.litems = make(map[string]*storage.ItemView, len(ids))
	v.localRefs = make(map[string]string, len(ids))
	for start := 0; start < len(ids); start += verifyBatch {
		views, err := v.m.views.GetItems(v.ws, ids[start:min(start+verifyBatch, len(ids))])
		if err != nil {
			return err
		}
		for _, lv := range views {
			if lv != nil {
				v.litems[lv.ID] = lv
				v.localRefs[lv.ID] = lv.Ref
			}
		}
	}
	return nil
}

// add records a difference about local item itemID ("" for none); part
// is what an open conflict on the item would name.
func (v *verifier) add(itemID, conflictPart string, d api.SyncDifference) {
	switch parts := v.explained[itemID]; {
	case parts[conflictPart]:
		d.Words += " (an open conflict: `padctl sync conflicts` shows it)"
	case parts["*"]:
		d.Words += " (a change set aside on this item: `padctl sync conflicts` shows why)"
	default:
		v.out.Differences = append(v.out.Differences, d)
		return
	}
	v.out.Conflicts = append(v.out.Conflicts, d)
}

// sort orders the differences by kind, ref and part, so that a verify
// run twice reads the same.
func (v *verifier) sort() {
	order := map[string]int{api.VerifyCollection: 0, api.VerifyItem: 1, api.VerifyComment: 2, api.VerifyLink: 3, api.VerifyAttachment: 4}
	cmp := func(a, b api.SyncDifference) int {
		if x, y := order[a.Kind], order[b.Kind]; x != y {
			return x - y
		}
		if c := strings.Compare(a.Ref, b.Ref); c != 0 {
			return c
		}
		if c := strings.Compare(a.Part, b.Part); c != 0 {
			return c
		}
		return strings.Compare(a.Words, b.Words)
	}
	slices.SortStableFunc(v.out.Differences, cmp)
	slices.SortStableFunc(v.out.Conflicts, cmp)
}

func jsonOf(x any) json.RawMessage {
	b, err := json.Marshal(x)
	if err != nil {
		return nil
	}
	return b
}

// Collections: each live one on both sides, mapped by id, with its
// schema.
func (v *verifier) compareCollections() {
	for lid, lc := range v.lcolls {
		v.out.Checked.Collections++
		rid, ok := v.colls[lid]
		rc := v.rcolls[rid]
		if !ok || rc == nil {
			v.add("", "", api.SyncDifference{Kind: api.VerifyCollection, Ref: lc.Slug, Part: api.PartOnlyHere,
				Words: fmt.Sprintf("collection %s is here only", lc.Slug)})
			continue
		}
		schema, _, err := collectionParts(rc)
		if err != nil {
			v.add("", "", api.SyncDifference{Kind: api.VerifyCollection, Ref: lc.Slug, Part: "schema", Remote: jsonOf(rc.Schema),
				Words: fmt.Sprintf("collection %s: the remote's schema cannot be read: %v", lc.Slug, err)})
			continue
		}
		if schema := schemaIn(*schema, v.lookIn); !sameJSON(lc.Schema, schema) {
			v.add("", "", api.SyncDifference{Kind: api.VerifyCollection, Ref: lc.Slug, Part: "schema", Local: jsonOf(lc.Schema), Remote: jsonOf(schema),
				Words: fmt.Sprintf("collection %s: the schema differs: here %s, there %s", lc.Slug, jsonOf(lc.Schema), jsonOf(schema))})
		}
	}
	for rid, rc := range v.rcolls {
		if lid, ok := v.collsIn[rid]; ok && v.lcolls[lid] != nil {
			continue
		}
		v.out.Checked.Collections++
		v.add("", "", api.SyncDifference{Kind: api.VerifyCollection, Ref: rc.Slug, Part: api.PartOnlyThere,
			Words: fmt.Sprintf("collection %s is on the remote only", rc.Slug)})
	}
}

// itemPair is an item on both sides.
type itemPair struct{ local, remote string }

// compareItems compares every item's parts and answers the items on
// both sides, whose comments and links are compared next.
func (v *verifier) compareItems(ctx context.Context) []itemPair {
	var pairs []itemPair
	ids := make([]string, 0, len(v.litems))
	for id := range v.litems {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, lid := range ids {
		lv := v.litems[lid]
		v.out.Checked.Items++
		rid, mapped := v.items[lid]
		ri := v.ritems[rid]
		switch {
		case !mapped:
			v.add(lid, noPart, api.SyncDifference{Kind: api.VerifyItem, Ref: lv.Ref, Part: api.PartOnlyHere,
				Words: fmt.Sprintf("%s is here only: %q", lv.Ref, lv.Title)})
			continue
		case ri == nil:
			v.add(lid, "deleted", api.SyncDifference{Kind: api.VerifyItem, Ref: lv.Ref, Part: api.PartOnlyHere,
				Words: fmt.Sprintf("%s is here only: the remote no longer has it (%q)", lv.Ref, lv.Title)})
			continue
		}
		pairs = append(pairs, itemPair{lid, rid})
		v.compareItem(lv, ri)
	}
	rids := make([]string, 0, len(v.ritems))
	for rid := range v.ritems {
		if lid, ok := v.itemsIn[rid]; !ok || v.litems[lid] == nil {
			rids = append(rids, rid)
		}
	}
	slices.Sort(rids)
	for _, rid := range rids {
		ri := v.ritems[rid]
		v.out.Checked.Items++
		ref := ri.Ref
		if ref == "" {
			ref = rid
		}
		v.add("", "", api.SyncDifference{Kind: api.VerifyItem, Ref: ref, Part: api.PartOnlyThere,
			Words: fmt.Sprintf("%s is on the remote only: %q", ref, ri.Title)})
	}
	return pairs
}

// noPart is the conflict part no conflict names: only a set-aside
// change on the item explains the difference.
const noPart = "-"

// attIn maps the remote's attachment ids in text to padd's.
func (v *verifier) attIn(id string) (string, bool) {
	local, ok, err := v.m.sync.SyncLocalID(v.ws, storage.SyncAttachment, id)
	return local, ok && err == nil
}

// lookIn is the local item a remote relation value names: by the id
// map, else by the map of remote refs.
func (v *verifier) lookIn(s string) (string, bool) {
	if id, ok := v.itemsIn[s]; ok {
		return id, true
	}
	id, ok, err := v.m.sync.SyncItemByRemoteRef(v.ws, s)
	return id, ok && err == nil
}

// refOf names a local item for words: its ref, else its id.
func (v *verifier) refOf(localID string) string {
	if localID == "" {
		return "(none)"
	}
	if r := v.localRefs[localID]; r != "" {
		return r
	}
	return localID
}

func (v *verifier) compareItem(lv *storage.ItemView, ri *api.Item) {
	ref := lv.Ref
	if ri.Ref != "" && !strings.EqualFold(ri.Ref, lv.Ref) {
		ref = fmt.Sprintf("%s (%s there)", lv.Ref, ri.Ref)
	}
	rem, err := decodeRemote(ri, v.attIn)
	if err != nil {
		v.add(lv.ID, noPart, api.SyncDifference{Kind: api.VerifyItem, Ref: lv.Ref, Part: "fields",
			Words: fmt.Sprintf("%s: the remote's item cannot be read: %v", ref, err)})
		return
	}
	if lv.Collection != nil {
		// Relation values by padd's ids, as the engine maps them; one
		// naming an item padd has not got is compared as the remote has it.
		relationsIn(lv.Collection.Schema, rem, v.lookIn, nil)
		for k, x := range rem.waiting {
			rem.side.Fields[k] = x
		}
	}
	part := func(part string, local, remote any, words string) {
		v.add(lv.ID, part, api.SyncDifference{Kind: api.VerifyItem, Ref: lv.Ref, Part: part, Local: jsonOf(local), Remote: jsonOf(remote),
			Words: ref + ": " + words})
	}
	if lv.Title != rem.side.Title {
		part("title", lv.Title, rem.side.Title, fmt.Sprintf("the title differs: here %q, there %q", lv.Title, rem.side.Title))
	}
	if lv.Content != rem.side.Content {
		part("content", lv.Content, rem.side.Content, fmt.Sprintf("the content differs (here %s, there %s)",
			lineCount(lv.Content), lineCount(rem.side.Content)))
	}
	keys := map[string]bool{}
	for k := range lv.Fields {
		keys[k] = true
	}
	for k := range rem.side.Fields {
		keys[k] = true
	}
	sorted := make([]string, 0, len(keys))
	for k := range keys {
		sorted = append(sorted, k)
	}
	slices.Sort(sorted)
	for _, k := range sorted {
		l, r := lv.Fields[k], rem.side.Fields[k]
		if l == nil && r == nil || jsonEqual(l, r) {
			continue
		}
		part("fields."+k, l, r, fmt.Sprintf("field %s differs: here %s, there %s", k, shown(l), shown(r)))
	}
	if !sameSet(lv.Tags, rem.side.Tags) {
		part("tags", nonNilTags(lv.Tags), nonNilTags(rem.side.Tags), fmt.Sprintf("the tags differ: here %s, there %s", shown(nonNilTags(lv.Tags)), shown(nonNilTags(rem.side.Tags))))
	}
	if lc, ok := v.collsIn[ri.CollectionID]; !ok || lc != lv.CollectionID {
		there := ri.CollectionSlug
		if rc := v.rcolls[ri.CollectionID]; rc != nil {
			there = rc.Slug
		}
		if there == "" {
			there = ri.CollectionID
		}
		here := lv.CollectionID
		if lv.Collection != nil {
			here = lv.Collection.Slug
		}
		part("collection", here, there, fmt.Sprintf("the collection differs: here %s, there %s", here, there))
	}
	if !rem.parentSure {
		// It may name an item this one implements: the item's links,
		// read with the others', say (compareThreads).
		v.unsureParents = append(v.unsureParents, unsureParent{lv, ri, rem, ref})
	} else {
		v.compareParent(lv, ri, rem, ref)
	}
	if lv.Pinned != rem.side.Pinned {
		part("pinned", lv.Pinned, rem.side.Pinned, fmt.Sprintf("pinned here %s, there %s", yesNo(lv.Pinned), yesNo(rem.side.Pinned)))
	}
	if la := lv.DeletedAt != nil; la != rem.side.Archived {
		part("archived", la, rem.side.Archived, fmt.Sprintf("archived here %s, there %s", yesNo(la), yesNo(rem.side.Archived)))
	}
}

func firstNonEmpty(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// shown is a value in words: a string quoted, anything else as JSON;
// none is "(none)".
func shown(x any) string {
	if x == nil {
		return "(none)"
	}
	if s, ok := x.(string); ok {
		return fmt.Sprintf("%q", s)
	}
	return string(jsonOf(x))
}

func lineCount(s string) string {
	switch n := strings.Count(s, "\n") + 1; {
	case s == "":
		return "empty"
	case n == 1:
		return fmt.Sprintf("1 line, %d bytes", len(s))
	default:
		return fmt.Sprintf("%d lines, %d bytes", n, len(s))
	}
}

// remoteThread is what was read of one remote item's comments and links
// item by item.
type remoteThread struct {
	comments []api.Comment
	links    []api.ItemLink
	read     bool // comments read item by item (else from the export)
}

// unsureParent is an item whose remote answer names a parent that may be
// an item it implements (remoteParentOf): compared once its links are
// read.
type unsureParent struct {
	lv  *storage.ItemView
	ri  *api.Item
	rem *remoteItem
	ref string // the item as the words name it
}

// compareParent compares an item's parent (rem's, made sure).
func (v *verifier) compareParent(lv *storage.ItemView, ri *api.Item, rem *remoteItem, ref string) {
	// The remote's parent, by the id map (Pad's parent link, or
	// parent_id), else by the map of remote refs.
	rparent, ok := "", false
	switch {
	case rem.parentRemote != "":
		rparent, ok = v.itemsIn[rem.parentRemote]
	case rem.parentRef != "":
		rparent, ok, _ = v.m.sync.SyncItemByRemoteRef(v.ws, rem.parentRef)
	}
	if rem.hasParent() && !ok {
		rparent = "remote:" + rem.parentKey()
	}
	if rparent != lv.ParentID {
		there := v.refOf(rparent)
		if strings.HasPrefix(rparent, "remote:") {
			there = rem.parentKey() + " (not here)"
			if ri.ParentRef != "" && rem.parentRemote == ri.ParentLinkID {
				there = ri.ParentRef + " (not here)"
			}
		}
		v.add(lv.ID, "parent", api.SyncDifference{Kind: api.VerifyItem, Ref: lv.Ref, Part: "parent", Local: jsonOf(v.refOf(lv.ParentID)), Remote: jsonOf(there),
			Words: ref + ": " + fmt.Sprintf("the parent differs: here %s, there %s", v.refOf(lv.ParentID), there)})
	}
}

// compareThreads compares the comments and links of the items on both
// sides: from the export where it holds them whole, item by item
// otherwise.
func (v *verifier) compareThreads(ctx context.Context, pairs []itemPair, progress func(done, total int)) error {
	th, err := v.c.ExportThreads(ctx, v.rws)
	// A 403 to the export is Pad's refusal to export to any user but the
	// workspace's owner (remote.IsForbidden).
	switch {
	case err == nil:
	case remote.IsWorkspaceGone(err), remote.IsTokenRefused(err) && !remote.IsForbidden(err), remote.IsUnreachable(err), ctx.Err() != nil:
		return err
	default:
		th = nil
		v.out.Notes = append(v.out.Notes, fmt.Sprintf("the remote's export was not read (%v): comments and links were read item by item", err))
	}
	// Which items need a read of their own, and of what.
	type need struct {
		pair            itemPair
		comments, links bool
	}
	var needs []need
	for _, p := range pairs {
		switch {
		case th == nil || !th.Items[p.remote]:
			needs = append(needs, need{p, true, true})
		case !th.Whole(p.remote):
			needs = append(needs, need{p, true, false})
		}
	}
	threads := make(map[string]*remoteThread, len(needs))
	var mu sync.Mutex
	var done atomic.Int64
	progress(0, len(needs))
	if err := inParallel(ctx, verifyReaders, len(needs), func(ctx context.Context, i int) error {
		n := needs[i]
		rt := &remoteThread{}
		if n.comments {
			cs, err := v.c.ListComments(ctx, v.rws, n.pair.remote)
			if err != nil && !(remote.IsNotFound(err) && !remote.IsWorkspaceGone(err)) {
				return err
			}
			rt.comments, rt.read = cs, true
		}
		if n.links {
			ls, err := v.c.ListLinks(ctx, v.rws, n.pair.remote)
			if err != nil && !(remote.IsNotFound(err) && !remote.IsWorkspaceGone(err)) {
				return err
			}
			rt.links = ls
		}
		mu.Lock()
		threads[n.pair.remote] = rt
		mu.Unlock()
		progress(int(done.Add(1)), len(needs))
		return nil
	}); err != nil {
		return err
	}
	// Comments, item by item.
	lids := make([]string, len(pairs))
	for i, p := range pairs {
		lids[i] = p.local
	}
	var lcomments [][]model.Comment
	for start := 0; start < len(lids); start += verifyBatch {
		cs, err := v.m.views.CommentsOfItems(v.ws, lids[start:min(start+verifyBatch, len(lids))])
		if err != nil {
			return err
		}
		lcomments = append(lcomments, cs...)
	}
	for i, p := range pairs {
		var rcs []api.Comment
		if rt := threads[p.remote]; rt != nil && rt.read {
			rcs = rt.comments
		} else if th != nil {
			rcs = th.Thread(p.remote)
		}
		v.compareComments(p, lcomments[i], rcs)
	}
	// Links, as a set on each side.
	var rls []api.ItemLink
	seen := map[string]bool{}
	if th != nil {
		rls = append(rls, th.Links...)
		for i := range th.Links {
			seen[th.Links[i].ID] = true
		}
	}
	for _, p := range pairs {
		if rt := threads[p.remote]; rt != nil {
			for _, l := range rt.links {
				if !seen[l.ID] {
					seen[l.ID] = true
					rls = append(rls, l)
				}
			}
		}
	}
	parents := map[string]string{} // the remote's parent links, by child
	for i := range rls {
		if l := &rls[i]; model.NormalizeLinkType(l.LinkType) == model.LinkParent {
			parents[l.SourceID] = l.TargetID
		}
	}
	for _, u := range v.unsureParents {
		p := parents[u.ri.ID]
		if p == "" {
			p = column(u.ri)
		}
		u.rem.setParent(p)
		v.compareParent(u.lv, u.ri, u.rem, u.ref)
	}
	return v.compareLinks(pairs, rls)
}

// compareComments compares one item's comments: each mapped pair's body,
// thread and deletion, and those on one side only.
func (v *verifier) compareComments(p itemPair, lcs []model.Comment, rcs []api.Comment) {
	ref := v.refOf(p.local)
	local := make(map[string]*model.Comment, len(lcs))
	for i := range lcs {
		local[lcs[i].ID] = &lcs[i]
	}
	matched := map[string]bool{}
	for i := range rcs {
		rc := &rcs[i]
		lid, mapped := v.commentsIn[rc.ID]
		lc := local[lid]
		if rc.Deleted {
			if mapped && lc != nil {
				matched[lid] = true
				if lc.DeletedAt == nil {
					v.out.Checked.Comments++
					v.add(p.local, "comment:"+lid, api.SyncDifference{Kind: api.VerifyComment, Ref: ref, Part: "deleted", Local: jsonOf(lc.Body),
						Words: fmt.Sprintf("comment by %s on %s is deleted on the remote, here it reads %q", lc.Author.Name, ref, lc.Body)})
				}
			}
			continue
		}
		v.out.Checked.Comments++
		author := firstNonEmpty(rc.Author, rc.CreatedBy, "someone")
		body := storage.RewriteAttachmentRefs(rc.Body, v.attIn)
		if !mapped || lc == nil {
			v.add(p.local, noPart, api.SyncDifference{Kind: api.VerifyComment, Ref: ref, Part: api.PartOnlyThere, Remote: jsonOf(body),
				Words: fmt.Sprintf("comment by %s on %s is on the remote only: %q", author, ref, body)})
			continue
		}
		matched[lid] = true
		cpart := "comment:" + lid
		if lc.DeletedAt != nil {
			v.add(p.local, cpart, api.SyncDifference{Kind: api.VerifyComment, Ref: ref, Part: "deleted", Remote: jsonOf(body),
				Words: fmt.Sprintf("comment by %s on %s is deleted here, on the remote it reads %q", author, ref, body)})
			continue
		}
		if lc.Body != body {
			v.add(p.local, cpart, api.SyncDifference{Kind: api.VerifyComment, Ref: ref, Part: "body", Local: jsonOf(lc.Body), Remote: jsonOf(body),
				Words: fmt.Sprintf("comment by %s on %s differs: here %q, there %q", author, ref, lc.Body, body)})
		}
		rparent := ""
		if rc.ParentID != "" {
			if lp, ok := v.commentsIn[rc.ParentID]; ok {
				rparent = lp
			} else {
				rparent = "remote:" + rc.ParentID
			}
		}
		if rparent != lc.ParentID {
			v.add(p.local, cpart, api.SyncDifference{Kind: api.VerifyComment, Ref: ref, Part: "reply_to", Local: jsonOf(lc.ParentID), Remote: jsonOf(rc.ParentID),
				Words: fmt.Sprintf("comment by %s on %s answers %s here, %s there", author, ref, v.commentWords(local, lc.ParentID), v.remoteCommentWords(rcs, rc.ParentID))})
		}
	}
	for i := range lcs {
		lc := &lcs[i]
		if matched[lc.ID] || lc.DeletedAt != nil {
			continue
		}
		v.out.Checked.Comments++
		words := fmt.Sprintf("comment by %s on %s is here only: %q", lc.Author.Name, ref, lc.Body)
		if _, mapped := v.comments[lc.ID]; mapped {
			words = fmt.Sprintf("comment by %s on %s is here only (the remote no longer has it): %q", lc.Author.Name, ref, lc.Body)
		}
		v.add(p.local, "comment:"+lc.ID, api.SyncDifference{Kind: api.VerifyComment, Ref: ref, Part: api.PartOnlyHere, Local: jsonOf(lc.Body), Words: words})
	}
}

// commentWords names a local comment a reply answers, in words.
func (v *verifier) commentWords(local map[string]*model.Comment, id string) string {
	if id == "" {
		return "no comment (it is not a reply)"
	}
	if c := local[id]; c != nil {
		return fmt.Sprintf("%s's %q", c.Author.Name, c.Body)
	}
	return "comment " + id
}

func (v *verifier) remoteCommentWords(rcs []api.Comment, id string) string {
	if id == "" {
		return "no comment (it is not a reply)"
	}
	for i := range rcs {
		if rcs[i].ID == id {
			return fmt.Sprintf("%s's %q", rcs[i].Author, rcs[i].Body)
		}
	}
	return "comment " + id
}

// linkKey is a link in local ids, in its stored form.
type linkKey struct{ src, typ, dst string }

func canonicalLink(src, dst, typ string) linkKey {
	typ = model.NormalizeLinkType(typ)
	if s, d, t, ok := model.CanonicalLink(src, dst, typ); ok {
		src, dst, typ = s, d, t
	}
	return linkKey{src, typ, dst}
}

// compareLinks compares the links between items on both sides, as sets.
// A link with an end archived on either side is not compared: Pad
// neither lists nor exports the links of an archived item.
func (v *verifier) compareLinks(pairs []itemPair, rls []api.ItemLink) error {
	both := make(map[string]bool, len(pairs))
	for _, p := range pairs {
		lv, ri := v.litems[p.local], v.ritems[p.remote]
		if lv.DeletedAt == nil && ri.DeletedAt == nil {
			both[p.local] = true
		}
	}
	there := map[linkKey]bool{}
	for i := range rls {
		rl := &rls[i]
		if model.NormalizeLinkType(rl.LinkType) == model.LinkParent {
			continue // Pad's hierarchy link: the item's parent, compared there
		}
		src, dst := v.itemsIn[rl.SourceID], v.itemsIn[rl.TargetID]
		if !both[src] || !both[dst] {
			continue
		}
		there[canonicalLink(src, dst, rl.LinkType)] = true
	}
	here := map[linkKey]bool{}
	for _, p := range pairs {
		if !both[p.local] {
			continue
		}
		views, err := v.m.views.ListLinks(v.ws, p.local)
		if err != nil {
			if model.IsNotFound(err) {
				continue
			}
			return err
		}
		for _, lv := range views {
			if lv.Direction != storage.DirOut || !both[lv.Link.TargetID] {
				continue
			}
			here[canonicalLink(lv.Link.SourceID, lv.Link.TargetID, lv.Link.Type)] = true
		}
	}
	var keys []linkKey
	for k := range here {
		keys = append(keys, k)
	}
	for k := range there {
		if !here[k] {
			keys = append(keys, k)
		}
	}
	slices.SortFunc(keys, func(a, b linkKey) int {
		return strings.Compare(v.refOf(a.src)+" "+a.typ+" "+v.refOf(a.dst), v.refOf(b.src)+" "+b.typ+" "+v.refOf(b.dst))
	})
	for _, k := range keys {
		v.out.Checked.Links++
		words := fmt.Sprintf("link %s %s %s", v.refOf(k.src), k.typ, v.refOf(k.dst))
		switch {
		case here[k] && there[k]:
		case here[k]:
			v.add(k.src, noPart, api.SyncDifference{Kind: api.VerifyLink, Ref: v.refOf(k.src), Part: api.PartOnlyHere, Local: jsonOf(k.typ + " " + v.refOf(k.dst)),
				Words: words + " is here only"})
		default:
			v.add(k.src, noPart, api.SyncDifference{Kind: api.VerifyLink, Ref: v.refOf(k.src), Part: api.PartOnlyThere, Remote: jsonOf(k.typ + " " + v.refOf(k.dst)),
				Words: words + " is on the remote only"})
		}
	}
	return nil
}

// compareAttachments compares the attachments by hash and item, mapped
// by id; a remote that keeps none is noted, not compared.
func (v *verifier) compareAttachments(ctx context.Context) error {
	on, err := v.c.HasAttachments(ctx, v.rws)
	if err != nil {
		return err
	}
	if !on {
		v.out.Notes = append(v.out.Notes, "the remote keeps no attachments: they were not compared")
		return nil
	}
	var remotes []api.Attachment
	for offset := 0; ; {
		if offset >= maxRemoteAttachments {
			return &remote.Error{Kind: remote.KindBadAnswer, Method: "GET", Path: "attachments",
				Err: fmt.Errorf("the remote lists more than %d attachments", maxRemoteAttachments)}
		}
		page, err := v.c.ListAttachments(ctx, v.rws, "", offset)
		if err != nil {
			return err
		}
		remotes = append(remotes, page.Attachments...)
		offset += len(page.Attachments)
		if len(page.Attachments) < remote.AttachmentPage || (page.Total > 0 && offset >= page.Total) {
			break
		}
	}
	locals := map[string]*storage.Attachment{}
	for offset := 0; ; {
		page, err := v.m.views.ListAttachments(v.ws, storage.AttachmentFilter{Sort: "created_at", Limit: storage.MaxAttachmentPage, Offset: offset})
		if err != nil {
			return err
		}
		for i := range page.Attachments {
			locals[page.Attachments[i].ID] = &page.Attachments[i]
		}
		offset += len(page.Attachments)
		if len(page.Attachments) == 0 || offset >= page.Total {
			break
		}
	}
	matched := map[string]bool{}
	for i := range remotes {
		ra := &remotes[i]
		v.out.Checked.Attachments++
		ritem := ""
		if ra.ItemID != nil {
			ritem = *ra.ItemID
		}
		litem := v.itemsIn[ritem]
		ref := ""
		if litem != "" {
			ref = v.refOf(litem)
		}
		name := fmt.Sprintf("attachment %q", ra.Filename)
		if ref != "" {
			name += " on " + ref
		}
		lid, ok := v.attIn(ra.ID)
		la := locals[lid]
		if !ok || la == nil {
			v.add(litem, noPart, api.SyncDifference{Kind: api.VerifyAttachment, Ref: ref, Part: api.PartOnlyThere, Remote: jsonOf(ra.ContentHash),
				Words: name + " is on the remote only"})
			continue
		}
		matched[lid] = true
		if ra.ContentHash != "" && !strings.EqualFold(ra.ContentHash, la.Hash) {
			v.add(litem, noPart, api.SyncDifference{Kind: api.VerifyAttachment, Ref: ref, Part: "hash", Local: jsonOf(la.Hash), Remote: jsonOf(ra.ContentHash),
				Words: fmt.Sprintf("%s differs: here it hashes to %s, there to %s", name, la.Hash, ra.ContentHash)})
		}
		if ritem != "" && litem != la.ItemID || ritem == "" && la.ItemID != "" {
			v.add(la.ItemID, noPart, api.SyncDifference{Kind: api.VerifyAttachment, Ref: ref, Part: "item", Local: jsonOf(v.refOf(la.ItemID)), Remote: jsonOf(firstNonEmpty(ref, ritem)),
				Words: fmt.Sprintf("%s is on %s here, on %s there", name, v.refOf(la.ItemID), firstNonEmpty(ref, ritem, "(none)"))})
		}
	}
	ids := make([]string, 0, len(locals))
	for id := range locals {
		if !matched[id] {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	for _, id := range ids {
		la := locals[id]
		v.out.Checked.Attachments++
		name := fmt.Sprintf("attachment %q", la.Filename)
		if la.ItemID != "" {
			name += " on " + v.refOf(la.ItemID)
		}
		v.add(la.ItemID, noPart, api.SyncDifference{Kind: api.VerifyAttachment, Ref: la.ItemRef, Part: api.PartOnlyHere, Local: jsonOf(la.Hash),
			Words: name + " is here only"})
	}
	return nil
}
