package views

import (
	"testing"

	"github.com/padd/padd/storage"
)

func activate(t testing.TB, s *storage.Store, ws, title string) *storage.ActivateResult {
	t.Helper()
	r, err := s.ActivateLibrary(ws, storage.LibraryActivate{Title: title}, user)
	if err != nil {
		t.Fatalf("activate %q: %v", title, err)
	}
	return r
}
