package syncer_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/padd/padd/api"
	"github.com/padd/padd/internal/testremote"
	"github.com/padd/padd/internal/testwait"
	"github.com/padd/padd/model"
)

// The Pad of August 2026 tells nobody of a blocks link made or deleted
// there (no event, no activity, no feed): `sync now` reads every link
// from the export, adds the new and removes the deleted.
func TestLinksWithoutSignalReachOnNow(t *testing.T) {
	ctx := context.Background()
	r := testremote.Start(t, testremote.Options{Aug2026: true})
	l := cloned(t, r)
	rapi := r.API()
	a, err := rapi.CreateItem(ctx, "team", "tasks", api.ItemCreate{Title: "Blocker"})
	if err != nil {
		t.Fatal(err)
	}
	b, err := rapi.CreateItem(ctx, "team", "tasks", api.ItemCreate{Title: "Blocked"})
	if err != nil {
		t.Fatal(err)
	}
	testwait.UntilOK(t, func() error { // the remote's event brings them
		for _, ref := range []string{a.Ref, b.Ref} {
			if _, err := l.Store.GetItem("team", ref); err != nil {
				return err
			}
		}
		return nil
	})
	links := func() int {
		views, err := l.Store.ListLinks("team", a.Ref)
		if err != nil {
			t.Fatal(err)
		}
		return len(views)
	}
	rl, err := rapi.AddLink(ctx, "team", a.Ref, api.ItemLinkCreate{TargetID: b.ID, LinkType: model.LinkBlocks})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.M.Now("team"); err != nil {
		t.Fatal(err)
	}
	testwait.UntilOK(t, func() error {
		if n := links(); n != 1 {
			return fmt.Errorf("%d links here", n)
		}
		return nil
	})
	if err := rapi.DeleteLink(ctx, "team", rl.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := l.M.Now("team"); err != nil {
		t.Fatal(err)
	}
	testwait.UntilOK(t, func() error {
		if n := links(); n != 0 {
			return fmt.Errorf("%d links here", n)
		}
		return nil
	})
	l.synced(t, "team")
}
