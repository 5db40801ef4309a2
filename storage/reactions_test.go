package storage

import (
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
	got, err := s.GetComment(ws, c.ID)
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
	list, _ := s.ListComments(ws, "TASK-1")
	if len(list[0].Reactions) != 1 || list[0].Reactions[0].Emoji != "🎉" || len(list[0].ReactionsGone) != 0 {
		t.Fatalf("listed %+v", list[0].Reactions)
	}

	// A tombstone keeps none, and takes none.
	mustComment(t, s, ws, "TASK-1", "a reply", c.ID)
	if d, err := s.DeleteComment(ws, "", c.ID, user); err != nil || !d.Tombstoned {
		t.Fatalf("tombstone: %+v %v", d, err)
	}
	if tomb, _ := s.GetComment(ws, c.ID); len(tomb.Reactions) != 0 {
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
	got, _ := s.GetComment(ws, c.ID)
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
	w, err := s.GetWorkspace(ws)
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
