package syncer_test

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/padd/padd/api"
	"github.com/padd/padd/internal/testremote"
	"github.com/padd/padd/model"
	"github.com/padd/padd/storage"
	"github.com/padd/padd/storage/views"
)

// A clone takes comments and links from the remote's workspace export
// and lists only the items the export cannot vouch for: an archived item
// (Pad exports live ones), and, from the Pad of August 2026 (whose export
// does not say which comment a reply answers), an item with more than
// one comment. What lands here is the same either way.
func TestCloneTakesThreadsFromTheExport(t *testing.T) {
	for _, tc := range []struct {
		name   string
		opts   testremote.Options
		listed []string // the items whose comments the clone lists
	}{
		{"padd", testremote.Options{}, []string{"Archived"}},
		{"Aug2026", testremote.Options{Aug2026: true}, []string{"Thread", "Two", "Archived"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			r := testremote.Start(t, tc.opts)
			rapi := r.API()
			if _, err := rapi.CreateWorkspace(ctx, api.WorkspaceCreate{Name: "Team", Slug: "team"}); err != nil {
				t.Fatal(err)
			}
			refs := map[string]string{}
			for _, title := range []string{"Quiet", "One", "Thread", "Two", "Archived"} {
				it, err := rapi.CreateItem(ctx, "team", "tasks", api.ItemCreate{Title: title})
				if err != nil {
					t.Fatal(err)
				}
				refs[title] = it.Ref
			}
			comment := func(title, body, parent string) string {
				c, err := rapi.AddComment(ctx, "team", refs[title], api.CommentCreate{Body: body, ParentID: parent})
				if err != nil {
					t.Fatal(err)
				}
				return c.ID
			}
			link := func(from, to string) {
				target, err := rapi.GetItem(ctx, "team", refs[to])
				if err != nil {
					t.Fatal(err)
				}
				if _, err := rapi.AddLink(ctx, "team", refs[from], api.ItemLinkCreate{TargetID: target.ID, LinkType: model.LinkBlocks}); err != nil {
					t.Fatal(err)
				}
			}
			comment("One", "only one", "")
			top := comment("Thread", "a question", "")
			comment("Thread", "the answer", top)
			comment("Two", "first", "")
			comment("Two", "second", "")
			comment("Archived", "said before the archive", "")
			link("Quiet", "One")
			link("Thread", "Archived")
			link("Archived", "Two")
			if err := rapi.DeleteItem(ctx, "team", refs["Archived"]); err != nil {
				t.Fatal(err)
			}

			l := startLocal(t)
			before := r.Stats()
			if _, err := l.M.Clone(ctx, api.SyncClone{URL: r.URL(), RemoteWorkspace: "team", SyncToken: api.SyncToken{Token: r.Token()}}); err != nil {
				t.Fatal(err)
			}
			l.synced(t, "team")
			after := r.Stats()

			const lists = "GET /api/v1/workspaces/{ws}/items/{ref}/comments"
			if got := after.Requests[lists] - before.Requests[lists]; got != len(tc.listed) {
				t.Errorf("the clone listed the comments of %d items, want %d (%v)", got, len(tc.listed), tc.listed)
			}
			// Links: the archived item's only (the live items' are in the export).
			const linkLists = "GET /api/v1/workspaces/{ws}/items/{ref}/links"
			if got := after.Requests[linkLists] - before.Requests[linkLists]; got != 1 {
				t.Errorf("the clone listed the links of %d items, want 1 (Archived)", got)
			}
			if got := after.Requests["GET /api/v1/workspaces/{ws}/export"] - before.Requests["GET /api/v1/workspaces/{ws}/export"]; got != 1 {
				t.Errorf("the clone read the export %d times, want 1", got)
			}

			// Every comment with its thread, every link, as on the remote.
			for title, want := range map[string][]string{
				"Quiet":    nil,
				"One":      {"only one"},
				"Thread":   {"a question", "the answer ↳ a question"},
				"Two":      {"first", "second"},
				"Archived": {"said before the archive"},
			} {
				cs, err := views.Of(l.Store).ListComments("team", refs[title])
				if err != nil {
					t.Fatalf("%s: %v", title, err)
				}
				body := map[string]string{}
				for _, c := range cs {
					body[c.ID] = c.Body
				}
				var got []string
				for _, c := range cs {
					s := c.Body
					if c.ParentID != "" {
						s += " ↳ " + body[c.ParentID]
					}
					got = append(got, s)
				}
				if !slices.Equal(got, want) {
					t.Errorf("%s's comments here = %q, want %q", title, got, want)
				}
			}
			for title, want := range map[string][]string{
				"Quiet":    {"blocks " + refs["One"]},
				"Thread":   {"blocks " + refs["Archived"]},
				"Archived": {"blocks " + refs["Two"]},
			} {
				views, err := views.Of(l.Store).ListLinks("team", refs[title])
				if err != nil {
					t.Fatalf("%s: %v", title, err)
				}
				var got []string
				for _, v := range views {
					if v.Direction == storage.DirOut {
						got = append(got, fmt.Sprintf("%s %s", v.Type, v.Other.Ref))
					}
				}
				if !slices.Equal(got, want) {
					t.Errorf("%s's links here = %q, want %q", title, got, want)
				}
			}
		})
	}
}

// Pad exports a workspace to its owner only, and answers anyone else's
// export 403: a member's clone reads item by item, and its sync goes on
// (a 403 is not a refused token, which Pad answers 401).
func TestMemberWithoutTheExportClonesAndSyncs(t *testing.T) {
	ctx := context.Background()
	r := testremote.Start(t, testremote.Options{Aug2026: true})
	rapi := r.API()
	if _, err := rapi.CreateWorkspace(ctx, api.WorkspaceCreate{Name: "Team", Slug: "team"}); err != nil {
		t.Fatal(err)
	}
	it, err := rapi.CreateItem(ctx, "team", "tasks", api.ItemCreate{Title: "Shared"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rapi.AddComment(ctx, "team", it.Ref, api.CommentCreate{Body: "said there"}); err != nil {
		t.Fatal(err)
	}
	r.SetFault(func(q *http.Request) testremote.Fault {
		if q.Method == http.MethodGet && strings.HasSuffix(q.URL.Path, "/export") {
			return testremote.Fault{Kind: testremote.Answer, Status: http.StatusForbidden}
		}
		return testremote.Fault{}
	})
	l := startLocal(t)
	if _, err := l.M.Clone(ctx, api.SyncClone{URL: r.URL(), RemoteWorkspace: "team", SyncToken: api.SyncToken{Token: r.Token()}}); err != nil {
		t.Fatal(err)
	}
	l.synced(t, "team")
	cs, err := views.Of(l.Store).ListComments("team", it.Ref)
	if err != nil || len(cs) != 1 {
		t.Fatalf("comments here: %+v, %v", cs, err)
	}
	if _, err := l.M.Now("team"); err != nil { // reads the export again: refused again
		t.Fatal(err)
	}
	if st := l.synced(t, "team"); st.State != api.SyncSynced {
		t.Fatalf("state %s after the export's 403", st.State)
	}
}
