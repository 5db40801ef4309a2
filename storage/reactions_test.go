package storage

import (
	"slices"
	"strings"
	"testing"

	"github.com/padd/padd/model"
	"github.com/padd/padd/storage/internal/records"
)

func TestReactionLifecycle(t *testing.T) {
	s, _ := openTest(t)
	ws := mustWorkspace(t, s, "Reactions").Slug
	it := mustCreate(t, s, ws, "tasks", "React", nil)
	c := mustComment(t, s, ws, "TASK-1", "nice", "")

	res, err := s.AddReaction(ws, c.ID, "👍", user)
	if err != nil || !res.Added || res.Reaction.Emoji != "👍" || res.Reaction.UserID != "" || res.Reaction.ID == "" {
		t.Fatalf("add: %+v %v", res, err)
	}
	ch, err := lastChange(s, ws)
	if err != nil || ch.Entity != model.EntityReaction || ch.Op != model.OpCreated || ch.ID != c.ID || ch.ItemID != it.ID {
		t.Fatalf("logged %+v %v", ch, err)
	}
	// The same emoji again is Pad's 201 with the reaction there, and no write.
	head := wsSeq(t, s, ws)
	again, err := s.AddReaction(ws, c.ID, "👍", user)
	if err != nil || again.Added || again.Reaction.ID != res.Reaction.ID || wsSeq(t, s, ws) != head {
		t.Fatalf("same reaction again: %+v %v (head %d -> %d)", again, err, head, wsSeq(t, s, ws))
	}
	if _, err := s.AddReaction(ws, c.ID, "🎉", user); err != nil {
		t.Fatal(err)
	}
	got, err := rd(s).GetComment(ws, c.ID)
	if err != nil || len(got.Reactions) != 2 || got.Reactions[0].Emoji != "👍" || got.Reactions[1].Emoji != "🎉" {
		t.Fatalf("comment's reactions: %+v %v", got, err)
	}
	if _, err := s.RemoveReaction(ws, c.ID, "👍", user); err != nil {
		t.Fatal(err)
	}
	if ch, _ := lastChange(s, ws); ch.Entity != model.EntityReaction || ch.Op != model.OpDeleted || ch.ID != c.ID {
		t.Fatalf("removal logged %+v", ch)
	}
	e := refused(t, s, ws, model.CodeNotFound, func() error { _, err := s.RemoveReaction(ws, c.ID, "👍", user); return err })
	if e.Message != "Reaction not found" {
		t.Fatalf("absent reaction: %+v", e)
	}
	list, _ := rd(s).ListComments(ws, "TASK-1")
	if len(list[0].Reactions) != 1 || list[0].Reactions[0].Emoji != "🎉" || len(list[0].ReactionsGone) != 0 {
		t.Fatalf("listed %+v", list[0].Reactions)
	}

	// A tombstone keeps none, and takes none.
	mustComment(t, s, ws, "TASK-1", "a reply", c.ID)
	if d, err := s.DeleteComment(ws, "", c.ID, user); err != nil || !d.Tombstoned {
		t.Fatalf("tombstone: %+v %v", d, err)
	}
	if tomb, _ := rd(s).GetComment(ws, c.ID); len(tomb.Reactions) != 0 {
		t.Fatalf("tombstone kept %+v", tomb.Reactions)
	}
	refused(t, s, ws, model.CodeCommentDeleted, func() error { _, err := s.AddReaction(ws, c.ID, "👍", user); return err })
	refused(t, s, ws, model.CodeNotFound, func() error { _, err := s.AddReaction(ws, "nope", "👍", user); return err })
}

func TestReactionRefusals(t *testing.T) {
	s, _ := openTest(t)
	ws := mustWorkspace(t, s, "Reaction refusals").Slug
	mustCreate(t, s, ws, "tasks", "React", nil)
	c := mustComment(t, s, ws, "TASK-1", "nice", "")
	for _, bad := range []string{"", "  ", strings.Repeat("x", model.LimitEmoji.Max+1), "a\nb", "\x00", string([]byte{0xff})} {
		e := refused(t, s, ws, model.CodeValidation, func() error { _, err := s.AddReaction(ws, c.ID, bad, user); return err })
		if e.Details["field"] != "emoji" {
			t.Errorf("%q: %+v", bad, e)
		}
	}
	// Pad checks no emoji list: short text is taken as sent.
	for _, ok := range []string{" 🚀 ", "+1", "👍🏽", strings.Repeat("é", model.LimitEmoji.Max)} {
		if _, err := s.AddReaction(ws, c.ID, ok, user); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
	got, _ := rd(s).GetComment(ws, c.ID)
	for i := len(got.Reactions); i < MaxReactions; i++ {
		if _, err := s.AddReaction(ws, c.ID, "e"+strings.Repeat("!", i%20)+string(rune('a'+i/20)), user); err != nil {
			t.Fatalf("reaction %d: %v", i, err)
		}
	}
	e := refused(t, s, ws, model.CodeValidation, func() error { _, err := s.AddReaction(ws, c.ID, "one more", user); return err })
	if e.Details["reason"] != "too_many_reactions" || e.Details["limit"] != MaxReactions {
		t.Fatalf("over the bound: %+v", e)
	}
}

// lastChange reads the newest change-log entry.
func lastChange(s *Store, ws string) (model.Change, error) {
	w, err := rd(s).GetWorkspace(ws)
	if err != nil {
		return model.Change{}, err
	}
	var ch model.Change
	err = s.base.View(func(tx *records.Txn) error {
		_, v := records.OpenWS(tx, w.ID).Changes().Cursor().Last()
		ch, err = records.DecodeChange(v)
		return err
	})
	return ch, err
}

// The merge of a remote's list on a linked workspace: others' are the
// remote's; this person's the remote had and no longer lists go, ones
// made here and not pushed stay, ones taken back here and not pushed are
// not brought back; a refused remote reaction is answered, the rest
// written.
func TestMergeReactions(t *testing.T) {
	s, _ := openTest(t)
	ws := mustWorkspace(t, s, "Merge reactions").Slug
	it := mustCreate(t, s, ws, "tasks", "React", nil)
	c := mustComment(t, s, ws, it.ID, "nice", "")
	mustSyncLink(t, s, ws)
	me := func(r model.Reaction) bool { return r.UserID == "u-me" }
	other := model.Actor{Kind: model.ActorUser, Name: "Ann"}
	merge := func(rs ...model.Reaction) []error {
		t.Helper()
		var refused []error
		if err := s.SyncApply(ws, syncActor, func(tx *SyncTx) (err error) {
			refused, err = tx.MergeReactions(c.ID, rs, me)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		return refused
	}
	emoji := func() []string {
		t.Helper()
		got, err := rd(s).GetComment(ws, c.ID)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range got.Reactions {
			out = append(out, r.UserID+":"+r.Emoji)
		}
		return out
	}
	want := func(w ...string) {
		t.Helper()
		if got := emoji(); !slices.Equal(got, w) {
			t.Fatalf("reactions %v, want %v", got, w)
		}
	}

	// Made here, not pushed: a remote list without it keeps it.
	if _, err := s.AddReaction(ws, c.ID, "👍", user); err != nil {
		t.Fatal(err)
	}
	merge(model.Reaction{Emoji: "🎉", UserID: "u-ann", Actor: other}, model.Reaction{Emoji: "🚀", UserID: "u-me"})
	want(":👍", "u-ann:🎉", ":🚀")
	// Taken back here (the remote has it): not brought back, and queued
	// for removal there.
	if _, err := s.RemoveReaction(ws, c.ID, "🚀", user); err != nil {
		t.Fatal(err)
	}
	merge(model.Reaction{Emoji: "🎉", UserID: "u-ann", Actor: other}, model.Reaction{Emoji: "🚀", UserID: "u-me"})
	want(":👍", "u-ann:🎉")
	if got, _ := rd(s).GetComment(ws, c.ID); !slices.Equal(got.ReactionsGone, []string{"🚀"}) {
		t.Fatalf("reactions gone %v", got.ReactionsGone)
	}
	// Pushed, then removed there, with Ann's: both go here.
	if err := s.SyncApply(ws, syncActor, func(tx *SyncTx) error { return tx.ReactionsPushed(c.ID, []string{"👍"}, []string{"🚀"}) }); err != nil {
		t.Fatal(err)
	}
	if refused := merge(model.Reaction{Emoji: "bad\x07"}, model.Reaction{Emoji: "✅", UserID: "u-bob"}); len(refused) != 1 {
		t.Fatalf("refused %v", refused)
	}
	want("u-bob:✅")
}
