package syncer_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/padd/padd/api"
	"github.com/padd/padd/internal/testremote"
	"github.com/padd/padd/internal/testwait"
	"github.com/padd/padd/storage"
	"github.com/padd/padd/storage/views"
)

// A child made on one side under an item the other side archived
// meanwhile. Made here: the child is work on the parent, so the parent
// stays alive on both sides (a conflict on archived tells the user), as
// against an edit. Made on the remote: the child lands here under the
// archived parent, and the archive is pushed. Against padd and the Pad
// of August 2026.
func TestChildOfAnArchivedParent(t *testing.T) {
	for _, aug := range []bool{false, true} {
		t.Run(fmt.Sprintf("aug2026=%v", aug), func(t *testing.T) {
			ctx := context.Background()
			r := testremote.Start(t, testremote.Options{Aug2026: aug})
			l := cloned(t, r)
			rapi := r.API()
			parent := func(title string) string {
				it, err := rapi.CreateItem(ctx, "team", "tasks", api.ItemCreate{Title: title})
				if err != nil {
					t.Fatal(err)
				}
				return it.Ref
			}
			mine, theirs := parent("Archived there"), parent("Archived here")
			testwait.UntilOK(t, func() error { // the remote's event brings them
				for _, ref := range []string{mine, theirs} {
					if _, err := views.Of(l.Store).GetItem("team", ref); err != nil {
						return err
					}
				}
				return nil
			})
			l.synced(t, "team")
			before := l.conflicts(t)
			if _, err := l.M.Pause("team"); err != nil {
				t.Fatal(err)
			}
			if err := rapi.DeleteItem(ctx, "team", mine); err != nil {
				t.Fatal(err)
			}
			if _, err := l.Store.CreateItem("team", storage.ItemCreate{Collection: "tasks", Title: "Child made here", Parent: mine}, user); err != nil {
				t.Fatal(err)
			}
			if _, err := l.Store.DeleteItem("team", theirs, user); err != nil {
				t.Fatal(err)
			}
			p, err := rapi.GetItem(ctx, "team", theirs)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := rapi.CreateItem(ctx, "team", "tasks", api.ItemCreate{Title: "Child made there", ParentID: &p.ID}); err != nil {
				t.Fatal(err)
			}
			if _, err := l.M.Resume("team"); err != nil {
				t.Fatal(err)
			}
			l.synced(t, "team")

			testwait.UntilOK(t, func() error {
				for ref, archived := range map[string]bool{mine: false, theirs: true} {
					lv, err := views.Of(l.Store).GetItem("team", ref)
					if err != nil {
						return err
					}
					rv, err := rapi.GetItem(ctx, "team", ref)
					if err != nil {
						return err
					}
					if (lv.DeletedAt != nil) != archived || (rv.DeletedAt != nil) != archived {
						return fmt.Errorf("%s archived here %v, there %v; want %v on both", ref, lv.DeletedAt != nil, rv.DeletedAt != nil, archived)
					}
				}
				items, _, err := rapi.ListItems(ctx, "team", "tasks", api.ItemQuery{})
				if err != nil {
					return err
				}
				children := 0
				for _, it := range items {
					if (it.Title == "Child made here" || it.Title == "Child made there") && it.ParentID != nil {
						children++
					}
				}
				if children != 2 {
					return fmt.Errorf("the remote holds %d of the two children under their parents", children)
				}
				return nil
			})
			if n := l.conflicts(t) - before; n != 1 {
				t.Errorf("%d conflicts, want 1 (the parent kept alive)", n)
			}
			idx, err := views.Of(l.Store).ItemsIndex(ctx, "team", "", true)
			if err != nil {
				t.Fatal(err)
			}
			for _, it := range idx.Items {
				if it.Title == "Child made there" && it.ParentID == "" {
					t.Errorf("the remote's child came here without its parent: %+v", it)
				}
			}
		})
	}
}
