package records

// ChildStream is the list index's stream of an item's live children.
func ChildStream(parentID []byte) []byte {
	return Cat([]byte{kindParent}, parentID, []byte{LifeLive})
}
