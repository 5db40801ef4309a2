package storage

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/padd/padd/model"
	"github.com/padd/padd/storage/internal/records"
)

// ItemUpdate is a partial update; nil members are left alone.
type ItemUpdate struct {
	Title             *string
	Content           *string
	Fields            map[string]any // full replace; may carry reserved keys unchanged
	FieldsPatch       map[string]any // per-key merge; nil or "" removes a key
	Tags              *[]string
	Parent            *string // ref, slug or id; "" detaches
	ClearParent       bool
	Assign            *string // "" does nothing
	Role              *string // role slug or id
	ClearAssignedUser bool
	ClearAgentRole    bool
	Pinned            *bool
	SortOrder         *int64
	ExpectedSeq       *int64
	ExpectedUpdatedAt string
	Replace           bool
	RefuseUndeclared  bool
	Force             bool   // skip the open-children guard
	Comment           string // why: kept as the version's change summary
	AppendNote        *Note
	AppendDecision    *Decision
	// LinkPR sets the item's pull request link (the reserved github_pr,
	// ITM-17) and UnlinkPR removes it; an unlink of an item without one
	// changes nothing.
	LinkPR   *model.PullRequestLink
	UnlinkPR bool
	Idem     Idem
	// ActivityMeta adds system members to the update's activity entry
	// (a patch's patch_id and patch_edits). Only storage sets it.
	ActivityMeta map[string]any
	// reserved is reserved metadata the system writes beside the fields
	// patch (a nil value removes it): the sync engine's pull of the
	// remote's (SyncTx.UpdateItem). No door sets it.
	reserved map[string]any
}

// Note is an implementation-note append.
type Note struct{ Summary, Details string }

// Decision is a decision-log append.
type Decision struct{ Decision, Rationale string }

// UpdateItem applies a partial update in one transaction. A stale
// expected_seq or expected_updated_at is refused with update_conflict and
// nothing is written.
func (s *Store) UpdateItem(ws, ref string, in ItemUpdate, actor model.Actor) (*ItemResult, error) {
	var res *ItemResult
	err := s.write(ws, actor, func(w *wtx) error {
		if replay, err := w.idemReplay(in.Idem); err != nil || replay != nil {
			if replay != nil {
				res, err = w.replayItem(replay)
			}
			return err
		}
		r, err := w.updateItem(ref, in)
		if err != nil {
			return err
		}
		res = r
		return w.idemSave(in.Idem, idemRecord{ItemID: r.Item.ID, Appended: r.Appended})
	})
	return res, err
}

func (w *wtx) updateItem(ref string, in ItemUpdate) (*ItemResult, error) {
	if err := CheckInput(&in); err != nil {
		return nil, err
	}
	b := w.ws
	it, c, err := liveItemByRef(b, ref, true)
	if err != nil {
		return nil, err
	}
	itemRef := records.RefOf(c, it.Number)
	if err := checkTokens(it, itemRef, in); err != nil {
		return nil, err
	}
	if in.Replace && in.Content == nil {
		return nil, model.BadRequest("replace needs content: it says the whole body is meant to be replaced")
	}
	if in.Fields != nil && (in.AppendNote != nil || in.AppendDecision != nil) {
		return nil, model.BadRequest("appends cannot be combined with a full fields write; use fields_patch")
	}
	if in.LinkPR != nil && in.UnlinkPR {
		return nil, model.BadRequest("github_pr and clear_github_pr exclude each other: send one")
	}
	if in.Fields != nil && (in.LinkPR != nil || in.UnlinkPR) {
		return nil, model.BadRequest("github_pr and clear_github_pr cannot be combined with a full fields write; use fields_patch")
	}
	if in.ClearParent {
		if in.Parent != nil {
			return nil, model.BadRequest("parent and clear_parent name the same link: send one")
		}
		if c.Schema.Declares("parent") || c.Schema.Declares("plan") {
			return nil, model.BadRequest("clear_parent is refused: collection %q declares its own parent/plan field; clear that field instead", c.Slug)
		}
	}

	old := *it
	oldUnpar := records.IsUnparented(b, it)
	var warn model.Warnings
	changes := map[string]any{}

	// A parent named in the fields (a patch, or a full write) is the
	// item's parent link, as Pad reads it.
	patch, full := copyMap(in.FieldsPatch), copyMap(in.Fields)
	for _, fields := range []map[string]any{patch, full} {
		if fields == nil {
			continue
		}
		p, has, err := splitParentField(c.Schema, fields)
		if err != nil {
			return nil, err
		}
		if has {
			if in.Parent != nil && *in.Parent != p || in.ClearParent {
				return nil, model.BadRequest("the parent link is named twice (parent and fields): send it once")
			}
			in.Parent = &p
		}
	}
	if in.Fields != nil || in.FieldsPatch != nil {
		fw := model.FieldWrite{Schema: c.Schema, Stored: it.Fields, RefuseUndeclared: in.RefuseUndeclared, Resolver: txResolver{b, w.replica}}
		supplied := map[string]bool{}
		if in.Fields != nil {
			fw.Full = full
			for k := range fw.Full {
				supplied[k] = !model.EqualJSON(fw.Full[k], it.Fields[k])
			}
		} else {
			fw.Patch = patch
			for k := range patch {
				supplied[k] = true
			}
		}
		out, wn, err := fw.Apply()
		if err != nil {
			return nil, err
		}
		// ITM-16: a convention's reserved metadata copy follows its
		// ordinary keys, rebuilt here so it commits with them.
		if out, err = model.SyncConventionCopy(it.Fields, out); err != nil {
			return nil, err
		}
		for k, v := range in.reserved {
			if v == nil {
				delete(out, k)
			} else {
				out[k] = v
			}
		}
		warn = wn
		if err := checkUnique(b, c, out, supplied, it.ID); err != nil {
			return nil, err
		}
		if !in.Force {
			if err := openChildrenGuard(b, it, c, out); err != nil {
				return nil, err
			}
		}
		fieldChanges(it.Fields, out, changes)
		it.Fields = out
	}
	if in.Title != nil {
		t := strings.TrimSpace(*in.Title)
		if t == "" {
			return nil, model.BadRequest("Title cannot be empty")
		}
		if t != it.Title {
			changes["title"] = map[string]any{"from": it.Title, "to": t}
			it.Title = t
		}
	}
	if in.Content != nil && *in.Content != it.Content {
		changes["content"] = map[string]any{"bytes_from": len(it.Content), "bytes_to": len(*in.Content)}
		it.Content = *in.Content
		if in.ExpectedSeq == nil && in.ExpectedUpdatedAt == "" && !in.Replace {
			warn.UnguardedContentWrite = true
		}
	}
	if in.Tags != nil {
		t := cleanTags(*in.Tags)
		if !records.EqualStrings(t, it.Tags) {
			changes["tags"] = map[string]any{"from": it.Tags, "to": t}
			it.Tags = t
		}
	}
	if in.ClearParent || in.Parent != nil && *in.Parent == "" {
		if it.ParentID != "" {
			changes["parent"] = map[string]any{"from": it.ParentID, "to": nil}
			it.ParentID = ""
		}
	} else if in.Parent != nil {
		p, err := resolveParent(b, *in.Parent, it.ID, w.replica)
		if err != nil {
			return nil, err
		}
		if p.ID != it.ParentID {
			changes["parent"] = map[string]any{"from": it.ParentID, "to": p.ID}
			it.ParentID = p.ID
		}
	}
	if in.ClearAssignedUser && it.AssignedUserID != "" {
		changes["assigned_user_id"] = map[string]any{"from": it.AssignedUserID, "to": nil}
		it.AssignedUserID = ""
	} else if in.Assign != nil && *in.Assign != "" && *in.Assign != it.AssignedUserID {
		changes["assigned_user_id"] = map[string]any{"from": it.AssignedUserID, "to": *in.Assign}
		it.AssignedUserID = *in.Assign
	}
	if in.ClearAgentRole && it.AgentRoleID != "" {
		changes["agent_role_id"] = map[string]any{"from": it.AgentRoleID, "to": nil}
		it.AgentRoleID = ""
	} else if in.Role != nil && *in.Role != "" {
		id, err := records.ResolveRole(b, *in.Role)
		if err != nil {
			return nil, err
		}
		if id != it.AgentRoleID {
			changes["agent_role_id"] = map[string]any{"from": it.AgentRoleID, "to": id}
			it.AgentRoleID = id
		}
	}
	if in.Pinned != nil && *in.Pinned != it.Pinned {
		changes["pinned"] = map[string]any{"from": it.Pinned, "to": *in.Pinned}
		it.Pinned = *in.Pinned
	}
	if in.SortOrder != nil && *in.SortOrder != it.SortOrder {
		changes["sort_order"] = map[string]any{"from": it.SortOrder, "to": *in.SortOrder}
		it.SortOrder = *in.SortOrder
	}
	appended, err := w.appendEntries(it, in, changes)
	if err != nil {
		return nil, err
	}
	linkPR(it, in, changes)

	if len(changes) == 0 && len(appended) == 0 {
		v, err := records.View(b, it, map[string]*model.Collection{c.ID: c})
		if err != nil {
			return nil, err
		}
		return &ItemResult{Item: v, Warnings: warn}, nil
	}
	if it.Title != old.Title {
		if err := b.Slugs().Delete([]byte(old.Slug)); err != nil {
			return nil, err
		}
		it.Slug = model.UniqueSlug(model.ItemSlug(it.Title), func(s string) bool { return b.Slugs().Get([]byte(s)) != nil })
		if err := b.Slugs().Put([]byte(it.Slug), records.MustID(it.ID)); err != nil {
			return nil, err
		}
	}
	it.UpdatedAt = records.Tstamp(w.now)
	it.LastModifiedBy = w.actor
	seq, err := w.stamp(model.EntityItem, model.OpUpdated, it.ID, it.ID, c.ID)
	if err != nil {
		return nil, err
	}
	it.Seq = seq
	if err := putDerived(b, &old, c, true); err != nil {
		return nil, err
	}
	if err := putDerived(b, it, c, false); err != nil {
		return nil, err
	}
	if err := putItem(b, it); err != nil {
		return nil, err
	}
	if err := w.reindex(&old, it, oldUnpar, records.IsUnparented(b, it)); err != nil {
		return nil, err
	}
	if it.Title != old.Title || it.Content != old.Content {
		if err := w.version(it, old.Content, false, in.Comment); err != nil {
			return nil, err
		}
	}
	meta := map[string]any{"seq": seq, "prev_seq": old.Seq, "changes": changes}
	for k, v := range in.ActivityMeta {
		meta[k] = v
	}
	if in.Comment != "" {
		meta["comment"] = in.Comment
	}
	if len(appended) > 0 {
		meta["appended"] = len(appended)
	}
	if err := w.activity(seq, it.ID, "updated", meta); err != nil {
		return nil, err
	}
	v, err := records.View(b, it, map[string]*model.Collection{c.ID: c})
	if err != nil {
		return nil, err
	}
	return &ItemResult{Item: v, Warnings: warn, Appended: appended, Changed: true}, nil
}

// checkTokens applies the optimistic-concurrency tokens: expected_seq
// (strong) and expected_updated_at (weak, whole seconds).
func checkTokens(it *model.Item, ref string, in ItemUpdate) error {
	if in.Replace && (in.ExpectedSeq != nil || in.ExpectedUpdatedAt != "") {
		return model.BadRequest("replace cannot be combined with expected_seq or expected_updated_at: replace says you mean to overwrite")
	}
	contentWrite := in.Content != nil
	conflict := func(msg string) *model.Error {
		e := model.Errorf(model.CodeUpdateConflict, "%s was modified by another writer since you last read it (%s); re-read and merge, do not resend", ref, msg).
			With("ref", ref).With("actual_seq", it.Seq).With("changed_at", it.UpdatedAt.Format(time.RFC3339)).
			With("changed_by_kind", it.LastModifiedBy.Kind)
		if contentWrite {
			e.With("content_write", true)
		}
		return e
	}
	if in.ExpectedSeq != nil {
		if *in.ExpectedSeq < 1 {
			return model.BadRequest("expected_seq must be at least 1 (read the item's seq first)")
		}
		if *in.ExpectedSeq != it.Seq {
			return conflict(fmt.Sprintf("its seq is %d, you expected %d", it.Seq, *in.ExpectedSeq)).With("expected_seq", *in.ExpectedSeq)
		}
	}
	if in.ExpectedUpdatedAt != "" {
		t, err := time.Parse(time.RFC3339Nano, in.ExpectedUpdatedAt)
		if err != nil {
			return model.BadRequest("expected_updated_at must be an RFC3339 timestamp")
		}
		if !t.UTC().Truncate(time.Second).Equal(it.UpdatedAt) {
			return conflict("updated_at is "+it.UpdatedAt.Format(time.RFC3339)).
				With("expected_updated_at", in.ExpectedUpdatedAt).With("actual_updated_at", it.UpdatedAt.Format(time.RFC3339))
		}
	}
	return nil
}

// appendEntries appends implementation notes and decisions to their
// reserved keys and returns the appended entries. Each list's length
// before and after goes in changes (fields.<key>: from_count, absent
// when the list was, and to_count), which Pad's activity line words as
// "implementation_notes: (1 note) → (2 notes)".
func (w *wtx) appendEntries(it *model.Item, in ItemUpdate, changes map[string]any) ([]map[string]any, error) {
	var out []map[string]any
	add := func(key string, entry map[string]any) error {
		list, err := entryList(it.Fields[key], key)
		if err != nil {
			return err
		}
		count := map[string]any{"to_count": len(list) + 1}
		if _, had := it.Fields[key]; had {
			count["from_count"] = len(list)
		}
		changes["fields."+key] = count
		entry["id"] = records.NewID()
		entry["created_at"] = records.Tstamp(w.now).Format(time.RFC3339)
		entry["created_by"] = w.actor.Kind
		if w.actor.Kind == model.ActorAgent && w.actor.Name != "" {
			entry["agent"] = w.actor.Name
		}
		if it.Fields == nil {
			it.Fields = map[string]any{}
		}
		it.Fields[key] = append(list, entry)
		out = append(out, entry)
		return nil
	}
	if n := in.AppendNote; n != nil {
		if strings.TrimSpace(n.Summary) == "" {
			return nil, model.BadRequest("an implementation note needs a summary")
		}
		if err := add(model.FieldImplementationNotes, map[string]any{"summary": n.Summary, "details": n.Details}); err != nil {
			return nil, err
		}
	}
	if d := in.AppendDecision; d != nil {
		if strings.TrimSpace(d.Decision) == "" {
			return nil, model.BadRequest("a decision entry needs the decision text")
		}
		if err := add(model.FieldDecisionLog, map[string]any{"decision": d.Decision, "rationale": d.Rationale}); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// linkPR sets or removes the item's pull request link, noting the
// change. The fields map is copied first: the item's old copy shares it.
func linkPR(it *model.Item, in ItemUpdate, changes map[string]any) {
	if in.LinkPR == nil && !in.UnlinkPR {
		return
	}
	k := model.FieldGitHubPR
	before, had := it.Fields[k]
	var after any
	if in.LinkPR != nil {
		after = in.LinkPR.Value()
	}
	if !had && after == nil || had && after != nil && model.EqualJSON(before, after) {
		return
	}
	it.Fields = copyMap(it.Fields)
	if it.Fields == nil {
		it.Fields = map[string]any{}
	}
	if after == nil {
		delete(it.Fields, k)
	} else {
		it.Fields[k] = after
	}
	changes["fields."+k] = map[string]any{"from": before, "to": after}
}

func entryList(v any, key string) ([]any, error) {
	switch x := v.(type) {
	case nil:
		return nil, nil
	case []any:
		return x, nil
	}
	return nil, model.Errorf(model.CodeStoredStateUnreadable, "stored %s is not a list; it cannot be appended to", key).With("field", key)
}

func fieldChanges(before, after map[string]any, into map[string]any) {
	keys := map[string]bool{}
	for k := range before {
		keys[k] = true
	}
	for k := range after {
		keys[k] = true
	}
	sorted := make([]string, 0, len(keys))
	for k := range keys {
		sorted = append(sorted, k)
	}
	sort.Strings(sorted)
	for _, k := range sorted {
		a, aok := before[k]
		b, bok := after[k]
		if aok == bok && model.EqualJSON(a, b) {
			continue
		}
		into["fields."+k] = map[string]any{"from": a, "to": b}
	}
}

func copyMap(m map[string]any) map[string]any {
	if m == nil {
		return nil
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
