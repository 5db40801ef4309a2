package syncer_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/padd/padd/api"
	"github.com/padd/padd/internal/testremote"
	"github.com/padd/padd/internal/testwait"
	"github.com/padd/padd/model"
	"github.com/padd/padd/storage"
)

// A create whose answer is lost (the connection drops after the remote
// wrote it) is never blindly sent again: with idempotency keys it is
// resent with its key; without (the Pad of August 2026) padd waits,
// finds it on the remote and adopts it. Either way the remote ends up
// with exactly one copy, and padd's item takes its number.
func TestLostAnswerMakesNoDuplicate(t *testing.T) {
	for _, aug := range []bool{false, true} {
		t.Run(fmt.Sprintf("aug2026=%v", aug), func(t *testing.T) {
			ctx := context.Background()
			r := testremote.Start(t, testremote.Options{Aug2026: aug})
			if _, err := r.API().CreateWorkspace(ctx, api.WorkspaceCreate{Name: "Team", Slug: "team"}); err != nil {
				t.Fatal(err)
			}
			l := startLocal(t)
			if _, err := l.M.Clone(ctx, api.SyncClone{URL: r.URL(), RemoteWorkspace: "team", SyncToken: api.SyncToken{Token: r.Token()}}); err != nil {
				t.Fatal(err)
			}
			l.synced(t, "team")
			isCreate := func(q *http.Request) bool {
				return q.Method == "POST" && strings.HasSuffix(q.URL.Path, "/items")
			}
			isComment := func(q *http.Request) bool {
				return q.Method == "POST" && strings.HasSuffix(q.URL.Path, "/comments")
			}
			item := testremote.Once(isCreate, testremote.Fault{Kind: testremote.DropAfter})
			comment := testremote.Once(isComment, testremote.Fault{Kind: testremote.DropAfter})
			r.SetFault(func(q *http.Request) testremote.Fault {
				if f := item(q); f.Kind != testremote.Pass {
					return f
				}
				return comment(q)
			})
			res, err := l.Store.CreateItem("team", storage.ItemCreate{Collection: "tasks", Title: "Said once", Content: "x\n"}, model.UserActor(model.SourceCLI))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := l.Store.AddComment("team", res.Item.ID, storage.CommentCreate{Body: "once too"}, model.UserActor(model.SourceCLI)); err != nil {
				t.Fatal(err)
			}
			l.synced(t, "team")
			v, err := l.Store.GetItem("team", res.Item.ID)
			if err != nil {
				t.Fatal(err)
			}
			if v.Number <= 0 {
				t.Fatalf("the item is still %s after sync", v.Ref)
			}
			var copies []api.Item
			testwait.UntilOK(t, func() error {
				items, _, err := r.API().ListItems(ctx, "team", "tasks", api.ItemQuery{})
				if err != nil {
					return err
				}
				copies = copies[:0]
				for _, it := range items {
					if it.Title == "Said once" {
						copies = append(copies, it)
					}
				}
				if len(copies) == 0 {
					return fmt.Errorf("the item is not on the remote")
				}
				return nil
			})
			if len(copies) != 1 {
				t.Fatalf("%d copies of the item on the remote, want 1", len(copies))
			}
			if copies[0].Ref != v.Ref {
				t.Errorf("padd calls it %s, the remote %s", v.Ref, copies[0].Ref)
			}
			cs, err := r.API().ListComments(ctx, "team", copies[0].Ref)
			if err != nil {
				t.Fatal(err)
			}
			if len(cs) != 1 {
				t.Errorf("%d copies of the comment on the remote, want 1", len(cs))
			}
		})
	}
}
