package syncer_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/padd/padd/api"
	"github.com/padd/padd/internal/testremote"
	"github.com/padd/padd/internal/testwait"
	"github.com/padd/padd/storage"
	"github.com/padd/padd/storage/views"
)

// An item's parent travels both ways. Pad keeps a child's parent as an
// item link of type parent: set with fields' "parent", shown as
// parent_ref and parent_link_id, its top-level parent_id a legacy
// column that stays null (the Aug2026 proxy answers so). A child cloned
// comes under its parent; a parent set, changed and cleared here shows
// on the remote as Pad shows it; one changed there arrives here.
func TestParentTravelsAsPadKeepsIt(t *testing.T) {
	for _, aug := range []bool{false, true} {
		t.Run(fmt.Sprintf("aug2026=%v", aug), func(t *testing.T) {
			ctx := context.Background()
			r := testremote.Start(t, testremote.Options{Aug2026: aug})
			rapi := r.API() // padd behind the proxy, directly
			if _, err := rapi.CreateWorkspace(ctx, api.WorkspaceCreate{Name: "Team", Slug: "team"}); err != nil {
				t.Fatal(err)
			}
			mk := func(title string, fields map[string]any) *api.Item {
				in := api.ItemCreate{Title: title}
				if fields != nil {
					in.Fields = mustFlex(t, fields)
				}
				it, err := rapi.CreateItem(ctx, "team", "tasks", in)
				if err != nil {
					t.Fatal(err)
				}
				return it
			}
			a := mk("Plan A", nil)
			b := mk("Plan B", nil)
			child := mk("Child", map[string]any{"parent": a.Ref})
			grand := mk("Grandchild", map[string]any{"parent": child.Ref})

			// What Pad shows, read through the proxy as padd reads it.
			wire := api.NewClient(r.URL(), r.Token())
			shown := func(ref string) (string, error) {
				it, err := wire.GetItem(ctx, "team", ref)
				if err != nil {
					return "", err
				}
				if aug && it.ParentID != nil {
					return "", fmt.Errorf("%s: parent_id %q, Pad's legacy column, is set", ref, *it.ParentID)
				}
				return it.ParentRef, nil
			}
			if p, err := shown(child.Ref); err != nil || p != a.Ref {
				t.Fatalf("the remote shows %s under %q (%v), want %s", child.Ref, p, err, a.Ref)
			}

			l := startLocal(t)
			if _, err := l.M.Clone(ctx, api.SyncClone{URL: r.URL(), RemoteWorkspace: "team", SyncToken: api.SyncToken{Token: r.Token()}}); err != nil {
				t.Fatal(err)
			}
			l.synced(t, "team")
			parentHere := func(ref string) string {
				v, err := views.Of(l.Store).GetItem("team", ref)
				if err != nil {
					t.Fatal(err)
				}
				return v.ParentRef
			}
			if got := parentHere(child.Ref); got != a.Ref {
				t.Errorf("cloned: %s is under %q here, want %s", child.Ref, got, a.Ref)
			}
			if got := parentHere(grand.Ref); got != child.Ref {
				t.Errorf("cloned: %s is under %q here, want %s", grand.Ref, got, child.Ref)
			}

			// Set, changed and cleared here.
			made, err := l.Store.CreateItem("team", storage.ItemCreate{Collection: "tasks", Title: "Made here", Parent: a.Ref}, user)
			if err != nil {
				t.Fatal(err)
			}
			l.synced(t, "team")
			mine := made.Item.ID
			remoteRef := func() string {
				v, err := views.Of(l.Store).GetItem("team", mine)
				if err != nil {
					t.Fatal(err)
				}
				return v.Ref // the remote's number, adopted
			}
			for _, step := range []struct {
				what   string
				ref    string // the item changed here
				parent string // "" clears
			}{
				{"a child made here", "", a.Ref},
				{"a parent changed here", child.Ref, b.Ref},
				{"a parent set here", b.Ref, a.Ref},
				{"a parent cleared here", child.Ref, ""},
			} {
				ref := step.ref
				if ref == "" {
					ref = remoteRef()
				} else {
					p := step.parent
					up := storage.ItemUpdate{Parent: &p}
					if p == "" {
						up = storage.ItemUpdate{ClearParent: true}
					}
					if _, err := l.Store.UpdateItem("team", ref, up, user); err != nil {
						t.Fatalf("%s: %v", step.what, err)
					}
					l.synced(t, "team")
				}
				if p, err := shown(ref); err != nil || p != step.parent {
					t.Errorf("%s: the remote shows %s under %q (%v), want %q", step.what, ref, p, err, step.parent)
				}
			}

			// Changed there, as Pad's clients change it.
			for _, step := range []struct {
				what, ref, parent string
			}{
				{"a parent set there", child.Ref, b.Ref},
				{"a parent changed there", grand.Ref, a.Ref},
				{"a parent cleared there", b.Ref, ""},
			} {
				if _, err := rapi.UpdateItem(ctx, "team", step.ref, api.ItemUpdate{FieldsPatch: mustFlex(t, map[string]any{"parent": step.parent})}); err != nil {
					t.Fatalf("%s: %v", step.what, err)
				}
				if _, err := l.M.Now("team"); err != nil {
					t.Fatal(err)
				}
				testwait.UntilOK(t, func() error {
					if got := parentHere(step.ref); got != step.parent {
						return fmt.Errorf("%s: %s is under %q here, want %q", step.what, step.ref, got, step.parent)
					}
					return nil
				})
			}
			l.synced(t, "team")
			if n := l.conflicts(t); n != 0 {
				t.Errorf("%d conflicts, want none", n)
			}
		})
	}
}

func mustFlex(t *testing.T, v any) api.Flex {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return api.Flex(b)
}

// A Pad without the seq feed is followed by /changes, whose rows name
// no parent link there: a row that may hide one (an item new here, a
// parent_id that is not the base's) is read whole, so a child made there
// and a parent changed there arrive under their parents.
func TestParentWithoutSeqFeed(t *testing.T) {
	ctx := context.Background()
	r := testremote.Start(t, testremote.Options{Aug2026: true})
	r.SetFault(func(q *http.Request) testremote.Fault {
		if strings.HasSuffix(q.URL.Path, "/items-changes") || strings.HasSuffix(q.URL.Path, "/items-index") {
			return testremote.Fault{Kind: testremote.Answer, Status: http.StatusNotFound}
		}
		return testremote.Fault{}
	})
	l := cloned(t, r)
	rapi := r.API()
	made := l.madeThere(t, r, api.ItemCreate{Title: "Plan A"}, api.ItemCreate{Title: "Plan B"})
	a, b := made[0], made[1]
	child, err := rapi.CreateItem(ctx, "team", "tasks", api.ItemCreate{Title: "Child", Fields: mustFlex(t, map[string]any{"parent": a.Ref})})
	if err != nil {
		t.Fatal(err)
	}
	under := func(what, ref, want string) {
		t.Helper()
		if _, err := l.M.Now("team"); err != nil {
			t.Fatal(err)
		}
		testwait.UntilOK(t, func() error {
			v, err := views.Of(l.Store).GetItem("team", ref)
			if err != nil {
				return err
			}
			if v.ParentRef != want {
				return fmt.Errorf("%s: %s is under %q here, want %q", what, ref, v.ParentRef, want)
			}
			return nil
		})
	}
	under("made there", child.Ref, a.Ref)
	if _, err := rapi.UpdateItem(ctx, "team", child.Ref, api.ItemUpdate{FieldsPatch: mustFlex(t, map[string]any{"parent": b.Ref})}); err != nil {
		t.Fatal(err)
	}
	under("changed there", child.Ref, b.Ref)
	title := "Child, renamed"
	if _, err := rapi.UpdateItem(ctx, "team", child.Ref, api.ItemUpdate{Title: &title}); err != nil {
		t.Fatal(err)
	}
	testwait.UntilOK(t, func() error {
		v, err := views.Of(l.Store).GetItem("team", child.Ref)
		if err != nil {
			return err
		}
		if v.Title != title {
			return fmt.Errorf("the rename has not arrived: %q", v.Title)
		}
		return nil
	})
	under("renamed there", child.Ref, b.Ref)
}
