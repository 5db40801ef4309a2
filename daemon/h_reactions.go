package daemon

import (
	"net/http"

	"github.com/padd/padd/api"
	"github.com/padd/padd/storage"
)

// Comment reactions, on Pad's workspace-scoped comment routes (Pad has
// no item-scoped ones): POST answers 201 with the reaction, the one
// there already when the same emoji is sent again; DELETE answers 204,
// or 404 "Reaction not found" for one this person has not made.
func (s *Server) reactionRoutes() {
	s.handle("POST /api/v1/workspaces/{ws}/comments/{id}/reactions", s.addReaction)
	s.handle("DELETE /api/v1/workspaces/{ws}/comments/{id}/reactions/{emoji}", s.removeReaction)
}

func (s *Server) addReaction(w http.ResponseWriter, r *http.Request) error {
	var in api.ReactionCreate
	if err := decodeBody(r, &in); err != nil {
		return err
	}
	if err := storage.CheckEmoji(in.Emoji); err != nil {
		return err
	}
	res, err := s.store.AddReaction(r.PathValue("ws"), r.PathValue("id"), in.Emoji, actor(r))
	if err != nil {
		return err
	}
	out := wireReaction(res.Comment.ID, &res.Reaction)
	out.ActorName = "" // Pad's POST answer carries no name
	writeJSON(w, 201, out)
	return nil
}

func (s *Server) removeReaction(w http.ResponseWriter, r *http.Request) error {
	if _, err := s.store.RemoveReaction(r.PathValue("ws"), r.PathValue("id"), r.PathValue("emoji"), actor(r)); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
