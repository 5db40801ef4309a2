package daemon

import (
	"context"
	"errors"
	"net/http"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/padd/padd/api"
	"github.com/padd/padd/model"
	"github.com/padd/padd/searchindex"
	"github.com/padd/padd/storage"
)

// Search limits (Pad's REST search).
const (
	searchDefaultLimit = 50
	searchMaxLimit     = 200
	// listSearchCap bounds the hits a list's ?search= filters by.
	listSearchCap = 5000
	// readYourWrites bounds how long a search waits for the indexer to
	// reach the writes acknowledged before it.
	readYourWrites = 3 * time.Second
)

func (s *Server) searchRoutes() {
	s.handle("GET /api/v1/search", s.search)
	s.handle("GET /api/v1/padd/index", s.indexStatus)
	s.handle("POST /api/v1/padd/index/rebuild", s.indexRebuild)
}

// minSeq reads padd's min_seq: the search need only see the changes up
// to that seq (the caller's own last write, from api.SeqHeader), not
// every write other callers made before it. Without it a search waits
// for the head. -1 means none.
func minSeq(r *http.Request) (int64, error) {
	n, err := queryInt(r, "min_seq", -1)
	if err == nil && n < 0 && r.URL.Query().Has("min_seq") {
		err = model.BadRequest("min_seq must be a seq (0 or more), got %d", n).With("param", "min_seq")
	}
	return int64(n), err
}

// searchScope resolves the workspaces (and collections) a search covers,
// waits until the index has caught up with their heads (or with upTo, if
// it is not -1 and lower), and fills the request's scope fields.
func (s *Server) searchScope(ctx context.Context, wsRef, collection string, upTo int64, req *searchindex.Request) ([]*model.Workspace, error) {
	var wss []*model.Workspace
	if wsRef != "" {
		ws, err := s.views.GetWorkspace(wsRef)
		if err != nil {
			return nil, err
		}
		wss = append(wss, ws)
	} else {
		all, err := s.views.ListWorkspaces()
		if err != nil {
			return nil, err
		}
		for i := range all {
			wss = append(wss, &all[i])
		}
	}
	for _, ws := range wss {
		req.Workspaces = append(req.Workspaces, ws.ID)
		if collection != "" {
			if c, err := s.views.GetCollection(ws.ID, collection); err == nil {
				req.Collections = appendNew(req.Collections, c.Slug)
			}
		}
		if archived, err := s.views.ListArchivedCollections(ws.ID); err == nil {
			for _, c := range archived {
				req.HiddenCollections = append(req.HiddenCollections, c.ID)
			}
		}
	}
	if collection != "" && len(req.Collections) == 0 {
		return nil, model.CollectionNotFound(collection)
	}
	if len(req.Workspaces) == 0 {
		req.Workspaces = []string{"-"} // no workspace: match nothing
	}
	// The index's open at start and a rebuild are waited out for as long
	// as the client waits; catching up with the writes before the search,
	// for readYourWrites.
	index, err := s.searchIndex(ctx)
	if err != nil {
		return nil, err
	}
	if err := index.WaitRebuilt(ctx); err != nil {
		return nil, searchError(err)
	}
	wctx, cancel := context.WithTimeout(ctx, readYourWrites)
	defer cancel()
	for _, ws := range wss {
		head, err := s.views.Head(ws.ID)
		if err != nil {
			return nil, err
		}
		if upTo >= 0 {
			head = min(head, upTo)
		}
		if err := index.WaitFor(wctx, ws.ID, head); err != nil {
			return nil, searchError(err)
		}
	}
	return wss, nil
}

func appendNew(list []string, v string) []string {
	for _, x := range list {
		if x == v {
			return list
		}
	}
	return append(list, v)
}

// rebuildRetryAfter is the Retry-After, in seconds, of a search refused
// because the index is being rebuilt: one a rebuild began under, after
// it had waited out any rebuild before it.
const rebuildRetryAfter = 2

// searchError turns index trouble into a coded answer: during a rebuild,
// 503 index_rebuilding with Retry-After and the rebuild's progress.
func searchError(err error) error {
	var rb *searchindex.ErrRebuilding
	if errors.As(err, &rb) {
		return api.Errorf(api.CodeIndexRebuilding, "%s", err.Error()).
			With("done", rb.Done).With("total", rb.Total).With(api.RetryAfterDetail, rebuildRetryAfter)
	}
	if _, coded := model.AsError(err); coded {
		return err
	}
	if errors.Is(err, context.Canceled) {
		return err // writeError's: the client may have gone
	}
	return api.Errorf(api.CodeUnavailable, "%s", err.Error())
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func (s *Server) search(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	text := strings.TrimSpace(q.Get("q"))
	if text == "" {
		return model.BadRequest("q is required: the words to search for").With("param", "q")
	}
	limit, offset, err := pageParams(r, searchDefaultLimit, searchMaxLimit)
	if err != nil {
		return err
	}
	req := searchindex.Request{Query: text, Statuses: splitList(q.Get("status")), Priorities: splitList(q.Get("priority")),
		IncludeArchived: q.Get("include_archived") == "true", Limit: limit, Offset: offset,
		NoFacets: q.Get("facets") == "false"} // padd's addition: Pad always sends facets
	switch sortBy := q.Get("sort"); sortBy {
	case "", "relevance", "rank":
	case "created_at", "updated_at", "title":
		req.Sort = sortBy
		req.Desc = q.Get("order") == "desc" || (q.Get("order") == "" && sortBy != "title")
	default:
		return model.BadRequest("sort must be relevance, created_at, updated_at or title, got %q", sortBy).With("param", "sort")
	}
	upTo, err := minSeq(r)
	if err != nil {
		return err
	}
	if _, err := s.searchScope(r.Context(), q.Get("workspace"), q.Get("collection"), upTo, &req); err != nil {
		return err
	}
	index, err := s.searchIndex(r.Context())
	if err != nil {
		return err
	}
	res, err := index.Search(r.Context(), req)
	if err != nil {
		return searchError(err)
	}
	out := api.SearchResponse{Results: []api.SearchResult{}, Total: int(res.Total), Limit: limit, Offset: offset, Fuzzy: res.Fuzzy,
		Facets: &api.SearchFacets{Collections: res.Collections, Statuses: res.Statuses}}
	if res.Fuzzy {
		out.Note = "nothing matched exactly; these results allow for a typo"
	}
	all := make([]int, len(res.Hits))
	for i := range all {
		all[i] = i
	}
	views := make([]*storage.ItemView, len(res.Hits))
	err = perWorkspace(res.Hits, all, func(ws string, ids []string, at []int) error {
		vs, err := s.views.GetItems(ws, ids)
		for j, i := range at {
			if err == nil {
				views[i] = vs[j]
			}
		}
		return err
	})
	if err != nil {
		return err
	}
	// A snippet comes from the body, else from the comments, which are
	// read for the hits that need them in one read per workspace: under
	// load each read waits its turn for the committer.
	sn := searchindex.NewSnippeter(text)
	snippets := make([]string, len(res.Hits))
	var bare []int
	for i, v := range views {
		if v != nil {
			if snippets[i] = sn.Snippet(v.Content); snippets[i] == "" {
				bare = append(bare, i)
			}
		}
	}
	err = perWorkspace(res.Hits, bare, func(ws string, ids []string, at []int) error {
		lists, err := s.views.CommentsOfItems(ws, ids)
		for j, i := range at {
			var cs []model.Comment
			if err == nil {
				cs = lists[j]
			}
			snippets[i] = commentTitleOrOpening(sn, cs, views[i].Title, views[i].Content)
		}
		return err
	})
	if err != nil {
		return err
	}
	for i, h := range res.Hits {
		if v := views[i]; v != nil {
			out.Results = append(out.Results, api.SearchResult{Item: skinny(v), Snippet: snippets[i], Rank: h.Score})
		}
	}
	writeJSON(w, 200, out)
	return nil
}

// perWorkspace calls read once per workspace among the hits at, with
// their ids and places. A workspace gone since the search is skipped.
func perWorkspace(hits []searchindex.Hit, at []int, read func(ws string, ids []string, at []int) error) error {
	byWS := map[string][]int{}
	var order []string
	for _, i := range at {
		ws := hits[i].Workspace
		if byWS[ws] == nil {
			order = append(order, ws)
		}
		byWS[ws] = append(byWS[ws], i)
	}
	for _, ws := range order {
		places := byWS[ws]
		ids := make([]string, len(places))
		for j, i := range places {
			ids[j] = hits[i].ID
		}
		if err := read(ws, ids, places); err != nil && !model.IsNotFound(err) {
			return err
		}
	}
	return nil
}

// skinny is an item as search answers carry it: without its body.
func skinny(v *storage.ItemView) api.Item {
	it := wireItem(v)
	it.Content = ""
	return it
}

// commentTitleOrOpening is the excerpt of a hit whose body did not
// match: from its comments, else its title when that is what matched
// (marked, as Pad's snippet marks the best-matching column), else its
// body's opening.
func commentTitleOrOpening(q searchindex.Snippeter, comments []model.Comment, title, content string) string {
	for _, c := range comments {
		if sn := q.Snippet(c.Body); sn != "" {
			return sn
		}
	}
	if sn := q.Snippet(title); sn != "" {
		return sn
	}
	body := strings.Join(strings.Fields(content), " ")
	if len(body) > 160 {
		cut := strings.LastIndexByte(body[:160], ' ')
		if cut < 80 {
			for cut = 160; !utf8.RuneStart(body[cut]); cut-- {
			}
		}
		body = body[:cut] + "…"
	}
	return body
}

// listSearch answers an item list that carries ?search=: the list's
// filters over the search's hits, in relevance order unless the list
// asks for another sort.
func (s *Server) listSearch(r *http.Request, p storage.ListParams, text string) (*storage.ListResult, error) {
	req := searchindex.Request{Query: text, IncludeArchived: p.IncludeArchived, Limit: listSearchCap, NoFacets: true}
	upTo, err := minSeq(r)
	if err != nil {
		return nil, err
	}
	if _, err := s.searchScope(r.Context(), r.PathValue("ws"), "", upTo, &req); err != nil {
		return nil, err
	}
	index, err := s.searchIndex(r.Context())
	if err != nil {
		return nil, err
	}
	res, err := index.Search(r.Context(), req)
	if err != nil {
		return nil, searchError(err)
	}
	rank := map[string]int{}
	p.Only = []string{}
	for i, h := range res.Hits {
		rank[h.ID] = i
		p.Only = append(p.Only, h.ID)
	}
	limit, offset := p.Limit, p.Offset
	p.Limit, p.Offset = listSearchCap, 0
	all, err := s.views.ListItems(r.Context(), r.PathValue("ws"), p)
	if err != nil {
		return nil, err
	}
	items := all.Items
	if p.Sort == "" {
		sort.SliceStable(items, func(i, j int) bool { return rank[items[i].ID] < rank[items[j].ID] })
	}
	out := &storage.ListResult{UndeclaredFilterKeys: all.UndeclaredFilterKeys}
	if offset < len(items) {
		end := min(offset+limit, len(items))
		out.Items = items[offset:end]
		if end < len(items) {
			out.HasMore, out.NextOffset = true, end
		}
	}
	return out, nil
}

func (s *Server) indexStatus(w http.ResponseWriter, r *http.Request) error {
	index, err := s.searchIndex(r.Context())
	if err != nil {
		return err
	}
	writeJSON(w, 200, index.Status())
	return nil
}

func (s *Server) indexRebuild(w http.ResponseWriter, r *http.Request) error {
	index, err := s.searchIndex(r.Context())
	if err != nil {
		return err
	}
	if err := index.Rebuild(); err != nil {
		return err
	}
	writeJSON(w, 202, index.Status())
	return nil
}
