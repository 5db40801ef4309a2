package daemon

import (
	"net/http"
	"strings"

	"github.com/padd/padd/api"
	"github.com/padd/padd/model"
	"github.com/padd/padd/storage"
)

func (s *Server) commentRoutes() {
	s.handle("GET /api/v1/workspaces/{ws}/items/{ref}/comments", s.listComments)
	s.handle("POST /api/v1/workspaces/{ws}/items/{ref}/comments", s.createComment)
	s.handle("PATCH /api/v1/workspaces/{ws}/items/{ref}/comments/{id}", s.editComment)
	s.handle("DELETE /api/v1/workspaces/{ws}/items/{ref}/comments/{id}", s.deleteComment)
	s.handle("POST /api/v1/workspaces/{ws}/comments/{id}/replies", s.replyComment)
	s.handle("PATCH /api/v1/workspaces/{ws}/comments/{id}", s.editComment)
	s.handle("DELETE /api/v1/workspaces/{ws}/comments/{id}", s.deleteComment)
}

// commentOut is a comment with its item's title and slug, as Pad's
// write answers carry them.
func commentOut(c *model.Comment, item *storage.ItemView) api.Comment {
	out := wireComment(c)
	if item != nil {
		out.ItemTitle, out.ItemSlug = item.Title, item.Slug
	}
	return out
}

func (s *Server) listComments(w http.ResponseWriter, r *http.Request) error {
	list, err := s.views.ListComments(r.PathValue("ws"), r.PathValue("ref"))
	if err != nil {
		return err
	}
	writeJSON(w, 200, wireComments(list))
	return nil
}

// wireComments is an item's comments as Pad answers them.
func wireComments(list []model.Comment) []api.Comment {
	out := make([]api.Comment, 0, len(list))
	for i := range list {
		out = append(out, wireComment(&list[i]))
	}
	return out
}

func (s *Server) createComment(w http.ResponseWriter, r *http.Request) error {
	var in api.CommentCreate
	if err := decodeBody(r, &in); err != nil {
		return err
	}
	parent := strings.TrimSpace(in.ParentID)
	if rt := strings.TrimSpace(in.ReplyTo); rt != "" {
		if parent != "" && parent != rt {
			return model.BadRequest("parent_id and reply_to name different comments: send one")
		}
		parent = rt
	}
	return s.addComment(w, r, r.PathValue("ref"), parent, in)
}

// replyComment answers POST .../comments/{id}/replies: a reply on the
// parent's item. A parent that does not exist is Pad's 404.
func (s *Server) replyComment(w http.ResponseWriter, r *http.Request) error {
	var in api.CommentCreate
	if err := decodeBody(r, &in); err != nil {
		return err
	}
	parent, err := s.views.GetComment(r.PathValue("ws"), r.PathValue("id"))
	if err != nil {
		if model.IsNotFound(err) && !isWorkspaceMiss(err) {
			return model.NotFound("Parent comment not found").With("comment_id", r.PathValue("id"))
		}
		return err
	}
	return s.addComment(w, r, parent.ItemID, parent.ID, in)
}

// isWorkspaceMiss tells a workspace 404 from a miss inside it.
func isWorkspaceMiss(err error) bool {
	e, ok := model.AsError(err)
	return ok && e.Details["scope"] == "workspace"
}

// addComment writes a comment or reply, replaying an idempotent retry.
func (s *Server) addComment(w http.ResponseWriter, r *http.Request, itemRef, parent string, in api.CommentCreate) error {
	key, err := idemKey(r, in.OpKey)
	if err != nil {
		return err
	}
	ws := r.PathValue("ws")
	// The key travels beside the request, not in it: a retry that moves
	// it from the body to the header is the same request.
	fp := in
	fp.OpKey = ""
	create := storage.CommentCreate{Body: in.Body, ReplyTo: parent, Idem: fingerprint(key, r, fp)}
	if err := checkInput(create); err != nil {
		return err
	}
	res, err := s.store.AddComment(ws, itemRef, create, actor(r))
	if err != nil {
		return err
	}
	if res.Replayed {
		w.Header().Set("Idempotent-Replayed", "true")
	}
	item, _ := s.views.GetItem(ws, res.Comment.ItemID) // decoration only
	writeJSON(w, 201, commentOut(res.Comment, item))
	return nil
}

// editComment answers both PATCH routes; the item-scoped one refuses a
// comment on another item with 404.
func (s *Server) editComment(w http.ResponseWriter, r *http.Request) error {
	var in api.CommentEdit
	if err := decodeBody(r, &in); err != nil {
		return err
	}
	if in.Body == nil {
		return model.BadRequest("body is required (use delete to remove a comment)").With("field", "body")
	}
	if err := checkInput(storage.CommentCreate{Body: *in.Body}); err != nil {
		return err
	}
	ws := r.PathValue("ws")
	c, err := s.store.EditComment(ws, r.PathValue("ref"), r.PathValue("id"), *in.Body, actor(r))
	if err != nil {
		return err
	}
	item, _ := s.views.GetItem(ws, c.ItemID) // decoration only
	writeJSON(w, 200, commentOut(c, item))
	return nil
}

// deleteComment answers both DELETE routes with 204, tombstone or not.
func (s *Server) deleteComment(w http.ResponseWriter, r *http.Request) error {
	if _, err := s.store.DeleteComment(r.PathValue("ws"), r.PathValue("ref"), r.PathValue("id"), actor(r)); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// commentOnUpdate records an item update's `comment` (why it was made)
// as a comment on the item, as Pad does: after the update commits, and
// without failing it when the comment cannot be written.
func (s *Server) commentOnUpdate(ws, itemID, text string, a model.Actor) {
	body := strings.TrimSpace(text)
	if body == "" {
		return
	}
	if _, err := s.store.AddComment(ws, itemID, storage.CommentCreate{Body: body}, a); err != nil {
		s.log.Warn("an item update's comment was not recorded", "workspace", ws, "item", itemID, "err", err)
	}
}
