package syncer_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/padd/padd/api"
	"github.com/padd/padd/model"
	"github.com/padd/padd/storage"
	"github.com/padd/padd/storage/views"
)

// Saved views and the workspace's context stay local (docs/SYNC.md):
// their writes in a linked workspace pass through the outbox without
// wedging it, the item written after them still reaches the remote, and
// the remote gets neither.
func TestSavedViewsAndContextStayLocal(t *testing.T) {
	ctx := context.Background()
	r := startRemote(t)
	if _, err := r.API.CreateWorkspace(ctx, api.WorkspaceCreate{Name: "Team", Slug: "team"}); err != nil {
		t.Fatal(err)
	}
	l := startLocal(t)
	if _, err := l.M.Clone(ctx, api.SyncClone{URL: r.URL, RemoteWorkspace: "team", SyncToken: api.SyncToken{Token: r.Token}}); err != nil {
		t.Fatal(err)
	}
	l.synced(t, "team")

	if _, err := l.Store.CreateSavedView("team", "tasks", storage.SavedViewCreate{Name: "Mine", Config: json.RawMessage(`{"sort":"title"}`)}, user); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Store.SetWorkspaceContext("team", &model.WorkspaceContext{Assumptions: []string{"local only"}}, user); err != nil {
		t.Fatal(err)
	}
	made, err := l.Store.CreateItem("team", storage.ItemCreate{Collection: "tasks", Title: "After the views"}, user)
	if err != nil {
		t.Fatal(err)
	}
	st := l.synced(t, "team")
	if st.Pending != 0 || st.Conflicts != 0 {
		t.Fatalf("status %+v", st)
	}
	now, err := views.Of(l.Store).GetItem("team", made.Item.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := r.API.GetItem(ctx, "team", now.Ref); err != nil || got.Title != "After the views" {
		t.Fatalf("the item after the views on the remote: %+v, %v", got, err)
	}
	if vs, err := r.API.ListSavedViews(ctx, "team", "tasks"); err != nil || len(vs) != 0 {
		t.Errorf("the remote's views: %+v, %v", vs, err)
	}
	if ws, err := r.API.GetWorkspace(ctx, "team"); err != nil || ws.Context != nil {
		t.Errorf("the remote's context: %+v, %v", ws, err)
	}
}
