package storage

import (
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/padd/padd/model"
)

// A workspace import (Pad's WorkspaceExport, docs/BUNDLES.md) creates a
// new workspace and everything in it in one bulk transaction: it is
// there whole or not at all, after a refusal, a crash or a full disk
// alike. Entities get new ids; items keep their numbers (so their refs),
// slugs when free, times and authors; comments, links and versions keep
// their times and authors.

// ImportInput is a workspace to create from an export. Keys are the
// export's ids, which only link the entities to each other here.
type ImportInput struct {
	Name        string
	Slug        string
	Description string
	Template    string // a template's name, or ""
	Collections []ImportCollection
	Roles       []RoleCreate
	Items       []ImportItem
	Comments    []ImportComment
	Links       []ImportLink
	// Versions are each item's versions, oldest first.
	Versions map[string][]ImportVersion
	// Attachments are rows of blobs already durable in place.
	Attachments []ImportAttachment
}

// ImportAttachment is one attachment of an import: Key is the export's
// attachment id (references "pad-attachment:<Key>" in the imported
// content are rewritten to the new id), ItemKey the export's item id (""
// for an unattached upload).
type ImportAttachment struct {
	Key, ItemKey  string
	Filename      string
	MIME          string
	Size          int64
	Hash          string
	Width, Height int
	UploadedBy    model.Actor
	CreatedAt     time.Time
}

// ImportCollection is one collection of an import.
type ImportCollection struct {
	Key                  string
	Create               CollectionCreate
	CreatedAt, UpdatedAt time.Time
	ArchivedAt           *time.Time
	// FormerPrefixes are prefixes the collection had before: its old
	// refs resolve under them where no other collection holds them.
	FormerPrefixes []string
}

// ImportItem is one item of an import.
type ImportItem struct {
	Key, CollectionKey, ParentKey string
	Title, Content, Slug          string
	Fields                        map[string]any
	Tags                          []string
	Pinned                        bool
	SortOrder                     int64
	Number                        int64 // <= 0: numbered here
	Role                          string
	AssignedUserID                string
	RoleSortOrder                 int64
	CreatedBy, LastModifiedBy     model.Actor
	CreatedAt, UpdatedAt          time.Time
	// Origin is the library entry the item was activated from (nil:
	// none).
	Origin *LibraryOrigin
}

// ImportComment is one comment of an import.
type ImportComment struct {
	Key, ItemKey, ParentKey, Body string
	Author                        model.Actor
	CreatedAt, UpdatedAt          time.Time
}

// ImportLink is one link of an import.
type ImportLink struct {
	SourceKey, TargetKey, Type string
	CreatedBy                  model.Actor
	CreatedAt                  time.Time
}

// ImportVersion is one version of an item's body.
type ImportVersion struct {
	Title, Content, Summary string
	Actor                   model.Actor
	CreatedAt               time.Time
}

// ImportCounts counts what an import wrote.
type ImportCounts struct {
	Collections, Items, Comments, Links, Versions, Roles, Attachments int
}

// ImportOutcome answers ImportWorkspace. Skipped counts, by reason, what
// the input held that was left out (a reply whose parent is not in the
// export keeps its text as a top-level comment and counts here).
type ImportOutcome struct {
	Workspace *model.Workspace
	Imported  ImportCounts
	Skipped   map[string]int
}

// itemImport is what createItem keeps of an item that comes from
// elsewhere: an exported item, or one the sync engine pulls (which sets
// only reserved). Such an item is written with the fields it has: no
// default fills a field it lacks, and no required field is asked for.
type itemImport struct {
	slugWanted     string
	createdAt      time.Time
	updatedAt      time.Time
	lastModifiedBy model.Actor
	versions       []ImportVersion
	roleSortOrder  int64
	// reserved is the item's reserved metadata (notes, decisions, a
	// convention's copy, a PR link), written as the system's: no field
	// write would take it (model.SplitReserved).
	reserved map[string]any
}

// stamp gives a created item the exported times and last author.
func (m *itemImport) stamp(it *model.Item) {
	if m == nil {
		return
	}
	if !m.createdAt.IsZero() {
		it.CreatedAt = tstamp(m.createdAt)
	}
	if !m.updatedAt.IsZero() {
		it.UpdatedAt = tstamp(m.updatedAt)
	}
	if it.UpdatedAt.Before(it.CreatedAt) {
		it.UpdatedAt = it.CreatedAt
	}
	if m.lastModifiedBy.Kind != "" {
		it.LastModifiedBy = m.lastModifiedBy
	}
	it.RoleSortOrder = m.roleSortOrder
	for k, v := range m.reserved {
		if v == nil {
			continue
		}
		if it.Fields == nil {
			it.Fields = map[string]any{}
		}
		it.Fields[k] = v
	}
}

// slug is the exported slug when it is free, else generated.
func (m *itemImport) slug(b *wsb, generated string) string {
	if m == nil || m.slugWanted == "" || model.ItemSlug(m.slugWanted) != m.slugWanted || b.slugs().Get([]byte(m.slugWanted)) != nil {
		return generated
	}
	return m.slugWanted
}

// firstVersions writes a new item's versions: the create's, or the
// exported history, whose newest becomes the current version when it
// holds the item's body (else one more version holds it).
func (w *wtx) firstVersions(m *itemImport, it *model.Item) error {
	if m == nil || len(m.versions) == 0 {
		if m != nil {
			saved := w.now
			w.now = it.CreatedAt
			defer func() { w.now = saved }()
		}
		return w.version(it, "", true, "")
	}
	prev := ""
	put := func(v ImportVersion, current, isCreate bool) error {
		vseq, err := w.ws.bump(kVersion)
		if err != nil {
			return err
		}
		added, removed := lineDelta(prev, v.Content)
		title := v.Title
		if title == "" {
			title = it.Title
		}
		rec := model.Version{ID: newID(), ItemID: it.ID, VersionSeq: vseq, Title: title, Current: current,
			Summary: v.Summary, Actor: v.Actor, IsCreate: isCreate, LinesAdded: added, LinesRemoved: removed,
			CreatedAt: tstamp(v.CreatedAt), Seq: w.seq}
		if !current {
			rec.Content = v.Content
		}
		prev = v.Content
		return w.ws.versions().Put(cat(mustID(it.ID), u64(uint64(vseq))), encodeVersion(rec))
	}
	last := len(m.versions) - 1
	for i, v := range m.versions {
		current := i == last && v.Content == it.Content
		if err := put(v, current, i == 0); err != nil {
			return err
		}
	}
	if m.versions[last].Content != it.Content {
		return put(ImportVersion{Title: it.Title, Content: it.Content, Actor: it.LastModifiedBy, CreatedAt: it.UpdatedAt}, true, false)
	}
	return nil
}

// ImportWorkspace creates the workspace in, in one transaction. A
// refusal names the entity (details.entity, details.index) and leaves
// nothing behind.
func (s *Store) ImportWorkspace(in ImportInput, actor model.Actor) (*ImportOutcome, error) {
	name := strings.TrimSpace(in.Name)
	if name == "" {
		return nil, model.Invalid("the workspace needs a name").With("entity", "workspace").With("field", "name")
	}
	var out *ImportOutcome
	var note Notification
	err := s.db.WriteBulk(func(tx *txn) error {
		now := s.clock()
		slugs := tx.Bucket(bWSSlugs)
		slug := model.UniqueSlug(model.WorkspaceSlug(in.Slug, name), func(c string) bool { return slugs.Get([]byte(c)) != nil })
		ws := &model.Workspace{ID: newID(), Name: name, Slug: slug, Description: in.Description, Template: in.Template,
			SortOrder: tx.Bucket(bWorkspaces).KeyN(), CreatedAt: tstamp(now), UpdatedAt: tstamp(now)}
		if err := firstErr(putWorkspace(tx, ws), slugs.Put([]byte(slug), mustID(ws.ID))); err != nil {
			return err
		}
		b, err := createWSBuckets(tx, ws.ID)
		if err != nil {
			return err
		}
		b.now = now
		b.hold()
		w := &wtx{tx: tx, ws: b, wsRec: ws, actor: actor, now: now}
		seq, err := w.stamp(model.EntityWorkspace, model.OpCreated, ws.ID, "", "")
		if err != nil {
			return err
		}
		if err := w.activity(seq, "", "workspace_created", map[string]any{"imported": true}); err != nil {
			return err
		}
		o, err := w.importAll(in)
		if err != nil {
			return err
		}
		if err := b.flushHeld(); err != nil {
			return err
		}
		ws.Seq = w.seq
		o.Workspace = ws
		out = o
		note = Notification{WorkspaceID: ws.ID, Seq: w.seq, Global: w.glob}
		return nil
	})
	if err = classify(engineErr(err)); err != nil {
		return nil, err
	}
	s.noteWritten(out.Workspace.ID, note.Seq)
	s.noteWritten(out.Workspace.Slug, note.Seq)
	s.publish(note)
	return out, nil
}

// refusal names the entity a refusal is about.
func refusal(err error, entity string, index int) error {
	if e, ok := model.AsError(err); ok {
		return e.With("entity", entity).With("index", index)
	}
	return err
}

func (w *wtx) importAll(in ImportInput) (*ImportOutcome, error) {
	o := &ImportOutcome{Skipped: map[string]int{}}
	actor := w.actor
	as := func(a model.Actor) {
		if a.Kind == "" {
			a = actor
		}
		w.actor = a
	}
	defer func() { w.actor = actor }()

	colls := map[string]*model.Collection{}
	for i, ic := range in.Collections {
		if _, dup := colls[ic.Key]; dup || ic.Key == "" {
			return nil, refusal(model.Invalid("collection id %q is empty or given twice", ic.Key), "collection", i)
		}
		c, err := w.createCollection(ic.Create)
		if err != nil {
			return nil, refusal(err, "collection", i)
		}
		if !ic.CreatedAt.IsZero() {
			c.CreatedAt = tstamp(ic.CreatedAt)
		}
		if !ic.UpdatedAt.IsZero() {
			c.UpdatedAt = tstamp(ic.UpdatedAt)
		}
		if err := w.keepFormerPrefixes(c, ic.FormerPrefixes); err != nil {
			return nil, refusal(err, "collection", i)
		}
		if err := putCollection(w.ws, c); err != nil {
			return nil, err
		}
		colls[ic.Key] = c
		o.Imported.Collections++
	}
	for i, rc := range in.Roles {
		if _, err := w.createRole(rc); err != nil {
			return nil, refusal(err, "role", i)
		}
		o.Imported.Roles++
	}

	// Items: parents first; each relation field value that names an item
	// not yet made waits for a second pass.
	keys := make(map[string]int, len(in.Items))
	for i := range in.Items {
		k := in.Items[i].Key
		if _, dup := keys[k]; dup || k == "" {
			return nil, refusal(model.Invalid("item id %q is empty or given twice", k), "item", i)
		}
		keys[k] = i
	}
	numbered := numbersUsable(in.Items)
	ids := make(map[string]string, len(in.Items))
	attIDs, refs := attachmentIDs(in.Attachments)
	deferred := map[int]map[string]any{}
	for _, i := range parentsFirstOrder(in.Items, keys) {
		ii := &in.Items[i]
		c, ok := colls[ii.CollectionKey]
		if !ok {
			return nil, refusal(model.Invalid("item %q names collection %q, which the export does not hold", ii.Title, ii.CollectionKey), "item", i)
		}
		content := RewriteAttachmentRefs(ii.Content, refs)
		vs := rewriteVersionRefs(in.Versions[ii.Key], refs)
		fields, reserved, err := model.SplitReserved(RewriteAttachmentRefsFields(ii.Fields, refs))
		if err != nil {
			return nil, refusal(err, "item", i)
		}
		fields, later := remapRelations(c.Schema, fields, ids, keys)
		if len(later) > 0 {
			deferred[i] = later
		}
		create := ItemCreate{Collection: c.ID, Title: ii.Title, Content: content, Fields: fields, Tags: ii.Tags,
			Pinned: ii.Pinned, SortOrder: &ii.SortOrder, AssignUser: ii.AssignedUserID, Role: ii.Role,
			imported: &itemImport{slugWanted: ii.Slug, createdAt: ii.CreatedAt, updatedAt: ii.UpdatedAt,
				lastModifiedBy: ii.LastModifiedBy, versions: vs, reserved: reserved, roleSortOrder: ii.RoleSortOrder}}
		if numbered {
			create.number = ii.Number
		}
		if ii.ParentKey != "" {
			if p, ok := ids[ii.ParentKey]; ok {
				create.Parent = p
			} else {
				o.Skipped["parent_not_in_export"]++
			}
		}
		as(ii.CreatedBy)
		r, err := w.createItem(create)
		if err != nil {
			return nil, refusal(err, "item", i)
		}
		ids[ii.Key] = r.Item.ID
		if ii.Origin != nil {
			if err := putOrigin(w.ws, r.Item.ID, *ii.Origin); err != nil {
				return nil, err
			}
		}
		o.Imported.Items++
		o.Imported.Versions += len(vs)
		if len(vs) == 0 || vs[len(vs)-1].Content != content {
			o.Imported.Versions++ // the create's, or the one holding the body (firstVersions)
		}
	}
	for _, i := range slices.Sorted(maps.Keys(deferred)) {
		ii := &in.Items[i]
		patch := map[string]any{}
		for k, v := range deferred[i] {
			patch[k] = remapValue(v, ids)
		}
		as(ii.LastModifiedBy)
		saved := w.now
		if !ii.UpdatedAt.IsZero() {
			w.now = ii.UpdatedAt
		}
		_, err := w.updateItem(ids[ii.Key], ItemUpdate{FieldsPatch: patch, Force: true})
		w.now = saved
		if err != nil {
			return nil, refusal(err, "item", i)
		}
	}

	comments := make(map[string]string, len(in.Comments))
	for i, ic := range in.Comments {
		item, ok := ids[ic.ItemKey]
		if !ok {
			o.Skipped["comment_item_not_in_export"]++
			continue
		}
		create := CommentCreate{Body: RewriteAttachmentRefs(ic.Body, refs)}
		if ic.ParentKey != "" {
			if p, ok := comments[ic.ParentKey]; ok {
				create.ReplyTo = p
			} else {
				o.Skipped["reply_parent_not_in_export"]++
			}
		}
		as(ic.Author)
		cm, err := w.addComment(item, create)
		if err != nil {
			return nil, refusal(err, "comment", i)
		}
		if !ic.CreatedAt.IsZero() {
			cm.CreatedAt = tstamp(ic.CreatedAt)
			cm.UpdatedAt = cm.CreatedAt
		}
		if !ic.UpdatedAt.IsZero() && ic.UpdatedAt.After(cm.CreatedAt) {
			cm.UpdatedAt = tstamp(ic.UpdatedAt)
		}
		if err := putComment(w.ws, cm); err != nil {
			return nil, err
		}
		if ic.Key != "" {
			comments[ic.Key] = cm.ID
		}
		o.Imported.Comments++
	}

	for i, il := range in.Links {
		src, okS := ids[il.SourceKey]
		dst, okD := ids[il.TargetKey]
		if !okS || !okD {
			o.Skipped["link_item_not_in_export"]++
			continue
		}
		as(il.CreatedBy)
		r, err := w.addLink(src, dst, il.Type, true)
		if c := model.ErrorCodeOf(err); c == model.CodeValidation || c == model.CodeBadRequest {
			// Refused before it wrote anything (a blocking cycle, say):
			// the import goes on without it.
			o.Skipped["link_refused"]++
			continue
		}
		if err != nil {
			return nil, refusal(err, "link", i)
		}
		if r.Link != nil && !il.CreatedAt.IsZero() {
			r.Link.CreatedAt = tstamp(il.CreatedAt)
			if err := putLink(w.ws, r.Link, false); err != nil {
				return nil, err
			}
		}
		o.Imported.Links++
	}

	if err := w.importAttachments(in.Attachments, attIDs, ids, o); err != nil {
		return nil, err
	}
	if err := w.remapRelationDefaults(colls, ids, o); err != nil {
		return nil, err
	}

	// Archived collections are archived last: their items were made live.
	w.actor = actor
	for i, ic := range in.Collections {
		if ic.ArchivedAt == nil {
			continue
		}
		c := colls[ic.Key]
		t := tstamp(*ic.ArchivedAt)
		c.ArchivedAt = &t
		seq, err := w.stamp(model.EntityCollection, model.OpArchived, c.ID, "", c.ID)
		if err != nil {
			return nil, refusal(err, "collection", i)
		}
		c.Seq = seq
		if err := firstErr(putCollection(w.ws, c), w.activity(seq, "", "collection_archived", map[string]any{"collection": c.Slug})); err != nil {
			return nil, err
		}
	}
	return o, nil
}

// numbersUsable says the items' numbers can be kept: each positive and
// none twice. Otherwise the import numbers them here, in order.
func numbersUsable(items []ImportItem) bool {
	seen := make(map[int64]bool, len(items))
	for i := range items {
		n := items[i].Number
		if n <= 0 || seen[n] {
			return false
		}
		seen[n] = true
	}
	return true
}

// parentsFirstOrder is the items' order with each after its parent (when
// the parent is among them), otherwise as given. A parent cycle is cut
// where it closes (resolveParent refuses it then).
func parentsFirstOrder(items []ImportItem, keys map[string]int) []int {
	out := make([]int, 0, len(items))
	state := make([]byte, len(items)) // 0 new, 1 on the path, 2 placed
	for start := range items {
		// Walk up to the first ancestor not placed, then place down.
		var path []int
		for i := start; state[i] == 0; {
			state[i] = 1
			path = append(path, i)
			p, ok := keys[items[i].ParentKey]
			if !ok || items[i].ParentKey == "" {
				break
			}
			i = p
		}
		for j := len(path) - 1; j >= 0; j-- {
			state[path[j]] = 2
			out = append(out, path[j])
		}
	}
	return out
}

// remapRelations is fields with each relation value that names an
// exported item given that item's new id; the values that name an item
// not made yet are returned apart, for a second pass.
func remapRelations(schema model.Schema, fields map[string]any, ids map[string]string, keys map[string]int) (map[string]any, map[string]any) {
	var later map[string]any
	out, cloned := fields, false
	own := func() {
		if !cloned {
			out, cloned = cloneFields(fields), true
		}
	}
	for _, f := range schema.Fields {
		if f.Type != model.TypeRelation && f.Type != model.TypeMultiRelation {
			continue
		}
		v, ok := fields[f.Key]
		if !ok {
			continue
		}
		if namesPending(v, ids, keys) {
			if later == nil {
				later = map[string]any{}
			}
			later[f.Key] = v
			own()
			delete(out, f.Key)
			continue
		}
		if out2 := remapValue(v, ids); !model.EqualJSON(out2, v) {
			own()
			out[f.Key] = out2
		}
	}
	return out, later
}

func cloneFields(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

func namesPending(v any, ids map[string]string, keys map[string]int) bool {
	switch x := v.(type) {
	case string:
		_, exported := keys[x]
		_, made := ids[x]
		return exported && !made
	case []any:
		for _, e := range x {
			if namesPending(e, ids, keys) {
				return true
			}
		}
	}
	return false
}

// remapValue gives each string that is an exported item's id that item's
// new id; anything else (a ref, a slug) is kept.
func remapValue(v any, ids map[string]string) any {
	switch x := v.(type) {
	case string:
		if n, ok := ids[x]; ok {
			return n
		}
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = remapValue(e, ids)
		}
		return out
	}
	return v
}

// importAttachments writes the rows of an import's attachments, marked
// imported. One whose item the export does not hold is kept unattached
// (and counted), so its file is not lost.
func (w *wtx) importAttachments(in []ImportAttachment, attIDs []string, ids map[string]string, o *ImportOutcome) error {
	if len(in) == 0 {
		return nil
	}
	rows, byItem, err := attBuckets(w.ws)
	if err != nil {
		return err
	}
	for i, ia := range in {
		if !validHash(ia.Hash) || ia.Size < 0 {
			return refusal(model.Invalid("attachment %d has no valid sha256 or size", i), "attachment", i)
		}
		name, src := CleanFilename(ia.Filename)
		rec := &attachmentRecord{Filename: name, FilenameSource: src, MIME: ia.MIME, Size: ia.Size, Hash: ia.Hash,
			Width: ia.Width, Height: ia.Height, UploadedBy: ia.UploadedBy, CreatedAt: tstamp(ia.CreatedAt), Imported: true}
		if rec.UploadedBy.Kind == "" {
			rec.UploadedBy = w.actor
		}
		if ia.CreatedAt.IsZero() {
			rec.CreatedAt = tstamp(w.now)
		}
		k := mustID(attIDs[i])
		if ia.ItemKey != "" {
			if id, ok := ids[ia.ItemKey]; ok {
				rec.ItemID = id
				if err := byItem.Put(cat(mustID(id), k), nil); err != nil {
					return err
				}
			} else {
				o.Skipped["attachment_item_not_in_export"]++
			}
		}
		if err := putAttachment(rows, k, rec); err != nil {
			return err
		}
		o.Imported.Attachments++
	}
	return nil
}

// attachmentIDs gives each attachment of an import its new id, and
// answers the lookup RewriteAttachmentRefs takes: an export's attachment
// id (any case) to its new id. When the export gives an id twice, the
// references name the first.
func attachmentIDs(in []ImportAttachment) ([]string, func(string) (string, bool)) {
	out := make([]string, len(in))
	byKey := make(map[string]string, len(in))
	for i, ia := range in {
		out[i] = newID()
		if k := strings.ToLower(ia.Key); k != "" {
			if _, dup := byKey[k]; !dup {
				byKey[k] = out[i]
			}
		}
	}
	return out, func(old string) (string, bool) {
		n, ok := byKey[old]
		return n, ok
	}
}

// rewriteVersionRefs is an item's exported versions with their bodies'
// attachment references rewritten (vs itself when none changes), so an
// old version's image shows too and the newest still matches the body.
func rewriteVersionRefs(vs []ImportVersion, refs func(string) (string, bool)) []ImportVersion {
	var out []ImportVersion
	for i := range vs {
		if c := RewriteAttachmentRefs(vs[i].Content, refs); c != vs[i].Content {
			if out == nil {
				out = slices.Clone(vs)
			}
			out[i].Content = c
		}
	}
	if out == nil {
		return vs
	}
	return out
}

// validHash reports whether h is a sha256 in lower-case hex (a blob's
// name).
func validHash(h string) bool {
	if len(h) != 64 {
		return false
	}
	for i := 0; i < len(h); i++ {
		if c := h[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}
