package views

import (
	"testing"

	"github.com/padd/padd/model"
	"github.com/padd/padd/storage"
)

func mustComment(t testing.TB, s *storage.Store, ws, ref, body, replyTo string) *model.Comment {
	t.Helper()
	r, err := s.AddComment(ws, ref, storage.CommentCreate{Body: body, ReplyTo: replyTo}, user)
	if err != nil {
		t.Fatalf("comment %q: %v", body, err)
	}
	return r.Comment
}
