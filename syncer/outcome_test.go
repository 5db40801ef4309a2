package syncer_test

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/padd/padd/api"
	"github.com/padd/padd/internal/testremote"
	"github.com/padd/padd/internal/testwait"
	"github.com/padd/padd/model"
	"github.com/padd/padd/storage"
	"github.com/padd/padd/storage/syncstate"
	"github.com/padd/padd/storage/views"
	"github.com/padd/padd/syncer"
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
			v, err := views.Of(l.Store).GetItem("team", res.Item.ID)
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

// A create whose answer is lost is still recognised when it is renamed,
// moved, or renamed with a line edited on the remote before padd looks
// for it (by its content and tags; in another collection; by most of its
// lines), and when it is renamed or moved here
// meanwhile (by what was sent): the remote ends with one copy either
// way, with the edit. Against the Pad of August 2026, which keeps no
// idempotency keys, and renamed here against a server that keeps them
// (the create sent again with its key differs from the first).
func TestLostCreateEditedMeanwhileMakesNoDuplicate(t *testing.T) {
	for _, tc := range []struct {
		edit, where string
		aug         bool
	}{
		{"renamed", "there", true}, {"renamed", "here", true}, {"renamed", "here", false},
		{"moved", "there", true}, {"moved", "here", true}, {"rewritten", "there", true},
	} {
		where := tc.where
		name := tc.edit + " " + where
		if !tc.aug {
			name += " with keys"
		}
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			r := testremote.Start(t, testremote.Options{Aug2026: tc.aug})
			l := cloned(t, r)
			const sent = "the body\nsecond line\nthird line\n"
			title, coll, content := "Sent once", "tasks", sent
			switch tc.edit {
			case "renamed":
				title = "Renamed " + where
			case "moved":
				coll = "ideas"
			case "rewritten": // the title and a line: most lines stay
				title, content = "Rewritten "+where, "the body, edited\nsecond line\nthird line\n"
			}
			var localID atomic.Value
			var dropped, edited atomic.Bool
			isCreate := func(q *http.Request) bool {
				return q.Method == "POST" && strings.HasSuffix(q.URL.Path, "/items")
			}
			drop := testremote.Once(isCreate, testremote.Fault{Kind: testremote.DropAfter})
			// With keys, Go's transport sends the create again at once by
			// itself, as it was: that one is dropped unsent, so the engine
			// sends it again, renamed, with its key.
			var resent atomic.Bool
			r.SetFault(func(q *http.Request) testremote.Fault {
				if !tc.aug && dropped.Load() && isCreate(q) && resent.CompareAndSwap(false, true) {
					return testremote.Fault{Kind: testremote.DropBefore}
				}
				if f := drop(q); f.Kind != testremote.Pass {
					// Edited here while the create is out: padd looks for
					// what it sent, not what the item says now.
					if where == "here" && edited.CompareAndSwap(false, true) {
						var err error
						if tc.edit == "renamed" {
							_, err = l.Store.UpdateItem("team", localID.Load().(string), storage.ItemUpdate{Title: &title}, user)
						} else {
							_, err = l.Store.MoveItem("team", localID.Load().(string), storage.MoveInput{Target: coll, Force: true}, user)
						}
						if err != nil {
							t.Error(err)
						}
					}
					dropped.Store(true)
					return f
				}
				// Edited there before padd's first read after the lost answer.
				if where == "here" || !dropped.Load() || q.Method != "GET" || !strings.HasSuffix(q.URL.Path, "/items-changes") || !edited.CompareAndSwap(false, true) {
					return testremote.Fault{}
				}
				items, _, err := r.API().ListItems(ctx, "team", "tasks", api.ItemQuery{})
				if err != nil {
					t.Error(err)
					return testremote.Fault{}
				}
				for _, it := range items {
					if it.Title != "Sent once" {
						continue
					}
					switch tc.edit {
					case "renamed":
						_, err = r.API().UpdateItem(ctx, "team", it.ID, api.ItemUpdate{Title: &title})
					case "moved":
						_, err = r.API().MoveItem(ctx, "team", it.ID, api.ItemMove{TargetCollection: coll, Force: true})
					case "rewritten":
						_, err = r.API().UpdateItem(ctx, "team", it.ID, api.ItemUpdate{Title: &title, Content: &content})
					}
					if err != nil {
						t.Error(err)
					}
				}
				return testremote.Fault{}
			})
			res, err := l.Store.CreateItem("team", storage.ItemCreate{Collection: "tasks", Title: "Sent once", Content: sent}, user)
			if err != nil {
				t.Fatal(err)
			}
			localID.Store(res.Item.ID)
			st := l.synced(t, "team")
			if !edited.Load() {
				t.Fatal("the remote was not read after the lost answer")
			}
			if st.SetAside > 0 {
				t.Errorf("%d changes set aside, want none", st.SetAside)
			}
			// One copy on each side, with the edit made on one side only.
			var there []api.Item
			for _, c := range []string{"tasks", "ideas"} {
				items, _, err := r.API().ListItems(ctx, "team", c, api.ItemQuery{})
				if err != nil {
					t.Fatal(err)
				}
				for _, it := range items {
					if strings.Contains(it.Content, "second line") {
						there = append(there, it)
					}
				}
			}
			if len(there) != 1 {
				t.Fatalf("%d copies on the remote, want 1: %+v", len(there), there)
			}
			if there[0].Title != title || there[0].CollectionSlug != coll || there[0].Content != content {
				t.Errorf("the remote's copy is %q in %s (%q), want %q in %s (%q)", there[0].Title, there[0].CollectionSlug, there[0].Content, title, coll, content)
			}
			testwait.UntilOK(t, func() error {
				n := 0
				for _, c := range []string{"tasks", "ideas"} {
					here, err := views.Of(l.Store).ListItems(ctx, "team", storage.ListParams{Collection: c, WithContent: true})
					if err != nil {
						return err
					}
					for _, v := range here.Items {
						if strings.Contains(v.Content, "second line") {
							n++
						}
					}
				}
				if n != 1 {
					return fmt.Errorf("%d copies here, want 1", n)
				}
				v, err := views.Of(l.Store).GetItem("team", localID.Load().(string))
				if err != nil {
					return err
				}
				if v.Title != title || v.Collection.Slug != coll || v.Content != content {
					return fmt.Errorf("the item here is %q in %s (%q), want %q in %s (%q)", v.Title, v.Collection.Slug, v.Content, title, coll, content)
				}
				return nil
			})
		})
	}
}

// A comment edited here while its create's answer is lost. With
// idempotency keys the create is sent again as it first went (the
// server answers a key only for the same request); without (the Pad of
// August 2026) padd looks for the body it sent, not the edited one. The
// edit follows either way: one comment on each side, with the edit.
func TestLostCommentEditedMeanwhileMakesNoDuplicate(t *testing.T) {
	for _, aug := range []bool{false, true} {
		t.Run(fmt.Sprintf("aug2026=%v", aug), func(t *testing.T) { lostCommentEditedMeanwhile(t, aug) })
	}
}

func lostCommentEditedMeanwhile(t *testing.T, aug bool) {
	ctx := context.Background()
	r := testremote.Start(t, testremote.Options{Aug2026: aug})
	l := cloned(t, r)
	made, err := l.Store.CreateItem("team", storage.ItemCreate{Collection: "tasks", Title: "Talked about"}, user)
	if err != nil {
		t.Fatal(err)
	}
	l.synced(t, "team")
	isComment := func(q *http.Request) bool { return q.Method == "POST" && strings.HasSuffix(q.URL.Path, "/comments") }
	var commentID atomic.Value
	var dropped, resent atomic.Bool
	r.SetFault(func(q *http.Request) testremote.Fault {
		if !isComment(q) {
			return testremote.Fault{}
		}
		if dropped.CompareAndSwap(false, true) {
			if _, err := l.Store.EditComment("team", made.Item.ID, commentID.Load().(string), "said, then edited", user); err != nil {
				t.Error(err)
			}
			return testremote.Fault{Kind: testremote.DropAfter}
		}
		if !aug && resent.CompareAndSwap(false, true) {
			return testremote.Fault{Kind: testremote.DropBefore} // Go's transport's own resend (a POST with a key)
		}
		return testremote.Fault{}
	})
	res, err := l.Store.AddComment("team", made.Item.ID, storage.CommentCreate{Body: "said once"}, user)
	if err != nil {
		t.Fatal(err)
	}
	commentID.Store(res.Comment.ID)
	st := l.synced(t, "team")
	if !dropped.Load() {
		t.Fatal("the comment's create was not sent")
	}
	if st.SetAside > 0 {
		t.Errorf("%d changes set aside, want none", st.SetAside)
	}
	it, err := views.Of(l.Store).GetItem("team", made.Item.ID)
	if err != nil {
		t.Fatal(err)
	}
	rcs, err := r.API().ListComments(ctx, "team", it.Ref)
	if err != nil {
		t.Fatal(err)
	}
	if len(rcs) != 1 || rcs[0].Body != "said, then edited" {
		t.Errorf("the remote's comments = %+v, want one, edited", rcs)
	}
	lcs, err := views.Of(l.Store).ListComments("team", made.Item.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(lcs) != 1 {
		t.Errorf("%d comments here, want 1", len(lcs))
	}
}

// A create the remote surely did not make (its rate limiter turned it
// away on every try, or it answered 503) keeps no in-flight record:
// the next try sends it at once, where against the Pad of August 2026 a
// record would have it wait out the settle delay and look for it first.
func TestCreateNotMadeIsNotLookedFor(t *testing.T) {
	for _, status := range []int{http.StatusTooManyRequests, http.StatusServiceUnavailable} {
		t.Run(fmt.Sprint(status), func(t *testing.T) {
			r := testremote.Start(t, testremote.Options{Aug2026: true})
			l := cloned(t, r)
			syncer.SetBackoff(l.M, func(int) time.Duration { return time.Hour })
			r.SetFault(func(q *http.Request) testremote.Fault {
				if q.Method == http.MethodPost && strings.HasSuffix(q.URL.Path, "/collections/tasks/items") {
					return testremote.Fault{Kind: testremote.Answer, Status: status}
				}
				return testremote.Fault{}
			})
			l.write(t, "turned away")
			l.state(t, api.SyncOffline)
			ws, err := views.Of(l.Store).GetWorkspace("team")
			if err != nil {
				t.Fatal(err)
			}
			if f, err := syncstate.Of(l.Store).SyncInFlight(ws.ID); err != nil || f != nil {
				t.Fatalf("after a create the remote did not make, the in-flight record is %+v (%v)", f, err)
			}
			r.SetFault(nil)
			if _, err := l.M.Now("team"); err != nil {
				t.Fatal(err)
			}
			l.synced(t, "team")
			items, _, err := r.API().ListItems(context.Background(), "team", "tasks", api.ItemQuery{})
			if err != nil || len(items) != 1 || items[0].Title != "turned away" {
				t.Fatalf("the remote's tasks = %+v, %v", items, err)
			}
		})
	}
}

// A create whose answer was lost, when the read that looks for it on
// the remote fails (the remote down for a moment), is looked for again
// next time: the in-flight record stays until padd knows. Against the
// Pad of August 2026, which keeps no idempotency keys.
func TestLostCreateLookedForAgainAfterAFailedRead(t *testing.T) {
	ctx := context.Background()
	r := testremote.Start(t, testremote.Options{Aug2026: true})
	l := cloned(t, r)
	var dropped, failed atomic.Bool
	r.SetFault(func(q *http.Request) testremote.Fault {
		if q.Method == http.MethodPost && strings.HasSuffix(q.URL.Path, "/collections/tasks/items") && dropped.CompareAndSwap(false, true) {
			return testremote.Fault{Kind: testremote.DropAfter}
		}
		if dropped.Load() && q.Method == http.MethodGet && strings.HasSuffix(q.URL.Path, "/items-changes") && failed.CompareAndSwap(false, true) {
			return testremote.Fault{Kind: testremote.Answer, Status: http.StatusServiceUnavailable}
		}
		return testremote.Fault{}
	})
	l.write(t, "looked for twice")
	l.synced(t, "team")
	if !failed.Load() {
		t.Fatal("the read after the lost answer did not fail")
	}
	items, _, err := r.API().ListItems(ctx, "team", "tasks", api.ItemQuery{})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, it := range items {
		if it.Title == "looked for twice" {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%d copies on the remote, want 1", n)
	}
}

// TestPullGoesOnWhileALostCreateSettles: against the Pad of August 2026
// (no idempotency keys) a create whose answer was lost waits for its
// settle time before padd looks for it on the remote. Meanwhile the
// team's work still arrives: the pull goes on. A pull that meets the
// lost item adopts it (no copy on either side), and the push goes on
// too. One that meets an item that may be it (renamed there, a line
// edited) stops there until the settle time: it is not taken for a new
// one. A lost comment holds back only its item's comments, and a lost
// upload the remote's attachments; they are read once it is settled
// (no copy of either here or there).
func TestPullGoesOnWhileALostCreateSettles(t *testing.T) {
	for _, tc := range []struct {
		name                     string
		comment, upload, renamed bool
	}{
		{"item", false, false, false},
		{"item renamed there", false, false, true},
		{"comment", true, false, false},
		{"upload", false, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			r := testremote.Start(t, testremote.Options{Aug2026: true})
			l := cloned(t, r)
			made := l.madeThere(t, r, api.ItemCreate{Title: "Commented"}, api.ItemCreate{Title: "Other"})
			commented, other := made[0], made[1]
			l.stop()
			l.settle = time.Hour
			l.run(t)

			path := "/collections/tasks/items"
			switch {
			case tc.comment:
				path = "/items/" + commented.ID + "/comments"
			case tc.upload:
				path = "/attachments"
			}
			var dropped, feedShut, pulledLost atomic.Bool
			var lostID atomic.Value // the renamed item's remote id
			var exports, lists atomic.Int32
			r.SetFault(func(q *http.Request) testremote.Fault {
				if q.Method == http.MethodGet && strings.HasSuffix(q.URL.Path, "/export") {
					exports.Add(1)
				}
				if q.Method == http.MethodGet && strings.HasSuffix(q.URL.Path, "/attachments") {
					lists.Add(1)
				}
				if id, _ := lostID.Load().(string); id != "" && q.Method == http.MethodGet && strings.HasSuffix(q.URL.Path, "/items/"+id) {
					pulledLost.Store(true)
				}
				if q.Method == http.MethodPost && strings.HasSuffix(q.URL.Path, path) && dropped.CompareAndSwap(false, true) {
					feedShut.Store(tc.renamed) // until the remote has renamed it
					return testremote.Fault{Kind: testremote.DropAfter}
				}
				if feedShut.Load() && strings.HasSuffix(q.URL.Path, "/items-changes") {
					return testremote.Fault{Kind: testremote.Answer, Status: http.StatusServiceUnavailable}
				}
				return testremote.Fault{}
			})
			var file *storage.Attachment
			if tc.comment {
				if _, err := l.Store.AddComment("team", commented.Ref, storage.CommentCreate{Body: "answer lost"}, user); err != nil {
					t.Fatal(err)
				}
			} else if tc.upload {
				file = l.attachLocal(t, "team", commented.Ref, "lost.png", pngOf(t, 7))
			} else if _, err := l.Store.CreateItem("team", storage.ItemCreate{Collection: "tasks", Title: "answer lost", Content: "line 1\nline 2\nline 3\n"}, user); err != nil {
				t.Fatal(err)
			}
			testwait.Until(t, "the create to be sent", dropped.Load)
			lost := "answer lost"
			if tc.renamed {
				// The fault hook saw the request before padd made the item.
				var landed string
				testwait.UntilOK(t, func() error {
					items, _, err := r.API().ListItems(ctx, "team", "tasks", api.ItemQuery{})
					if err != nil {
						return err
					}
					i := slices.IndexFunc(items, func(it api.Item) bool { return it.Title == lost })
					if i < 0 {
						return fmt.Errorf("the create has not landed")
					}
					landed = items[i].ID
					return nil
				})
				lostID.Store(landed)
				lost = "answer lost, renamed there"
				content := "line 1 there\nline 2\nline 3\n"
				if _, err := r.API().UpdateItem(ctx, "team", landed, api.ItemUpdate{Title: &lost, Content: &content}); err != nil {
					t.Fatal(err)
				}
			}
			if tc.comment {
				if _, err := r.API().AddComment(ctx, "team", commented.ID, api.CommentCreate{Body: "theirs"}); err != nil {
					t.Fatal(err)
				}
			}
			title := "Other, edited there"
			if _, err := r.API().UpdateItem(ctx, "team", other.ID, api.ItemUpdate{Title: &title}); err != nil {
				t.Fatal(err)
			}
			if tc.renamed {
				// The pull meets the renamed item and waits there; the
				// settle time finds it and adopts it.
				feedShut.Store(false)
				if _, err := l.M.Now("team"); err != nil {
					t.Fatal(err)
				}
				testwait.Until(t, "the pull to meet the renamed item", pulledLost.Load)
				l.stop()
				l.settle = 0
				l.run(t)
			}
			testwait.UntilOK(t, func() error {
				v, err := views.Of(l.Store).GetItem("team", other.Ref)
				if err != nil || v.Title != title {
					return fmt.Errorf("the remote's edit has not arrived: %v, %v", v, err)
				}
				return nil
			})

			if tc.comment || tc.upload {
				// What the upload may have made waits for the settle
				// time: then it is found, the remote's arrive, and
				// nothing is doubled. A comment's create is looked for
				// at once: it landed, so it is adopted long before the
				// settle time, and the remote's comment arrives beside it.
				if tc.comment {
					testwait.UntilOK(t, func() error {
						lcs, err := views.Of(l.Store).ListComments("team", commented.Ref)
						if err != nil || len(lcs) != 2 {
							return fmt.Errorf("comments here before the settle time: %+v, %v; want ours and theirs", lcs, err)
						}
						return nil
					})
				}
				if tc.upload {
					// sync now asks for the remote's links and
					// attachments: the links are read, the attachments
					// wait. The second one's cycle begins once the
					// first's has ended.
					lists.Store(0)
					for i := range int32(2) {
						had := exports.Load()
						if _, err := l.M.Now("team"); err != nil {
							t.Fatal(err)
						}
						testwait.Until(t, fmt.Sprintf("export read %d", i+1), func() bool { return exports.Load() > had })
					}
					if n := lists.Load(); n > 0 {
						t.Errorf("the remote's attachments were listed %d times while an upload's answer was lost", n)
					}
				}
				l.stop()
				l.settle = 0
				l.run(t)
				l.synced(t, "team")
				if tc.upload {
					n := 0
					for _, ra := range remoteAttachments(t, r.API(), "team") {
						if ra.ContentHash == file.Hash {
							n++
						}
					}
					here, err := views.Of(l.Store).ListAttachments("team", storage.AttachmentFilter{})
					if n != 1 || err != nil || len(here.Attachments) != 1 {
						t.Errorf("%d copies of the upload there, %d here (%v), want 1 and 1", n, len(here.Attachments), err)
					}
					return
				}
				lcs, err := views.Of(l.Store).ListComments("team", commented.Ref)
				if err != nil || len(lcs) != 2 {
					t.Errorf("comments here: %+v, %v; want ours and theirs", lcs, err)
				}
				rcs, err := r.API().ListComments(ctx, "team", commented.ID)
				if err != nil || len(rcs) != 2 {
					t.Errorf("comments there: %+v, %v; want ours and theirs", rcs, err)
				}
				return
			}
			// Without the rename the pull met the create's item and
			// adopted it: the push goes on long before the settle time.
			l.synced(t, "team")
			here, err := views.Of(l.Store).ListItems(ctx, "team", storage.ListParams{Collection: "tasks"})
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, v := range here.Items {
				if strings.HasPrefix(v.Title, "answer lost") {
					ids = append(ids, v.ID)
					if v.Title != lost {
						t.Errorf("the lost create is %q here, want %q", v.Title, lost)
					}
				}
			}
			if len(ids) != 1 {
				t.Fatalf("%d copies here of the lost create, want 1", len(ids))
			}
			edited := lost + ", then edited"
			if _, err := l.Store.UpdateItem("team", ids[0], storage.ItemUpdate{Title: &edited}, user); err != nil {
				t.Fatal(err)
			}
			l.synced(t, "team")
			items, _, err := r.API().ListItems(ctx, "team", "tasks", api.ItemQuery{})
			if err != nil {
				t.Fatal(err)
			}
			var titles []string
			for _, it := range items {
				titles = append(titles, it.Title)
			}
			slices.Sort(titles)
			if want := slices.Sorted(slices.Values([]string{edited, "Commented", title})); !slices.Equal(titles, want) {
				t.Errorf("the remote's items: %q, want %q", titles, want)
			}
		})
	}
}

// A comment whose create met an accept-and-close outage (a proxy in
// front of a stopped Pad): its outcome is unknown, and meanwhile a
// teammate wrote the same words on the same item. The teammate's comment
// is never taken for padd's (its user_id is another user's): padd's is
// sent again, and both sides hold both.
func TestTeammatesSameWordsAreNotTakenForPadds(t *testing.T) {
	ctx := context.Background()
	r := testremote.Start(t, testremote.Options{Aug2026: true})
	l := cloned(t, r)
	made, err := l.Store.CreateItem("team", storage.ItemCreate{Collection: "tasks", Title: "Reviewed"}, user)
	if err != nil {
		t.Fatal(err)
	}
	l.synced(t, "team")
	it, err := views.Of(l.Store).GetItem("team", made.Item.ID)
	if err != nil {
		t.Fatal(err)
	}
	var dropped atomic.Bool
	r.SetFault(func(q *http.Request) testremote.Fault {
		if q.Method != "POST" || !strings.HasSuffix(q.URL.Path, "/comments") || !dropped.CompareAndSwap(false, true) {
			return testremote.Fault{}
		}
		if _, err := r.Teammate().AddComment(ctx, "team", it.Ref, api.CommentCreate{Body: "LGTM"}); err != nil {
			t.Error(err)
		}
		return testremote.Fault{Kind: testremote.DropBefore}
	})
	if _, err := l.Store.AddComment("team", made.Item.ID, storage.CommentCreate{Body: "LGTM"}, user); err != nil {
		t.Fatal(err)
	}
	l.synced(t, "team")
	if !dropped.Load() {
		t.Fatal("the comment's create was not sent")
	}
	testwait.UntilOK(t, func() error {
		rcs, err := r.Teammate().ListComments(ctx, "team", it.Ref) // through the proxy, which knows who wrote what
		if err != nil {
			return err
		}
		var authors []string
		for _, c := range rcs {
			if c.Body == "LGTM" {
				authors = append(authors, c.UserID)
			}
		}
		sort.Strings(authors)
		if got := strings.Join(authors, ","); got != "local,"+testremote.TeammateUserID {
			return fmt.Errorf("the remote's LGTMs are by %q, want padd's user's and the teammate's", got)
		}
		lcs, err := views.Of(l.Store).ListComments("team", made.Item.ID)
		if err != nil {
			return err
		}
		if len(lcs) != 2 {
			return fmt.Errorf("%d comments here, want 2", len(lcs))
		}
		return nil
	})
}

// A returning laptop: a comment's create met an outage of the
// accept-and-close kind (a proxy in front of a stopped Pad), so its
// outcome is unknown. The failure came fast, so padd waits only
// quickSettle for a server that did take it, not the whole settle time
// (here ten minutes); meanwhile status says what the push waits for and
// until when. Then the comment is looked for, not found, and sent.
func TestFastFailureSettlesQuickly(t *testing.T) {
	ctx := context.Background()
	r := testremote.Start(t, testremote.Options{Aug2026: true})
	l := cloned(t, r)
	l.stop()
	l.settle = 10 * time.Minute
	l.run(t)
	syncer.SetBackoff(l.M, func(int) time.Duration { return 200 * time.Millisecond })
	made, err := l.Store.CreateItem("team", storage.ItemCreate{Collection: "tasks", Title: "Back online"}, user)
	if err != nil {
		t.Fatal(err)
	}
	l.synced(t, "team")
	it, err := views.Of(l.Store).GetItem("team", made.Item.ID)
	if err != nil {
		t.Fatal(err)
	}
	// The outage meets the comment's create; the remote is back at once
	// (an outage longer than quickSettle ends with the wait over).
	var dropped atomic.Bool
	r.SetFault(func(q *http.Request) testremote.Fault {
		if q.Method == "POST" && strings.HasSuffix(q.URL.Path, "/comments") && dropped.CompareAndSwap(false, true) {
			return testremote.Fault{Kind: testremote.DropBefore}
		}
		return testremote.Fault{}
	})
	if _, err := l.Store.AddComment("team", made.Item.ID, storage.CommentCreate{Body: "written on the train"}, user); err != nil {
		t.Fatal(err)
	}
	var st api.SyncStatus
	testwait.UntilOK(t, func() error {
		s, err := l.M.Status("team")
		if err != nil {
			return err
		}
		if st = s[0]; !strings.Contains(st.Waiting, "comment") || st.NextTry == nil {
			return fmt.Errorf("status says it waits for %q until %v", st.Waiting, st.NextTry)
		}
		return nil
	})
	// The first push after the remote is back starts within five
	// seconds of the failure (issue 40's returning laptop).
	if wait := time.Until(*st.NextTry); wait > 5*time.Second {
		t.Errorf("the push waits %s after a fast failure, want at most 5s", wait.Round(time.Second))
	}
	testwait.UntilOK(t, func() error {
		rcs, err := r.API().ListComments(ctx, "team", it.Ref)
		if err != nil {
			return err
		}
		if len(rcs) != 1 || rcs[0].Body != "written on the train" {
			return fmt.Errorf("the remote's comments: %+v", rcs)
		}
		return nil
	})
	l.synced(t, "team")
}

// A create whose answer was lost longer ago than a server keeps
// idempotency keys (a laptop shut for a weekend after the connection
// failed) is not sent again with its key, which the server may have
// forgotten: it is looked for first, found and adopted, and the remote
// keeps one copy.
func TestKeyedCreateOlderThanTheKeysLifeIsLookedForFirst(t *testing.T) {
	ctx := context.Background()
	r := testremote.Start(t, testremote.Options{})
	l := cloned(t, r)
	var dropped, shut atomic.Bool
	var posts atomic.Int32
	r.SetFault(func(q *http.Request) testremote.Fault {
		isCreate := q.Method == http.MethodPost && strings.HasSuffix(q.URL.Path, "/items")
		if isCreate {
			posts.Add(1)
		}
		if isCreate && dropped.CompareAndSwap(false, true) {
			shut.Store(true) // the laptop goes away with the answer lost
			return testremote.Fault{Kind: testremote.DropAfter}
		}
		if shut.Load() {
			return testremote.Fault{Kind: testremote.Answer, Status: http.StatusServiceUnavailable}
		}
		return testremote.Fault{}
	})
	res, err := l.Store.CreateItem("team", storage.ItemCreate{Collection: "tasks", Title: "Sent on Friday", Content: "x\n"}, user)
	if err != nil {
		t.Fatal(err)
	}
	var f *storage.SyncInFlight
	testwait.UntilOK(t, func() error {
		if f, err = syncstate.Of(l.Store).SyncInFlight("team"); err != nil || f == nil || !dropped.Load() {
			return fmt.Errorf("the create is not in flight with its answer lost (%v)", err)
		}
		return nil
	})
	l.stop()
	// Monday: the record is older than the key's life.
	f.SentAt = f.SentAt.Add(-25 * time.Hour)
	if !f.ServerSentAt.IsZero() {
		f.ServerSentAt = f.ServerSentAt.Add(-25 * time.Hour)
	}
	if err := syncstate.Of(l.Store).SetSyncInFlight("team", *f); err != nil {
		t.Fatal(err)
	}
	shut.Store(false)
	posts.Store(0)
	l.run(t)
	l.synced(t, "team")
	if n := posts.Load(); n != 0 {
		t.Errorf("the create was sent again %d times with a key the server may have forgotten, want looked for first", n)
	}
	items, _, err := r.API().ListItems(ctx, "team", "tasks", api.ItemQuery{})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, it := range items {
		if it.Title == "Sent on Friday" {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%d copies on the remote, want 1", n)
	}
	if v, err := views.Of(l.Store).GetItem("team", res.Item.ID); err != nil || v.Number <= 0 {
		t.Errorf("padd's item was not adopted: %+v, %v", v, err)
	}
}
