package storage

import (
	"strings"

	"github.com/padd/padd/model"
	"github.com/padd/padd/storage/internal/records"
)

// The sync id map: for each kind of entity, local id <-> remote id, both
// ways, and the remote's refs -> local item. Entries are written in the
// transaction that writes the local entity they concern (SyncTx), so a
// crash never leaves an entity the engine pulled without its mapping.
//
// Keys in the sync_ids bucket: kind byte | 'l' | local id (16 bytes) ->
// remote id; kind byte | 'r' | remote id -> local id (16 bytes); and
// 'f' | remote ref (upper case) -> local item id (16 bytes).

// SyncKind names what an id map entry maps.
type SyncKind byte

const (
	SyncItem       SyncKind = 'i'
	SyncComment    SyncKind = 'c'
	SyncCollection SyncKind = 'k'
	SyncLink       SyncKind = 'n'
	SyncAttachment SyncKind = 'a'
)

func (k SyncKind) valid() bool {
	switch k {
	case SyncItem, SyncComment, SyncCollection, SyncLink, SyncAttachment:
		return true
	}
	return false
}

const refMapTag = 'f'

func localIDKey(k SyncKind, local []byte) []byte { return records.Cat([]byte{byte(k), 'l'}, local) }

func remoteIDKey(k SyncKind, remote string) []byte {
	return records.Cat([]byte{byte(k), 'r'}, []byte(remote))
}

func remoteRefKey(ref string) []byte {
	return records.Cat([]byte{refMapTag}, []byte(strings.ToUpper(strings.TrimSpace(ref))))
}

func checkMapArgs(k SyncKind, local, remote string) ([]byte, error) {
	if !k.valid() {
		return nil, model.Invalid("unknown sync id kind %q", string(rune(k)))
	}
	lk, ok := records.IDKey(local)
	if !ok {
		return nil, model.Invalid("local id %q is not an id", local)
	}
	if remote == "" || len(remote) > 256 {
		return nil, model.Invalid("remote id %q is empty or over 256 bytes", remote)
	}
	return lk, nil
}

// mapID records local <-> remote for kind k, replacing any entry either
// id had: one local entity is one remote entity. An attachment is the
// exception one way: its earlier remote id keeps naming it here, since
// the remote may keep that copy too (an attach on a remote without one
// uploads the file again, and text there may name the first copy).
func mapID(b *records.Wsb, k SyncKind, local, remote string) error {
	lk, err := checkMapArgs(k, local, remote)
	if err != nil {
		return err
	}
	ids := b.SyncIDs()
	if old := ids.Get(localIDKey(k, lk)); old != nil && string(old) != remote && k != SyncAttachment {
		if err := ids.Delete(remoteIDKey(k, string(old))); err != nil {
			return err
		}
	}
	if old := ids.Get(remoteIDKey(k, remote)); old != nil && string(old) != string(lk) {
		if err := ids.Delete(localIDKey(k, old)); err != nil {
			return err
		}
	}
	return records.FirstErr(ids.Put(localIDKey(k, lk), []byte(remote)), ids.Put(remoteIDKey(k, remote), lk))
}

// unmapID drops the entries of a local entity of kind k.
func unmapID(b *records.Wsb, k SyncKind, local string) error {
	lk, ok := records.IDKey(local)
	if !ok {
		return nil
	}
	ids := b.SyncIDs()
	remote := ids.Get(localIDKey(k, lk))
	if remote == nil {
		return nil
	}
	return records.FirstErr(ids.Delete(remoteIDKey(k, string(remote))), ids.Delete(localIDKey(k, lk)))
}

func remoteIDOf(b *records.Wsb, k SyncKind, local string) (string, bool) {
	lk, ok := records.IDKey(local)
	if !ok {
		return "", false
	}
	v := b.SyncIDs().Get(localIDKey(k, lk))
	return string(v), v != nil
}

func localIDOf(b *records.Wsb, k SyncKind, remote string) (string, bool) {
	v := b.SyncIDs().Get(remoteIDKey(k, remote))
	if len(v) != 16 {
		return "", false
	}
	return records.IDString(v), true
}

func mapRemoteRef(b *records.Wsb, ref, itemID string) error {
	id, ok := records.IDKey(itemID)
	if !ok {
		return model.Invalid("local item id %q is not an id", itemID)
	}
	if strings.TrimSpace(ref) == "" || len(ref) > 256 {
		return model.Invalid("remote ref %q is empty or over 256 bytes", ref)
	}
	return b.SyncIDs().Put(remoteRefKey(ref), id)
}

func itemOfRemoteRef(b *records.Wsb, ref string) (string, bool) {
	v := b.SyncIDs().Get(remoteRefKey(ref))
	if len(v) != 16 {
		return "", false
	}
	return records.IDString(v), true
}

// SyncRemoteID is the remote id of a local entity of kind k.
func (s *Store) SyncRemoteID(ws string, k SyncKind, localID string) (remote string, ok bool, err error) {
	err = s.base.Read(ws, func(r *records.Rtx) error {
		remote, ok = remoteIDOf(r.WS, k, localID)
		return nil
	})
	return remote, ok, err
}

// SyncLocalID is the local id of a remote entity of kind k.
func (s *Store) SyncLocalID(ws string, k SyncKind, remoteID string) (local string, ok bool, err error) {
	err = s.base.Read(ws, func(r *records.Rtx) error {
		local, ok = localIDOf(r.WS, k, remoteID)
		return nil
	})
	return local, ok, err
}

// SyncItemByRemoteRef is the local item a remote ref names.
func (s *Store) SyncItemByRemoteRef(ws, ref string) (itemID string, ok bool, err error) {
	err = s.base.Read(ws, func(r *records.Rtx) error {
		itemID, ok = itemOfRemoteRef(r.WS, ref)
		return nil
	})
	return itemID, ok, err
}

// SyncMapped lists the remote ids of a kind's mapped entities, by local
// id: what a resync checks against the remote's index.
func (s *Store) SyncMapped(ws string, k SyncKind) (map[string]string, error) {
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
