package records

import (
	"bytes"
	"encoding/binary"
	"errors"

	"github.com/padd/padd/model"
)

// Version records are written with every create and content change, so
// they use the binary form of item records (itemcodec.go) instead of
// JSON: a format byte, then the fields in the order encodeVersion writes
// them. Records written by an older padd start with '{' and are still
// read as JSON. TestVersionCodecKeepsEveryField fails when a field is
// added to model.Version and not here.
const VersionFormat1 = 1

var errBadVersion = errors.New("version record is malformed")

func EncodeVersion(v model.Version) []byte {
	b := make([]byte, 0, 96+len(v.Title)+len(v.Content)+len(v.Summary))
	b = append(b, VersionFormat1)
	b = appendID(b, v.ID)
	b = appendID(b, v.ItemID)
	b = binary.AppendVarint(b, v.VersionSeq)
	b = AppendStr(b, v.Title)
	b = AppendStr(b, v.Content)
	b = appendBool(b, v.Current)
	b = AppendStr(b, v.Summary)
	b = appendActor(b, v.Actor)
	b = appendBool(b, v.IsCreate)
	b = binary.AppendVarint(b, int64(v.LinesAdded))
	b = binary.AppendVarint(b, int64(v.LinesRemoved))
	b = appendTime(b, v.CreatedAt)
	return binary.AppendVarint(b, v.Seq)
}

// VersionRecordMayBe says whether a version record may be version id
// (want is its text), without decoding it: a binary record keeps its id
// first, so it is compared there and not searched for through the body
// that follows; a JSON record is searched for the id's text. Searching
// every record made a lookup by id in a long history of a large document
// read every body (docs/PERFORMANCE.md, "Why the code is as it is").
func VersionRecordMayBe(raw, id []byte, want string) bool {
	if len(raw) >= 2 && raw[0] == VersionFormat1 {
		r := reader{b: raw[1:]}
		b, isUUID := r.idRaw()
		switch {
		case r.bad:
			return false
		case isUUID:
			return bytes.Equal(b, id)
		}
		return string(b) == want
	}
	return bytes.Contains(raw, []byte(want))
}

// DecodeVersionRecord reads a version record in either form.
func DecodeVersionRecord(raw []byte, v *model.Version) error {
	if len(raw) > 0 && raw[0] == '{' {
		*v = model.Version{}
		return Decode(raw, v)
	}
	if len(raw) == 0 || raw[0] != VersionFormat1 {
		return errors.New("version record has an unknown format; is this database from a newer padd?")
	}
	r := reader{b: raw[1:]}
	v.ID, v.ItemID = r.id(), r.id()
	v.VersionSeq = r.varint()
	v.Title, v.Content = r.str(), r.str()
	v.Current = r.bool()
	v.Summary = r.str()
	v.Actor = r.actor()
	v.IsCreate = r.bool()
	v.LinesAdded, v.LinesRemoved = int(r.varint()), int(r.varint())
	v.CreatedAt = r.time()
	v.Seq = r.varint()
	if r.bad || len(r.b) != 0 {
		return errBadVersion
	}
	return nil
}
