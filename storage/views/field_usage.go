package views

import (
	"context"
	"sort"
	"strings"

	"github.com/padd/padd/model"
	"github.com/padd/padd/storage/internal/records"
)

// A collection's field usage census (Pad's GET .../collections/{coll}/
// field-usage): per field key its live items hold a value under, how
// many hold one and how many hold each value. It is answered from the
// counts kept on write (records.CollFieldCounts), so its cost is the
// number of distinct (key, value) pairs the collection's items hold,
// not the number of items; a field that may hold a list (multi_select,
// multi_relation, json, or not declared) also reads the list-index
// entries of its values to count each item once (records.FieldHolders),
// which is bounded by the items holding it times their elements. No
// item is decoded.

// FieldUsage is one field key's census.
type FieldUsage struct {
	Key string
	// Items is how many live items hold a value under Key.
	Items int
	// Values is, per value as the list index holds it (text, numbers
	// canonical, a list element by element), how many live items hold
	// it. A JSON object is not indexed, so it is counted nowhere.
	Values map[string]int
}

// FieldUsage is the census of the collection's live items, one row per
// field key, in key order; the assignment pseudo keys are left out. A
// collection the workspace does not have is not_found.
func (s *Views) FieldUsage(ctx context.Context, ws, collRef string) ([]FieldUsage, error) {
	out := []FieldUsage{}
	err := s.base.ReadCtx(ctx, ws, func(r *records.Rtx) error {
		c, err := progressCollection(r.WS, collRef, false)
		if err != nil {
			return err
		}
		for key, values := range records.CollFieldCounts(r.WS, c.ID) {
			if strings.HasPrefix(key, "@") {
				continue
			}
			u := FieldUsage{Key: key, Values: values}
			if singleValued(c.Schema, key) || len(values) == 1 {
				for _, n := range values {
					u.Items += n
				}
			} else {
				vs := make([]string, 0, len(values))
				for v := range values {
					vs = append(vs, v)
				}
				u.Items = records.FieldHolders(r.WS, c.ID, key, vs)
			}
			out = append(out, u)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out, nil
}

// singleValued reports whether the schema declares key with a type
// whose value is one scalar, so each holder counts once in the counts.
func singleValued(s model.Schema, key string) bool {
	f, ok := s.Field(key)
	if !ok {
		return false
	}
	switch f.Type {
	case model.TypeMultiSelect, model.TypeMultiRelation, model.TypeJSON:
		return false
	}
	return true
}
