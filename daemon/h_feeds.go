package daemon

import (
	"net/http"
	"strconv"

	"github.com/padd/padd/api"
	"github.com/padd/padd/model"
	"github.com/padd/padd/storage"
)

func (s *Server) feedRoutes() {
	s.handle("GET /api/v1/workspaces/{ws}/changes", s.changes)
	s.handle("GET /api/v1/workspaces/{ws}/items-changes", s.itemsChanges)
	s.handle("GET /api/v1/workspaces/{ws}/items-index", s.itemsIndex)
}

// changes answers Pad's time-based delta (CHG-01): items updated at or
// after since (unix ms), bodies included, paged by an opaque cursor.
func (s *Server) changes(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	cursor := q.Get("cursor")
	since := int64(-1) // a cursor alone continues its own walk
	if raw := q.Get("since"); raw != "" {
		n, err := strconv.ParseInt(raw, 10, 64)
		if err != nil || n < 0 {
			return model.BadRequest("since must be a valid unix timestamp in milliseconds").With("param", "since")
		}
		since = n
	} else if cursor == "" {
		return model.BadRequest("since query parameter is required (unix milliseconds)").With("param", "since")
	}
	limit, err := limitParam(r, storage.DefaultTimeChangesLimit, storage.DefaultTimeChangesLimit)
	if err != nil {
		return err
	}
	res, err := s.views.ChangesByTime(r.Context(), r.PathValue("ws"), since, cursor, limit)
	if err != nil {
		return err
	}
	items := wireItems(res.Items)
	writeJSON(w, 200, api.Changes{Items: items, Updated: items, Deleted: res.Deleted, ServerTime: res.ServerTime,
		HasMore: res.HasMore, NextCursor: res.NextCursor,
		// Pad's own definition: the page changed anything at all. Clients
		// use it only to decide whether to refetch collections.
		CollectionsChanged: len(res.Items) > 0})
	return nil
}

// itemsChanges answers Pad's seq-based delta: each changed item once,
// body-less, with deleted; cursor is the next since.
func (s *Server) itemsChanges(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	var since int64
	if raw := q.Get("since"); raw != "" {
		n, err := strconv.ParseInt(raw, 10, 64)
		if err != nil || n < 0 {
			return api.Errorf(api.CodeInvalidCursor, "`since` must be a non-negative integer").With("param", "since")
		}
		since = n
	}
	limit, err := limitParam(r, storage.DefaultItemChangesLimit, storage.MaxItemChangesLimit)
	if err != nil {
		return err
	}
	res, err := s.views.ItemsChangedSince(r.Context(), r.PathValue("ws"), since, limit)
	if err != nil {
		return err
	}
	out := api.ItemsChanges{Changes: make([]api.SyncItem, 0, len(res.Changes)),
		Cursor: strconv.FormatInt(res.Cursor, 10), IncludesUnparentedMetadata: true}
	for _, c := range res.Changes {
		deleted := c.Deleted
		out.Changes = append(out.Changes, wireSyncItem(c.SkinnyItem, &deleted))
	}
	writeJSON(w, 200, out)
	return nil
}

// itemsIndex answers Pad's bootstrap list; its cursor continues with
// /items-changes without a gap.
func (s *Server) itemsIndex(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	res, err := s.views.ItemsIndex(r.Context(), r.PathValue("ws"), q.Get("collection"), q.Get("include_archived") == "true")
	if err != nil {
		return err
	}
	out := api.ItemsIndex{Items: make([]api.SyncItem, 0, len(res.Items)), Total: len(res.Items),
		Cursor: strconv.FormatInt(res.Cursor, 10), IncludesUnparentedMetadata: true}
	for _, it := range res.Items {
		out.Items = append(out.Items, wireSyncItem(it, nil))
	}
	writeJSON(w, 200, out)
	return nil
}
