package daemon

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/padd/padd/api"
	"github.com/padd/padd/model"
	"github.com/padd/padd/storage"
	"github.com/padd/padd/storage/views"
)

// Storage -> wire conversions for comments, links, roles, versions,
// activity and the sync feeds.

// localUserID is the one user's id on the wire (see localUser).
const localUserID = "local"

// wireRole fills the role columns Pad joins onto an item.
func wireRole(it *api.Item, v *storage.ItemView) {
	it.AgentRoleSlug, it.AgentRoleName, it.AgentRoleIcon = v.RoleSlug, v.RoleName, v.RoleIcon
}

// userIDOf is Pad's user_id of a write: the local user's for a human,
// none for an agent (Pad leaves agent rows without a provable author).
func userIDOf(a model.Actor) string {
	if a.Kind == model.ActorUser {
		return localUserID
	}
	return ""
}

func wireComment(c *model.Comment) api.Comment {
	return api.Comment{ID: c.ID, ItemID: c.ItemID, WorkspaceID: c.WorkspaceID, Author: c.Author.Name,
		UserID: userIDOf(c.Author), Body: c.Body, CreatedBy: c.Author.Kind, Source: c.Author.Source,
		ParentID: c.ParentID, CreatedAt: c.CreatedAt, UpdatedAt: c.UpdatedAt,
		Edited:  model.Truncate1s(c.UpdatedAt).After(model.Truncate1s(c.CreatedAt)),
		Deleted: c.DeletedAt != nil, Seq: c.Seq, Reactions: wireReactions(c)}
}

// wireReactions are a comment's reactions as Pad lists them (nil: the
// member is left out, as Pad leaves it).
func wireReactions(c *model.Comment) []api.Reaction {
	var out []api.Reaction
	for i := range c.Reactions {
		out = append(out, wireReaction(c.ID, &c.Reactions[i]))
	}
	return out
}

// wireReaction is one reaction as Pad answers it: this padd's person's
// carry the local user's id, as their comments do.
func wireReaction(commentID string, r *model.Reaction) api.Reaction {
	user := r.UserID
	if user == "" {
		user = localUserID
	}
	return api.Reaction{ID: r.ID, CommentID: commentID, UserID: user, Actor: r.Actor.Kind, Emoji: r.Emoji,
		CreatedAt: r.CreatedAt, ActorName: r.Actor.Name}
}

// wireLinkType spells a stored link type as Pad does (split_from).
func wireLinkType(t string) string { return strings.ReplaceAll(t, "-", "_") }

// briefOfView describes an item the way storage describes a link's
// other end, so both ends of a link render alike.
func briefOfView(v *storage.ItemView) storage.ItemBrief {
	status, _ := v.Fields[model.DoneField(v.Collection.Schema, v.Collection.Settings)].(string)
	return storage.ItemBrief{ID: v.ID, Ref: v.Ref, Slug: v.Slug, Title: v.Title, Status: status,
		State: v.State(), CollectionSlug: v.Collection.Slug, CollectionIcon: v.Collection.Icon,
		UpdatedAt: v.UpdatedAt.UTC().Format(time.RFC3339),
		Archived:  v.DeletedAt != nil || v.Collection.ArchivedAt != nil}
}

// wireLink is a link in its stored direction with both ends described.
func wireLink(l *model.Link, src, dst storage.ItemBrief) api.ItemLink {
	return api.ItemLink{ID: l.ID, WorkspaceID: l.WorkspaceID, SourceID: l.SourceID, TargetID: l.TargetID,
		LinkType: wireLinkType(l.Type), CreatedBy: l.CreatedBy.Kind, CreatedAt: l.CreatedAt,
		SourceTitle: src.Title, TargetTitle: dst.Title, SourceSlug: src.Slug, TargetSlug: dst.Slug,
		SourceRef: src.Ref, TargetRef: dst.Ref, SourceCollectionSlug: src.CollectionSlug,
		TargetCollectionSlug: dst.CollectionSlug, SourceStatus: src.Status, TargetStatus: dst.Status, Seq: l.Seq}
}

func wireBacklink(b views.Backlink) api.Backlink {
	return api.Backlink{SourceItemID: b.Source.ID, SourceRef: b.Source.Ref, SourceTitle: b.Source.Title,
		SourceCollectionSlug: b.Source.CollectionSlug, SourceCollectionIcon: b.Source.CollectionIcon,
		Snippet: b.Snippet, DisplayText: b.DisplayText, UpdatedAt: b.Source.UpdatedAt}
}

func wireLinkedItem(b storage.ItemBrief) api.LinkedItem {
	return api.LinkedItem{ID: b.ID, Ref: b.Ref, Slug: b.Slug, Title: b.Title, Status: b.Status,
		State: string(b.State), CollectionSlug: b.CollectionSlug, Archived: b.Archived}
}

func wireDepNodes(ns []storage.DepNode) []api.DepNode {
	out := make([]api.DepNode, 0, len(ns))
	for _, n := range ns {
		out = append(out, api.DepNode{LinkedItem: wireLinkedItem(n.ItemBrief), Depth: n.Depth, Via: n.Via, LinkID: n.LinkID})
	}
	return out
}

func wireAgentRole(r storage.RoleInfo) api.AgentRole {
	return api.AgentRole{ID: r.ID, WorkspaceID: r.WorkspaceID, Slug: r.Slug, Name: r.Name,
		Description: r.Description, Icon: r.Icon, Tools: r.Tools, SortOrder: r.SortOrder,
		CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt, ItemCount: r.ItemCount}
}

func wireVersion(v *model.Version) api.ItemVersion {
	return api.ItemVersion{ID: v.ID, DocumentID: v.ItemID, ItemID: v.ItemID, VersionSeq: v.VersionSeq,
		Title: v.Title, Content: v.Content, ChangeSummary: v.Summary, CreatedBy: v.Actor.Kind,
		Source: v.Actor.Source, ActorName: v.Actor.Name, IsCreate: v.IsCreate,
		LinesAdded: v.LinesAdded, LinesRemoved: v.LinesRemoved, CreatedAt: v.CreatedAt}
}

// wireActivity is a feed entry as Pad serves it: metadata as JSON text.
func wireActivity(a views.ActivityView) api.Activity {
	out := api.Activity{ID: a.ID, WorkspaceID: a.WorkspaceID, DocumentID: a.ItemID, Action: a.Action,
		Actor: a.Actor.Kind, Source: a.Actor.Source, UserID: userIDOf(a.Actor), CreatedAt: a.CreatedAt,
		ItemTitle: a.ItemTitle, ItemSlug: a.ItemSlug, ItemRef: a.ItemRef, CollectionSlug: a.CollectionSlug,
		ActorName: a.Actor.Name, Seq: a.Seq}
	if len(a.Metadata) > 0 {
		out.Metadata = jsonText(padChanges(a.Metadata, a.RoleNames))
	}
	return out
}

// padChanges is an activity's metadata with its changes in Pad's words:
// Pad's `changes` is one line, "status: open → done; title: a → b", which
// Pad's CLI prints under the entry (it reads nothing from an object).
// The field and title changes come sorted, a note or decision appended
// by the list's length ("implementation_notes: → (1 note)"), then a
// role change by the roles' names and an assignment by the assignee's,
// "(none)" for none, in that order, as Pad appends them. padd's change
// records, each with its typed from and to, stay beside it as
// changes_detail. The parent, content and order changes, which padd
// records by id or size, are in the detail only.
func padChanges(meta map[string]any, roleNames map[string]string) map[string]any {
	changes, ok := meta["changes"].(map[string]any)
	if !ok {
		return meta
	}
	var lines []string
	for k, c := range changes {
		ft, _ := c.(map[string]any)
		key, field := strings.CutPrefix(k, "fields.")
		if ft == nil || !field && key != "title" {
			continue
		}
		from, to := ft["from"], ft["to"]
		var fromText, toText string
		if n, counted := ft["to_count"]; counted {
			// An append: the list's lengths, not the lists.
			toText = countValue(key, n)
			if from, had := ft["from_count"]; had {
				fromText = countValue(key, from)
			}
		} else {
			toText = changeValue(key, to)
			if from != nil {
				fromText = changeValue(key, from)
			}
		}
		if fromText == "" {
			lines = append(lines, fmt.Sprintf("%s: → %s", key, toText))
		} else {
			lines = append(lines, fmt.Sprintf("%s: %s → %s", key, fromText, toText))
		}
	}
	sort.Strings(lines)
	name := func(c map[string]any, end string, names func(string) string) string {
		id, _ := c[end].(string)
		if id == "" {
			return "(none)"
		}
		return names(id)
	}
	if c, ok := changes["agent_role_id"].(map[string]any); ok {
		role := func(id string) string {
			if n := roleNames[id]; n != "" {
				return n
			}
			return id
		}
		lines = append(lines, fmt.Sprintf("role: %s → %s", name(c, "from", role), name(c, "to", role)))
	}
	if c, ok := changes["assigned_user_id"].(map[string]any); ok {
		user := func(id string) string {
			if id == localUserID {
				return model.LocalUserName
			}
			return id
		}
		lines = append(lines, fmt.Sprintf("assigned: %s → %s", name(c, "from", user), name(c, "to", user)))
	}
	out := make(map[string]any, len(meta)+1)
	for k, v := range meta {
		out[k] = v
	}
	delete(out, "changes")
	if len(lines) > 0 {
		out["changes"] = strings.Join(lines, "; ")
	}
	out["changes_detail"] = changes
	return out
}

// countValue is a list's length in a change line, as changeValue words
// a list of that length.
func countValue(key string, n any) string {
	var size int
	switch x := n.(type) {
	case int:
		size = x
	case int64:
		size = int(x)
	case float64:
		size = int(x)
	case json.Number:
		i, _ := x.Int64()
		size = int(i)
	}
	return changeValue(key, make([]any, size))
}

// changeValue is a value in a change line as Pad words it: a note or
// decision list by its count, another list by its length, an object as
// "(object)", nothing as "".
func changeValue(key string, v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case []any:
		one, many := "(1 item)", "(%d items)"
		switch key {
		case model.FieldImplementationNotes:
			one, many = "(1 note)", "(%d notes)"
		case model.FieldDecisionLog:
			one, many = "(1 entry)", "(%d entries)"
		}
		if len(x) == 1 {
			return one
		}
		return fmt.Sprintf(many, len(x))
	case map[string]any:
		return "(object)"
	}
	return fmt.Sprint(v)
}

// wireSyncItem is a body-less feed row; deleted is set on /items-changes.
func wireSyncItem(it storage.SkinnyItem, deleted *bool) api.SyncItem {
	return api.SyncItem{Item: wireItem(it.ItemView), IsUnparented: it.Unparented, Deleted: deleted}
}
