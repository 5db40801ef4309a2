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
	"github.com/padd/padd/internal/testwait"
	"github.com/padd/padd/model"
	"github.com/padd/padd/storage"
	"github.com/padd/padd/storage/views"
)

// reactionSetup makes an item with one comment on the remote, and waits
// for it here: the remote's comment and padd's.
func reactionSetup(t *testing.T, r *testremote.Remote, l *local) (api.Comment, model.Comment) {
	t.Helper()
	ctx := context.Background()
	it, err := r.API().CreateItem(ctx, "team", "tasks", api.ItemCreate{Title: "Reacted"})
	if err != nil {
		t.Fatal(err)
	}
	rc, err := r.API().AddComment(ctx, "team", it.Ref, api.CommentCreate{Body: "react to me"})
	if err != nil {
		t.Fatal(err)
	}
	var lc model.Comment
	testwait.Until(t, "the comment here", func() bool {
		cs, err := views.Of(l.Store).ListComments("team", it.Ref)
		if err == nil && len(cs) == 1 {
			lc = cs[0]
		}
		return err == nil && len(cs) == 1
	})
	return *rc, lc
}

func remoteEmoji(t *testing.T, r *testremote.Remote, itemID string) []string {
	t.Helper()
	cs, err := r.API().ListComments(context.Background(), "team", itemID)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, c := range cs {
		for _, x := range c.Reactions {
			out = append(out, x.Emoji)
		}
	}
	return out
}

// A reaction whose answer was lost is sent again: the remote keeps one.
func TestReactionAnswerLostMakesNoDuplicate(t *testing.T) {
	r := testremote.Start(t, testremote.Options{})
	l := cloned(t, r)
	rc, lc := reactionSetup(t, r, l)
	r.SetFault(testremote.Once(func(q *http.Request) bool {
		return q.Method == "POST" && strings.HasSuffix(q.URL.Path, "/reactions")
	}, testremote.Fault{Kind: testremote.DropAfter}))
	if _, err := l.Store.AddReaction("team", lc.ID, "👍", user); err != nil {
		t.Fatal(err)
	}
	l.synced(t, "team")
	if got := remoteEmoji(t, r, rc.ItemID); !slices.Equal(got, []string{"👍"}) {
		t.Fatalf("the remote holds %v, want one 👍", got)
	}
	testwait.UntilOK(t, func() error {
		c, err := views.Of(l.Store).GetComment("team", lc.ID)
		if err != nil {
			return err
		}
		if len(c.Reactions) != 1 || !c.Reactions[0].Synced {
			return fmt.Errorf("padd's reactions %+v", c.Reactions)
		}
		return nil
	})
	if cs, err := l.M.Conflicts("team", true); err != nil || len(cs) != 0 {
		t.Errorf("conflicts or set-asides: %+v, %v", cs, err)
	}
}

// A remote without the reaction routes (a Pad before them) refuses the
// push: the change is set aside with its reason, the reaction stays
// here, a pull does not take it away, and the link goes on.
func TestReactionRefusedByRemoteIsSetAside(t *testing.T) {
	ctx := context.Background()
	r := testremote.Start(t, testremote.Options{})
	l := cloned(t, r)
	_, lc := reactionSetup(t, r, l)
	r.SetFault(func(q *http.Request) testremote.Fault {
		if strings.Contains(q.URL.Path, "/reactions") {
			return testremote.Fault{Kind: testremote.Answer, Status: 404}
		}
		return testremote.Fault{}
	})
	if _, err := l.Store.AddReaction("team", lc.ID, "👍", user); err != nil {
		t.Fatal(err)
	}
	l.synced(t, "team")
	cs, err := l.M.Conflicts("team", true)
	if err != nil || len(cs) != 1 || !strings.Contains(cs[0].Reason, "reaction") || !strings.Contains(cs[0].Reason, "no comment reactions") {
		t.Fatalf("set-asides %+v, %v", cs, err)
	}
	// The link goes on: a comment made here reaches the remote, and a
	// pull of the item's comments leaves the reaction here.
	if _, err := l.Store.AddComment("team", lc.ItemID, storage.CommentCreate{Body: "after"}, user); err != nil {
		t.Fatal(err)
	}
	l.synced(t, "team")
	it, err := views.Of(l.Store).GetItem("team", lc.ItemID)
	if err != nil {
		t.Fatal(err)
	}
	testwait.UntilOK(t, func() error {
		rcs, err := r.API().ListComments(ctx, "team", it.Ref)
		if err != nil || len(rcs) != 2 {
			return fmt.Errorf("remote comments %d, %v", len(rcs), err)
		}
		return nil
	})
	c, err := views.Of(l.Store).GetComment("team", lc.ID)
	if err != nil || len(c.Reactions) != 1 || c.Reactions[0].Emoji != "👍" {
		t.Fatalf("padd's reactions after the pull: %+v, %v", c, err)
	}
}
