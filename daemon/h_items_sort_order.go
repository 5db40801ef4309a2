package daemon

import (
	"net/http"

	"github.com/padd/padd/api"
	"github.com/padd/padd/model"
	"github.com/padd/padd/storage"
)

func (s *Server) itemSortOrderRoutes() {
	s.handle("PUT /api/v1/workspaces/{ws}/items/sort-order", s.itemSortOrder)
}

// itemSortOrder sets many items' sort_order in one write (Pad's bulk sort
// order, ITM-10): {updates: [{id, sort_order}]}, 1 to
// storage.MaxItemReorder entries, all or nothing; answers {items: [{id,
// seq}]}.
func (s *Server) itemSortOrder(w http.ResponseWriter, r *http.Request) error {
	var in api.ItemSortOrder
	if err := decodeBody(r, &in); err != nil {
		return err
	}
	if len(in.Updates) == 0 {
		return model.Errorf(model.CodeValidation, "updates must name at least one item")
	}
	ups := make([]storage.ItemOrderUpdate, 0, len(in.Updates))
	for _, u := range in.Updates {
		if u.ID == "" {
			return model.Errorf(model.CodeValidation, "every update needs an id")
		}
		ups = append(ups, storage.ItemOrderUpdate{ItemID: u.ID, Order: u.SortOrder})
	}
	res, err := s.store.ReorderItems(r.PathValue("ws"), storage.ListOrder, ups, actor(r))
	if err != nil {
		return err
	}
	out := api.ItemSortOrderResult{Items: make([]api.ItemSeq, 0, len(res))}
	for _, it := range res {
		out.Items = append(out.Items, api.ItemSeq(it))
	}
	writeJSON(w, 200, out)
	return nil
}
