package storage

import (
	"testing"

	"github.com/padd/padd/model"
)

// A second live collection named like another, with nothing else given,
// is a conflict naming the first (not tasks-2 with prefix TASK2); one
// that gives its own slug is taken as meant, as sync and templates give
// theirs; an archived collection's name is free again.
func TestSecondCollectionOfTheSameName(t *testing.T) {
	s, _ := openTest(t)
	ws := mustWorkspace(t, s, "Names")
	if _, err := s.CreateCollection(ws.Slug, CollectionCreate{Name: "Bugs"}, user); err != nil {
		t.Fatal(err)
	}
	_, err := s.CreateCollection(ws.Slug, CollectionCreate{Name: "bugs"}, user)
	e, ok := model.AsError(err)
	if !ok || e.Code != model.CodeConflict || e.Details["collection"] != "bugs" {
		t.Fatalf("second Bugs: %v", err)
	}
	c, err := s.CreateCollection(ws.Slug, CollectionCreate{Name: "Bugs", Slug: "bugs-old", Prefix: "OLD"}, user)
	if err != nil || c.Slug != "bugs-old" || c.Prefix != "OLD" {
		t.Fatalf("with its own slug and prefix: %+v %v", c, err)
	}
	if err := s.ArchiveCollection(ws.Slug, "bugs", user); err != nil {
		t.Fatal(err)
	}
	if err := s.ArchiveCollection(ws.Slug, "bugs-old", user); err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateCollection(ws.Slug, CollectionCreate{Name: "Bugs"}, user); err != nil {
		t.Fatalf("Bugs after the others were archived: %v", err)
	}
}
