package views

import (
	"testing"

	"github.com/padd/padd/model"
	"github.com/padd/padd/storage"
)

func mustLink(t testing.TB, s *storage.Store, ws, src, dst, typ string) *model.Link {
	t.Helper()
	r, err := s.AddLink(ws, src, dst, typ, user)
	if err != nil {
		t.Fatalf("link %s %s %s: %v", src, typ, dst, err)
	}
	return r.Link
}
