package mirror

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/padd/padd/storage"
	"github.com/padd/padd/storage/mirrorstate"
)

// pageSize is how many changed items one read of the change log yields,
// and getChunk how many items one read loads with their content.
const (
	pageSize = 2000
	getChunk = 256
)

// exportChanges brings every item changed since the cursor to its file.
func (mr *mirror) exportChanges(ctx context.Context) error {
	for ctx.Err() == nil {
		page, err := mr.m.views.ItemsChangedSince(ctx, mr.def.WorkspaceID, mr.def.Cursor, pageSize)
		if err != nil {
			return err
		}
		if page.Cursor == mr.def.Cursor && len(page.Changes) == 0 {
			return nil
		}
		mr.begin()
		if err := mr.loadCollections(); err != nil {
			return err
		}
		var live []string
		for _, ch := range page.Changes {
			if ch.Deleted || mr.colls[FolderName(ch.Collection.Slug)] == nil {
				mr.exportGone(ch.ID)
				continue
			}
			if f, ok := mr.files[ch.ID]; ok && f.Seq == ch.Seq {
				continue // this change came from the file
			}
			live = append(live, ch.ID)
		}
		if err := mr.exportItems(live); err != nil {
			return err
		}
		if err := mr.commit(page.Cursor); err != nil {
			return err
		}
		if len(page.Changes) < pageSize {
			return nil
		}
	}
	return ctx.Err()
}

// exportItems loads items with their content and writes their files.
func (mr *mirror) exportItems(ids []string) error {
	for start := 0; start < len(ids); start += getChunk {
		views, err := mr.m.views.GetItems(mr.def.WorkspaceID, ids[start:min(start+getChunk, len(ids))])
		if err != nil {
			return err
		}
		for _, v := range views {
			if v == nil {
				continue
			}
			mr.exportItem(v)
		}
	}
	return nil
}

// target is where an item's file goes: where it is, while its folder and
// ref still match (a title change does not rename a file an editor may
// hold open), else a new name from its ref and title.
func (mr *mirror) target(v *storage.ItemView) string {
	folder := FolderName(v.Collection.Slug)
	if f, ok := mr.files[v.ID]; ok {
		dir, name := path.Split(f.Path)
		if dir == folder+"/" && strings.HasPrefix(name, safeName(v.Ref, true, "item")+"-") {
			return f.Path
		}
	}
	return folder + "/" + FileName(v.Ref, v.Title)
}

// exportItem writes an item's file, keeping the user's bytes beside it
// when the file changed too since the last exchange.
func (mr *mirror) exportItem(v *storage.ItemView) {
	body, err := Render(v.Ref, v.Title, v.Fields, v.Tags, v.Content, v.Collection.Schema)
	if err != nil {
		mr.m.log.Warn("mirror: an item could not be written as a file", "dir", mr.def.Dir, "ref", v.Ref, "err", err)
		return
	}
	h := hashOf(body)
	want := mr.target(v)
	rec, has := mr.files[v.ID]
	if has && h == rec.Hash && want == rec.Path {
		// Nothing the file shows changed (a pin, a lease): no write, and
		// a change the user made to the file meanwhile is still theirs.
		rec.Seq = v.Seq
		mr.record(rec)
		return
	}
	// The user's bytes are kept beside the file before padd's version
	// replaces them; when they cannot be, nothing is written (the next
	// change tries again) and the file stays the user's.
	if has {
		if disk, b := mr.diskHash(rec.Path); disk != rec.Hash && disk != "" && disk != h {
			if !mr.keepBoth(rec.Path, b) {
				return
			}
		}
	}
	disk, b := mr.diskHash(want)
	if disk != h && disk != "" && (!has || rec.Path != want) && !mr.ours(want, disk) {
		if !mr.keepBoth(want, b) {
			return
		}
	}
	if has && rec.Path != want {
		mr.removals = append(mr.removals, removal{rec.Path, rec.Hash, v.ID})
	}
	if disk != h {
		mr.writes = append(mr.writes, pendingWrite{rel: want, body: body, hash: h, itemID: v.ID, prev: rec, had: has})
	}
	mr.record(mirrorstate.File{ItemID: v.ID, Path: want, Hash: h, Seq: v.Seq})
}

// ours reports whether the file at rel holds bytes the mirror itself
// wrote or read there for some item.
func (mr *mirror) ours(rel, hash string) bool {
	id, ok := mr.byPath[rel]
	return ok && mr.files[id].Hash == hash
}

// exportGone removes the file of an item archived (or gone) in padd,
// unless the user changed it since: then it is left, and no longer
// mirrored.
func (mr *mirror) exportGone(itemID string) {
	rec, ok := mr.files[itemID]
	if !ok {
		return
	}
	mr.removeIfOurs(rec.Path, rec.Hash)
	mr.forget(itemID)
}

// removeIfOurs removes rel when it still holds what the mirror wrote,
// and no other program has it open for writing (its next bytes would go
// to a file no longer there): then it is tried again later.
func (mr *mirror) removeIfOurs(rel, hash string) {
	if disk, _ := mr.diskHash(rel); disk == hash && disk != "" {
		if p, err := resolve(mr.def.Dir, rel); err == nil {
			if heldForWriting(p) {
				mr.heldRemovals = append(mr.heldRemovals, removal{rel: rel, hash: hash})
				return
			}
			_ = os.Remove(p)
		}
	}
}

// errHeld says a pass left files alone that another program has open
// for writing; the mirror looks at them again a settle later.
var errHeld = errors.New("a file is open for writing by another program")

// flushWrites writes the batch's files atomically and returns the ones
// that failed. A large batch (the first write of a workspace) writes
// every temporary file first, syncs once, then renames them all, rather
// than syncing file by file.
func (mr *mirror) flushWrites() (failed []pendingWrite, _ error) {
	writes := mr.writes
	mr.writes = nil
	var errs []error
	fail := func(w pendingWrite, err error) {
		mr.fileError(w.rel, err)
		failed = append(failed, w)
		errs = append(errs, err)
	}
	// A file another program has open for writing is not replaced: its
	// next bytes would go to the file replaced, and be lost. The write
	// waits (its record is put back, and the pass is repeated).
	held := func(p string, w pendingWrite) bool {
		if !heldForWriting(p) {
			return false
		}
		if testHookHeld != nil {
			testHookHeld(w.rel)
		}
		failed = append(failed, w)
		if len(errs) == 0 || !errors.Is(errs[0], errHeld) {
			errs = append([]error{errHeld}, errs...)
		}
		return true
	}
	if len(writes) < bulkWrites {
		for _, w := range writes {
			p, err := mr.prepare(w.rel)
			if err == nil && held(p, w) {
				continue
			}
			var fi os.FileInfo
			if err == nil {
				fi, err = writeFile(p, w.body)
			}
			if err != nil {
				fail(w, err)
				continue
			}
			if testHookWritten != nil {
				testHookWritten(w.rel)
			}
			mr.setStamp(w.rel, w.hash, fi)
		}
		return failed, errors.Join(errs...)
	}
	// The folders are not watched while the batch is written: 10,000
	// files' events would overflow the watch's queue. They are watched
	// again after, and their files compared (by stamp, cheaply), so an
	// edit made meanwhile is still seen.
	dirs := map[string]bool{}
	for _, w := range writes {
		if p, err := mr.prepare(w.rel); err == nil {
			dirs[filepath.Dir(p)] = true
		}
	}
	for d := range dirs {
		_ = mr.fw.Remove(d)
		mr.rescan = append(mr.rescan, d)
	}
	var done []tmpFile
	defer func() {
		for _, t := range done {
			_ = os.Remove(t.tmp) // gone already once renamed
		}
	}()
	for _, w := range writes {
		p, err := mr.prepare(w.rel)
		if err == nil && held(p, w) {
			continue
		}
		var tmp string
		var fi os.FileInfo
		if err == nil {
			tmp, err = writeTemp(p, w.body)
		}
		if err == nil {
			fi, err = os.Lstat(tmp) // the look of our bytes, before anyone else can write them
		}
		if err != nil {
			fail(w, err)
			continue
		}
		done = append(done, tmpFile{w, tmp, p, fi})
	}
	tmps := make([]string, len(done))
	for i, t := range done {
		tmps[i] = t.tmp
	}
	if err := syncAll(mr.def.Dir, tmps); err != nil {
		for _, t := range done {
			fail(t.w, err)
		}
		return failed, errors.Join(errs...)
	}
	for _, t := range done {
		if err := os.Rename(t.tmp, t.dst); err != nil {
			fail(t.w, err)
			continue
		}
		mr.setStamp(t.w.rel, t.w.hash, t.fi)
	}
	// The renames too, now: left to the filesystem's own commit, they
	// would be the next write's to wait for (the first update after a
	// first write of 10,000 files waited for their journal).
	if err := syncAll(mr.def.Dir, dirsOf(done)); err != nil {
		mr.m.log.Warn("mirror: the new names could not be synced; they are as durable as the filesystem makes them", "err", err)
	}
	return failed, errors.Join(errs...)
}

// dirsOf are the folders of a batch's files (to sync where syncfs is
// not available).
func dirsOf[T interface{ dir() string }](ts []T) []string {
	seen := map[string]bool{}
	var out []string
	for _, t := range ts {
		if d := t.dir(); !seen[d] {
			seen[d] = true
			out = append(out, d)
		}
	}
	return out
}

type tmpFile struct {
	w        pendingWrite
	tmp, dst string
	fi       os.FileInfo // the temporary file's look, before its rename
}

func (t tmpFile) dir() string { return filepath.Dir(t.dst) }

// bulkWrites is the batch size from which files are synced together.
const bulkWrites = 32

// prepare makes rel's folder (inside the mirror, through no link) and
// returns its path.
func (mr *mirror) prepare(rel string) (string, error) {
	p, err := resolve(mr.def.Dir, rel)
	if err != nil {
		return "", err
	}
	dir := path.Dir(rel)
	dp, err := resolve(mr.def.Dir, dir)
	if err != nil {
		return "", err
	}
	fi, err := os.Lstat(dp)
	if errors.Is(err, fs.ErrNotExist) {
		if err := os.Mkdir(dp, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
			return "", err
		}
		_ = mr.fw.Add(dp)
		fi, err = os.Lstat(dp)
	}
	if err != nil {
		return "", err
	}
	if !fi.IsDir() {
		return "", errOutside
	}
	if fi, err := os.Lstat(p); err == nil && fi.IsDir() {
		return "", errFolderInPlace
	}
	return p, nil
}

// errFolderInPlace is a write to a path that a folder now holds: the
// folder is the user's, never written into, over or moved.
var errFolderInPlace = errors.New("a folder is where this item's file goes: padd leaves the folder as it is (moved away, it reads as the file deleted)")

// testHookEvent and testHookHeld, when set (by tests only), are told of
// each file event the mirror takes, and of each file it leaves alone
// because another program has it open for writing.
var testHookEvent, testHookHeld func(rel string)

// testHookWritten, when set (by tests only), runs after a file of the
// batch is in place and before its stamp is recorded: where a user's
// write may land.
var testHookWritten func(rel string)

// writeFile writes body to p atomically (a synced temporary file renamed
// over it) and returns the look of the bytes written, taken before the
// rename. A look taken after it could be a user's write that landed just
// after the rename, and the stamp would pass that edit off as the
// mirror's own write: never read, never applied.
func writeFile(p string, body []byte) (os.FileInfo, error) {
	f, err := os.CreateTemp(filepath.Dir(p), "."+filepath.Base(p)+".*")
	if err != nil {
		return nil, err
	}
	defer os.Remove(f.Name()) // gone already once renamed
	_, err = f.Write(body)
	if err == nil {
		err = f.Sync()
	}
	var fi os.FileInfo
	if err == nil {
		fi, err = f.Stat()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), p)
	}
	if err != nil {
		return nil, err
	}
	return fi, nil
}

// writeTemp writes body to a new temporary file beside p (not synced).
func writeTemp(p string, body []byte) (string, error) {
	f, err := os.CreateTemp(filepath.Dir(p), "."+filepath.Base(p)+".*")
	if err != nil {
		return "", err
	}
	if _, err := f.Write(body); err != nil {
		f.Close()
		os.Remove(f.Name())
		return "", err
	}
	if err := f.Close(); err != nil {
		os.Remove(f.Name())
		return "", err
	}
	return f.Name(), nil
}
