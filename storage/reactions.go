package storage

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/padd/padd/model"
	"github.com/padd/padd/storage/internal/records"
)

// Reactions live in their comment's record (model.Comment.Reactions), so
// every read of a comment carries them. A reaction is one person's one
// emoji on one comment, as Pad keys them (comment, user, emoji): this
// padd's person holds at most one of each emoji; reactions others made
// on a linked remote arrive by sync. Each add and removal is stamped
// (entity "reaction", the comment's id), so the change feed and the
// event stream carry it and a linked workspace queues it for the remote.
// Pad writes no activity entry for a reaction, and neither does padd.

// MaxReactions bounds the reactions one comment holds, everyone's
// together (Pad sets no bound).
const MaxReactions = 100

// CheckEmoji refuses an emoji padd does not store: blank (Pad's
// "emoji is required"), longer than model.LimitEmoji, not UTF-8, or
// holding a control character. Any other short text is taken as Pad
// takes it, unchanged: Pad checks no emoji list.
func CheckEmoji(emoji string) error {
	if strings.TrimSpace(emoji) == "" {
		return model.Invalid("emoji is required").With("field", "emoji")
	}
	if err := model.LimitEmoji.Check(emoji); err != nil {
		return err
	}
	if !utf8.ValidString(emoji) || strings.ContainsFunc(emoji, unicode.IsControl) {
		return model.Invalid("emoji %q holds a control character or is not UTF-8 text", model.Excerpt(emoji)).
			With("field", "emoji").With("reason", "control_character")
	}
	return nil
}

// ReactionResult answers AddReaction: the reaction, new or the one this
// person had already (Pad answers both alike), and its comment.
type ReactionResult struct {
	Reaction model.Reaction
	Comment  *model.Comment
	Added    bool // false: the same reaction was there already
}

// AddReaction adds this padd's person's emoji reaction to comment
// commentID. The same emoji again adds nothing and answers the reaction
// there. A tombstone takes no reactions (comment_deleted), nor does a
// comment of an archived item.
func (s *Store) AddReaction(ws, commentID, emoji string, actor model.Actor) (*ReactionResult, error) {
	var out *ReactionResult
	err := s.write(ws, actor, func(w *wtx) (err error) {
		out, err = w.addReaction(commentID, emoji)
		return err
	})
	return out, err
}

// RemoveReaction takes back this padd's person's emoji reaction on
// comment commentID; one that is not there is Pad's 404 "Reaction not
// found". Others' reactions cannot be taken back here.
func (s *Store) RemoveReaction(ws, commentID, emoji string, actor model.Actor) (*model.Comment, error) {
	var out *model.Comment
	err := s.write(ws, actor, func(w *wtx) (err error) {
		out, err = w.removeReaction(commentID, emoji)
		return err
	})
	return out, err
}

// reactionTarget finds the live comment a reaction write is about, and
// its item and collection.
func (w *wtx) reactionTarget(commentID string) (*model.Comment, *model.Item, *model.Collection, error) {
	cm, err := records.FindComment(w.ws, "", commentID)
	if err != nil {
		return nil, nil, nil, err
	}
	if cm.DeletedAt != nil {
		return nil, nil, nil, commentDeleted(cm.ID)
	}
	it, c, err := w.annotatedItem(cm.ItemID)
	if err != nil {
		return nil, nil, nil, err
	}
	return cm, it, c, nil
}

// mine is the index of this padd's person's emoji reaction in rs, or -1.
func mine(rs []model.Reaction, emoji string) int {
	return slices.IndexFunc(rs, func(r model.Reaction) bool { return r.UserID == "" && r.Emoji == emoji })
}

func (w *wtx) addReaction(commentID, emoji string) (*ReactionResult, error) {
	if err := CheckEmoji(emoji); err != nil {
		return nil, err
	}
	cm, it, c, err := w.reactionTarget(commentID)
	if err != nil {
		return nil, err
	}
	if i := mine(cm.Reactions, emoji); i >= 0 {
		return &ReactionResult{Reaction: cm.Reactions[i], Comment: cm}, nil
	}
	r := model.Reaction{ID: records.NewID(), Emoji: emoji, Actor: w.actor, CreatedAt: records.Tstamp(w.now)}
	if err := w.putReaction(cm, it, c, r); err != nil {
		return nil, err
	}
	// Taken back and made again before sync said so: the new one is
	// pushed (Pad's add keeps one), so nothing is to be removed there.
	cm.ReactionsGone = slices.DeleteFunc(cm.ReactionsGone, func(e string) bool { return e == emoji })
	return &ReactionResult{Reaction: r, Comment: cm, Added: true}, putComment(w.ws, cm)
}

// putReaction appends r to cm's reactions under a new stamp; the caller
// writes cm.
func (w *wtx) putReaction(cm *model.Comment, it *model.Item, c *model.Collection, r model.Reaction) error {
	if len(cm.Reactions) >= MaxReactions {
		return model.Invalid("comment %s holds %d reactions, the most a comment may hold", cm.ID, MaxReactions).
			With("field", "emoji").With("limit", MaxReactions).With("reason", "too_many_reactions")
	}
	seq, err := w.stamp(model.EntityReaction, model.OpCreated, cm.ID, it.ID, c.ID)
	if err != nil {
		return err
	}
	cm.Reactions, cm.Seq = append(cm.Reactions, r), seq
	return nil
}

// dropReaction removes cm.Reactions[i] under a new stamp; the caller
// writes cm.
func (w *wtx) dropReaction(cm *model.Comment, it *model.Item, c *model.Collection, i int) error {
	seq, err := w.stamp(model.EntityReaction, model.OpDeleted, cm.ID, it.ID, c.ID)
	if err != nil {
		return err
	}
	cm.Reactions, cm.Seq = slices.Delete(cm.Reactions, i, i+1), seq
	return nil
}

func (w *wtx) removeReaction(commentID, emoji string) (*model.Comment, error) {
	cm, it, c, err := w.reactionTarget(commentID)
	if err != nil {
		return nil, err
	}
	i := mine(cm.Reactions, emoji)
	if i < 0 {
		return nil, model.NotFound("Reaction not found").With("comment_id", cm.ID).With("emoji", emoji)
	}
	synced := cm.Reactions[i].Synced
	if err := w.dropReaction(cm, it, c, i); err != nil {
		return nil, err
	}
	// The remote has it: sync removes it there. Bounded as the
	// reactions are, oldest forgotten first.
	if synced && records.Linked(w.ws) && !slices.Contains(cm.ReactionsGone, emoji) {
		cm.ReactionsGone = append(cm.ReactionsGone, emoji)
		if n := len(cm.ReactionsGone); n > MaxReactions {
			cm.ReactionsGone = cm.ReactionsGone[n-MaxReactions:]
		}
	}
	return cm, putComment(w.ws, cm)
}

// MergeReactions makes comment commentID's reactions agree with rs, the
// remote's whole list for it (mineOf tells the reactions of the user
// padd syncs as, which are this padd's person's here):
//   - others' reactions are the remote's;
//   - this padd's person's that the remote lists are kept, or added
//     unless taken back here and not yet pushed (ReactionsGone);
//   - this padd's person's that the remote had (Synced) and no longer
//     lists are removed; ones it never had wait for the push.
//
// A remote reaction padd refuses (CheckEmoji, MaxReactions) is left out
// and answered in refused; the others are written.
func (t *SyncTx) MergeReactions(commentID string, rs []model.Reaction, mineOf func(model.Reaction) bool) (refused []error, err error) {
	w := t.w
	cm, it, c, err := w.reactionTarget(commentID)
	if err != nil {
		return nil, err
	}
	type key struct{ user, emoji string }
	keyOf := func(r model.Reaction) key { return key{r.UserID, r.Emoji} }
	remote := map[key]model.Reaction{}
	for _, r := range rs {
		if mineOf(r) {
			r.UserID = ""
		}
		if err := CheckEmoji(r.Emoji); err != nil {
			refused = append(refused, err)
			continue
		}
		if _, dup := remote[keyOf(r)]; !dup {
			r.Synced = true
			remote[keyOf(r)] = r
		}
	}
	changed := false
	for i := 0; i < len(cm.Reactions); {
		r := cm.Reactions[i]
		if _, ok := remote[keyOf(r)]; ok {
			delete(remote, keyOf(r))
			if !r.Synced {
				cm.Reactions[i].Synced, changed = true, true
			}
			i++
			continue
		}
		if r.UserID == "" && !r.Synced {
			i++ // made here, not pushed yet
			continue
		}
		if err := w.dropReaction(cm, it, c, i); err != nil {
			return nil, err
		}
		changed = true
	}
	for _, r := range rs { // the remote's order: oldest first
		if mineOf(r) {
			r.UserID = ""
		}
		rr, ok := remote[keyOf(r)]
		if !ok {
			continue
		}
		delete(remote, keyOf(r))
		if rr.UserID == "" && slices.Contains(cm.ReactionsGone, rr.Emoji) {
			continue // taken back here: the push removes it there
		}
		rr.ID = records.NewID()
		if err := w.putReaction(cm, it, c, rr); err != nil {
			if !model.IsCode(err, model.CodeValidation) {
				return nil, err
			}
			refused = append(refused, err)
			continue
		}
		changed = true
	}
	if !changed {
		return refused, nil
	}
	return refused, putComment(w.ws, cm)
}

// ReactionsPushed records a push of comment commentID's reactions:
// posted (emoji of this padd's person's) are on the remote now, and
// removed are gone from it. Nothing a reader sees changes, so nothing
// is stamped.
func (t *SyncTx) ReactionsPushed(commentID string, posted, removed []string) error {
	cm, err := records.FindComment(t.w.ws, "", commentID)
	if model.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	for i, r := range cm.Reactions {
		if r.UserID == "" && slices.Contains(posted, r.Emoji) {
			cm.Reactions[i].Synced = true
		}
	}
	cm.ReactionsGone = slices.DeleteFunc(cm.ReactionsGone, func(e string) bool { return slices.Contains(removed, e) })
	return putComment(t.w.ws, cm)
}

// importReactions are an imported comment's reactions as stored: new
// ids, one per person and emoji, at most MaxReactions (the import's
// source checked each emoji).
func importReactions(rs []model.Reaction) []model.Reaction {
	var out []model.Reaction
	for _, r := range rs {
		if len(out) == MaxReactions || slices.ContainsFunc(out, func(o model.Reaction) bool { return o.UserID == r.UserID && o.Emoji == r.Emoji }) {
			continue
		}
		r.ID, r.Synced, r.CreatedAt = records.NewID(), false, records.Tstamp(r.CreatedAt)
		out = append(out, r)
	}
	return out
}
