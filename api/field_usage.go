package api

// FieldUsage is a collection's field usage census, the answer of
// GET .../collections/{coll}/field-usage: one row per field key its live
// items hold a value under, in key order. The Pad build padd follows has
// no such route, so the shape is padd's own.
type FieldUsage struct {
	Fields []FieldUsageRow `json:"fields"`
}

// FieldUsageRow is one field key's census: how many live items hold a
// value under it, and per value (numbers canonical, a list element by
// element) how many hold that value.
type FieldUsageRow struct {
	Key    string         `json:"key"`
	Items  int            `json:"items"`
	Values map[string]int `json:"values"`
}
