package daemon

import (
	"net/http"
	"slices"
	"strings"

	"github.com/padd/padd/api"
	"github.com/padd/padd/model"
	"github.com/padd/padd/storage"
	"github.com/padd/padd/storage/views"
)

func (s *Server) linkRoutes() {
	s.handle("GET /api/v1/workspaces/{ws}/items/{ref}/links", s.listLinks)
	s.handle("POST /api/v1/workspaces/{ws}/items/{ref}/links", s.createLink)
	s.handle("DELETE /api/v1/workspaces/{ws}/links/{id}", s.deleteLink)
	s.handle("GET /api/v1/workspaces/{ws}/items/{ref}/backlinks", s.backlinks)
	s.handle("GET /api/v1/workspaces/{ws}/items/{ref}/deps", s.deps)
}

// linkTypeParam reads a link type in Pad's spellings (split_from,
// split-from, BLOCKED_BY) into the model's name; no type is Pad's
// default, related. Pad refuses an unknown one as bad_request.
func linkTypeParam(raw string) (string, error) {
	t := model.NormalizeLinkType(raw)
	switch {
	case t == model.LinkParent:
		return "", model.BadRequest("parent is not a link in padd: set the child's parent with an item update (parent)").
			With("field", "link_type")
	case !slices.Contains(model.LinkTypes, t):
		return "", model.BadRequest("invalid link type %q: use one of %s", raw, strings.Join(model.LinkTypes, ", ")).
			With("field", "link_type").With("valid", model.LinkTypes)
	}
	return t, nil
}

func (s *Server) listLinks(w http.ResponseWriter, r *http.Request) error {
	got, err := s.views.GetItemWith(r.PathValue("ws"), r.PathValue("ref"), false, true)
	if err != nil {
		return err
	}
	writeJSON(w, 200, wireItemLinks(got.Item, got.Links))
	return nil
}

// wireItemLinks is self's links as Pad answers them.
func wireItemLinks(self *storage.ItemView, views []storage.LinkView) []api.ItemLink {
	me := briefOfView(self)
	out := make([]api.ItemLink, 0, len(views))
	for i := range views {
		v := &views[i]
		src, dst := me, v.Other
		if v.Direction == storage.DirIn {
			src, dst = v.Other, me
		}
		out = append(out, wireLink(&v.Link, src, dst))
	}
	return out
}

func (s *Server) createLink(w http.ResponseWriter, r *http.Request) error {
	var in api.ItemLinkCreate
	if err := decodeBody(r, &in); err != nil {
		return err
	}
	if strings.TrimSpace(in.TargetID) == "" {
		return model.BadRequest("target_id is required").With("field", "target_id")
	}
	typ, err := linkTypeParam(in.LinkType)
	if err != nil {
		return err
	}
	ws := r.PathValue("ws")
	res, err := s.store.AddLink(ws, r.PathValue("ref"), strings.TrimSpace(in.TargetID), typ, actor(r))
	if err != nil {
		return err
	}
	if res.Existing {
		return model.Conflict("Link already exists").With("link_id", res.Link.ID)
	}
	out, err := s.describedLink(ws, res.Link)
	if err != nil {
		return err
	}
	writeJSON(w, 201, out)
	return nil
}

// describedLink enriches a link with both of its ends.
func (s *Server) describedLink(ws string, l *model.Link) (api.ItemLink, error) {
	var ends [2]storage.ItemBrief
	for i, id := range []string{l.SourceID, l.TargetID} {
		v, err := s.views.GetItem(ws, id)
		if err != nil {
			return api.ItemLink{}, err
		}
		ends[i] = briefOfView(v)
	}
	return wireLink(l, ends[0], ends[1]), nil
}

func (s *Server) deleteLink(w http.ResponseWriter, r *http.Request) error {
	if _, err := s.store.RemoveLink(r.PathValue("ws"), r.PathValue("id"), actor(r)); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func (s *Server) backlinks(w http.ResponseWriter, r *http.Request) error {
	limit, offset, err := pageParams(r, views.DefaultBacklinks, views.MaxBacklinks)
	if err != nil {
		return err
	}
	page, err := s.views.Backlinks(r.PathValue("ws"), r.PathValue("ref"), limit, offset)
	if err != nil {
		return err
	}
	out := make([]api.Backlink, 0, len(page.Backlinks))
	for _, b := range page.Backlinks {
		out = append(out, wireBacklink(b))
	}
	setPaging(w, page.HasMore, page.NextOffset)
	writeJSON(w, 200, out)
	return nil
}

// deps answers padd's GET .../items/{ref}/deps (api.Deps): the blocking
// graph around the item, for the MCP deps action.
func (s *Server) deps(w http.ResponseWriter, r *http.Request) error {
	g, err := s.views.Deps(r.PathValue("ws"), r.PathValue("ref"))
	if err != nil {
		return err
	}
	writeJSON(w, 200, api.Deps{Item: wireLinkedItem(g.Item), Blocks: wireDepNodes(g.Blocks),
		BlockedBy: wireDepNodes(g.BlockedBy), Truncated: g.Truncated})
	return nil
}
