package records

import (
	"encoding/binary"
	"errors"
	"time"

	"github.com/google/uuid"
	"github.com/padd/padd/model"
)

// Change-log entries are read in bulk by every follower (the search
// indexer, event streams, delta feeds, sync), so they use a compact
// binary form instead of JSON: a format byte, then uvarints, 16-byte ids
// and length-prefixed strings. About 70 bytes an entry, decoded without
// reflection.

const ChangeFormat1 = 1

var errBadChange = errors.New("change-log entry is malformed")

func EncodeChange(ch model.Change) []byte {
	b := make([]byte, 0, 96)
	b = append(b, ChangeFormat1)
	b = binary.AppendUvarint(b, uint64(ch.Seq))
	for _, s := range []string{ch.Entity, ch.Op} {
		b = AppendStr(b, s)
	}
	for _, id := range []string{ch.ID, ch.ItemID, ch.CollectionID} {
		b = appendID(b, id)
	}
	for _, s := range []string{ch.Actor.Kind, ch.Actor.Name, ch.Actor.Source, ch.Actor.WorkerID} {
		b = AppendStr(b, s)
	}
	b = binary.AppendVarint(b, ch.At.Unix())
	return binary.AppendUvarint(b, uint64(ch.At.Nanosecond()))
}

func AppendStr(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// appendID writes a UUID as 16 bytes after a 1, an empty id as a 0, and
// anything else as a 2 and its text.
func appendID(b []byte, id string) []byte {
	if id == "" {
		return append(b, 0)
	}
	if u, err := uuid.Parse(id); err == nil && u.String() == id {
		return append(append(b, 1), u[:]...)
	}
	return AppendStr(append(b, 2), id)
}

type reader struct {
	b   []byte
	bad bool
}

func (r *reader) uvarint() uint64 {
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.bad = true
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *reader) varint() int64 {
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.bad = true
		return 0
	}
	r.b = r.b[n:]
	return v
}

// common strings are shared rather than allocated for every entry.
var common = map[string]string{}

func init() {
	for _, s := range []string{model.EntityItem, model.EntityComment, model.EntityLink, model.EntityCollection,
		model.EntityWorkspace, model.EntityRole, model.EntityStar, model.OpCreated, model.OpUpdated, model.OpDeleted,
		model.OpRestored, model.OpMoved, model.OpArchived, model.ActorUser, model.ActorAgent, model.LocalUserName,
		model.SourceCLI, model.SourceMCP, model.SourceAPI, model.SourceSync} {
		common[s] = s
	}
}

func (r *reader) str() string {
	n := r.uvarint()
	if r.bad || n > uint64(len(r.b)) {
		r.bad = true
		return ""
	}
	s := r.b[:n]
	r.b = r.b[n:]
	if c, ok := common[string(s)]; ok {
		return c
	}
	return string(s)
}

func (r *reader) id() string {
	b, isUUID := r.idRaw()
	if isUUID {
		return IDString(b)
	}
	return string(b)
}

// idRaw passes over an id and answers it as stored: 16 bytes for a uuid,
// else its text (empty for none). A caller that only compares or skips
// the id need not format it.
func (r *reader) idRaw() (b []byte, isUUID bool) {
	if len(r.b) == 0 {
		r.bad = true
		return nil, false
	}
	tag := r.b[0]
	r.b = r.b[1:]
	switch tag {
	case 0:
		return nil, false
	case 1:
		if len(r.b) < 16 {
			r.bad = true
			return nil, false
		}
		b, r.b = r.b[:16], r.b[16:]
		return b, true
	case 2:
		n := r.uvarint()
		if r.bad || n > uint64(len(r.b)) {
			r.bad = true
			return nil, false
		}
		b, r.b = r.b[:n], r.b[n:]
		return b, false
	}
	r.bad = true
	return nil, false
}

func DecodeChange(v []byte) (model.Change, error) {
	if len(v) == 0 || v[0] != ChangeFormat1 {
		return model.Change{}, ErrInternal("change-log entry has an unknown format; is this database from a newer padd?")
	}
	r := reader{b: v[1:]}
	ch := model.Change{Seq: int64(r.uvarint())}
	ch.Entity, ch.Op = r.str(), r.str()
	ch.ID, ch.ItemID, ch.CollectionID = r.id(), r.id(), r.id()
	ch.Actor.Kind, ch.Actor.Name, ch.Actor.Source, ch.Actor.WorkerID = r.str(), r.str(), r.str(), r.str()
	sec := r.varint()
	nsec := r.uvarint()
	if nsec >= 1e9 {
		r.bad = true
	}
	ch.At = time.Unix(sec, int64(nsec)).UTC()
	if r.bad || len(r.b) != 0 {
		return model.Change{}, ErrInternal("%v", errBadChange)
	}
	return ch, nil
}
