// Package mirrorstate keeps the mirror folders' state: which folder
// mirrors which workspace, and what each file held when last written.
// It lives in storage's top-level mirrors bucket (storage/internal/records),
// bookkeeping outside any workspace's seq, like sync's; the mirror
// package (mirror/, docs/MIRROR.md) reads and keeps it here.
package mirrorstate

import (
	"encoding/json"
	"path/filepath"
	"sort"
	"time"

	"github.com/padd/padd/model"
	"github.com/padd/padd/storage"
	"github.com/padd/padd/storage/internal/records"
)

// Under the mirrors bucket, one sub-bucket per mirror holding its
// definition and, per item, what was last exchanged with its file.
var (
	bFiles = []byte("files")
	kDef   = []byte("def")
)

// State is the mirror folders' state of one store.
type State struct {
	base *records.Base
}

// Of is the mirror folders' state of st.
func Of(st *storage.Store) *State { return &State{base: st.Base()} }

// Def is one mirror: a workspace written as files under Dir.
type Def struct {
	ID          string    `json:"id"`
	WorkspaceID string    `json:"workspace_id"`
	Dir         string    `json:"dir"` // absolute and clean
	CreatedAt   time.Time `json:"created_at"`
	// Cursor is the workspace seq up to which every item change has
	// reached the files.
	Cursor int64 `json:"cursor"`
}

// File is what a mirror last exchanged with an item's file: the
// path it wrote or read (relative to the mirror, slash-separated), the
// hash of those bytes, and the item's seq then. A file whose bytes hash
// otherwise was changed by someone else; an item whose seq is higher was
// changed in padd.
type File struct {
	ItemID string `json:"-"`
	Path   string `json:"p"`
	Hash   string `json:"h"`
	Seq    int64  `json:"s"`
}

// AddMirror records a mirror of a live workspace in dir (absolute). The
// same workspace and directory twice is the first record.
func (s *State) AddMirror(ws, dir string) (*Def, bool, error) {
	if !filepath.IsAbs(dir) {
		return nil, false, model.Invalid("a mirror's directory must be absolute, not %q", dir)
	}
	dir = filepath.Clean(dir)
	var out *Def
	created := false
	err := s.base.Update(func(tx *records.Txn) error {
		w, err := records.LiveWorkspace(tx, ws)
		if err != nil {
			return err
		}
		defs, err := defs(tx)
		if err != nil {
			return err
		}
		for _, d := range defs {
			if d.Dir == dir && d.WorkspaceID == w.ID {
				out = &d
				return nil
			}
			if d.Dir == dir || within(d.Dir, dir) || within(dir, d.Dir) {
				return model.Errorf(model.CodeConflict, "%s overlaps the mirror in %s: a folder holds one mirror", dir, d.Dir)
			}
		}
		d := Def{ID: records.NewID(), WorkspaceID: w.ID, Dir: dir, CreatedAt: s.base.Now().UTC()}
		b, err := tx.Bucket(records.BMirrors).CreateBucket([]byte(d.ID))
		if err != nil {
			return err
		}
		if _, err := b.CreateBucket(bFiles); err != nil {
			return err
		}
		v, _ := json.Marshal(d)
		out, created = &d, true
		return b.Put(kDef, v)
	})
	return out, created, err
}

// within reports whether path is inside dir (not dir itself).
func within(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != "." && rel != ".." && !filepath.IsAbs(rel) && (len(rel) < 3 || rel[:3] != ".."+string(filepath.Separator))
}

// RemoveMirror forgets a mirror (its files stay where they are).
func (s *State) RemoveMirror(id string) error {
	return s.base.Update(func(tx *records.Txn) error {
		if tx.Bucket(records.BMirrors).Bucket([]byte(id)) == nil {
			return model.NotFound("no mirror %s", id)
		}
		return tx.Bucket(records.BMirrors).DeleteBucket([]byte(id))
	})
}

// Mirrors lists every mirror, by directory.
func (s *State) Mirrors() ([]Def, error) {
	var out []Def
	err := s.base.View(func(tx *records.Txn) error {
		var err error
		out, err = defs(tx)
		return err
	})
	return out, err
}

func defs(tx *records.Txn) ([]Def, error) {
	root := tx.Bucket(records.BMirrors)
	if root == nil {
		return nil, nil
	}
	var out []Def
	err := root.ForEachBucket(func(k []byte) error {
		var d Def
		if err := json.Unmarshal(root.Bucket(k).Get(kDef), &d); err != nil {
			return model.Errorf(model.CodeStoredStateUnreadable, "stored mirror %s is unreadable: %v", k, err)
		}
		out = append(out, d)
		return nil
	})
	sort.Slice(out, func(i, j int) bool { return out[i].Dir < out[j].Dir })
	return out, err
}

// MirrorFiles reads a mirror's per-item records, by item id.
func (s *State) MirrorFiles(id string) (map[string]File, error) {
	out := map[string]File{}
	err := s.base.View(func(tx *records.Txn) error {
		b := tx.Bucket(records.BMirrors).Bucket([]byte(id))
		if b == nil {
			return model.NotFound("no mirror %s", id)
		}
		return b.Bucket(bFiles).ForEach(func(k, v []byte) error {
			var f File
			if err := json.Unmarshal(v, &f); err != nil {
				return model.Errorf(model.CodeStoredStateUnreadable, "stored mirror file record %s is unreadable: %v", k, err)
			}
			f.ItemID = string(k)
			out[f.ItemID] = f
			return nil
		})
	})
	return out, err
}

// MirrorSave records, in one durable write, the files a mirror exchanged
// (put), the items it no longer holds a file for (drop) and, when cursor
// is not negative, its new cursor.
func (s *State) MirrorSave(id string, put []File, drop []string, cursor int64) error {
	return s.base.Update(func(tx *records.Txn) error {
		b := tx.Bucket(records.BMirrors).Bucket([]byte(id))
		if b == nil {
			return model.NotFound("no mirror %s", id)
		}
		files := b.Bucket(bFiles)
		for _, f := range put {
			v, _ := json.Marshal(f)
			if err := files.Put([]byte(f.ItemID), v); err != nil {
				return err
			}
		}
		for _, itemID := range drop {
			if err := files.Delete([]byte(itemID)); err != nil {
				return err
			}
		}
		if cursor < 0 {
			return nil
		}
		var d Def
		if err := json.Unmarshal(b.Get(kDef), &d); err != nil {
			return err
		}
		d.Cursor = cursor
		v, _ := json.Marshal(d)
		return b.Put(kDef, v)
	})
}
