package storage

// ItemRefByNumber is the ref the workspace's item numbered n carries
// now, whatever its collection (an item's number is the workspace's),
// or "" when no item has that number.
func (s *Store) ItemRefByNumber(ws string, n int64) (string, error) {
	ref := ""
	err := s.read(ws, func(r *rtx) error {
		if n <= 0 {
			return nil
		}
		id := r.ws.nums().Get(u64(uint64(n)))
		if id == nil {
			return nil
		}
		it, err := getItem(r.ws, id, false)
		if err != nil || it == nil {
			return err
		}
		c, err := getCollection(r.ws, mustID(it.CollectionID))
		if err != nil || c == nil {
			return err
		}
		ref = refOf(c, it.Number)
		return nil
	})
	return ref, err
}
