package records

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"maps"
	"slices"
	"strconv"
	"time"

	"github.com/padd/padd/model"
)

// Item records are read on every path (get, lists, views, the indexer),
// so they use a binary form: decoding the JSON form was most of a get by
// ref (docs/PERFORMANCE.md, "Why the code is as it is"). A record starts with
// its format byte; records written by
// an older padd start with '{' and are still read as JSON, and each is
// rewritten in the binary form the next time its item changes.
//
// The record holds every model.Item field but ID, WorkspaceID (the key
// and the bucket say those) and Content (its own bucket), in the order
// encodeItem writes them. TestItemCodecKeepsEveryField fails when a field
// is added to model.Item and not here.
const ItemFormat1 = 1

var errBadItem = errors.New("item record is malformed")

// Field values are typed by a tag byte. DecodeJSON's types (json.Number,
// string, bool, nil, []any, map[string]any) have their own tags; any
// other Go value is kept as its JSON text and read back through
// DecodeJSON, so a value reads back exactly as the JSON form would.
const (
	valNull = iota
	valFalse
	valTrue
	valString
	valNumber
	valArray
	valObject
	valJSON
)

// MaxValueDepth bounds nesting in a field value, so a damaged record
// cannot recurse without end. It is encoding/json's own bound: every
// value the API can accept fits, and the encoder refuses a deeper one
// rather than write a record it could not read back.
const MaxValueDepth = 10000

func EncodeItem(it *model.Item) ([]byte, error) {
	b := make([]byte, 0, 192+len(it.Title)+len(it.Slug))
	b = append(b, ItemFormat1)
	b = appendID(b, it.CollectionID)
	b = binary.AppendVarint(b, it.Number)
	b = AppendStr(b, it.Title)
	b = AppendStr(b, it.Slug)
	b = binary.AppendUvarint(b, uint64(len(it.Fields)))
	for _, k := range slices.Sorted(maps.Keys(it.Fields)) {
		b = AppendStr(b, k)
		var err error
		if b, err = appendValue(b, it.Fields[k], 0); err != nil {
			return nil, err
		}
	}
	b = binary.AppendUvarint(b, uint64(len(it.Tags)))
	for _, t := range it.Tags {
		b = AppendStr(b, t)
	}
	b = appendBool(b, it.Pinned)
	b = binary.AppendVarint(b, it.SortOrder)
	b = appendID(b, it.ParentID)
	b = appendID(b, it.AssignedUserID)
	b = appendID(b, it.AgentRoleID)
	b = binary.AppendVarint(b, it.RoleSortOrder)
	b = appendActor(b, it.CreatedBy)
	b = appendActor(b, it.LastModifiedBy)
	b = appendTime(b, it.CreatedAt)
	b = appendTime(b, it.UpdatedAt)
	b = appendBool(b, it.DeletedAt != nil)
	if it.DeletedAt != nil {
		b = appendTime(b, *it.DeletedAt)
	}
	return binary.AppendVarint(b, it.Seq), nil
}

// DecodeItem reads a record in either form into it (ID, WorkspaceID and
// Content are left alone).
func DecodeItem(v []byte, it *model.Item) error {
	if len(v) > 0 && v[0] == '{' {
		if err := Decode(v, it); err != nil {
			return err
		}
		// An empty "fields" or "tags" reads as none, as the binary form
		// does, so a record reads the same before and after its rewrite.
		if len(it.Fields) == 0 {
			it.Fields = nil
		}
		if len(it.Tags) == 0 {
			it.Tags = nil
		}
		return nil
	}
	if len(v) == 0 || v[0] != ItemFormat1 {
		return errors.New("item record has an unknown format; is this database from a newer padd?")
	}
	r := reader{b: v[1:]}
	it.CollectionID = r.id()
	it.Number = r.varint()
	it.Title, it.Slug = r.str(), r.str()
	it.Fields = nil
	if n := r.count(); n > 0 {
		it.Fields = make(map[string]any, n)
		for range n {
			k := r.str()
			it.Fields[k] = r.value(0)
		}
	}
	it.Tags = nil
	if n := r.count(); n > 0 {
		it.Tags = make([]string, n)
		for i := range it.Tags {
			it.Tags[i] = r.str()
		}
	}
	it.Pinned = r.bool()
	it.SortOrder = r.varint()
	it.ParentID, it.AssignedUserID, it.AgentRoleID = r.id(), r.id(), r.id()
	it.RoleSortOrder = r.varint()
	it.CreatedBy, it.LastModifiedBy = r.actor(), r.actor()
	it.CreatedAt, it.UpdatedAt = r.time(), r.time()
	it.DeletedAt = nil
	if r.bool() {
		t := r.time()
		it.DeletedAt = &t
	}
	it.Seq = r.varint()
	if r.bad || len(r.b) != 0 {
		return errBadItem
	}
	return nil
}

func appendBool(b []byte, v bool) []byte {
	if v {
		return append(b, 1)
	}
	return append(b, 0)
}

func appendActor(b []byte, a model.Actor) []byte {
	for _, s := range []string{a.Kind, a.Name, a.Source, a.WorkerID} {
		b = AppendStr(b, s)
	}
	return b
}

// appendTime keeps the instant (to the nanosecond); it reads back in UTC.
func appendTime(b []byte, t time.Time) []byte {
	b = binary.AppendVarint(b, t.Unix())
	return binary.AppendUvarint(b, uint64(t.Nanosecond()))
}

func appendValue(b []byte, v any, depth int) ([]byte, error) {
	if depth > MaxValueDepth {
		return nil, model.Invalid("a field value is nested more than %d deep", MaxValueDepth)
	}
	switch v := v.(type) {
	case nil:
		return append(b, valNull), nil
	case bool:
		if v {
			return append(b, valTrue), nil
		}
		return append(b, valFalse), nil
	case string:
		return AppendStr(append(b, valString), v), nil
	case json.Number:
		return AppendStr(append(b, valNumber), string(v)), nil
	case int:
		return AppendStr(append(b, valNumber), strconv.Itoa(v)), nil
	case int64:
		return AppendStr(append(b, valNumber), strconv.FormatInt(v, 10)), nil
	case []any:
		b = binary.AppendUvarint(append(b, valArray), uint64(len(v)))
		for _, e := range v {
			var err error
			if b, err = appendValue(b, e, depth+1); err != nil {
				return nil, err
			}
		}
		return b, nil
	case map[string]any:
		b = binary.AppendUvarint(append(b, valObject), uint64(len(v)))
		for _, k := range slices.Sorted(maps.Keys(v)) {
			b = AppendStr(b, k)
			var err error
			if b, err = appendValue(b, v[k], depth+1); err != nil {
				return nil, err
			}
		}
		return b, nil
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return AppendStr(append(b, valJSON), string(raw)), nil
}

// count reads an element count; each element takes at least a byte, so a
// count beyond what is left is damage, not a reason to allocate.
func (r *reader) count() int {
	n := r.uvarint()
	if n > uint64(len(r.b)) {
		r.bad = true
		return 0
	}
	return int(n)
}

func (r *reader) bool() bool {
	if len(r.b) == 0 || r.b[0] > 1 {
		r.bad = true
		return false
	}
	v := r.b[0] == 1
	r.b = r.b[1:]
	return v
}

func (r *reader) actor() model.Actor {
	return model.Actor{Kind: r.str(), Name: r.str(), Source: r.str(), WorkerID: r.str()}
}

func (r *reader) time() time.Time {
	sec := r.varint()
	nsec := r.uvarint()
	if nsec >= 1e9 {
		r.bad = true
		return time.Time{}
	}
	return time.Unix(sec, int64(nsec)).UTC()
}

func (r *reader) value(depth int) any {
	if len(r.b) == 0 || depth > MaxValueDepth {
		r.bad = true
		return nil
	}
	tag := r.b[0]
	r.b = r.b[1:]
	switch tag {
	case valNull:
		return nil
	case valFalse:
		return false
	case valTrue:
		return true
	case valString:
		return r.str()
	case valNumber:
		return json.Number(r.str())
	case valArray:
		n := r.count()
		out := make([]any, n)
		for i := range out {
			out[i] = r.value(depth + 1)
		}
		return out
	case valObject:
		n := r.count()
		out := make(map[string]any, n)
		for range n {
			k := r.str()
			out[k] = r.value(depth + 1)
		}
		return out
	case valJSON:
		v, err := model.DecodeJSON([]byte(r.str()))
		if err != nil {
			r.bad = true
		}
		return v
	}
	r.bad = true
	return nil
}
