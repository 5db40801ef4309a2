package views

import (
	"context"
	"sort"
	"strings"

	"github.com/padd/padd/model"
	"github.com/padd/padd/storage/internal/records"
)

// A collection's field usage census (the inventory's GET .../collections/
// {coll}/field-usage): per field key its live items hold a value under,
// how many hold one and how many hold each value. It is answered from
// the counts kept on write (records.CollFieldCounts), so its cost is the
// number of distinct (key, value) pairs the collection's items hold, not
// the number of items; a field that may hold a list (multi_select,
// multi_relation, json, or not declared) also reads the list-index
// entries of its key to count each item once (records.FieldHolders),
// bounded by the items holding it times their elements. No item is
// decoded. The answer is bounded: at most FieldUsageKeys keys and
// FieldUsageValues values a key, so a text field whose every item holds
// its own long value answers its counts, not every value.

// The census's bounds.
const (
	FieldUsageKeys   = 500
	FieldUsageValues = 100
)

// FieldUsage is one field key's census.
type FieldUsage struct {
	Key string
	// Items is how many live items hold a value under Key.
	Items int
	// Distinct is how many values they hold; Values names the first
	// FieldUsageValues of them in the index's order (text, numbers
	// canonical, a list element by element) with how many live items
	// hold each. A JSON object is not indexed, so it is counted nowhere.
	Distinct int
	Values   map[string]int
}

// FieldUsage is the census of the collection's live items, one row per
// field key, in key order; the assignment pseudo keys are left out. more
// says keys past FieldUsageKeys were left out. A collection the
// workspace does not have is not_found.
func (s *Views) FieldUsage(ctx context.Context, ws, collRef string) (out []FieldUsage, more bool, err error) {
	out = []FieldUsage{}
	err = s.base.ReadCtx(ctx, ws, func(r *records.Rtx) error {
		c, err := progressCollection(r.WS, collRef, false)
		if err != nil {
			return err
		}
		keys, truncated, err := records.CollFieldCounts(r.WS, c.ID, FieldUsageKeys+2, FieldUsageValues) // +2: the pseudo keys
		if err != nil {
			return err
		}
		for _, kc := range keys {
			if strings.HasPrefix(kc.Key, "@") {
				continue
			}
			if len(out) == FieldUsageKeys {
				truncated = true
				break
			}
			u := FieldUsage{Key: kc.Key, Items: kc.Total, Distinct: kc.Distinct, Values: kc.Values}
			if !singleValued(c.Schema, kc.Key) && kc.Distinct > 1 {
				if u.Items, err = records.FieldHolders(r.WS, c.ID, kc.Key); err != nil {
					return err
				}
			}
			out = append(out, u)
		}
		more = truncated
		return nil
	})
	if err != nil {
		return nil, false, err
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out, more, nil
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
