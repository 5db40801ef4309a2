package mirror

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/padd/padd/config"
	"github.com/padd/padd/model"
	"github.com/padd/padd/storage"
	"github.com/padd/padd/storage/mirrorstate"
)

// importFiles applies settled files to the workspace: files that exist
// first (so a file moved between folders is seen at its new path before
// its old one is missed), then the ones gone.
func (mr *mirror) importFiles(ctx context.Context, rels []string) error {
	sort.Strings(rels)
	mr.begin()
	if err := mr.loadCollections(); err != nil {
		return err
	}
	var gone []string
	var errs []error
	for _, rel := range rels {
		if ctx.Err() != nil {
			break
		}
		if h, ok := mr.quickHash(rel); ok {
			if id, known := mr.byPath[rel]; known && mr.files[id].Hash == h {
				mr.clearError(rel)
				continue // the mirror's own write, or a file already read
			}
		}
		if p, err := resolve(mr.def.Dir, rel); err == nil && heldForWriting(p) {
			// Still being written: read once the writer lets go, never
			// applied (nor moved) half written.
			mr.held = append(mr.held, rel)
			if testHookHeld != nil {
				testHookHeld(rel)
			}
			continue
		}
		b, fi, err := mr.readStat(rel)
		if err != nil {
			mr.fileError(rel, err)
			continue
		}
		if b == nil {
			delete(mr.stamps, rel)
			gone = append(gone, rel)
			continue
		}
		mr.setStamp(rel, hashOf(b), fi)
		if err := mr.importFile(rel, b); err != nil {
			errs = append(errs, err)
		}
	}
	if err := mr.flushUpdates(); err != nil {
		errs = append(errs, err)
	}
	for _, rel := range gone {
		mr.clearError(rel)
		id, ok := mr.byPath[rel]
		if !ok {
			continue
		}
		if mr.m.cfg.OnDelete() == config.OnDeleteKeep {
			mr.forget(id)
			continue
		}
		if _, err := mr.m.cfg.Store.DeleteItem(mr.def.WorkspaceID, id, actor); err != nil && !model.IsNotFound(err) {
			mr.fileError(rel, errors.New("the file was deleted, and its item could not be archived: "+err.Error()))
			continue
		}
		mr.forget(id)
	}
	return errors.Join(append(errs, mr.commit(-1))...)
}

// importFile applies one file's bytes. A file padd cannot apply is left
// as it is and reported; only a storage failure is returned.
func (mr *mirror) importFile(rel string, b []byte) error {
	if len(bytes.TrimSpace(b)) == 0 {
		// Empty: an editor's save caught between its truncate and its
		// write (its next event brings the bytes), or a file not written
		// yet. Nothing in it to apply, and no item to make of it.
		return nil
	}
	h := hashOf(b)
	if id, ok := mr.byPath[rel]; ok && mr.files[id].Hash == h {
		mr.clearError(rel)
		return nil // what the mirror itself wrote or last read
	}
	folder, name := path.Split(rel)
	folder = strings.TrimSuffix(folder, "/")
	if folder == "" || strings.Contains(folder, "/") || ignored(name) {
		return nil // not an item's place: a file beside the folders, or deeper
	}
	coll := mr.colls[folder]
	if coll == nil {
		mr.fileError(rel, bad("%s is not the folder of a collection of this workspace", folder))
		return nil
	}
	doc, err := Parse(b, mr.schemaFor(b, coll))
	if err != nil {
		mr.fileError(rel, err)
		return nil
	}
	if !doc.HasRef {
		return mr.create(rel, h, doc, coll)
	}
	ws := mr.def.WorkspaceID
	v, err := mr.m.views.GetItem(ws, doc.Ref)
	if model.IsNotFound(err) {
		mr.fileError(rel, bad("ref %s is not an item of this workspace (remove the ref line to create a new item)", doc.Ref))
		return nil
	}
	if err != nil {
		return err
	}
	if v.DeletedAt != nil { // a file written again after its deletion archived the item
		if v, err = mr.m.cfg.Store.RestoreItem(ws, v.ID, actor); err != nil {
			mr.fileError(rel, err)
			return nil
		}
	}
	rec, has := mr.files[v.ID]
	if has && rec.Path != rel {
		if other, _ := mr.diskHash(rec.Path); other != "" && rec.Path != rel {
			// The item already has a file elsewhere: this is a copy.
			mr.fileError(rel, bad("ref %s already has its file %s; remove the ref line to make this a new item", doc.Ref, rec.Path))
			return nil
		}
	}
	if has && rec.Seq != v.Seq && rec.Path == rel && mr.renderedHash(v) != rec.Hash {
		// Changed in padd and in the file since they last agreed: keep
		// both, the file's bytes beside the item's version.
		if !mr.keepBoth(rel, b) {
			return nil
		}
		mr.exportItem(v)
		mr.clearError(rel)
		return nil
	}
	moved := FolderName(v.Collection.Slug) != folder
	if moved {
		res, err := mr.m.cfg.Store.MoveItem(ws, v.ID, storage.MoveInput{Target: coll.Slug}, actor)
		if err != nil {
			mr.fileError(rel, err)
			return nil
		}
		v = res.Item
	}
	up := storage.ItemUpdate{Title: &doc.Title, Content: &doc.Content, Tags: &doc.Tags, FieldsPatch: fieldsPatch(doc, coll), ExpectedSeq: &v.Seq}
	if moved {
		up.FieldsPatch = nil // the move carried the fields, by the destination's rules
	}
	if doc.Tags == nil {
		empty := []string{}
		up.Tags = &empty
	}
	if !moved {
		// Applied with the batch's other updates, in one transaction.
		mr.updates = append(mr.updates, pendingUpdate{rel: rel, hash: h, itemID: v.ID, up: up})
		return nil
	}
	res, err := mr.m.cfg.Store.UpdateItem(ws, v.ID, up, actor)
	if err != nil {
		if model.IsCode(err, model.CodeConflict) || model.IsUpdateConflict(err) {
			return err // changed under us: the next event retries
		}
		mr.fileError(rel, err)
		return nil
	}
	mr.clearError(rel)
	// Its ref took the new collection's prefix: write the file under its
	// new name, and the old one goes.
	mr.exportItem(res.Item)
	if want := mr.files[v.ID].Path; want != rel {
		mr.removals = append(mr.removals, removal{rel, h, v.ID})
	}
	return nil
}

// pendingUpdate is a file's update, waiting for the batch's transaction.
type pendingUpdate struct {
	rel, hash, itemID string
	up                storage.ItemUpdate
}

// updateChunk bounds the updates one transaction applies.
const updateChunk = 256

// flushUpdates applies the batch's updates, a chunk per transaction
// (a checkout that rewrites 1,000 files is a few commits, not 1,000),
// each item refused on its own.
func (mr *mirror) flushUpdates() error {
	ups := mr.updates
	mr.updates = nil
	for start := 0; start < len(ups); start += updateChunk {
		chunk := ups[start:min(start+updateChunk, len(ups))]
		ops := make([]storage.BulkOp, len(chunk))
		for i := range chunk {
			ops[i] = storage.BulkOp{Ref: chunk[i].itemID, Update: &chunk[i].up}
		}
		outs, err := mr.m.cfg.Store.BulkApply(mr.def.WorkspaceID, ops, actor)
		if err != nil {
			return err
		}
		for i, o := range outs {
			u := chunk[i]
			if o.Err != nil {
				if model.IsCode(o.Err, model.CodeConflict) || model.IsUpdateConflict(o.Err) {
					continue // changed under us: the file stays unrecorded, and is read again at its next change
				}
				mr.fileError(u.rel, o.Err)
				continue
			}
			mr.clearError(u.rel)
			mr.record(mirrorstate.File{ItemID: u.itemID, Path: u.rel, Hash: u.hash, Seq: o.Item.Seq})
		}
	}
	return nil
}

// schemaFor is the schema a file is read with: its folder's, or, for a
// file just moved in from another collection's folder, its item's
// collection's (the move then carries what the destination declares).
func (mr *mirror) schemaFor(b []byte, coll *model.Collection) model.Schema {
	ref := PeekRef(b)
	if ref == "" {
		return coll.Schema
	}
	v, err := mr.m.views.GetItem(mr.def.WorkspaceID, ref)
	if err != nil || v.Collection.ID == coll.ID {
		return coll.Schema
	}
	return v.Collection.Schema
}

// renderedHash is the hash of the file padd would write for v.
func (mr *mirror) renderedHash(v *storage.ItemView) string {
	body, err := Render(v.Ref, v.Title, v.Fields, v.Tags, v.Content, v.Collection.Schema)
	if err != nil {
		return ""
	}
	return hashOf(body)
}

// fieldsPatch sets every declared field the file holds and clears those
// it leaves out, so the file is the whole truth of the schema's fields.
func fieldsPatch(doc *Doc, coll *model.Collection) map[string]any {
	p := map[string]any{}
	for _, f := range coll.Schema.Fields {
		if f.Computed {
			continue
		}
		p[f.Key] = doc.Fields[f.Key] // nil clears
	}
	return p
}

// create makes a new item from a file with no ref, then renames the file
// to carry its ref. The create is idempotent on the file's path and
// bytes, so a padd stopped between the two does not create it twice.
func (mr *mirror) create(rel, h string, doc *Doc, coll *model.Collection) error {
	title := doc.Title
	if title == "" {
		title = strings.TrimSuffix(path.Base(rel), ".md")
	}
	fields := map[string]any{}
	for k, v := range doc.Fields {
		if v != nil {
			fields[k] = v
		}
	}
	key := "mirror:" + mr.def.ID + ":" + h
	res, err := mr.m.cfg.Store.CreateItem(mr.def.WorkspaceID, storage.ItemCreate{Collection: coll.Slug, Title: title,
		Content: doc.Content, Fields: fields, Tags: doc.Tags, Idem: storage.NewIdem(key, rel)}, actor)
	if err != nil {
		if model.IsCode(err, model.CodeValidation) || model.IsCode(err, model.CodeBadRequest) || model.IsCode(err, model.CodeConflict) {
			mr.fileError(rel, err)
			return nil
		}
		var pe *model.Error
		if errors.As(err, &pe) {
			mr.fileError(rel, err)
			return nil
		}
		return err
	}
	mr.clearError(rel)
	mr.exportItem(res.Item)
	if mr.files[res.Item.ID].Path != rel {
		mr.removals = append(mr.removals, removal{rel, h, res.Item.ID})
	}
	return nil
}

// reconcile compares the whole folder with the whole workspace: at start
// and after the watch lost events. Both sides are compared with what
// they last exchanged, so a change made while padd was down is applied
// once, whichever side it was on. Items are written now; the files to
// read are left in held, read once settled.
func (mr *mirror) reconcile(ctx context.Context) error {
	ws := mr.def.WorkspaceID
	idx, err := mr.m.views.ItemsIndex(ctx, ws, "", false)
	if err != nil {
		return err
	}
	mr.begin()
	if err := mr.loadCollections(); err != nil {
		return err
	}
	live := map[string]bool{}
	var toWrite []string
	var fromFiles []string
	for _, it := range idx.Items {
		if mr.colls[FolderName(it.Collection.Slug)] == nil {
			continue
		}
		live[it.ID] = true
		rec, has := mr.files[it.ID]
		if !has {
			toWrite = append(toWrite, it.ID)
			continue
		}
		disk, _ := mr.diskHash(rec.Path)
		switch {
		case disk != rec.Hash:
			fromFiles = append(fromFiles, rec.Path) // changed or deleted while padd was away
		case it.Seq != rec.Seq:
			toWrite = append(toWrite, it.ID)
		}
	}
	for id := range mr.files {
		if !live[id] {
			mr.exportGone(id)
		}
	}
	if err := mr.exportItems(toWrite); err != nil {
		return err
	}
	// A write held back by a writer is tried again later; the comparison
	// goes on.
	held := mr.commit(idx.Cursor)
	if held != nil && !errors.Is(held, errHeld) {
		return held
	}
	// Files the records do not know: new files.
	_ = filepath.WalkDir(mr.def.Dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			if p != mr.def.Dir && strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() && isConflictCopy(d.Name()) {
			if rel, ok := mr.rel(p); ok {
				mr.noteConflict(rel) // kept from before: still the user's to look at
			}
			return nil
		}
		if !d.Type().IsRegular() || ignored(d.Name()) {
			return nil
		}
		if rel, ok := mr.rel(p); ok {
			if _, known := mr.byPath[rel]; !known {
				fromFiles = append(fromFiles, rel)
			}
		}
		return nil
	})
	// The files to read go through the settle rule like any changed file:
	// one may be in the middle of being written.
	mr.held = append(mr.held, fromFiles...)
	return errors.Join(held, mr.exportChanges(ctx))
}
