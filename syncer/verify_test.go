package syncer_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/padd/padd/api"
	"github.com/padd/padd/internal/testremote"
	"github.com/padd/padd/internal/testwait"
	"github.com/padd/padd/model"
	"github.com/padd/padd/storage"
	"github.com/padd/padd/storage/syncstate"
	"github.com/padd/padd/storage/views"
)

// verified runs a verify of "team" and fails the test on an error.
func (l *local) verified(t *testing.T) *api.SyncVerify {
	t.Helper()
	var calls atomic.Int64 // progress is heard from the verify's readers
	out, err := l.M.Verify(t.Context(), "team", func(done, total int) {
		calls.Add(1)
		if done > total {
			t.Errorf("progress %d of %d", done, total)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if calls.Load() == 0 {
		t.Error("the verify never reported its progress")
	}
	return out
}

// equalNow waits until a verify of "team" finds both sides equal (the
// sync may still be bringing the last change), and answers it.
func (l *local) equalNow(t *testing.T) *api.SyncVerify {
	t.Helper()
	var v *api.SyncVerify
	testwait.UntilOK(t, func() error {
		v = l.verified(t)
		if !v.Equal {
			return fmt.Errorf("verify: %s", verifyWords(v))
		}
		return nil
	})
	return v
}

func verifyWords(v *api.SyncVerify) string {
	var out []string
	for _, d := range v.Differences {
		out = append(out, d.Words)
	}
	return fmt.Sprintf("pending %d, %d differences: %s", v.Pending, len(v.Differences), strings.Join(out, "; "))
}

// parts are a verify's differences as "kind ref part".
func parts(ds []api.SyncDifference) []string {
	out := []string{}
	for _, d := range ds {
		out = append(out, d.Kind+" "+d.Ref+" "+d.Part)
	}
	slices.Sort(out)
	return out
}

// A verify after a clean clone finds the two sides equal, having compared
// every kind of entity; a change made on the remote while the sync is
// paused, an item and a comment edit made here, are each reported as
// exactly that difference, in words; once the sync runs again the two
// sides are equal again. The remote answers as the Pad of August 2026
// (its export flattens replies and lists parent links, whole-second
// times).
func TestVerify(t *testing.T) {
	r := testremote.Start(t, testremote.Options{Aug2026: true})
	ctx := context.Background()
	rapi := r.API()
	if _, err := rapi.CreateWorkspace(ctx, api.WorkspaceCreate{Name: "Team", Slug: "team"}); err != nil {
		t.Fatal(err)
	}
	a, err := rapi.CreateItem(ctx, "team", "tasks", api.ItemCreate{Title: "Anchor", Content: "line one\nline two\n",
		Tags: api.Flex(`["x","y"]`), Fields: api.Flex(`{"priority":"high"}`)})
	if err != nil {
		t.Fatal(err)
	}
	b, err := rapi.CreateItem(ctx, "team", "tasks", api.ItemCreate{Title: "Child", Parent: &a.Ref})
	if err != nil {
		t.Fatal(err)
	}
	c, err := rapi.CreateItem(ctx, "team", "tasks", api.ItemCreate{Title: "Other"})
	if err != nil {
		t.Fatal(err)
	}
	first, err := rapi.AddComment(ctx, "team", a.Ref, api.CommentCreate{Body: "first"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rapi.AddComment(ctx, "team", a.Ref, api.CommentCreate{Body: "a reply", ParentID: first.ID}); err != nil {
		t.Fatal(err)
	}
	if _, err := rapi.AddLink(ctx, "team", a.Ref, api.ItemLinkCreate{TargetID: c.ID}); err != nil { // Pad's default: related
		t.Fatal(err)
	}
	if _, err := rapi.AddLink(ctx, "team", c.Ref, api.ItemLinkCreate{TargetID: b.ID, LinkType: "blocked_by"}); err != nil {
		t.Fatal(err)
	}
	shot := pngOf(t, 1)
	up, err := rapi.UploadAttachment(ctx, "team", bytes.NewReader(shot), int64(len(shot)), "shot.png", c.Ref)
	if err != nil {
		t.Fatal(err)
	}
	content := "See ![shot](pad-attachment:" + up.ID + ")\n"
	if _, err := rapi.UpdateItem(ctx, "team", c.Ref, api.ItemUpdate{Content: &content}); err != nil {
		t.Fatal(err)
	}
	l := startLocal(t)
	if _, err := l.M.Clone(ctx, api.SyncClone{URL: r.URL(), RemoteWorkspace: "team", SyncToken: api.SyncToken{Token: r.Token()}}); err != nil {
		t.Fatal(err)
	}
	l.synced(t, "team")

	v := l.equalNow(t)
	if v.Checked.Items != 3 || v.Checked.Comments != 2 || v.Checked.Links != 2 || v.Checked.Attachments != 1 || v.Checked.Collections == 0 {
		t.Errorf("a verify of the clone compared %+v, want 3 items, 2 comments, 2 links, 1 attachment and the collections", v.Checked)
	}

	// Changed on the remote while padd's sync is paused.
	if _, err := l.M.Pause("team"); err != nil {
		t.Fatal(err)
	}
	title := "Anchor, renamed there"
	if _, err := rapi.UpdateItem(ctx, "team", a.Ref, api.ItemUpdate{Title: &title}); err != nil {
		t.Fatal(err)
	}
	if _, err := rapi.AddComment(ctx, "team", b.Ref, api.CommentCreate{Body: "LGTM"}); err != nil {
		t.Fatal(err)
	}
	other := pngOf(t, 2)
	if _, err := rapi.UploadAttachment(ctx, "team", bytes.NewReader(other), int64(len(other)), "other.png", c.Ref); err != nil {
		t.Fatal(err)
	}
	v = l.verified(t)
	want := []string{"attachment " + c.Ref + " only_there", "comment " + b.Ref + " only_there", "item " + a.Ref + " title"}
	if got := parts(v.Differences); !slices.Equal(got, want) || v.Equal || v.Pending != 0 {
		t.Fatalf("after changes on the remote the verify says %v (equal %v, pending %d), want %v", got, v.Equal, v.Pending, want)
	}
	for _, d := range v.Differences {
		if d.Part == "title" && d.Words != fmt.Sprintf("%s: the title differs: here %q, there %q", a.Ref, "Anchor", title) {
			t.Errorf("the title's difference reads %q", d.Words)
		}
		if d.Kind == api.VerifyComment && !strings.Contains(d.Words, `on the remote only: "LGTM"`) {
			t.Errorf("the comment's difference reads %q", d.Words)
		}
	}

	// Written here while paused: an item only here, a comment edited.
	res, err := l.Store.CreateItem("team", storage.ItemCreate{Collection: "tasks", Title: "Only here"}, user)
	if err != nil {
		t.Fatal(err)
	}
	lcs, err := views.Of(l.Store).ListComments("team", a.Ref)
	if err != nil || len(lcs) != 2 {
		t.Fatalf("padd's comments on %s: %+v, %v", a.Ref, lcs, err)
	}
	if _, err := l.Store.EditComment("team", a.Ref, lcs[0].ID, "first, edited here", user); err != nil {
		t.Fatal(err)
	}
	v = l.verified(t)
	want = []string{"attachment " + c.Ref + " only_there", "comment " + a.Ref + " body", "comment " + b.Ref + " only_there", "item " + a.Ref + " title", "item " + res.Item.Ref + " only_here"}
	t.Logf("verify: %s", verifyWords(v))
	if got := parts(v.Differences); !slices.Equal(got, want) || v.Pending != 2 {
		t.Fatalf("after writes here the verify says %v (pending %d), want %v and 2 pending", got, v.Pending, want)
	}

	if _, err := l.M.Resume("team"); err != nil {
		t.Fatal(err)
	}
	l.synced(t, "team")
	if v := l.equalNow(t); v.Checked.Items != 4 || v.Checked.Comments != 3 || v.Checked.Attachments != 2 {
		t.Errorf("after the sync the verify compared %+v, want 4 items, 3 comments and 2 attachments", v.Checked)
	}

	// An attachment uploaded here has another id on the remote, and the
	// text that names it names each side's own: equal all the same.
	att := l.attachLocal(t, "team", res.Item.Ref, "here.png", pngOf(t, 3))
	here := "Look: ![here](pad-attachment:" + att.ID + ")\n"
	if _, err := l.Store.UpdateItem("team", res.Item.Ref, storage.ItemUpdate{Content: &here}, user); err != nil {
		t.Fatal(err)
	}
	l.synced(t, "team")
	if v := l.equalNow(t); v.Checked.Attachments != 3 {
		t.Errorf("after an upload here the verify compared %+v, want 3 attachments", v.Checked)
	}
	rid, ok, err := syncstate.Of(l.Store).SyncRemoteID("team", storage.SyncAttachment, att.ID)
	if err != nil || !ok || rid == att.ID {
		t.Fatalf("the upload's remote id is %q (%v, %v): the test needs one that differs", rid, ok, err)
	}
}

// One verify of a workspace runs at a time; a second is refused while
// the first reads, and runs once it has answered.
func TestVerifyOneAtATime(t *testing.T) {
	r := testremote.Start(t, testremote.Options{})
	l := cloned(t, r)
	inside, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	errc := make(chan error, 1)
	go func() {
		_, err := l.M.Verify(t.Context(), "team", func(int, int) {
			once.Do(func() { close(inside); <-release })
		})
		errc <- err
	}()
	testwait.Recv(t, "the first verify to read", inside)
	_, err := l.M.Verify(t.Context(), "team", nil)
	close(release)
	if !model.IsCode(err, model.CodeConflict) {
		t.Errorf("a second verify while one reads: %v, want a conflict", err)
	}
	if err := testwait.Recv(t, "the first verify to answer", errc); err != nil {
		t.Fatal(err)
	}
	if v, err := l.M.Verify(t.Context(), "team", nil); err != nil || !v.Equal {
		t.Fatalf("a verify after the first: %+v, %v", v, err)
	}
}

// Where the remote refuses its export (Pad exports only to the
// workspace's owner: 403 to anyone else), a verify reads each item's
// comments and links by itself, says so, and reports its progress over
// those reads; threads with replies and links of every type compare
// equal all the same.
func TestVerifyWithoutTheExport(t *testing.T) {
	r := testremote.Start(t, testremote.Options{Aug2026: true})
	ctx := context.Background()
	rapi := r.API()
	if _, err := rapi.CreateWorkspace(ctx, api.WorkspaceCreate{Name: "Team", Slug: "team"}); err != nil {
		t.Fatal(err)
	}
	var refs []*api.Item
	for i := range 5 {
		it, err := rapi.CreateItem(ctx, "team", "tasks", api.ItemCreate{Title: fmt.Sprintf("Item %d", i)})
		if err != nil {
			t.Fatal(err)
		}
		refs = append(refs, it)
		c, err := rapi.AddComment(ctx, "team", it.Ref, api.CommentCreate{Body: "said"})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := rapi.AddComment(ctx, "team", it.Ref, api.CommentCreate{Body: "answered", ParentID: c.ID}); err != nil {
			t.Fatal(err)
		}
		if i > 0 {
			if _, err := rapi.AddLink(ctx, "team", it.Ref, api.ItemLinkCreate{TargetID: refs[i-1].ID, LinkType: "supersedes"}); err != nil {
				t.Fatal(err)
			}
		}
	}
	l := startLocal(t)
	if _, err := l.M.Clone(ctx, api.SyncClone{URL: r.URL(), RemoteWorkspace: "team", SyncToken: api.SyncToken{Token: r.Token()}}); err != nil {
		t.Fatal(err)
	}
	l.synced(t, "team")
	r.SetFault(func(req *http.Request) testremote.Fault {
		if strings.HasSuffix(req.URL.Path, "/export") {
			return testremote.Fault{Kind: testremote.Answer, Status: http.StatusForbidden}
		}
		return testremote.Fault{}
	})
	var mu sync.Mutex // progress is heard from the verify's readers
	var last [2]int
	v, err := l.M.Verify(ctx, "team", func(done, total int) {
		mu.Lock()
		defer mu.Unlock()
		if done == total {
			last = [2]int{done, total}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if !v.Equal || v.Checked.Comments != 10 || v.Checked.Links != 4 || len(v.Notes) == 0 || !strings.Contains(v.Notes[0], "export was not read") {
		t.Fatalf("a verify without the export: %+v (%s)", v, verifyWords(v))
	}
	if last != [2]int{5, 5} {
		t.Errorf("progress ended at %v, want 5 of 5 items read one by one", last)
	}
}

// A difference an open conflict or set-aside change explains is listed
// apart, in words that say so, and does not fail the verify: here the
// remote refused a title changed here, so the item differs with a
// set-aside record the user can see.
func TestVerifyListsExplainedDifferencesApart(t *testing.T) {
	r := testremote.Start(t, testremote.Options{})
	l := cloned(t, r)
	it := l.madeThere(t, r, api.ItemCreate{Title: "Refused there"})[0]
	r.SetFault(func(req *http.Request) testremote.Fault {
		if req.Method == http.MethodPatch && strings.Contains(req.URL.Path, "/items/") {
			return testremote.Fault{Kind: testremote.Answer, Status: http.StatusUnprocessableEntity}
		}
		return testremote.Fault{}
	})
	title := "Changed here"
	if _, err := l.Store.UpdateItem("team", it.Ref, storage.ItemUpdate{Title: &title}, user); err != nil {
		t.Fatal(err)
	}
	l.synced(t, "team")
	if st := l.synced(t, "team"); st.SetAside != 1 {
		t.Fatalf("the refused change is not set aside: %+v", st)
	}
	v := l.verified(t)
	if !v.Equal || len(v.Differences) != 0 || len(v.Conflicts) != 1 || v.Conflicts[0].Part != "title" ||
		!strings.Contains(v.Conflicts[0].Words, "a change set aside on this item") {
		t.Fatalf("the verify says %+v", v)
	}
}
