package storage

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/padd/padd/model"
	"github.com/padd/padd/storage/internal/records"
)

// A workspace import (Pad's WorkspaceExport, docs/BUNDLES.md) creates a
// new workspace and everything in it. It is written in chunks, each a
// bulk transaction of its own, into a workspace that is staged: its
// buckets exist but no workspace record names it, so nothing lists,
// finds or follows it. Between chunks other requests are answered (reads
// also during one: engine.DB.WriteBulk). A last small write gives it its
// record and slug, and it appears whole. A refusal, a cancelled import
// (the client gone, padd stopping) or a failed chunk drops the staged
// buckets; what a crash leaves is dropped at the next open
// (import_stage.go). Entities get new ids; items keep their numbers (so
// their refs), slugs when free, times and authors; comments, links and
// versions keep their times and authors.

// ImportInput is a workspace to create from an export. Keys are the
// export's ids, which only link the entities to each other here.
type ImportInput struct {
	Name        string
	Slug        string
	Description string
	Template    string // a template's name, or ""
	Collections []ImportCollection
	Roles       []RoleCreate
	// Context is the workspace's context (nil: none); SavedViews its
	// collections' saved views (storage/savedviews.go).
	Context    *model.WorkspaceContext
	SavedViews []ImportSavedView
	// Source gives the items, comments, links and versions (nil: none).
	Source ImportSource
	// Attachments are rows of blobs already durable in place.
	Attachments []ImportAttachment
	// ReportLayout is the report page's layout, cleaned (nil: none).
	ReportLayout *model.ReportLayout
}

// ImportSource gives an import its items, comments, links and versions
// one at a time, so that an import does not hold all of them converted
// at once (the daemon reads each from the export's bytes when its chunk
// is written). An error refuses the import; it should name the entity
// (details.entity, details.index).
type ImportSource interface {
	// Items is how many items there are. ItemRef is the i-th one's key,
	// its parent's key and its number: what ordering them needs, read
	// for every item before the first is written. Item is the whole
	// i-th item, read once, when it is written.
	Items() int
	ItemRef(i int) (ImportItemRef, error)
	Item(i int) (ImportItem, error)
	// Versions are the versions of the item whose key is itemKey, oldest
	// first.
	Versions(itemKey string) ([]ImportVersion, error)
	Comments() int
	Comment(i int) (ImportComment, error)
	// Link is the i-th link; ok is false for one the import leaves out
	// (the source counts it).
	Links() int
	Link(i int) (l ImportLink, ok bool, err error)
}

// ImportItemRef is what ordering an import's items needs of each.
type ImportItemRef struct {
	Key, ParentKey string
	Number         int64
}

// ImportEntities is an ImportSource over entities held in memory.
type ImportEntities struct {
	Items    []ImportItem
	Comments []ImportComment
	Links    []ImportLink
	// Versions are each item's versions, oldest first.
	Versions map[string][]ImportVersion
}

// Source is e as an ImportSource.
func (e *ImportEntities) Source() ImportSource { return entitySource{e} }

type entitySource struct{ e *ImportEntities }

func (s entitySource) Items() int { return len(s.e.Items) }

func (s entitySource) ItemRef(i int) (ImportItemRef, error) {
	it := &s.e.Items[i]
	return ImportItemRef{Key: it.Key, ParentKey: it.ParentKey, Number: it.Number}, nil
}

func (s entitySource) Item(i int) (ImportItem, error) { return s.e.Items[i], nil }

func (s entitySource) Versions(key string) ([]ImportVersion, error) { return s.e.Versions[key], nil }

func (s entitySource) Comments() int { return len(s.e.Comments) }

func (s entitySource) Comment(i int) (ImportComment, error) { return s.e.Comments[i], nil }

func (s entitySource) Links() int { return len(s.e.Links) }

func (s entitySource) Link(i int) (ImportLink, bool, error) { return s.e.Links[i], true, nil }

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
	Reactions                     []model.Reaction // padd's export's; an import's are nobody's on a remote (not Synced)
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
		it.CreatedAt = records.Tstamp(m.createdAt)
	}
	if !m.updatedAt.IsZero() {
		it.UpdatedAt = records.Tstamp(m.updatedAt)
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
func (m *itemImport) slug(b *records.Wsb, generated string) string {
	if m == nil || m.slugWanted == "" || model.ItemSlug(m.slugWanted) != m.slugWanted || b.Slugs().Get([]byte(m.slugWanted)) != nil {
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
		vseq, err := w.ws.Bump(records.KVersion)
		if err != nil {
			return err
		}
		added, removed := records.LineDelta(prev, v.Content)
		title := v.Title
		if title == "" {
			title = it.Title
		}
		rec := model.Version{ID: records.NewID(), ItemID: it.ID, VersionSeq: vseq, Title: title, Current: current,
			Summary: v.Summary, Actor: v.Actor, IsCreate: isCreate, LinesAdded: added, LinesRemoved: removed,
			CreatedAt: records.Tstamp(v.CreatedAt), Seq: w.seq}
		if !current {
			rec.Content = v.Content
		}
		prev = v.Content
		return w.ws.Versions().Put(records.Cat(records.MustID(it.ID), records.U64(uint64(vseq))), records.EncodeVersion(rec))
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

// An import's chunks: each is one bulk transaction of at most
// importChunk entities, or of importChunkBytes of their text (content,
// versions, comment bodies), whichever comes first. Each commit rewrites
// the pages its chunk touched and syncs, so bigger chunks write faster;
// the writes queued behind a chunk wait for it (the chunk size is chosen
// in docs/PERFORMANCE.md, "Why the code is as it is").
const (
	importChunk      = 1000
	importChunkBytes = 4 << 20
)

// ImportWorkspace creates the workspace in: chunk by chunk into a staged
// workspace nobody sees, then made visible in one small write. It ends
// early when ctx does (the error wraps ctx's), and like any refusal (one
// names the entity: details.entity, details.index) leaves nothing behind.
func (s *Store) ImportWorkspace(ctx context.Context, in ImportInput, actor model.Actor) (*ImportOutcome, error) {
	name := strings.TrimSpace(in.Name)
	if name == "" {
		return nil, model.Invalid("the workspace needs a name").With("entity", "workspace").With("field", "name")
	}
	if err := in.Context.Check(); err != nil {
		return nil, refusal(err, "workspace", 0)
	}
	src := in.Source
	if src == nil {
		src = (&ImportEntities{}).Source()
	}
	progress, untrack := s.trackImport(name, src.Items())
	defer untrack()
	plan, err := planImport(ctx, src)
	if err != nil {
		return nil, err
	}
	now := s.base.Clock()
	im := &importRun{s: s, ctx: ctx, in: in, src: src, plan: plan, actor: actor, now: now, progress: progress,
		ws:  &model.Workspace{ID: records.NewID(), Name: name, Description: in.Description, Template: in.Template, ReportLayout: in.ReportLayout, Context: in.Context, CreatedAt: records.Tstamp(now), UpdatedAt: records.Tstamp(now)},
		out: &ImportOutcome{Skipped: map[string]int{}}, colls: map[string]*model.Collection{}}
	note, err := im.run()
	if err != nil {
		im.drop()
		return nil, err
	}
	s.noteWritten(im.ws.ID, note.Seq)
	s.noteWritten(im.ws.Slug, note.Seq)
	s.publish(note)
	im.out.Workspace = im.ws
	return im.out, nil
}

// importRun is one import on its way: what it has made so far, kept
// between its chunks.
type importRun struct {
	s        *Store
	ctx      context.Context
	in       ImportInput
	src      ImportSource
	plan     *importPlan
	actor    model.Actor
	now      time.Time
	ws       *model.Workspace // its record, written by finish
	out      *ImportOutcome
	progress *importProgress
	staged   bool // the staged buckets exist
	chunks   int

	colls    map[string]*model.Collection // by export key
	deferred []deferredRelations          // in item order
	comments map[string]uuid.UUID         // new comment ids, by export key
	attIDs   []string
	attRefs  func(string) (string, bool)
}

// deferredRelations are an item's relation values that named an item
// not made yet when it was: set once every item is.
type deferredRelations struct {
	index  int
	id     string // the item's new id
	fields map[string]any
	by     model.Actor
	at     time.Time
}

// refusal names the entity a refusal is about.
func refusal(err error, entity string, index int) error {
	if e, ok := model.AsError(err); ok {
		return e.With("entity", entity).With("index", index)
	}
	return err
}

func (im *importRun) run() (Notification, error) {
	im.attIDs, im.attRefs = attachmentIDs(im.in.Attachments)
	for _, step := range []func() error{im.stage, im.items, im.relations, im.commentsStep, im.links, im.attachments} {
		if err := step(); err != nil {
			return Notification{}, err
		}
	}
	return im.finish()
}

// chunk runs fn as one bulk transaction in the staged workspace, unless
// ctx has ended.
func (im *importRun) chunk(fn func(w *wtx) error) error {
	if err := stopped(im.ctx); err != nil {
		return err
	}
	err := im.s.base.DB.WriteBulk(func(tx *records.Txn) error {
		if !im.staged {
			if err := stageWorkspace(tx, im.ws.ID, im.now); err != nil {
				return err
			}
		}
		b := records.OpenWS(tx, im.ws.ID)
		if b == nil {
			return records.ErrInternal("the staged import %s lost its buckets", im.ws.ID)
		}
		b.Now = im.now
		b.Hold()
		w := &wtx{tx: tx, ws: b, wsRec: im.ws, actor: im.actor, now: im.now, staged: true}
		if err := fn(w); err != nil {
			return err
		}
		return b.FlushHeld()
	})
	if err = records.Classify(records.EngineErr(err)); err != nil {
		return err
	}
	im.staged = true
	im.chunks++
	if step := im.s.importStep; step != nil {
		step(im.ctx, im.chunks)
	}
	return nil
}

// as makes a the author of what w writes next (the importer when a is
// empty).
func (im *importRun) as(w *wtx, a model.Actor) {
	if a.Kind == "" {
		a = im.actor
	}
	w.actor = a
}

// stage makes the staged workspace with its collections and roles.
func (im *importRun) stage() error {
	return im.chunk(func(w *wtx) error {
		for i, ic := range im.in.Collections {
			if _, dup := im.colls[ic.Key]; dup || ic.Key == "" {
				return refusal(model.Invalid("collection id %q is empty or given twice", ic.Key), "collection", i)
			}
			c, err := w.createCollection(ic.Create)
			if err != nil {
				return refusal(err, "collection", i)
			}
			if !ic.CreatedAt.IsZero() {
				c.CreatedAt = records.Tstamp(ic.CreatedAt)
			}
			if !ic.UpdatedAt.IsZero() {
				c.UpdatedAt = records.Tstamp(ic.UpdatedAt)
			}
			if err := w.keepFormerPrefixes(c, ic.FormerPrefixes); err != nil {
				return refusal(err, "collection", i)
			}
			if err := putCollection(w.ws, c); err != nil {
				return err
			}
			im.colls[ic.Key] = c
			im.out.Imported.Collections++
		}
		for i, rc := range im.in.Roles {
			if _, err := w.createRole(rc); err != nil {
				return refusal(err, "role", i)
			}
			im.out.Imported.Roles++
		}
		return w.importSavedViews(im.in.SavedViews, im.colls)
	})
}

// importItem is an item of the next chunk, read from the source.
type importItem struct {
	index    int
	item     ImportItem
	versions []ImportVersion
}

// items creates the items, parents first, a chunk at a time. A relation
// value that names an item not made yet waits for relations.
func (im *importRun) items() error {
	order := im.plan.order
	for next := 0; next < len(order); {
		var batch []importItem
		size := 0
		for next < len(order) && len(batch) < importChunk && size < importChunkBytes {
			i := int(order[next])
			next++
			it, err := im.src.Item(i)
			if err != nil {
				return err
			}
			vs, err := im.src.Versions(it.Key)
			if err != nil {
				return err
			}
			size += len(it.Content)
			for _, v := range vs {
				size += len(v.Content)
			}
			batch = append(batch, importItem{index: i, item: it, versions: vs})
		}
		if err := im.chunk(func(w *wtx) error {
			for k := range batch {
				if err := im.createItem(w, &batch[k]); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			return err
		}
		im.progress.written.Add(int64(len(batch)))
	}
	return nil
}

func (im *importRun) createItem(w *wtx, p *importItem) error {
	i, ii := p.index, &p.item
	c, ok := im.colls[ii.CollectionKey]
	if !ok {
		return refusal(model.Invalid("item %q names collection %q, which the export does not hold", ii.Title, ii.CollectionKey), "item", i)
	}
	content := RewriteAttachmentRefs(ii.Content, im.attRefs)
	vs := rewriteVersionRefs(p.versions, im.attRefs)
	fields, reserved, err := model.SplitReserved(RewriteAttachmentRefsFields(ii.Fields, im.attRefs))
	if err != nil {
		return refusal(err, "item", i)
	}
	fields, later := remapRelations(c.Schema, fields, im.plan)
	create := ItemCreate{Collection: c.ID, Title: ii.Title, Content: content, Fields: fields, Tags: ii.Tags,
		Pinned: ii.Pinned, SortOrder: &ii.SortOrder, AssignUser: ii.AssignedUserID, Role: ii.Role,
		imported: &itemImport{slugWanted: ii.Slug, createdAt: ii.CreatedAt, updatedAt: ii.UpdatedAt,
			lastModifiedBy: ii.LastModifiedBy, versions: vs, reserved: reserved, roleSortOrder: ii.RoleSortOrder}}
	if im.plan.numbered {
		create.number = ii.Number
	}
	if ii.ParentKey != "" {
		if p, ok := im.plan.newID(ii.ParentKey); ok {
			create.Parent = p
		} else {
			im.out.Skipped["parent_not_in_export"]++
		}
	}
	im.as(w, ii.CreatedBy)
	r, err := w.createItem(create)
	if err != nil {
		return refusal(err, "item", i)
	}
	im.plan.made[i] = uuid.UUID(records.MustID(r.Item.ID))
	if ii.Origin != nil {
		if err := putOrigin(w.ws, r.Item.ID, *ii.Origin); err != nil {
			return err
		}
	}
	if len(later) > 0 {
		im.deferred = append(im.deferred, deferredRelations{index: i, id: r.Item.ID, fields: later, by: ii.LastModifiedBy, at: ii.UpdatedAt})
	}
	im.out.Imported.Items++
	im.out.Imported.Versions += len(vs)
	if len(vs) == 0 || vs[len(vs)-1].Content != content {
		im.out.Imported.Versions++ // the create's, or the one holding the body (firstVersions)
	}
	return nil
}

// relations sets the relation values that named items made after theirs.
func (im *importRun) relations() error {
	slices.SortFunc(im.deferred, func(a, b deferredRelations) int { return a.index - b.index }) // export order
	for start := 0; start < len(im.deferred); start += importChunk {
		part := im.deferred[start:min(start+importChunk, len(im.deferred))]
		if err := im.chunk(func(w *wtx) error {
			for _, d := range part {
				patch := map[string]any{}
				for k, v := range d.fields {
					patch[k] = remapValue(v, im.plan)
				}
				im.as(w, d.by)
				saved := w.now
				if !d.at.IsZero() {
					w.now = d.at
				}
				_, err := w.updateItem(d.id, ItemUpdate{FieldsPatch: patch, Force: true})
				w.now = saved
				if err != nil {
					return refusal(err, "item", d.index)
				}
			}
			return nil
		}); err != nil {
			return err
		}
	}
	im.deferred = nil
	return nil
}

// commentsStep writes the comments, a chunk at a time. A reply names a
// comment before it (Pad's export order), else it is kept as a top-level
// comment.
func (im *importRun) commentsStep() error {
	n := im.src.Comments()
	im.comments = map[string]uuid.UUID{}
	for next := 0; next < n; {
		var batch []ImportComment
		first, size := next, 0
		for next < n && len(batch) < importChunk && size < importChunkBytes {
			c, err := im.src.Comment(next)
			if err != nil {
				return err
			}
			next++
			size += len(c.Body)
			batch = append(batch, c)
		}
		if err := im.chunk(func(w *wtx) error {
			for k := range batch {
				if err := im.addComment(w, first+k, &batch[k]); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			return err
		}
	}
	im.comments = nil
	return nil
}

func (im *importRun) addComment(w *wtx, i int, ic *ImportComment) error {
	item, ok := im.plan.newID(ic.ItemKey)
	if !ok {
		im.out.Skipped["comment_item_not_in_export"]++
		return nil
	}
	create := CommentCreate{Body: RewriteAttachmentRefs(ic.Body, im.attRefs)}
	if ic.ParentKey != "" {
		if p, ok := im.comments[ic.ParentKey]; ok {
			create.ReplyTo = p.String()
		} else {
			im.out.Skipped["reply_parent_not_in_export"]++
		}
	}
	im.as(w, ic.Author)
	cm, err := w.addComment(item, create)
	if err != nil {
		return refusal(err, "comment", i)
	}
	if !ic.CreatedAt.IsZero() {
		cm.CreatedAt = records.Tstamp(ic.CreatedAt)
		cm.UpdatedAt = cm.CreatedAt
	}
	if !ic.UpdatedAt.IsZero() && ic.UpdatedAt.After(cm.CreatedAt) {
		cm.UpdatedAt = records.Tstamp(ic.UpdatedAt)
	}
	cm.Reactions = importReactions(ic.Reactions)
	if err := putComment(w.ws, cm); err != nil {
		return err
	}
	if ic.Key != "" {
		im.comments[ic.Key] = uuid.UUID(records.MustID(cm.ID))
	}
	im.out.Imported.Comments++
	return nil
}

// links writes the links between imported items, a chunk at a time.
func (im *importRun) links() error {
	n := im.src.Links()
	for next := 0; next < n; {
		type link struct {
			index int
			l     ImportLink
		}
		var batch []link
		for next < n && len(batch) < importChunk {
			l, ok, err := im.src.Link(next)
			if err != nil {
				return err
			}
			if ok {
				batch = append(batch, link{next, l})
			}
			next++
		}
		if err := im.chunk(func(w *wtx) error {
			for _, b := range batch {
				if err := im.addLink(w, b.index, &b.l); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			return err
		}
	}
	return nil
}

func (im *importRun) addLink(w *wtx, i int, il *ImportLink) error {
	src, okS := im.plan.newID(il.SourceKey)
	dst, okD := im.plan.newID(il.TargetKey)
	if !okS || !okD {
		im.out.Skipped["link_item_not_in_export"]++
		return nil
	}
	im.as(w, il.CreatedBy)
	r, err := w.addLink(src, dst, il.Type, true)
	if c := model.ErrorCodeOf(err); c == model.CodeValidation || c == model.CodeBadRequest {
		// Refused before it wrote anything (a blocking cycle, say):
		// the import goes on without it.
		im.out.Skipped["link_refused"]++
		return nil
	}
	if err != nil {
		return refusal(err, "link", i)
	}
	if r.Link != nil && !il.CreatedAt.IsZero() {
		r.Link.CreatedAt = records.Tstamp(il.CreatedAt)
		if err := putLink(w.ws, r.Link, false); err != nil {
			return err
		}
	}
	im.out.Imported.Links++
	return nil
}

// attachments writes the attachments' rows, then gives the relation
// defaults the new ids (every item is made) and archives the collections
// the export has archived (their items were made live).
func (im *importRun) attachments() error {
	atts := im.in.Attachments
	for start := 0; ; start += importChunk {
		end := min(start+importChunk, len(atts))
		if err := im.chunk(func(w *wtx) error {
			if err := w.importAttachments(atts[start:end], start, im.attIDs, im.plan, im.out); err != nil {
				return err
			}
			if end < len(atts) {
				return nil
			}
			if err := w.remapRelationDefaults(im.colls, im.plan, im.out); err != nil {
				return err
			}
			return im.archiveCollections(w)
		}); err != nil {
			return err
		}
		if end == len(atts) {
			return nil
		}
	}
}

func (im *importRun) archiveCollections(w *wtx) error {
	w.actor = im.actor
	for i, ic := range im.in.Collections {
		if ic.ArchivedAt == nil {
			continue
		}
		c := im.colls[ic.Key]
		t := records.Tstamp(*ic.ArchivedAt)
		c.ArchivedAt = &t
		seq, err := w.stamp(model.EntityCollection, model.OpArchived, c.ID, "", c.ID)
		if err != nil {
			return refusal(err, "collection", i)
		}
		c.Seq = seq
		if err := records.FirstErr(putCollection(w.ws, c), w.activity(seq, "", "collection_archived", map[string]any{"collection": c.Slug})); err != nil {
			return err
		}
	}
	return nil
}

// importPlan is what an import knows of every item before it writes the
// first: each one's key and where it goes, and the new id of each made.
type importPlan struct {
	keys     map[string]int32 // item index, by export key
	order    []int32          // item indexes, parents first
	numbered bool             // the items keep their numbers
	made     []uuid.UUID      // new ids by item index; zero until made
}

// planImport reads every item's key, parent and number from src: a key
// empty or given twice refuses the import.
func planImport(ctx context.Context, src ImportSource) (*importPlan, error) {
	n := src.Items()
	p := &importPlan{keys: make(map[string]int32, n), made: make([]uuid.UUID, n)}
	type child struct {
		index  int32
		parent string
	}
	var children []child
	numbers := make([]int64, n)
	for i := range n {
		if i%4096 == 0 {
			if err := stopped(ctx); err != nil {
				return nil, err
			}
		}
		r, err := src.ItemRef(i)
		if err != nil {
			return nil, err
		}
		if _, dup := p.keys[r.Key]; dup || r.Key == "" {
			return nil, refusal(model.Invalid("item id %q is empty or given twice", r.Key), "item", i)
		}
		p.keys[r.Key] = int32(i)
		if r.ParentKey != "" {
			children = append(children, child{int32(i), r.ParentKey})
		}
		numbers[i] = r.Number
	}
	// The numbers are kept when each is positive and none is given twice;
	// otherwise the items are numbered here, in order.
	slices.Sort(numbers)
	p.numbered = n == 0 || numbers[0] > 0 && len(slices.Compact(numbers)) == n
	parents := make([]int32, n)
	for i := range parents {
		parents[i] = -1
	}
	for _, c := range children {
		if j, ok := p.keys[c.parent]; ok {
			parents[c.index] = j
		}
	}
	p.order = parentsFirstOrder(parents)
	return p, nil
}

// newID is the new id of the item the export key names, once it is made.
func (p *importPlan) newID(key string) (string, bool) {
	i, ok := p.keys[key]
	if !ok || p.made[i] == (uuid.UUID{}) {
		return "", false
	}
	return p.made[i].String(), true
}

// pending says whether key names an exported item not made yet.
func (p *importPlan) pending(key string) bool {
	i, ok := p.keys[key]
	return ok && p.made[i] == (uuid.UUID{})
}

// parentsFirstOrder is the items' order with each after its parent (when
// the parent is among them: parents[i] >= 0), otherwise as given. A
// parent cycle is cut where it closes (the item whose parent is not made
// yet is made without it, and counted).
func parentsFirstOrder(parents []int32) []int32 {
	out := make([]int32, 0, len(parents))
	state := make([]byte, len(parents)) // 0 new, 1 on the path, 2 placed
	var path []int32
	for start := range parents {
		// Walk up to the first ancestor not placed, then place down.
		path = path[:0]
		for i := int32(start); state[i] == 0; {
			state[i] = 1
			path = append(path, i)
			if parents[i] < 0 {
				break
			}
			i = parents[i]
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
func remapRelations(schema model.Schema, fields map[string]any, p *importPlan) (map[string]any, map[string]any) {
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
		if namesPending(v, p) {
			if later == nil {
				later = map[string]any{}
			}
			later[f.Key] = v
			own()
			delete(out, f.Key)
			continue
		}
		if out2 := remapValue(v, p); !model.EqualJSON(out2, v) {
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

func namesPending(v any, p *importPlan) bool {
	switch x := v.(type) {
	case string:
		return p.pending(x)
	case []any:
		for _, e := range x {
			if namesPending(e, p) {
				return true
			}
		}
	}
	return false
}

// remapValue gives each string that is an exported item's id that item's
// new id; anything else (a ref, a slug) is kept.
func remapValue(v any, p *importPlan) any {
	switch x := v.(type) {
	case string:
		if n, ok := p.newID(x); ok {
			return n
		}
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = remapValue(e, p)
		}
		return out
	}
	return v
}

// importAttachments writes the rows of an import's attachments in (the
// first at index first of the import's), marked imported. One whose item
// the export does not hold is kept unattached (and counted), so its file
// is not lost.
func (w *wtx) importAttachments(in []ImportAttachment, first int, attIDs []string, p *importPlan, o *ImportOutcome) error {
	if len(in) == 0 {
		return nil
	}
	rows, byItem, err := records.AttBuckets(w.ws)
	if err != nil {
		return err
	}
	for j, ia := range in {
		i := first + j
		if !validHash(ia.Hash) || ia.Size < 0 {
			return refusal(model.Invalid("attachment %d has no valid sha256 or size", i), "attachment", i)
		}
		name, src := CleanFilename(ia.Filename)
		rec := &records.AttachmentRecord{Filename: name, FilenameSource: src, MIME: ia.MIME, Size: ia.Size, Hash: ia.Hash,
			Width: ia.Width, Height: ia.Height, UploadedBy: ia.UploadedBy, CreatedAt: records.Tstamp(ia.CreatedAt), Imported: true}
		if rec.UploadedBy.Kind == "" {
			rec.UploadedBy = w.actor
		}
		if ia.CreatedAt.IsZero() {
			rec.CreatedAt = records.Tstamp(w.now)
		}
		k := records.MustID(attIDs[i])
		if ia.ItemKey != "" {
			if id, ok := p.newID(ia.ItemKey); ok {
				rec.ItemID = id
				if err := byItem.Put(records.Cat(records.MustID(id), k), nil); err != nil {
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
		out[i] = records.NewID()
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
