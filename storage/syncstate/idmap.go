package syncstate

import (
	"github.com/padd/padd/storage"
	"github.com/padd/padd/storage/internal/records"
)

// SyncRemoteID is the remote id of a local entity of kind k.
func (s *State) SyncRemoteID(ws string, k storage.SyncKind, localID string) (remote string, ok bool, err error) {
	err = s.base.Read(ws, func(r *records.Rtx) error {
		remote, ok = records.RemoteIDOf(r.WS, k, localID)
		return nil
	})
	return remote, ok, err
}

// SyncLocalID is the local id of a remote entity of kind k.
func (s *State) SyncLocalID(ws string, k storage.SyncKind, remoteID string) (local string, ok bool, err error) {
	err = s.base.Read(ws, func(r *records.Rtx) error {
		local, ok = records.LocalIDOf(r.WS, k, remoteID)
		return nil
	})
	return local, ok, err
}

// SyncItemByRemoteRef is the local item a remote ref names.
func (s *State) SyncItemByRemoteRef(ws, ref string) (itemID string, ok bool, err error) {
	err = s.base.Read(ws, func(r *records.Rtx) error {
		itemID, ok = records.ItemOfRemoteRef(r.WS, ref)
		return nil
	})
	return itemID, ok, err
}

// SyncMapped lists the remote ids of a kind's mapped entities, by local
// id: what a resync checks against the remote's index.
func (s *State) SyncMapped(ws string, k storage.SyncKind) (map[string]string, error) {
	out := map[string]string{}
	err := s.base.Read(ws, func(r *records.Rtx) error {
		prefix := []byte{byte(k), 'l'}
		c := r.WS.SyncIDs().Cursor()
		for key, v := c.Seek(prefix); key != nil && len(key) == 18 && key[0] == prefix[0] && key[1] == prefix[1]; key, v = c.Next() {
			out[records.IDString(key[2:])] = string(v)
		}
		return nil
	})
	return out, err
}
