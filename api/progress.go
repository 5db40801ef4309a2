package api

// ItemProgress is one row of a collection's progress badges: for
// GET .../collections/{coll}/child-progress and .../plans-progress an
// item's children done of its children, for .../checkbox-progress its
// checked Markdown boxes of its boxes.
type ItemProgress struct {
	ItemID string `json:"item_id"`
	Total  int    `json:"total"`
	Done   int    `json:"done"`
}
