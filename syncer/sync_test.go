package syncer_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/padd/padd/api"
	"github.com/padd/padd/internal/testwait"
	"github.com/padd/padd/model"
	"github.com/padd/padd/storage"
	"github.com/padd/padd/storage/views"
)

var user = model.UserActor(model.SourceCLI)

func TestCloneThenBothWays(t *testing.T) {
	ctx := context.Background()
	r := startRemote(t)
	if _, err := r.API.CreateWorkspace(ctx, api.WorkspaceCreate{Name: "Team", Slug: "team"}); err != nil {
		t.Fatal(err)
	}
	first, err := r.API.CreateItem(ctx, "team", "tasks", api.ItemCreate{Title: "Remote one", Content: "line\n"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.API.AddComment(ctx, "team", first.Ref, api.CommentCreate{Body: "hello from the team"}); err != nil {
		t.Fatal(err)
	}

	l := startLocal(t)
	st, err := l.M.Clone(ctx, api.SyncClone{URL: r.URL, RemoteWorkspace: "team", SyncToken: api.SyncToken{Token: r.Token}})
	if err != nil {
		t.Fatal(err)
	}
	if !st.Cloning {
		t.Errorf("a new clone's status says it is not cloning: %+v", st)
	}
	l.synced(t, "team")

	got, err := views.Of(l.Store).GetItem("team", first.Ref)
	if err != nil {
		t.Fatalf("the cloned item %s: %v", first.Ref, err)
	}
	if got.Title != "Remote one" || got.Content != "line\n" {
		t.Errorf("cloned item = %q %q", got.Title, got.Content)
	}
	cs, err := views.Of(l.Store).ListComments("team", first.Ref)
	if err != nil || len(cs) != 1 || cs[0].Body != "hello from the team" {
		t.Fatalf("cloned comments = %+v, %v", cs, err)
	}

	// A local create reaches the remote and takes the remote's number.
	mine, err := l.Store.CreateItem("team", storage.ItemCreate{Collection: "tasks", Title: "Made here"}, user)
	if err != nil {
		t.Fatal(err)
	}
	provisional := mine.Item.Ref
	l.synced(t, "team")
	now, err := views.Of(l.Store).GetItem("team", mine.Item.ID)
	if err != nil {
		t.Fatal(err)
	}
	if now.Number <= 0 {
		t.Fatalf("after the push the item is still %s", now.Ref)
	}
	remoteCopy, err := r.API.GetItem(ctx, "team", now.Ref)
	if err != nil || remoteCopy.Title != "Made here" {
		t.Fatalf("the remote's %s = %+v, %v", now.Ref, remoteCopy, err)
	}
	if old, err := views.Of(l.Store).GetItem("team", provisional); err != nil || old.ID != mine.Item.ID {
		t.Errorf("the provisional ref %s no longer resolves: %v", provisional, err)
	}

	// A remote edit reaches the laptop (the event stream wakes the pull).
	title := "Remote one, edited"
	if _, err := r.API.UpdateItem(ctx, "team", first.Ref, api.ItemUpdate{Title: &title}); err != nil {
		t.Fatal(err)
	}
	testwait.UntilOK(t, func() error {
		v, err := views.Of(l.Store).GetItem("team", first.Ref)
		if err != nil {
			return err
		}
		if v.Title != title {
			return fmt.Errorf("local title is still %q", v.Title)
		}
		return nil
	})
	// And a remote comment.
	if _, err := r.API.AddComment(ctx, "team", first.Ref, api.CommentCreate{Body: "second"}); err != nil {
		t.Fatal(err)
	}
	testwait.UntilOK(t, func() error {
		cs, err := views.Of(l.Store).ListComments("team", first.Ref)
		if err != nil {
			return err
		}
		if len(cs) != 2 {
			return fmt.Errorf("local comments: %d", len(cs))
		}
		return nil
	})
}
