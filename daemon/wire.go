package daemon

import (
	"encoding/json"
	"sort"

	"github.com/padd/padd/api"
	"github.com/padd/padd/model"
	"github.com/padd/padd/storage"
)

// jsonText encodes v as JSON text for Pad's string-typed members.
func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return "{}"
	}
	return string(b)
}

func wireWorkspace(w *model.Workspace) api.Workspace {
	return api.Workspace{ID: w.ID, Name: w.Name, Slug: w.Slug, Description: w.Description,
		Settings: workspaceSettings(w.Context), Source: "padd", SortOrder: w.SortOrder, Template: w.Template, Seq: w.Seq,
		CreatedAt: w.CreatedAt, UpdatedAt: w.UpdatedAt, DeletedAt: w.DeletedAt, Context: w.Context}
}

// workspaceSettings is Pad's settings text of a workspace: its context,
// the one setting padd keeps, under "context"; {} when it has none.
func workspaceSettings(c *model.WorkspaceContext) string {
	if c == nil {
		return "{}"
	}
	return jsonText(map[string]any{"context": c})
}

func wireCollection(c *model.Collection, itemCount, active int) api.Collection {
	schema := c.Schema
	if schema.Fields == nil {
		schema.Fields = []model.FieldDef{}
	}
	return api.Collection{ID: c.ID, WorkspaceID: c.WorkspaceID, Name: c.Name, Slug: c.Slug,
		Icon: c.Icon, Description: c.Description, Schema: jsonText(schema), Settings: jsonText(c.Settings),
		Traits: "{}", Prefix: c.Prefix, SortOrder: c.SortOrder, IsDefault: c.IsDefault, IsSystem: c.IsSystem,
		TracksWork: c.TracksWork(), Seq: c.Seq, CreatedAt: c.CreatedAt, UpdatedAt: c.UpdatedAt,
		DeletedAt: c.ArchivedAt, ArchivedAt: c.ArchivedAt, ItemCount: itemCount, ActiveItemCount: active}
}

func wireCollectionInfo(ci storage.CollectionInfo) api.Collection {
	return wireCollection(&ci.Collection, ci.ItemCount, ci.ActiveItemCount)
}

func strp(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func wireItem(v *storage.ItemView) api.Item {
	fields := v.Fields
	if fields == nil {
		fields = map[string]any{}
	}
	tags := v.Tags
	if tags == nil {
		tags = []string{}
	}
	n := v.Number
	it := api.Item{
		ID: v.ID, WorkspaceID: v.WorkspaceID, CollectionID: v.CollectionID, Title: v.Title,
		Slug: v.Slug, Ref: v.Ref, Content: v.Content, Fields: jsonText(fields), Tags: jsonText(tags),
		Pinned: v.Pinned, SortOrder: v.SortOrder, ParentID: strp(v.ParentID),
		CreatedBy: v.CreatedBy.Kind, CreatedByName: agentName(v.CreatedBy), LastModifiedBy: v.LastModifiedBy.Kind,
		Source: v.CreatedBy.Source, CreatedAt: v.CreatedAt, UpdatedAt: v.UpdatedAt, DeletedAt: v.DeletedAt,
		AssignedUserID: strp(v.AssignedUserID), AgentRoleID: strp(v.AgentRoleID),
		RoleSortOrder: v.RoleSortOrder, ItemNumber: &n, Seq: v.Seq,
		CollectionSlug: v.Collection.Slug, CollectionName: v.Collection.Name,
		CollectionIcon: v.Collection.Icon, CollectionPrefix: v.Collection.Prefix,
		ParentRef: v.ParentRef, ParentTitle: v.ParentTitle, HasChildren: v.HasChildren,
		RelationTargets: v.RelationTargets,
	}
	wireRole(&it, v)
	it.Lease = wireLease(v.Lease)
	it.CodeContext = wireCodeContext(fields[model.FieldGitHubPR])
	it.ParentLinkID = v.ParentLinkID
	if v.AssignedUserID == localUserID {
		it.AssignedUserName = model.LocalUserName
	}
	if c := model.ConventionOf(fields); c != nil {
		it.Convention = &api.ItemConvention{Category: c.Category, Trigger: c.Trigger, Surfaces: c.Surfaces,
			Enforcement: c.Enforcement, Commands: c.Commands}
	}
	it.ImplementationNotes = entryList(fields[model.FieldImplementationNotes])
	it.DecisionLog = entryList(fields[model.FieldDecisionLog])
	return it
}

// entryList is a note or decision list as Pad answers it beside the
// fields: nil when there is none or the stored value is not a list.
func entryList(v any) []any {
	l, _ := model.Entries(v)
	if len(l) == 0 {
		return nil
	}
	return l
}

// wireCodeContext is Pad's code_context of an item, read from its
// github_pr: nil when the item has no link (or one naming nothing).
func wireCodeContext(v any) *api.CodeContext {
	pr, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	str := func(k string) string { s, _ := pr[k].(string); return s }
	var number int64
	switch n := pr["number"].(type) {
	case json.Number:
		number, _ = n.Int64()
	case float64:
		number = int64(n)
	}
	cc := &api.CodeContext{Provider: "github", Repo: str("repo"), Branch: str("branch")}
	if number == 0 && str("url") == "" && cc.Repo == "" && cc.Branch == "" {
		return nil
	}
	if number != 0 || str("url") != "" || str("title") != "" || str("state") != "" {
		cc.PullRequest = &api.PullRequest{Number: number, URL: str("url"), Title: str("title"), State: str("state"),
			UpdatedAt: str("updated_at")}
	}
	return cc
}

func agentName(a model.Actor) string {
	if a.Kind == model.ActorAgent {
		return a.Name
	}
	return ""
}

func wireItems(vs []*storage.ItemView) []api.Item {
	out := make([]api.Item, 0, len(vs))
	for _, v := range vs {
		out = append(out, wireItem(v))
	}
	return out
}

func wireWarnings(w model.Warnings) *api.Warnings {
	if w.Empty() {
		return nil
	}
	out := &api.Warnings{UndeclaredFields: w.UndeclaredFields, DroppedFields: w.DroppedFields,
		UnguardedContentWrite: w.UnguardedContentWrite}
	for _, n := range w.NotUnique {
		m := map[string]any{"key": n.Key, "value": n.Value, "message": n.Message}
		if n.Holder != "" {
			m["holder"] = n.Holder
		}
		out.NotUnique = append(out.NotUnique, m)
	}
	for _, o := range w.Orphaned {
		m := map[string]any{"field": o.Field, "items": o.Items}
		if o.Option != "" {
			m["option"] = o.Option
		}
		out.Orphaned = append(out.Orphaned, m)
	}
	return out
}

// wireResult is an item write's answer: the item with its warnings and
// any appended entries.
func wireResult(r *storage.ItemResult) api.Item {
	it := wireItem(r.Item)
	it.Warnings = wireWarnings(r.Warnings)
	it.Appended = r.Appended
	return it
}

func sortedKeys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
