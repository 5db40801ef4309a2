package mirror

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/padd/padd/internal/atomicfile"
	"github.com/padd/padd/model"
	"github.com/padd/padd/storage/mirrorstate"
)

// actor is who a file's edits are made by.
var actor = model.UserActor("mirror")

type mirror struct {
	m      *Manager
	def    mirrorstate.Def
	cancel context.CancelFunc
	done   chan struct{}
	wake   chan struct{}
	fw     *fsnotify.Watcher

	// Owned by run's goroutine.
	files  map[string]mirrorstate.File // by item id
	stamps map[string]stamp            // by rel path
	// rescan are folders a bulk write left unwatched: run watches them
	// again and compares their files.
	rescan []string
	// held are files a pass left alone because another program has them
	// open for writing: run looks at them again once settled.
	held []string
	// heldRemovals are files padd meant to remove (its own bytes) that
	// another program has open for writing: removed once it lets go.
	heldRemovals []removal
	byPath       map[string]string            // rel path -> item id
	colls        map[string]*model.Collection // by folder name, read per batch
	writes       []pendingWrite
	updates      []pendingUpdate
	// removals are old files to remove once the batch's writes are done
	// (a renamed or moved item's old name), skipped when its write failed.
	removals []removal
	puts     map[string]mirrorstate.File
	drops    map[string]bool

	mu             sync.Mutex
	byPathSnapshot int // files, for status
	cursorSnapshot int64
	errs           map[string]FileError
	conflicts      map[string]bool // rel paths of conflict copies seen or written
	state          string
}

type removal struct{ rel, hash, itemID string }

type pendingWrite struct {
	rel  string
	body []byte
	hash string
	// itemID's record before this batch (had: it had one), put back
	// when the write fails so the record never claims a file not written.
	itemID string
	prev   mirrorstate.File
	had    bool
}

func newMirror(m *Manager, d mirrorstate.Def, cancel context.CancelFunc) *mirror {
	return &mirror{m: m, def: d, cancel: cancel, done: make(chan struct{}), wake: make(chan struct{}, 1),
		errs: map[string]FileError{}, state: "starting"}
}

// poke says the workspace was written.
func (mr *mirror) poke() {
	select {
	case mr.wake <- struct{}{}:
	default:
	}
}

func (mr *mirror) status() Status {
	mr.mu.Lock()
	defer mr.mu.Unlock()
	st := Status{ID: mr.def.ID, WorkspaceID: mr.def.WorkspaceID, Dir: mr.def.Dir, State: mr.state}
	for c := range mr.conflicts {
		// A copy the user has dealt with (removed) is no longer listed.
		if p, err := resolve(mr.def.Dir, c); err == nil {
			if _, err := os.Lstat(p); err == nil {
				st.Conflicts = append(st.Conflicts, c)
				continue
			}
		}
		delete(mr.conflicts, c)
	}
	sort.Strings(st.Conflicts)
	st.Files, st.Cursor = mr.byPathSnapshot, mr.cursorSnapshot
	for _, e := range mr.errs {
		st.Errors = append(st.Errors, e)
	}
	sort.Slice(st.Errors, func(i, j int) bool { return st.Errors[i].Path < st.Errors[j].Path })
	return st
}

func (mr *mirror) setState(s string) {
	mr.mu.Lock()
	mr.state = s
	mr.mu.Unlock()
}

func (mr *mirror) fileError(rel string, err error) {
	msg := err.Error()
	mr.mu.Lock()
	old, had := mr.errs[rel]
	mr.errs[rel] = FileError{Path: rel, Error: msg, At: time.Now().UTC()}
	mr.mu.Unlock()
	if !had || old.Error != msg {
		mr.m.cfg.OnEvent(Event{Kind: EventFileError, MirrorID: mr.def.ID, Dir: mr.def.Dir, Path: rel, Error: msg})
		mr.m.log.Warn("mirror: a file was not applied; it is left as it is until fixed", "dir", mr.def.Dir, "path", rel, "err", msg)
	}
}

func (mr *mirror) clearError(rel string) {
	mr.mu.Lock()
	delete(mr.errs, rel)
	mr.mu.Unlock()
}

func (mr *mirror) run(ctx context.Context) {
	log := mr.m.log.With("dir", mr.def.Dir)
	if fi, err := os.Lstat(mr.def.Dir); err != nil || !fi.IsDir() {
		// An unmounted or removed folder must not read as every file deleted.
		mr.setState("stopped: the directory is missing; add the mirror again once it is back")
		log.Error("mirror: the directory is missing or not a folder; this mirror is stopped until padd restarts", "err", err)
		return
	}
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		mr.setState("stopped: " + err.Error())
		log.Error("mirror: no file watcher; this mirror is stopped", "err", err)
		return
	}
	defer fw.Close()
	mr.fw = fw
	files, err := mr.m.state.MirrorFiles(mr.def.ID)
	if err != nil {
		mr.setState("stopped: " + err.Error())
		log.Error("mirror: its records could not be read; this mirror is stopped", "err", err)
		return
	}
	mr.files, mr.byPath, mr.stamps = files, map[string]string{}, map[string]stamp{}
	for id, f := range files {
		mr.byPath[f.Path] = id
	}
	mr.watchTree(mr.def.Dir, nil)
	startErr := mr.reconcile(ctx)
	if err := startErr; err != nil && !errors.Is(err, errHeld) && ctx.Err() == nil {
		log.Error("mirror: the start-up pass failed; it is retried at the next change", "err", err)
	}
	mr.setState("watching")

	// Files wait in the settler until they have settled (settle.go), and
	// files still open for writing, or padd's writes held back by one,
	// are looked at again a settle later. An idle mirror arms no timer.
	st := newSettler(mr.m.cfg.Settle)
	var exportRetry time.Time
	var timer *time.Timer
	var fire <-chan time.Time
	arm := func() {
		at, ok := st.next()
		if !exportRetry.IsZero() && (!ok || exportRetry.Before(at)) {
			at, ok = exportRetry, true
		}
		if !ok {
			fire = nil
			return
		}
		d := max(time.Until(at), 0)
		if timer == nil {
			timer = time.NewTimer(d)
		} else {
			timer.Stop()
			timer.Reset(d)
		}
		fire = timer.C
	}
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	// after notes what a pass left to look at again: files held open for
	// writing, and writes held back by one.
	after := func(err error) {
		now := time.Now()
		for _, rel := range mr.held {
			st.after(rel, now, st.settle)
		}
		mr.held = nil
		if errors.Is(err, errHeld) || len(mr.heldRemovals) > 0 {
			if exportRetry.IsZero() {
				exportRetry = now.Add(st.settle)
			}
		}
	}
	exportNow := func() {
		err := mr.exportChanges(ctx)
		if err != nil && !errors.Is(err, errHeld) && ctx.Err() == nil {
			log.Warn("mirror: item changes did not all reach the files; retried at the next change", "err", err)
		}
		after(err)
	}
	after(startErr) // what the start-up pass left
	arm()
	for {
		if len(mr.rescan) > 0 {
			now := time.Now()
			for _, d := range mr.rescan {
				mr.watchTree(d, func(rel string) { st.touch(rel, now) })
			}
			mr.rescan = nil
			arm()
		}
		select {
		case <-ctx.Done():
			return
		case <-mr.wake:
			exportNow()
			arm()
		case ev, ok := <-fw.Events:
			if !ok {
				return
			}
			rel, ok := mr.rel(ev.Name)
			if !ok {
				continue
			}
			now := time.Now()
			if ev.Has(fsnotify.Create) {
				if fi, err := os.Lstat(ev.Name); err == nil && fi.IsDir() {
					mr.watchTree(ev.Name, func(rel string) { st.touch(rel, now) }) // a folder moved in brings its files
					arm()
					continue
				}
			}
			if ev.Op == fsnotify.Chmod || ignored(path.Base(rel)) {
				continue
			}
			st.touch(rel, now)
			if testHookEvent != nil {
				testHookEvent(rel)
			}
			arm()
		case err, ok := <-fw.Errors:
			if !ok {
				return
			}
			// An overflow lost events: compare everything again.
			log.Warn("mirror: the file watch lost events; comparing the folder with the workspace again", "err", err)
			st.clear()
			err = mr.reconcile(ctx)
			if err != nil && !errors.Is(err, errHeld) && ctx.Err() == nil {
				log.Warn("mirror: the comparison failed; retried at the next change", "err", err)
			}
			after(err)
			arm()
		case <-fire:
			fire = nil
			now := time.Now()
			if !exportRetry.IsZero() && !exportRetry.After(now) {
				exportRetry = time.Time{}
				rs := mr.heldRemovals
				mr.heldRemovals = nil
				for _, r := range rs {
					mr.removeIfOurs(r.rel, r.hash)
				}
				exportNow()
			}
			if batch := st.take(now); len(batch) > 0 {
				err := mr.importFiles(ctx, batch)
				if err != nil && !errors.Is(err, errHeld) && ctx.Err() == nil {
					log.Warn("mirror: file changes did not all reach the workspace; retried at their next change", "err", err)
				}
				after(err)
			}
			arm()
		}
	}
}

// rel is an absolute path's slash-separated path inside the mirror.
func (mr *mirror) rel(abs string) (string, bool) {
	r, err := filepath.Rel(mr.def.Dir, abs)
	if err != nil || r == "." || strings.HasPrefix(r, "..") {
		return "", false
	}
	return filepath.ToSlash(r), true
}

// watchTree adds a watch on dir and every folder under it (fsnotify is
// not recursive); symbolic links are not followed. Files found are told
// to found when it is not nil.
func (mr *mirror) watchTree(dir string, found func(rel string)) {
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			if p != dir && strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			if err := mr.fw.Add(p); err != nil {
				mr.m.log.Warn("mirror: a folder could not be watched; its changes apply at the next start", "path", p, "err", err)
			}
			return nil
		}
		if found != nil && d.Type().IsRegular() && !ignored(d.Name()) {
			if rel, ok := mr.rel(p); ok {
				found(rel)
			}
		}
		return nil
	})
}

func hashOf(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:16])
}

// readFile reads a mirror file that is a regular file (not a link).
// A missing file is (nil, nil).
func (mr *mirror) readFile(rel string) ([]byte, error) {
	p, err := resolve(mr.def.Dir, rel)
	if err != nil {
		return nil, err
	}
	fi, err := os.Lstat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if fi.IsDir() {
		return nil, errFolderInPlace
	}
	if !fi.Mode().IsRegular() {
		return nil, errors.New("not a regular file (links are not followed)")
	}
	if fi.Size() > maxFileBytes {
		return nil, bad("the file is %d bytes, more than the %d a mirror reads", fi.Size(), maxFileBytes)
	}
	return os.ReadFile(p)
}

// stamp is what a file looked like (size, modification time) when the
// mirror last wrote or read it, and the hash of its bytes then. A file
// that still looks the same need not be read again: the mirror's own
// writes come back as events (10,000 of them after a first write), and
// the start-up pass compares every file.
type stamp struct {
	size int64
	mod  time.Time
	hash string
}

// quickHash is rel's hash from its stamp, when the file still matches it.
func (mr *mirror) quickHash(rel string) (string, bool) {
	st, ok := mr.stamps[rel]
	if !ok {
		return "", false
	}
	p, err := resolve(mr.def.Dir, rel)
	if err != nil {
		return "", false
	}
	fi, err := os.Lstat(p)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() != st.size || !fi.ModTime().Equal(st.mod) {
		delete(mr.stamps, rel)
		return "", false
	}
	return st.hash, true
}

// setStamp notes what rel looks like now, holding bytes of hash.
func (mr *mirror) setStamp(rel, hash string, fi os.FileInfo) {
	if fi == nil {
		p, err := resolve(mr.def.Dir, rel)
		if err != nil {
			return
		}
		if fi, err = os.Lstat(p); err != nil {
			return
		}
	}
	if fi.ModTime().Nanosecond() == 0 {
		// A filesystem with whole-second times (FAT, some network ones)
		// would not tell an edit in the same second: always read there.
		return
	}
	mr.stamps[rel] = stamp{size: fi.Size(), mod: fi.ModTime(), hash: hash}
}

// diskHash is the hash of the file at rel, "" when there is none; the
// bytes when it had to read them.
func (mr *mirror) diskHash(rel string) (string, []byte) {
	if h, ok := mr.quickHash(rel); ok {
		return h, nil
	}
	b, fi, err := mr.readStat(rel)
	if err != nil || b == nil {
		return "", nil
	}
	h := hashOf(b)
	mr.setStamp(rel, h, fi)
	return h, b
}

// readStat is readFile with the file's look before the read.
func (mr *mirror) readStat(rel string) ([]byte, os.FileInfo, error) {
	p, err := resolve(mr.def.Dir, rel)
	if err != nil {
		return nil, nil, err
	}
	fi, err := os.Lstat(p)
	if err != nil {
		return nil, nil, nil
	}
	b, err := mr.readFile(rel)
	return b, fi, err
}

// record notes what was exchanged with an item's file.
func (mr *mirror) record(f mirrorstate.File) {
	if old, ok := mr.files[f.ItemID]; ok && mr.byPath[old.Path] == f.ItemID {
		delete(mr.byPath, old.Path)
	}
	mr.files[f.ItemID] = f
	mr.byPath[f.Path] = f.ItemID
	mr.puts[f.ItemID] = f
	delete(mr.drops, f.ItemID)
}

// revert puts back an item's record as it was before a failed write.
func (mr *mirror) revert(w pendingWrite) {
	if cur, ok := mr.files[w.itemID]; ok && mr.byPath[cur.Path] == w.itemID {
		delete(mr.byPath, cur.Path)
	}
	delete(mr.puts, w.itemID)
	if w.had {
		mr.files[w.itemID] = w.prev
		mr.byPath[w.prev.Path] = w.itemID
	} else {
		delete(mr.files, w.itemID)
	}
}

func (mr *mirror) forget(itemID string) {
	if old, ok := mr.files[itemID]; ok {
		if mr.byPath[old.Path] == itemID {
			delete(mr.byPath, old.Path)
		}
		delete(mr.files, itemID)
	}
	delete(mr.puts, itemID)
	mr.drops[itemID] = true
}

func (mr *mirror) begin() {
	mr.puts, mr.drops, mr.writes, mr.removals, mr.updates = map[string]mirrorstate.File{}, map[string]bool{}, nil, nil, nil
}

// commit writes the batch's files, then records the batch (and cursor,
// when not negative) in one durable write: a file is on disk before the
// record says it was exchanged.
func (mr *mirror) commit(cursor int64) error {
	failed, werr := mr.flushWrites()
	skip := map[string]bool{}
	for _, w := range failed {
		mr.revert(w)
		skip[w.itemID] = true
	}
	for _, r := range mr.removals {
		if !skip[r.itemID] {
			mr.removeIfOurs(r.rel, r.hash)
		}
	}
	mr.removals = nil
	puts := make([]mirrorstate.File, 0, len(mr.puts))
	for _, f := range mr.puts {
		puts = append(puts, f)
	}
	drops := make([]string, 0, len(mr.drops))
	for id := range mr.drops {
		drops = append(drops, id)
	}
	if werr != nil {
		cursor = -1 // not every change reached its file: the pass is repeated
	}
	if len(puts) > 0 || len(drops) > 0 || cursor >= 0 {
		if err := mr.m.state.MirrorSave(mr.def.ID, puts, drops, cursor); err != nil {
			return err
		}
	}
	mr.mu.Lock()
	mr.byPathSnapshot = len(mr.byPath)
	if cursor >= 0 {
		mr.cursorSnapshot = cursor
		mr.def.Cursor = cursor
	}
	mr.mu.Unlock()
	return werr
}

// collections reads the workspace's live collections by folder.
func (mr *mirror) loadCollections() error {
	cs, err := mr.m.views.ListCollections(mr.def.WorkspaceID)
	if err != nil {
		return err
	}
	mr.colls = map[string]*model.Collection{}
	for i := range cs {
		c := cs[i].Collection
		mr.colls[FolderName(c.Slug)] = &c
	}
	return nil
}

// conflictPath is a free name beside rel for the user's copy.
func (mr *mirror) conflictPath(rel string) string {
	stem := strings.TrimSuffix(rel, ".md")
	for i := 1; ; i++ {
		c := stem + ".conflict.md"
		if i > 1 {
			c = stem + "." + strconv.Itoa(i) + ".conflict.md"
		}
		if p, err := resolve(mr.def.Dir, c); err == nil {
			if _, err := os.Lstat(p); errors.Is(err, fs.ErrNotExist) {
				return c
			}
		}
	}
}

// keepBoth saves the user's bytes of rel beside it before padd's version
// replaces them: a file changed on both sides is never overwritten
// silently. userBytes nil reads them from the file. It reports whether
// the copy is on disk, whole and synced; when it is not, rel must not be
// written.
func (mr *mirror) keepBoth(rel string, userBytes []byte) bool {
	var err error
	if userBytes == nil {
		userBytes, err = mr.readFile(rel)
		if err == nil && userBytes == nil {
			return true // gone meanwhile: nothing to keep
		}
	}
	c := mr.conflictPath(rel)
	if err == nil {
		var p string
		if p, err = resolve(mr.def.Dir, c); err == nil {
			err = atomicfile.Write(p, userBytes)
		}
	}
	if err != nil {
		mr.fileError(rel, errors.New("changed on both sides, and the copy of the file could not be kept, so padd's version is not written: "+err.Error()))
		return false
	}
	mr.noteConflict(c)
	mr.m.cfg.OnEvent(Event{Kind: EventConflict, MirrorID: mr.def.ID, Dir: mr.def.Dir, Path: rel, Copy: c})
	mr.m.log.Warn("mirror: the item and its file both changed; the file's version is kept beside it", "dir", mr.def.Dir, "path", rel, "copy", c)
	return true
}

// noteConflict lists a conflict copy for status (once).
func (mr *mirror) noteConflict(c string) {
	mr.mu.Lock()
	defer mr.mu.Unlock()
	if mr.conflicts == nil {
		mr.conflicts = map[string]bool{}
	}
	mr.conflicts[c] = true
}

// isConflictCopy reports whether a file name is a conflict copy.
func isConflictCopy(name string) bool { return strings.HasSuffix(name, ".conflict.md") }
