package records

import (
	"strings"

	"github.com/padd/padd/model"
)

// The sync id map: for each kind of entity, local id <-> remote id, both
// ways, and the remote's refs -> local item. Entries are written in the
// transaction that writes the local entity they concern (storage's
// SyncTx), so a crash never leaves an entity the engine pulled without
// its mapping.
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

func localIDKey(k SyncKind, local []byte) []byte { return Cat([]byte{byte(k), 'l'}, local) }

func remoteIDKey(k SyncKind, remote string) []byte {
	return Cat([]byte{byte(k), 'r'}, []byte(remote))
}

func remoteRefKey(ref string) []byte {
	return Cat([]byte{refMapTag}, []byte(strings.ToUpper(strings.TrimSpace(ref))))
}

func checkMapArgs(k SyncKind, local, remote string) ([]byte, error) {
	if !k.valid() {
		return nil, model.Invalid("unknown sync id kind %q", string(rune(k)))
	}
	lk, ok := IDKey(local)
	if !ok {
		return nil, model.Invalid("local id %q is not an id", local)
	}
	if remote == "" || len(remote) > 256 {
		return nil, model.Invalid("remote id %q is empty or over 256 bytes", remote)
	}
	return lk, nil
}

// MapID records local <-> remote for kind k, replacing any entry either
// id had: one local entity is one remote entity. An attachment is the
// exception one way: its earlier remote id keeps naming it here, since
// the remote may keep that copy too (an attach on a remote without one
// uploads the file again, and text there may name the first copy).
func MapID(b *Wsb, k SyncKind, local, remote string) error {
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
	return FirstErr(ids.Put(localIDKey(k, lk), []byte(remote)), ids.Put(remoteIDKey(k, remote), lk))
}

// UnmapID drops the entries of a local entity of kind k.
func UnmapID(b *Wsb, k SyncKind, local string) error {
	lk, ok := IDKey(local)
	if !ok {
		return nil
	}
	ids := b.SyncIDs()
	remote := ids.Get(localIDKey(k, lk))
	if remote == nil {
		return nil
	}
	return FirstErr(ids.Delete(remoteIDKey(k, string(remote))), ids.Delete(localIDKey(k, lk)))
}

func RemoteIDOf(b *Wsb, k SyncKind, local string) (string, bool) {
	lk, ok := IDKey(local)
	if !ok {
		return "", false
	}
	v := b.SyncIDs().Get(localIDKey(k, lk))
	return string(v), v != nil
}

func LocalIDOf(b *Wsb, k SyncKind, remote string) (string, bool) {
	v := b.SyncIDs().Get(remoteIDKey(k, remote))
	if len(v) != 16 {
		return "", false
	}
	return IDString(v), true
}

func MapRemoteRef(b *Wsb, ref, itemID string) error {
	id, ok := IDKey(itemID)
	if !ok {
		return model.Invalid("local item id %q is not an id", itemID)
	}
	if strings.TrimSpace(ref) == "" || len(ref) > 256 {
		return model.Invalid("remote ref %q is empty or over 256 bytes", ref)
	}
	return b.SyncIDs().Put(remoteRefKey(ref), id)
}

func ItemOfRemoteRef(b *Wsb, ref string) (string, bool) {
	v := b.SyncIDs().Get(remoteRefKey(ref))
	if len(v) != 16 {
		return "", false
	}
	return IDString(v), true
}
