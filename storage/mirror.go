package storage

import (
	"encoding/json"
	"path/filepath"
	"sort"
	"time"

	"github.com/padd/padd/model"
	"github.com/padd/padd/storage/internal/records"
)

// Mirror folders' durable state (mirror/, docs/MIRROR.md): a top-level
// bucket, one sub-bucket per mirror holding its definition and, per item,
// what was last exchanged with its file. It is bookkeeping outside any
// workspace's seq, like sync's.
var (
	bMirrors     = []byte("mirrors")
	bMirrorFiles = []byte("files")
	kMirrorDef   = []byte("def")
)

// MirrorDef is one mirror: a workspace written as files under Dir.
type MirrorDef struct {
	ID          string    `json:"id"`
	WorkspaceID string    `json:"workspace_id"`
	Dir         string    `json:"dir"` // absolute and clean
	CreatedAt   time.Time `json:"created_at"`
	// Cursor is the workspace seq up to which every item change has
	// reached the files.
	Cursor int64 `json:"cursor"`
}

// MirrorFile is what a mirror last exchanged with an item's file: the
// path it wrote or read (relative to the mirror, slash-separated), the
// hash of those bytes, and the item's seq then. A file whose bytes hash
// otherwise was changed by someone else; an item whose seq is higher was
// changed in padd.
type MirrorFile struct {
	ItemID string `json:"-"`
	Path   string `json:"p"`
	Hash   string `json:"h"`
	Seq    int64  `json:"s"`
}

func migrateMirrors(tx *records.Txn) error {
	_, err := tx.CreateBucketIfNotExists(bMirrors)
	return err
}

// AddMirror records a mirror of a live workspace in dir (absolute). The
// same workspace and directory twice is the first record.
func (s *Store) AddMirror(ws, dir string) (*MirrorDef, bool, error) {
	if !filepath.IsAbs(dir) {
		return nil, false, model.Invalid("a mirror's directory must be absolute, not %q", dir)
	}
	dir = filepath.Clean(dir)
	var out *MirrorDef
	created := false
	err := s.base.Update(func(tx *records.Txn) error {
		w, err := records.LiveWorkspace(tx, ws)
		if err != nil {
			return err
		}
		defs, err := mirrorDefs(tx)
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
		d := MirrorDef{ID: records.NewID(), WorkspaceID: w.ID, Dir: dir, CreatedAt: s.base.Now().UTC()}
		b, err := tx.Bucket(bMirrors).CreateBucket([]byte(d.ID))
		if err != nil {
			return err
		}
		if _, err := b.CreateBucket(bMirrorFiles); err != nil {
			return err
		}
		v, _ := json.Marshal(d)
		out, created = &d, true
		return b.Put(kMirrorDef, v)
	})
	return out, created, err
}

// within reports whether path is inside dir (not dir itself).
func within(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != "." && rel != ".." && !filepath.IsAbs(rel) && (len(rel) < 3 || rel[:3] != ".."+string(filepath.Separator))
}

// RemoveMirror forgets a mirror (its files stay where they are).
func (s *Store) RemoveMirror(id string) error {
	return s.base.Update(func(tx *records.Txn) error {
		if tx.Bucket(bMirrors).Bucket([]byte(id)) == nil {
			return model.NotFound("no mirror %s", id)
		}
		return tx.Bucket(bMirrors).DeleteBucket([]byte(id))
	})
}

// Mirrors lists every mirror, by directory.
func (s *Store) Mirrors() ([]MirrorDef, error) {
	var out []MirrorDef
	err := s.base.View(func(tx *records.Txn) error {
		var err error
		out, err = mirrorDefs(tx)
		return err
	})
	return out, err
}

func mirrorDefs(tx *records.Txn) ([]MirrorDef, error) {
	root := tx.Bucket(bMirrors)
	if root == nil {
		return nil, nil
	}
	var out []MirrorDef
	err := root.ForEachBucket(func(k []byte) error {
		var d MirrorDef
		if err := json.Unmarshal(root.Bucket(k).Get(kMirrorDef), &d); err != nil {
			return model.Errorf(model.CodeStoredStateUnreadable, "stored mirror %s is unreadable: %v", k, err)
		}
		out = append(out, d)
		return nil
	})
	sort.Slice(out, func(i, j int) bool { return out[i].Dir < out[j].Dir })
	return out, err
}

// MirrorFiles reads a mirror's per-item records, by item id.
func (s *Store) MirrorFiles(id string) (map[string]MirrorFile, error) {
	out := map[string]MirrorFile{}
	err := s.base.View(func(tx *records.Txn) error {
		b := tx.Bucket(bMirrors).Bucket([]byte(id))
		if b == nil {
			return model.NotFound("no mirror %s", id)
		}
		return b.Bucket(bMirrorFiles).ForEach(func(k, v []byte) error {
			var f MirrorFile
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
func (s *Store) MirrorSave(id string, put []MirrorFile, drop []string, cursor int64) error {
	return s.base.Update(func(tx *records.Txn) error {
		b := tx.Bucket(bMirrors).Bucket([]byte(id))
		if b == nil {
			return model.NotFound("no mirror %s", id)
		}
		files := b.Bucket(bMirrorFiles)
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
		var d MirrorDef
		if err := json.Unmarshal(b.Get(kMirrorDef), &d); err != nil {
			return err
		}
		d.Cursor = cursor
		v, _ := json.Marshal(d)
		return b.Put(kMirrorDef, v)
	})
}
