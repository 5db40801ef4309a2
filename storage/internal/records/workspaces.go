package records

import (
	"sort"

	"github.com/padd/padd/model"
)

func GetWorkspace(tx *Txn, id []byte) (*model.Workspace, error) {
	b := tx.Bucket(BWorkspaces).Get(id)
	if b == nil {
		return nil, nil
	}
	w, err := wsCache.decode(id, b, "workspace")
	if err != nil {
		return nil, err
	}
	if ws := OpenWS(tx, w.ID); ws != nil {
		w.Seq = ws.Counter(KSeq)
	}
	return w, nil
}

// wsCache keeps decoded workspace records: every request resolves its
// workspace first.
var wsCache = newDecodedCache[model.Workspace]()

// FindWorkspace resolves a slug or id to a workspace record, deleted or not.
func FindWorkspace(tx *Txn, ref string) (*model.Workspace, error) {
	if id, ok := IDKey(ref); ok {
		return GetWorkspace(tx, id)
	}
	id := tx.Bucket(BWSSlugs).Get([]byte(ref))
	if id == nil {
		if c := model.CanonicalSlug(ref); c != ref && c != "" {
			id = tx.Bucket(BWSSlugs).Get([]byte(c))
		}
	}
	if id == nil {
		return nil, nil
	}
	return GetWorkspace(tx, id)
}

func LiveWorkspace(tx *Txn, ref string) (*model.Workspace, error) {
	w, err := FindWorkspace(tx, ref)
	if err != nil {
		return nil, err
	}
	if w == nil || w.DeletedAt != nil {
		return nil, model.WorkspaceNotFound(ref)
	}
	return w, nil
}

// Workspaces lists the workspace records keep accepts, in their order.
func Workspaces(b *Base, keep func(*model.Workspace) bool) ([]model.Workspace, error) {
	var out []model.Workspace
	err := b.View(func(tx *Txn) error {
		return tx.Bucket(BWorkspaces).ForEach(func(k, _ []byte) error {
			w, err := GetWorkspace(tx, k)
			if err != nil {
				return err
			}
			if keep(w) {
				out = append(out, *w)
			}
			return nil
		})
	})
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].SortOrder != out[j].SortOrder {
			return out[i].SortOrder < out[j].SortOrder
		}
		return out[i].ID < out[j].ID
	})
	return out, err
}

// Live is the predicate of the workspaces not deleted.
func Live(w *model.Workspace) bool { return w.DeletedAt == nil }

// ReadLiveWorkspace resolves a live workspace by slug or id, in a read
// of its own.
func ReadLiveWorkspace(b *Base, ref string) (*model.Workspace, error) {
	var out *model.Workspace
	err := b.View(func(tx *Txn) error {
		var err error
		out, err = LiveWorkspace(tx, ref)
		return err
	})
	return out, err
}
