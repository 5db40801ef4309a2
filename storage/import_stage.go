package storage

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sort"
	"sync/atomic"
	"time"

	"github.com/padd/padd/model"
	"github.com/padd/padd/storage/internal/records"
)

// The staged workspace of an import (import.go): its buckets under ws/
// with a marker, kStagedImport, and no workspace record or slug, so that
// nothing lists, resolves or follows it; it gets both in the import's
// last write (finish), which removes the marker. An import that fails or
// is stopped drops its buckets (drop); a crash leaves them, marked, and
// the next open drops them (dropStagedImports, in setup) before anything
// reads the file.

// kStagedImport, in a workspace's root bucket, marks it staged: the time
// (Unix seconds) its import began.
var kStagedImport = []byte("staged_import")

// stageWorkspace makes the staged buckets of workspace id.
func stageWorkspace(tx *records.Txn, id string, now time.Time) error {
	b, err := records.CreateWSBuckets(tx, id)
	if err != nil {
		return err
	}
	return b.Root.Put(kStagedImport, records.U64(uint64(now.Unix())))
}

// finish makes the staged workspace visible: its record and slug (made
// unique now, against the workspaces there are now), and the change that
// tells every follower it was created, in the all-workspaces journal. It
// is a bulk write too: committed or not, never of unknown outcome, so
// that a failed finish can drop the buckets.
func (im *importRun) finish() (Notification, error) {
	if err := stopped(im.ctx); err != nil {
		return Notification{}, err
	}
	var note Notification
	err := im.s.base.DB.WriteBulk(func(tx *records.Txn) error {
		b := records.OpenWS(tx, im.ws.ID)
		if b == nil || b.Root.Get(kStagedImport) == nil {
			return records.ErrInternal("the staged import %s lost its buckets", im.ws.ID)
		}
		ws := im.ws
		slugs := tx.Bucket(records.BWSSlugs)
		ws.Slug = model.UniqueSlug(model.WorkspaceSlug(im.in.Slug, ws.Name), func(c string) bool { return slugs.Get([]byte(c)) != nil })
		ws.SortOrder = tx.Bucket(records.BWorkspaces).KeyN()
		if err := records.FirstErr(putWorkspace(tx, ws), slugs.Put([]byte(ws.Slug), records.MustID(ws.ID)), b.Root.Delete(kStagedImport)); err != nil {
			return err
		}
		b.Now = im.now
		w := &wtx{tx: tx, ws: b, wsRec: ws, actor: im.actor, now: im.s.base.Clock()}
		seq, err := w.stamp(model.EntityWorkspace, model.OpCreated, ws.ID, "", "")
		if err != nil {
			return err
		}
		if err := w.activity(seq, "", "workspace_created", map[string]any{"imported": true}); err != nil {
			return err
		}
		ws.Seq = seq
		note = Notification{WorkspaceID: ws.ID, Seq: seq, Global: w.glob}
		return nil
	})
	return note, records.Classify(records.EngineErr(err))
}

// errStopped says an import was stopped (its context ended).
var errStopped = errors.New("the import was stopped")

// stopped is the refusal of an import whose ctx has ended, or nil.
func stopped(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("%w: %w", errStopped, err)
	}
	return nil
}

// IsImportStopped reports whether err is an import's end because its
// context ended: nothing was imported.
func IsImportStopped(err error) bool { return errors.Is(err, errStopped) }

// drop removes what the import staged. When it cannot (the store
// closing, a failing disk), the next open does.
func (im *importRun) drop() {
	if !im.staged {
		return
	}
	err := im.s.base.DB.WriteBulk(func(tx *records.Txn) error {
		return dropStaged(tx, records.MustID(im.ws.ID))
	})
	if err != nil {
		im.s.log.Warn("an import that did not finish left its staged data; the next start removes it", "workspace_id", im.ws.ID, "err", err)
	}
}

// dropStaged deletes the staged workspace id, if it is still staged.
func dropStaged(tx *records.Txn, id []byte) error {
	root := tx.Bucket(records.BWS)
	if root == nil {
		return nil
	}
	b := root.Bucket(id)
	if b == nil || b.Get(kStagedImport) == nil || tx.Bucket(records.BWorkspaces).Get(id) != nil {
		return nil
	}
	return root.DeleteBucket(id)
}

// dropStagedImports deletes every staged workspace: at open, what
// imports a crash or a stop interrupted left. It answers how many.
func dropStagedImports(tx *records.Txn) (int, error) {
	root := tx.Bucket(records.BWS)
	if root == nil {
		return 0, nil
	}
	var staged [][]byte
	err := root.ForEachBucket(func(k []byte) error {
		if root.Bucket(k).Get(kStagedImport) != nil && tx.Bucket(records.BWorkspaces).Get(k) == nil {
			staged = append(staged, bytes.Clone(k))
		}
		return nil
	})
	for _, k := range staged {
		if err == nil {
			err = dropStaged(tx, k)
		}
	}
	return len(staged), err
}

// ImportProgress is an import being written.
type ImportProgress struct {
	Name         string
	Items        int // the items it holds
	ItemsWritten int
	Started      time.Time
}

type importProgress struct {
	name    string
	items   int
	started time.Time
	written atomic.Int64
}

// trackImport lists an import in Imports until untrack.
func (s *Store) trackImport(name string, items int) (p *importProgress, untrack func()) {
	p = &importProgress{name: name, items: items, started: s.base.Now()}
	s.imports.Store(p, true)
	return p, func() { s.imports.Delete(p) }
}

// Imports are the imports being written, oldest first.
func (s *Store) Imports() []ImportProgress {
	var out []ImportProgress
	s.imports.Range(func(k, _ any) bool {
		p := k.(*importProgress)
		out = append(out, ImportProgress{Name: p.name, Items: p.items, ItemsWritten: int(p.written.Load()), Started: p.started})
		return true
	})
	sort.Slice(out, func(i, j int) bool { return out[i].Started.Before(out[j].Started) })
	return out
}
