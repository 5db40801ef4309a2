package storage

import (
	"testing"
	"time"

	"github.com/padd/padd/model"
	"github.com/padd/padd/storage/internal/records"
)

// wsSeq is the workspace's head seq.
func wsSeq(t testing.TB, s *Store, ws string) int64 {
	t.Helper()
	w, err := rd(s).GetWorkspace(ws)
	if err != nil {
		t.Fatalf("get workspace: %v", err)
	}
	return w.Seq
}

// refused runs a write that must be refused with code and leave no
// trace: the workspace seq stays where it was.
func refused(t testing.TB, s *Store, ws, code string, write func() error) *model.Error {
	t.Helper()
	before := wsSeq(t, s, ws)
	e := wantCode(t, write(), code)
	if after := wsSeq(t, s, ws); after != before {
		t.Fatalf("refused write moved the seq %d -> %d", before, after)
	}
	return e
}

// lastLog reads the newest change-log and activity entries.
func lastLog(t testing.TB, s *Store, ws string) (model.Change, model.Activity) {
	t.Helper()
	var ch model.Change
	var act model.Activity
	w, err := rd(s).GetWorkspace(ws)
	if err != nil {
		t.Fatal(err)
	}
	err = s.base.View(func(tx *records.Txn) error {
		b := records.OpenWS(tx, w.ID)
		_, v := b.Changes().Cursor().Last()
		var err error
		if ch, err = records.DecodeChange(v); err != nil {
			return err
		}
		_, v = b.Activity().Cursor().Last()
		return records.DecodeActivityRecord(v, &act)
	})
	if err != nil {
		t.Fatal(err)
	}
	if ch.Seq != w.Seq || act.Seq != w.Seq {
		t.Fatalf("head %d but change log at %d and activity at %d", w.Seq, ch.Seq, act.Seq)
	}
	return ch, act
}

func mustComment(t testing.TB, s *Store, ws, ref, body, replyTo string) *model.Comment {
	t.Helper()
	r, err := s.AddComment(ws, ref, CommentCreate{Body: body, ReplyTo: replyTo}, user)
	if err != nil {
		t.Fatalf("comment %q: %v", body, err)
	}
	return r.Comment
}

func commentIDs(t testing.TB, s *Store, ws, ref string) []string {
	t.Helper()
	list, err := rd(s).ListComments(ws, ref)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, c := range list {
		out = append(out, c.ID)
	}
	return out
}

func TestCommentLifecycle(t *testing.T) {
	s, clk := openTest(t)
	ws := mustWorkspace(t, s, "Comments").Slug
	it := mustCreate(t, s, ws, "tasks", "Fix login", nil)

	seq0 := wsSeq(t, s, ws)
	a := mustComment(t, s, ws, "TASK-1", "first", "")
	if a.Seq != seq0+1 || a.ItemID != it.ID || a.Author != user || a.ParentID != "" {
		t.Fatalf("comment %+v (head was %d)", a, seq0)
	}
	ch, act := lastLog(t, s, ws)
	if ch.Entity != model.EntityComment || ch.Op != model.OpCreated || ch.ID != a.ID || ch.ItemID != it.ID || act.Action != "commented" {
		t.Fatalf("logged %+v / %+v", ch, act)
	}
	clk.advance(time.Second)
	reply := mustComment(t, s, ws, it.Slug, "a reply", a.ID)
	if reply.ParentID != a.ID {
		t.Fatalf("reply parent %q", reply.ParentID)
	}
	clk.advance(time.Second)
	b := mustComment(t, s, ws, it.ID, "second", "")
	if got := commentIDs(t, s, ws, "TASK-1"); len(got) != 3 || got[0] != a.ID || got[1] != reply.ID || got[2] != b.ID {
		t.Fatalf("list order %v", got)
	}

	clk.advance(time.Second)
	ed, err := s.EditComment(ws, "TASK-1", b.ID, "second, edited", user)
	if err != nil || ed.Body != "second, edited" || !ed.UpdatedAt.After(ed.CreatedAt) || ed.Seq != wsSeq(t, s, ws) {
		t.Fatalf("edit: %+v %v", ed, err)
	}
	if _, act := lastLog(t, s, ws); act.Action != "comment_edited" {
		t.Fatalf("edit activity %q", act.Action)
	}
	head := wsSeq(t, s, ws)
	if _, err := s.EditComment(ws, "", b.ID, "second, edited", user); err != nil || wsSeq(t, s, ws) != head {
		t.Fatalf("same body must write nothing: %v, head %d -> %d", err, head, wsSeq(t, s, ws))
	}

	// A comment with a reply becomes a tombstone.
	d, err := s.DeleteComment(ws, "", a.ID, user)
	if err != nil || !d.Tombstoned || len(d.Removed) != 0 {
		t.Fatalf("delete with reply: %+v %v", d, err)
	}
	list, _ := rd(s).ListComments(ws, "TASK-1")
	tomb := list[0]
	if tomb.ID != a.ID || tomb.Body != "" || tomb.DeletedAt == nil || tomb.Author != user || !tomb.CreatedAt.Equal(a.CreatedAt) || !tomb.UpdatedAt.Equal(a.UpdatedAt) {
		t.Fatalf("tombstone %+v", tomb)
	}
	if _, act := lastLog(t, s, ws); act.Action != "comment_deleted" || act.Metadata["tombstoned"] != true {
		t.Fatalf("delete activity %+v", act)
	}
	refused(t, s, ws, model.CodeCommentDeleted, func() error {
		_, err := s.EditComment(ws, "TASK-1", a.ID, "revive", user)
		return err
	})
	refused(t, s, ws, model.CodeCommentDeleted, func() error {
		_, err := s.AddComment(ws, "TASK-1", CommentCreate{Body: "late reply", ReplyTo: a.ID}, user)
		return err
	})
	refused(t, s, ws, model.CodeNotFound, func() error {
		_, err := s.DeleteComment(ws, "TASK-1", a.ID, user)
		return err
	})

	// Deleting the last reply takes the tombstone with it.
	d, err = s.DeleteComment(ws, "TASK-1", reply.ID, user)
	if err != nil || d.Tombstoned || len(d.Removed) != 2 || d.Removed[0] != reply.ID || d.Removed[1] != a.ID {
		t.Fatalf("delete last reply: %+v %v", d, err)
	}
	if got := commentIDs(t, s, ws, "TASK-1"); len(got) != 1 || got[0] != b.ID {
		t.Fatalf("after cascade %v", got)
	}
	d, err = s.DeleteComment(ws, "", b.ID, user)
	if err != nil || len(d.Removed) != 1 {
		t.Fatalf("plain delete %+v %v", d, err)
	}
	if got := commentIDs(t, s, ws, "TASK-1"); len(got) != 0 {
		t.Fatalf("all gone, got %v", got)
	}

	// Seven comment mutations, none of them an edit of the item.
	after, err := rd(s).GetItem(ws, "TASK-1")
	if err != nil || after.Seq != it.Seq {
		t.Fatalf("item seq moved %d -> %d (%v)", it.Seq, after.Seq, err)
	}
	if got := wsSeq(t, s, ws); got != seq0+7 {
		t.Fatalf("head %d, want %d", got, seq0+7)
	}
}

func TestCommentTombstoneChain(t *testing.T) {
	s, _ := openTest(t)
	ws := mustWorkspace(t, s, "Chain").Slug
	mustCreate(t, s, ws, "tasks", "Thread", nil)
	a := mustComment(t, s, ws, "TASK-1", "a", "")
	b := mustComment(t, s, ws, "TASK-1", "b", a.ID)
	c := mustComment(t, s, ws, "TASK-1", "c", b.ID)
	other := mustComment(t, s, ws, "TASK-1", "other reply to a", a.ID)
	for _, id := range []string{a.ID, b.ID} {
		if d, err := s.DeleteComment(ws, "", id, user); err != nil || !d.Tombstoned {
			t.Fatalf("tombstone %s: %+v %v", id, d, err)
		}
	}
	// c was b's last reply; a still has another.
	d, err := s.DeleteComment(ws, "", c.ID, user)
	if err != nil || len(d.Removed) != 2 || d.Removed[0] != c.ID || d.Removed[1] != b.ID {
		t.Fatalf("cascade stops at a live sibling: %+v %v", d, err)
	}
	d, err = s.DeleteComment(ws, "", other.ID, user)
	if err != nil || len(d.Removed) != 2 || d.Removed[1] != a.ID {
		t.Fatalf("last reply takes a: %+v %v", d, err)
	}
	if got := commentIDs(t, s, ws, "TASK-1"); len(got) != 0 {
		t.Fatalf("left %v", got)
	}
}

func TestCommentRefusals(t *testing.T) {
	s, _ := openTest(t)
	ws := mustWorkspace(t, s, "Refusals").Slug
	mustCreate(t, s, ws, "tasks", "One", nil)
	mustCreate(t, s, ws, "tasks", "Two", nil)
	mustCreate(t, s, ws, "tasks", "Gone", nil)
	onTwo := mustComment(t, s, ws, "TASK-2", "on two", "")
	onGone := mustComment(t, s, ws, "TASK-3", "on gone", "")
	if _, err := s.DeleteItem(ws, "TASK-3", user); err != nil {
		t.Fatal(err)
	}

	add := func(ref, body, replyTo string) func() error {
		return func() error {
			_, err := s.AddComment(ws, ref, CommentCreate{Body: body, ReplyTo: replyTo}, user)
			return err
		}
	}
	for _, tc := range []struct {
		name   string
		code   string
		detail string
		want   any
		write  func() error
	}{
		{"empty body", model.CodeBadRequest, "field", "body", add("TASK-1", "  \n", "")},
		{"unknown item", model.CodeNotFound, "ref", "TASK-99", add("TASK-99", "x", "")},
		{"archived item", model.CodeArchived, "ref", "TASK-3", add("TASK-3", "x", "")},
		{"reply_to not a comment", model.CodeValidation, "field", "reply_to", add("TASK-1", "x", "0190a6f0-0000-7000-8000-000000000000")},
		{"reply_to garbage", model.CodeValidation, "field", "reply_to", add("TASK-1", "x", "nope")},
		{"reply_to on another item", model.CodeValidation, "comment_id", onTwo.ID, add("TASK-1", "x", onTwo.ID)},
		{"edit through the wrong item", model.CodeNotFound, "comment_id", onTwo.ID, func() error {
			_, err := s.EditComment(ws, "TASK-1", onTwo.ID, "x", user)
			return err
		}},
		{"edit to empty", model.CodeBadRequest, "field", "body", func() error {
			_, err := s.EditComment(ws, "", onTwo.ID, " ", user)
			return err
		}},
		{"edit unknown", model.CodeNotFound, "comment_id", "nope", func() error {
			_, err := s.EditComment(ws, "", "nope", "x", user)
			return err
		}},
		{"edit on archived item", model.CodeArchived, "ref", "TASK-3", func() error {
			_, err := s.EditComment(ws, "", onGone.ID, "x", user)
			return err
		}},
		{"delete through the wrong item", model.CodeNotFound, "comment_id", onTwo.ID, func() error {
			_, err := s.DeleteComment(ws, "TASK-1", onTwo.ID, user)
			return err
		}},
		{"delete on archived item", model.CodeArchived, "ref", "TASK-3", func() error {
			_, err := s.DeleteComment(ws, "", onGone.ID, user)
			return err
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := refused(t, s, ws, tc.code, tc.write)
			if e.Details[tc.detail] != tc.want {
				t.Fatalf("details %v, want %s=%v", e.Details, tc.detail, tc.want)
			}
		})
	}
	// Reads still serve an archived item's comments.
	if got := commentIDs(t, s, ws, "TASK-3"); len(got) != 1 || got[0] != onGone.ID {
		t.Fatalf("archived item's comments %v", got)
	}
}

func TestCommentIdempotency(t *testing.T) {
	s, _ := openTest(t)
	ws := mustWorkspace(t, s, "Idem").Slug
	mustCreate(t, s, ws, "tasks", "One", nil)
	in := CommentCreate{Body: "hello", Idem: NewIdem("k1", "comment", "TASK-1", "hello")}
	first, err := s.AddComment(ws, "TASK-1", in, user)
	if err != nil || first.Replayed {
		t.Fatalf("first: %+v %v", first, err)
	}
	head := wsSeq(t, s, ws)
	again, err := s.AddComment(ws, "TASK-1", in, user)
	if err != nil || !again.Replayed || again.Comment.ID != first.Comment.ID || wsSeq(t, s, ws) != head {
		t.Fatalf("replay: %+v %v", again, err)
	}
	e := refused(t, s, ws, model.CodeIdempotencyKeyReused, func() error {
		_, err := s.AddComment(ws, "TASK-1", CommentCreate{Body: "other", Idem: NewIdem("k1", "comment", "TASK-1", "other")}, user)
		return err
	})
	if e.Details["key"] != "k1" {
		t.Fatalf("details %v", e.Details)
	}
	// The replay follows the comment as it stands, and says when it is gone.
	if _, err := s.EditComment(ws, "", first.Comment.ID, "hello!", user); err != nil {
		t.Fatal(err)
	}
	if again, err = s.AddComment(ws, "TASK-1", in, user); err != nil || again.Comment.Body != "hello!" {
		t.Fatalf("replay after edit: %+v %v", again, err)
	}
	if _, err := s.DeleteComment(ws, "", first.Comment.ID, user); err != nil {
		t.Fatal(err)
	}
	refused(t, s, ws, model.CodeIdempotencyTargetGone, func() error {
		_, err := s.AddComment(ws, "TASK-1", in, user)
		return err
	})
	if got := commentIDs(t, s, ws, "TASK-1"); len(got) != 0 {
		t.Fatalf("replays must not add comments: %v", got)
	}
}
