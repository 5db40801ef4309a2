package syncer_test

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"github.com/padd/padd/api"
	"github.com/padd/padd/model"
	"github.com/padd/padd/storage"
)

// `sync link` pushes a whole local workspace to an empty remote one:
// items (a child after its parent, an archived one), comments and
// replies, links; refs stay as they were when the remote numbers the
// items the same way. A remote that has items is refused.
func TestLinkPushesEverything(t *testing.T) {
	ctx := context.Background()
	r := startRemote(t)
	for _, slug := range []string{"empty", "busy"} {
		if _, err := r.API.CreateWorkspace(ctx, api.WorkspaceCreate{Name: slug, Slug: slug}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := r.API.CreateItem(ctx, "busy", "tasks", api.ItemCreate{Title: "someone's"}); err != nil {
		t.Fatal(err)
	}
	l := startLocal(t)
	ws, err := l.Store.CreateWorkspace(storage.WorkspaceCreate{Name: "Mine", Slug: "mine"}, user)
	if err != nil {
		t.Fatal(err)
	}
	mk := func(title, parent string) string {
		res, err := l.Store.CreateItem(ws.Slug, storage.ItemCreate{Collection: "tasks", Title: title, Content: title + "\n", Parent: parent,
			Fields: map[string]any{"priority": "high"}, Tags: []string{"t1"}}, user)
		if err != nil {
			t.Fatal(err)
		}
		return res.Item.Ref
	}
	parent := mk("Parent", "")
	child := mk("Child", parent)
	gone := mk("Archived", "")
	if _, err := l.Store.DeleteItem(ws.Slug, gone, user); err != nil {
		t.Fatal(err)
	}
	c, err := l.Store.AddComment(ws.Slug, parent, storage.CommentCreate{Body: "top"}, user)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.Store.AddComment(ws.Slug, parent, storage.CommentCreate{Body: "reply", ReplyTo: c.Comment.ID}, user); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Store.AddLink(ws.Slug, child, parent, model.LinkBlocks, user); err != nil {
		t.Fatal(err)
	}

	_, err = l.M.Link(ctx, api.SyncLink{Workspace: "mine", URL: r.URL, RemoteWorkspace: "busy", SyncToken: api.SyncToken{Token: r.Token}})
	var me *model.Error
	if !errors.As(err, &me) || me.Code != model.CodeConflict {
		t.Fatalf("linking to a remote with items: %v, want a conflict", err)
	}
	if _, err := l.M.Link(ctx, api.SyncLink{Workspace: "mine", URL: r.URL, RemoteWorkspace: "empty", SyncToken: api.SyncToken{Token: r.Token}}); err != nil {
		t.Fatal(err)
	}
	l.synced(t, "mine")

	ls, rs := &localSide{s: l.Store, ws: "mine"}, &remoteSide{c: r.API, ws: "empty"}
	for _, ref := range []string{parent, child, gone} {
		x, err := ls.get(t, ref)
		if err != nil {
			t.Fatal(err)
		}
		y, err := rs.get(t, ref)
		if err != nil {
			t.Fatalf("the remote's %s: %v", ref, err)
		}
		if !reflect.DeepEqual(x, y) {
			t.Errorf("%s differs:\npadd   %+v\nremote %+v", ref, x, y)
		}
	}
	rc, err := r.API.GetItem(ctx, "empty", child)
	if err != nil || rc.ParentRef != parent {
		t.Errorf("the remote's %s has parent %q (%v), want %s", child, rc.ParentRef, err, parent)
	}
	cs, err := r.API.ListComments(ctx, "empty", parent)
	if err != nil || len(cs) != 2 || cs[1].ParentID != cs[0].ID {
		t.Errorf("the remote's comments on %s: %+v, %v", parent, cs, err)
	}
}
