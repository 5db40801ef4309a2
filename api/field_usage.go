package api

// FieldUsage is a collection's field usage census, the answer of
// GET .../collections/{coll}/field-usage: one row per field key its live
// items hold a value under, in key order. The Pad build padd follows has
// no such route, so the shape is padd's own.
type FieldUsage struct {
	Fields []FieldUsageRow `json:"fields"`
	// Truncated says keys past padd's bound (500) were left out.
	Truncated bool `json:"truncated,omitempty"`
}

// FieldUsageRow is one field key's census: how many live items hold a
// value under it, how many distinct values they hold, and per value
// (numbers canonical, a list element by element; the first 100 in the
// index's order) how many hold that value.
type FieldUsageRow struct {
	Key      string         `json:"key"`
	Items    int            `json:"items"`
	Distinct int            `json:"distinct"`
	Values   map[string]int `json:"values"`
}
