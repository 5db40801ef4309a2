package api

// ItemSortOrder is PUT /workspaces/{ws}/items/sort-order's body (ITM-10):
// 1 to 1000 items, each by id or ref, with its new sort_order.
type ItemSortOrder struct {
	Updates []ItemSortUpdate `json:"updates"`
}

// ItemSortUpdate places one item in lists and child lists.
type ItemSortUpdate struct {
	ID        string `json:"id"`
	SortOrder int64  `json:"sort_order"`
}

// ItemSortOrderResult answers a sort-order batch: each item's id and seq
// after it, in the order asked.
type ItemSortOrderResult struct {
	Items []ItemSeq `json:"items"`
}

// ItemSeq is one item's id and seq.
type ItemSeq struct {
	ID  string `json:"id"`
	Seq int64  `json:"seq"`
}
