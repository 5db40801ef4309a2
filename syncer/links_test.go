package syncer_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/padd/padd/api"
	"github.com/padd/padd/internal/testremote"
	"github.com/padd/padd/internal/testwait"
	"github.com/padd/padd/model"
	"github.com/padd/padd/storage"
	"github.com/padd/padd/storage/views"
)

// The Pad of August 2026 tells nobody of a blocks link made or deleted
// there (no event, no activity, no feed): `sync now` reads every link
// from the export, adds the new and removes the deleted.
func TestLinksWithoutSignalReachOnNow(t *testing.T) {
	ctx := context.Background()
	r := testremote.Start(t, testremote.Options{Aug2026: true})
	l := cloned(t, r)
	rapi := r.API()
	made := l.madeThere(t, r, api.ItemCreate{Title: "Blocker"}, api.ItemCreate{Title: "Blocked"})
	a, b := made[0], made[1]
	links := func() int {
		views, err := views.Of(l.Store).ListLinks("team", a.Ref)
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

// A link read from the export before padd has one of its ends (made on
// the remote between padd's pull and its read of the links) is written
// when that item arrives, not only at the next read of every link.
func TestLinkWaitsForItsEnd(t *testing.T) {
	ctx := context.Background()
	r := testremote.Start(t, testremote.Options{Aug2026: true})
	l := cloned(t, r)
	rapi := r.API()
	a, err := rapi.CreateItem(ctx, "team", "tasks", api.ItemCreate{Title: "Here already"})
	if err != nil {
		t.Fatal(err)
	}
	testwait.UntilOK(t, func() error { _, err := views.Of(l.Store).GetItem("team", a.Ref); return err })
	l.synced(t, "team")
	var late atomic.Value
	var done atomic.Bool
	r.SetFault(func(q *http.Request) testremote.Fault {
		if q.Method != "GET" || !strings.HasSuffix(q.URL.Path, "/export") || !done.CompareAndSwap(false, true) {
			return testremote.Fault{}
		}
		// Between padd's pull and its read of the links.
		b, err := rapi.CreateItem(ctx, "team", "tasks", api.ItemCreate{Title: "Made late"})
		if err != nil {
			t.Error(err)
			return testremote.Fault{}
		}
		if _, err := rapi.AddLink(ctx, "team", a.Ref, api.ItemLinkCreate{TargetID: b.ID, LinkType: model.LinkBlocks}); err != nil {
			t.Error(err)
		}
		late.Store(b.Ref)
		return testremote.Fault{}
	})
	if _, err := l.M.Now("team"); err != nil {
		t.Fatal(err)
	}
	testwait.UntilOK(t, func() error {
		ref, _ := late.Load().(string)
		if ref == "" {
			return fmt.Errorf("the export has not been read")
		}
		if _, err := views.Of(l.Store).GetItem("team", ref); err != nil {
			return err
		}
		views, err := views.Of(l.Store).ListLinks("team", a.Ref)
		if err != nil {
			return err
		}
		if len(views) != 1 {
			return fmt.Errorf("%d links on %s here, want 1", len(views), a.Ref)
		}
		return nil
	})
}

// Pad lists and exports no link of an archived item. A link made there
// to an item that was then archived, which padd keeps alive with an edit
// made here, shows on the remote again once padd restores the item: padd
// reads the restored item's links both ways then, not only at the next
// `sync now`.
func TestLinkToRestoredItemArrives(t *testing.T) {
	ctx := context.Background()
	r := testremote.Start(t, testremote.Options{Aug2026: true})
	l := cloned(t, r)
	rapi := r.API()
	made := l.madeThere(t, r, api.ItemCreate{Title: "Blocker"}, api.ItemCreate{Title: "Blocked"})
	a, b := made[0], made[1]
	l.synced(t, "team")
	if _, err := l.M.Pause("team"); err != nil {
		t.Fatal(err)
	}
	if _, err := rapi.AddLink(ctx, "team", a.Ref, api.ItemLinkCreate{TargetID: b.ID, LinkType: model.LinkBlocks}); err != nil {
		t.Fatal(err)
	}
	if err := rapi.DeleteItem(ctx, "team", b.Ref); err != nil {
		t.Fatal(err)
	}
	title := "Blocked, edited here"
	if _, err := l.Store.UpdateItem("team", b.Ref, storage.ItemUpdate{Title: &title}, user); err != nil {
		t.Fatal(err)
	}
	if _, err := l.M.Resume("team"); err != nil {
		t.Fatal(err)
	}
	l.synced(t, "team")
	if got, err := rapi.GetItem(ctx, "team", b.ID); err != nil || got.DeletedAt != nil || got.Title != title {
		t.Fatalf("the remote's %s = %+v, %v; want it alive with the edit", b.Ref, got, err)
	}
	testwait.UntilOK(t, func() error {
		views, err := views.Of(l.Store).ListLinks("team", a.Ref)
		if err != nil {
			return err
		}
		if len(views) != 1 {
			return fmt.Errorf("%d links of %s here, want 1", len(views), a.Ref)
		}
		return nil
	})
}

// TestSameLinkOnBothSides: the remote makes a link just before padd
// pushes the same link made here. The remote refuses the second (409
// conflict); padd takes the remote's link as its own and sets nothing
// aside.
func TestSameLinkOnBothSides(t *testing.T) {
	for _, aug2026 := range []bool{true, false} {
		t.Run(fmt.Sprintf("aug2026=%v", aug2026), func(t *testing.T) {
			ctx := context.Background()
			r := testremote.Start(t, testremote.Options{Aug2026: aug2026})
			l := cloned(t, r)
			made := l.madeThere(t, r, api.ItemCreate{Title: "Blocker"}, api.ItemCreate{Title: "Blocked"})
			from, to := made[0], made[1]
			var armed atomic.Bool
			armed.Store(true)
			r.SetFault(func(q *http.Request) testremote.Fault {
				if q.Method != http.MethodPost || !strings.HasSuffix(q.URL.Path, "/links") || !armed.CompareAndSwap(true, false) {
					return testremote.Fault{}
				}
				if _, err := r.API().AddLink(ctx, "team", from.ID, api.ItemLinkCreate{TargetID: to.ID, LinkType: model.LinkBlocks}); err != nil {
					t.Error(err)
				}
				return testremote.Fault{}
			})
			if _, err := l.Store.AddLink("team", from.Ref, to.Ref, model.LinkBlocks, user); err != nil {
				t.Fatal(err)
			}
			st := l.synced(t, "team")
			if armed.Load() {
				t.Fatal("padd did not push the link")
			}
			if st.SetAside > 0 || st.Conflicts > 0 {
				cs, _ := l.M.Conflicts("team", true)
				t.Errorf("%d set aside, %d conflicts: %+v", st.SetAside, st.Conflicts, cs)
			}
			there, err := r.API().ListLinks(ctx, "team", from.ID)
			if err != nil || len(there) != 1 {
				t.Errorf("links there: %+v, %v; want one", there, err)
			}
			here, err := views.Of(l.Store).ListLinks("team", from.Ref)
			if err != nil || len(here) != 1 {
				t.Errorf("links here: %+v, %v; want one", here, err)
			}
		})
	}
}

// Every link type Pad keeps arrives, both ways: related (Pad's default,
// a link made with no type) and wiki_link, as Pad spells them. A parent
// link in Pad's export is the child's parent, which padd holds on the
// item: it is neither a link here nor a link set aside.
func TestEveryPadLinkTypeTravels(t *testing.T) {
	ctx := context.Background()
	r := testremote.Start(t, testremote.Options{Aug2026: true})
	rapi := r.API()
	if _, err := rapi.CreateWorkspace(ctx, api.WorkspaceCreate{Name: "Team", Slug: "team"}); err != nil {
		t.Fatal(err)
	}
	var made []*api.Item
	for _, title := range []string{"One", "Two", "Three"} {
		it, err := rapi.CreateItem(ctx, "team", "tasks", api.ItemCreate{Title: title})
		if err != nil {
			t.Fatal(err)
		}
		made = append(made, it)
	}
	parent := made[0].ID
	if _, err := rapi.UpdateItem(ctx, "team", made[2].Ref, api.ItemUpdate{ParentID: &parent}); err != nil {
		t.Fatal(err)
	}
	for _, typ := range []string{"", "wiki_link"} {
		if _, err := rapi.AddLink(ctx, "team", made[0].Ref, api.ItemLinkCreate{TargetID: made[1].ID, LinkType: typ}); err != nil {
			t.Fatalf("link %q on the remote: %v", typ, err)
		}
	}
	l := startLocal(t)
	if _, err := l.M.Clone(ctx, api.SyncClone{URL: r.URL(), RemoteWorkspace: "team", SyncToken: api.SyncToken{Token: r.Token()}}); err != nil {
		t.Fatal(err)
	}
	l.synced(t, "team")
	types := func(ref string) string {
		views, err := views.Of(l.Store).ListLinks("team", ref)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, v := range views {
			out = append(out, v.Type+" "+v.Other.Ref)
		}
		return strings.Join(out, ", ")
	}
	if got, want := types(made[0].Ref), "related "+made[1].Ref+", wiki-link "+made[1].Ref; got != want {
		t.Errorf("%s's links here: %q, want %q", made[0].Ref, got, want)
	}
	if got, want := types(made[1].Ref), "related "+made[0].Ref+", referenced-by "+made[0].Ref; got != want {
		t.Errorf("%s's links here: %q, want %q", made[1].Ref, got, want)
	}
	if cs, err := l.M.Conflicts("team", true); err != nil || len(cs) != 0 {
		t.Fatalf("set aside: %+v %v", cs, err)
	}
	child, err := views.Of(l.Store).GetItem("team", made[2].Ref)
	if err != nil {
		t.Fatal(err)
	}
	if child.Item.ParentID == "" {
		t.Errorf("%s lost its parent", made[2].Ref)
	}

	// A related link made here reaches the remote as related.
	if _, err := l.Store.AddLink("team", made[1].Ref, made[2].Ref, model.LinkRelated, model.Actor{Kind: "user"}); err != nil {
		t.Fatal(err)
	}
	l.synced(t, "team")
	testwait.UntilOK(t, func() error {
		ls, err := rapi.ListLinks(ctx, "team", made[2].Ref)
		if err != nil {
			return err
		}
		for _, rl := range ls {
			if rl.SourceID == made[1].ID && rl.LinkType == "related" {
				return nil
			}
		}
		return fmt.Errorf("the remote's links of %s: %+v", made[2].Ref, ls)
	})
}

// 250 comments made on the remote over 50 items while padd was off, and
// a reply, which Pad writes no activity row for: every one arrives when
// padd starts again, the oldest items' too. The catch-up pages through
// the activity (by offset, as Pad pages) to its mark, and the export
// read at the start finds what no activity row names.
func TestCommentsMadeWhileAwayAllArrive(t *testing.T) {
	ctx := context.Background()
	r := testremote.Start(t, testremote.Options{Aug2026: true})
	l := cloned(t, r)
	rapi := r.API()
	var made []api.ItemCreate
	for i := range 50 {
		made = append(made, api.ItemCreate{Title: fmt.Sprintf("Item %02d", i)})
	}
	items := l.madeThere(t, r, made...)
	l.synced(t, "team")
	l.stop()
	var first *api.Comment
	for round := range 5 {
		for _, it := range items {
			c, err := rapi.AddComment(ctx, "team", it.Ref, api.CommentCreate{Body: fmt.Sprintf("round %d on %s", round, it.Ref)})
			if err != nil {
				t.Fatal(err)
			}
			if first == nil {
				first = c
			}
		}
	}
	if _, err := rapi.Do(ctx, "POST", "/workspaces/team/comments/"+first.ID+"/replies", nil, api.CommentCreate{Body: "a reply while away"}, nil); err != nil {
		t.Fatal(err)
	}
	l.run(t)
	testwait.UntilOK(t, func() error {
		n := 0
		for _, it := range items {
			cs, err := views.Of(l.Store).ListComments("team", it.Ref)
			if err != nil {
				return err
			}
			n += len(cs)
		}
		if n != 251 {
			return fmt.Errorf("%d of 251 comments here", n)
		}
		return nil
	})
	l.synced(t, "team")
}
