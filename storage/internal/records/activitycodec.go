package records

import (
	"encoding/binary"
	"errors"

	"github.com/padd/padd/model"
)

// Activity entries are written with every mutation, so like version
// records (versioncodec.go) they use the items' binary form: a format
// byte, then the item id, action, actor, metadata (a flag, then the map
// as a field value), time and seq. The id and workspace are not stored:
// the key and the bucket imply them. Entries written by an older padd
// start with '{' and are still read as JSON.
const ActivityFormat1 = 1

var errBadActivity = errors.New("activity entry is malformed")

func EncodeActivity(a model.Activity) ([]byte, error) {
	b := make([]byte, 0, 64+len(a.Action))
	b = append(b, ActivityFormat1)
	b = appendID(b, a.ItemID)
	b = AppendStr(b, a.Action)
	b = appendActor(b, a.Actor)
	b = appendBool(b, len(a.Metadata) > 0)
	if len(a.Metadata) > 0 {
		var err error
		if b, err = appendValue(b, a.Metadata, 0); err != nil {
			return nil, err
		}
	}
	b = appendTime(b, a.CreatedAt)
	return binary.AppendVarint(b, a.Seq), nil
}

// ActivityAction reads an entry's action alone, so that a view can pass
// over entries of other actions without decoding their metadata, the
// costly part. ok is false for an entry it cannot read that way (the
// JSON of an older padd): decode that one.
func ActivityAction(raw []byte) (action string, ok bool) {
	if len(raw) < 2 || raw[0] != ActivityFormat1 {
		return "", false
	}
	r := reader{b: raw[1:]}
	r.idRaw()
	action = r.str()
	return action, !r.bad
}

// DecodeActivityRecord reads an activity entry in either form.
func DecodeActivityRecord(raw []byte, a *model.Activity) error {
	if len(raw) > 0 && raw[0] == '{' {
		*a = model.Activity{}
		return Decode(raw, a)
	}
	if len(raw) == 0 || raw[0] != ActivityFormat1 {
		return errors.New("activity entry has an unknown format; is this database from a newer padd?")
	}
	r := reader{b: raw[1:]}
	*a = model.Activity{ItemID: r.id(), Action: r.str(), Actor: r.actor()}
	if r.bool() {
		m, ok := r.value(0).(map[string]any)
		if !ok {
			return errBadActivity
		}
		a.Metadata = m
	}
	a.CreatedAt = r.time()
	a.Seq = r.varint()
	if r.bad || len(r.b) != 0 {
		return errBadActivity
	}
	return nil
}
