package records

import (
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
