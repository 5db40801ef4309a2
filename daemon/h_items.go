package daemon

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/padd/padd/api"
	"github.com/padd/padd/model"
	"github.com/padd/padd/storage"
)

// RESTListCap is Pad's REST list clamp (and default).
const RESTListCap = 1000

func (s *Server) itemRoutes() {
	s.handle("GET /api/v1/workspaces/{ws}/items", s.listItems)
	s.handle("GET /api/v1/workspaces/{ws}/collections/{coll}/items", s.listItems)
	s.handle("POST /api/v1/workspaces/{ws}/collections/{coll}/items", s.createItem)
	s.handle("GET /api/v1/workspaces/{ws}/items/{ref}", s.getItem)
	s.handle("PATCH /api/v1/workspaces/{ws}/items/{ref}", s.updateItem)
	s.handle("DELETE /api/v1/workspaces/{ws}/items/{ref}", s.deleteItem)
	s.handle("POST /api/v1/workspaces/{ws}/items/{ref}/restore", s.restoreItem)
	s.handle("POST /api/v1/workspaces/{ws}/items/{ref}/move", s.moveItem)
	s.handle("POST /api/v1/workspaces/{ws}/items/bulk", s.bulkItems)
}

// idemKey reads an idempotency key from the Idempotency-Key header or the
// body's op_key; both present and different is refused.
func idemKey(r *http.Request, opKey string) (string, error) {
	h := strings.TrimSpace(r.Header.Get("Idempotency-Key"))
	switch {
	case h != "" && opKey != "" && h != opKey:
		return "", model.BadRequest("Idempotency-Key header and op_key name different keys; send one")
	case h != "":
		opKey = h
	}
	if len(opKey) > 255 {
		return "", model.BadRequest("idempotency key is longer than 255 characters")
	}
	return opKey, nil
}

// fingerprint makes a request's idempotency fingerprint from its route,
// target and canonical body.
func fingerprint(key string, r *http.Request, body any) storage.Idem {
	b, _ := json.Marshal(body)
	return storage.NewIdem(key, r.Method, r.Pattern, r.PathValue("ws"), r.PathValue("coll"), r.PathValue("ref"), string(b))
}

// objectOf decodes a Flex member that must be a JSON object.
func objectOf(f api.Flex, name string) (map[string]any, error) {
	v, err := f.Value()
	if err != nil {
		return nil, model.Invalid("%s is not valid JSON: %v", name, err).With("field", name)
	}
	if v == nil {
		return nil, nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, model.Invalid("%s must be a JSON object (or JSON text of one)", name).With("field", name)
	}
	return m, nil
}

// tagsOf decodes tags sent as an array or as JSON text of one; nil means
// not sent, and "" is dropped rather than read as a clear.
func tagsOf(f api.Flex) (*[]string, error) {
	v, err := f.Value()
	if err != nil {
		if s := strings.TrimSpace(string(f)); strings.HasPrefix(s, `"`) {
			// Pad's CLI passes --tags text through: a bare word is one tag.
			var word string
			if json.Unmarshal(f, &word) == nil && !strings.ContainsAny(word, "[]{}") {
				t := splitTags(word)
				return &t, nil
			}
		}
		return nil, model.Invalid("tags must be a JSON array of strings: %v", err).With("field", "tags")
	}
	if v == nil {
		return nil, nil
	}
	list, ok := v.([]any)
	if !ok {
		return nil, model.Invalid("tags must be a JSON array of strings").With("field", "tags")
	}
	out := make([]string, 0, len(list))
	for _, e := range list {
		s, ok := e.(string)
		if !ok {
			return nil, model.Invalid("tags must be a JSON array of strings").With("field", "tags")
		}
		out = append(out, s)
	}
	return &out, nil
}

func splitTags(s string) []string {
	var out []string
	for _, t := range strings.Split(s, ",") {
		if t = strings.TrimSpace(t); t != "" {
			out = append(out, t)
		}
	}
	return out
}

// oneOf returns the value of two aliases for one target, refusing them
// when they disagree (ITM-13).
func oneOf(a, b *string, an, bn string) (*string, error) {
	switch {
	case a != nil && b != nil && *a != *b:
		return nil, model.BadRequest("%s and %s name the same target with different values: send one", an, bn)
	case a != nil:
		return a, nil
	}
	return b, nil
}

// createConvention takes a create's convention metadata out of its
// fields: Pad's typed member (written into the ordinary keys too, as
// Pad's server does), or the reserved field Pad's CLI sends when it
// activates a library convention (create is the one door that takes it,
// on Pad's server as here). It answers the reserved copy to store.
func createConvention(typed *api.ItemConvention, fields map[string]any) (map[string]any, error) {
	raw, inFields := fields[model.FieldConvention]
	var c model.ConventionMetadata
	switch {
	case typed != nil && inFields:
		return nil, model.Invalid("the convention is named twice, as the convention member and in fields: send one").With("field", model.FieldConvention)
	case typed != nil:
		c = model.ConventionMetadata{Category: typed.Category, Trigger: typed.Trigger, Surfaces: typed.Surfaces,
			Enforcement: typed.Enforcement, Commands: typed.Commands}
		if err := c.ApplyTo(fields); err != nil {
			return nil, err
		}
	case inFields:
		var err error
		if c, err = model.ConventionFromField(raw); err != nil {
			return nil, err
		}
		if c.Copy() == nil {
			return nil, model.Invalid("field %q names no category, trigger, surfaces, enforcement or commands", model.FieldConvention).With("field", model.FieldConvention)
		}
	default:
		return nil, nil
	}
	delete(fields, model.FieldConvention)
	return c.Copy(), nil
}

// oneHierarchyWrite refuses an update that names the parent both in its
// fields (a "parent" or "plan" key the schema does not declare) and in the
// top-level parent_id, whatever the two values: Pad's server refuses the
// pair as two competing hierarchy writes (ITM-13).
func oneHierarchyWrite(schema model.Schema, maps ...map[string]any) error {
	for _, m := range maps {
		for _, k := range []string{"parent", "plan"} {
			if _, ok := m[k]; ok && !schema.Declares(k) {
				return model.Invalid("the request names the parent twice, as %q in fields and as parent_id: send one", k).With("field", "parent_id")
			}
		}
	}
	return nil
}

// liftColumns moves assigned_user_id / agent_role_id out of fields when
// the schema does not declare them: they are columns, not fields.
func liftColumns(schema model.Schema, fields map[string]any, assign, role **string) error {
	for key, dst := range map[string]**string{"assigned_user_id": assign, "agent_role_id": role} {
		v, ok := fields[key]
		if !ok || schema.Declares(key) {
			continue
		}
		delete(fields, key)
		s, isStr := v.(string)
		if v != nil && !isStr {
			return model.Invalid("%s must be a string", key).With("field", key)
		}
		if *dst != nil && **dst != s {
			return model.BadRequest("%s is given twice with different values: send it once", key)
		}
		*dst = &s
	}
	return nil
}

func (s *Server) createItem(w http.ResponseWriter, r *http.Request) error {
	var in api.ItemCreate
	if err := decodeBody(r, &in); err != nil {
		return err
	}
	ws, coll := r.PathValue("ws"), r.PathValue("coll")
	key, err := idemKey(r, in.OpKey)
	if err != nil {
		return err
	}
	c, err := s.views.GetCollection(ws, coll)
	if err != nil {
		return err
	}
	obj, err := objectOf(in.Fields, "fields")
	if err != nil {
		return err
	}
	fields, err := model.MergeFieldSources(c.Schema, obj, in.Field, nil)
	if err != nil {
		return err
	}
	parent, err := oneOf(in.Parent, in.ParentID, "parent", "parent_id")
	if err != nil {
		return err
	}
	role, err := oneOf(in.Role, in.AgentRoleID, "role", "agent_role_id")
	if err != nil {
		return err
	}
	assign := in.AssignedUserID
	if err := liftColumns(c.Schema, fields, &assign, &role); err != nil {
		return err
	}
	if fields == nil {
		fields = map[string]any{}
	}
	convention, err := createConvention(in.Convention, fields)
	if err != nil {
		return err
	}
	tags, err := tagsOf(in.Tags)
	if err != nil {
		return err
	}
	create := storage.ItemCreate{Collection: c.ID, Title: in.Title, Content: in.Content, Fields: fields,
		Pinned: in.Pinned, SortOrder: in.SortOrder, RefuseUndeclared: in.RefuseUndeclared,
		Convention: convention, Idem: fingerprint(key, r, in)}
	if tags != nil {
		create.Tags = *tags
	}
	if parent != nil {
		create.Parent = *parent
	}
	if role != nil {
		create.Role = *role
	}
	if assign != nil {
		create.AssignUser = *assign
	}
	if err := checkInput(create); err != nil {
		return err
	}
	res, err := s.store.CreateItem(ws, create, actor(r))
	if err != nil {
		return err
	}
	if res.Replayed {
		w.Header().Set("Idempotent-Replayed", "true")
	}
	writeJSON(w, 201, wireResult(res))
	return nil
}

func (s *Server) getItem(w http.ResponseWriter, r *http.Request) error {
	ws, ref := r.PathValue("ws"), r.PathValue("ref")
	include := r.URL.Query().Get("include")
	if include == "" {
		v, err := s.views.GetItem(ws, ref)
		if err != nil {
			return err
		}
		writeJSON(w, 200, wireItem(v))
		return nil
	}
	// padd's addition: the item with its comments and links, as their
	// own routes answer them, in one request (an agent's get) and one
	// read.
	var comments, links bool
	for _, part := range splitList(include) {
		switch part {
		case "comments":
			comments = true
		case "links":
			links = true
		default:
			return model.BadRequest("include takes comments and links, got %q", part).With("param", "include")
		}
	}
	got, err := s.views.GetItemWith(ws, ref, comments, links)
	if err != nil {
		return err
	}
	out := api.ItemWith{Item: wireItem(got.Item)}
	if comments {
		cs := wireComments(got.Comments)
		out.Comments = &cs
	}
	if links {
		ls := wireItemLinks(got.Item, got.Links)
		out.Links = &ls
	}
	writeJSON(w, 200, out)
	return nil
}

func (s *Server) updateItem(w http.ResponseWriter, r *http.Request) error {
	var in api.ItemUpdate
	if err := decodeBody(r, &in); err != nil {
		return err
	}
	ws, ref := r.PathValue("ws"), r.PathValue("ref")
	key, err := idemKey(r, in.OpKey)
	if err != nil {
		return err
	}
	appendOnly := in.AppendImplementationNote != nil || in.AppendDecision != nil
	if key != "" && !appendOnly {
		return model.BadRequest("an idempotency key is accepted on an update only with append_implementation_note or append_decision (and source)")
	}
	up, err := s.itemUpdate(ws, ref, in)
	if err != nil {
		return err
	}
	if key != "" {
		if onlyAppends(in) != nil {
			return model.BadRequest("with an idempotency key, an update may carry only append_implementation_note, append_decision and source")
		}
		up.Idem = fingerprint(key, r, in)
	}
	if err := checkInput(up); err != nil {
		return err
	}
	res, err := s.store.UpdateItem(ws, ref, *up, actor(r))
	if err != nil {
		return err
	}
	if res.Replayed {
		w.Header().Set("Idempotent-Replayed", "true")
	}
	if in.Comment != nil {
		s.commentOnUpdate(ws, res.Item.ID, *in.Comment, actor(r))
	}
	writeJSON(w, 200, wireResult(res))
	return nil
}

// onlyAppends refuses any member besides the appends and source.
func onlyAppends(in api.ItemUpdate) error {
	probe := in
	probe.AppendImplementationNote, probe.AppendDecision, probe.Source, probe.OpKey = nil, nil, "", ""
	b, _ := json.Marshal(probe)
	if string(b) != "{}" {
		return model.BadRequest("extra members")
	}
	return nil
}

// itemUpdate translates Pad's PATCH body into a storage update. The
// collection's schema types key=value entries.
func (s *Server) itemUpdate(ws, ref string, in api.ItemUpdate) (*storage.ItemUpdate, error) {
	up := &storage.ItemUpdate{Title: in.Title, Content: in.Content, Pinned: in.Pinned, SortOrder: in.SortOrder,
		ClearParent: in.ClearParent, ClearAssignedUser: in.ClearAssignedUser, ClearAgentRole: in.ClearAgentRole,
		ExpectedSeq: in.ExpectedSeq, ExpectedUpdatedAt: in.ExpectedUpdatedAt, Replace: in.Replace,
		Force: in.Force, RefuseUndeclared: in.RefuseUndeclared, Comment: in.ChangeSummary}
	if in.Comment != nil {
		up.Comment = *in.Comment
	}
	if n := in.AppendImplementationNote; n != nil {
		up.AppendNote = &storage.Note{Summary: n.Summary, Details: n.Details}
	}
	if d := in.AppendDecision; d != nil {
		up.AppendDecision = &storage.Decision{Decision: d.Decision, Rationale: d.Rationale}
	}
	if p := in.GitHubPR; p != nil {
		up.LinkPR = &model.PullRequestLink{Number: p.Number, URL: p.URL, Title: p.Title, State: p.State,
			Branch: p.Branch, Repo: p.Repo, UpdatedAt: p.UpdatedAt}
	}
	up.UnlinkPR = in.ClearGitHubPR
	var err error
	if up.Parent, err = oneOf(in.Parent, in.ParentID, "parent", "parent_id"); err != nil {
		return nil, err
	}
	role, err := oneOf(in.Role, in.AgentRoleID, "role", "agent_role_id")
	if err != nil {
		return nil, err
	}
	assign := in.AssignedUserID
	tags, err := tagsOf(in.Tags)
	if err != nil {
		return nil, err
	}
	up.Tags = tags
	full, err := objectOf(in.Fields, "fields")
	if err != nil {
		return nil, err
	}
	patch, err := objectOf(in.FieldsPatch, "fields_patch")
	if err != nil {
		return nil, err
	}
	if full != nil && (patch != nil || len(in.Field) > 0) {
		return nil, model.BadRequest("fields (a full replace) cannot be combined with fields_patch or field entries")
	}
	if patch != nil || len(in.Field) > 0 || full != nil {
		item, err := s.views.GetItem(ws, ref)
		if err != nil {
			return nil, err
		}
		schema := item.Collection.Schema
		if full != nil {
			if err := liftColumns(schema, full, &assign, &role); err != nil {
				return nil, err
			}
			up.Fields = full
		} else {
			merged, err := model.MergeFieldSources(schema, patch, in.Field, nil)
			if err != nil {
				return nil, err
			}
			if err := liftColumns(schema, merged, &assign, &role); err != nil {
				return nil, err
			}
			up.FieldsPatch = merged
		}
		if in.ParentID != nil {
			if err := oneHierarchyWrite(schema, up.Fields, up.FieldsPatch); err != nil {
				return nil, err
			}
		}
	}
	if assign != nil {
		if *assign == "" {
			up.ClearAssignedUser = true
		} else {
			up.Assign = assign
		}
	}
	if role != nil {
		if *role == "" {
			up.ClearAgentRole = true
		} else {
			up.Role = role
		}
	}
	return up, nil
}

func (s *Server) deleteItem(w http.ResponseWriter, r *http.Request) error {
	if _, err := s.store.DeleteItem(r.PathValue("ws"), r.PathValue("ref"), actor(r)); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func (s *Server) restoreItem(w http.ResponseWriter, r *http.Request) error {
	v, err := s.store.RestoreItem(r.PathValue("ws"), r.PathValue("ref"), actor(r))
	if err != nil {
		return err
	}
	writeJSON(w, 200, wireItem(v))
	return nil
}

func (s *Server) moveItem(w http.ResponseWriter, r *http.Request) error {
	var in api.ItemMove
	if err := decodeBody(r, &in); err != nil {
		return err
	}
	ws := r.PathValue("ws")
	if strings.TrimSpace(in.TargetCollection) == "" {
		return model.BadRequest("target_collection is required")
	}
	dst, err := s.views.GetCollection(ws, in.TargetCollection)
	if err != nil {
		return err
	}
	overrides, err := moveOverrides(dst.Schema, in)
	if err != nil {
		return err
	}
	force := in.Force || r.URL.Query().Get("force") == "true"
	move := storage.MoveInput{Target: dst.ID, Fields: overrides, Force: force}
	if err := checkInput(move); err != nil {
		return err
	}
	res, err := s.store.MoveItem(ws, r.PathValue("ref"), move, actor(r))
	if err != nil {
		return err
	}
	writeJSON(w, 200, wireResult(res))
	return nil
}

// moveOverrides merges a move's override sources, typing text values by
// the destination schema (Pad's CLI sends every override as text).
func moveOverrides(schema model.Schema, in api.ItemMove) (map[string]any, error) {
	obj := map[string]any{}
	for k, v := range in.FieldOverrides {
		obj[k] = v
	}
	for k, v := range in.Fields {
		if old, ok := obj[k]; ok && !model.EqualJSON(old, v) {
			return nil, model.BadRequest("field %q is given twice with different values: send it once", k)
		}
		obj[k] = v
	}
	for k, v := range obj {
		if str, ok := v.(string); ok {
			if def, declared := schema.Field(k); declared && def.Type != model.TypeText && def.Type != model.TypeSelect {
				tv, err := model.CoerceEntryValue(&def, str)
				if err != nil {
					return nil, err
				}
				obj[k] = tv
			}
		}
	}
	return model.MergeFieldSources(schema, obj, in.Field, nil)
}

// listKnown are the list query keys that are not field filters.
var listKnown = map[string]bool{"sort": true, "group_by": true, "search": true, "parent_id": true, "parent": true,
	"plan": true, "tag": true, "include_archived": true, "limit": true, "offset": true, "assigned_user_id": true,
	"agent_role_id": true, "role": true, "assignee": true, "non_terminal": true, "unparented": true, "order": true,
	"full": true, "fields": true, "summary": true}

func (s *Server) listItems(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	limit, offset, err := pageParams(r, RESTListCap, RESTListCap)
	if err != nil {
		return err
	}
	p := storage.ListParams{Collection: r.PathValue("coll"), Tag: q.Get("tag"), Sort: q.Get("sort"),
		IncludeArchived: q.Get("include_archived") == "true", Unparented: q.Get("unparented") == "true",
		NonTerminal: q.Get("non_terminal") == "true", Limit: limit, Offset: offset, WithContent: true,
		Assignee: q.Get("assigned_user_id")}
	if p.Assignee == "" {
		p.Assignee = q.Get("assignee")
	}
	p.Role = q.Get("agent_role_id")
	if p.Role == "" {
		p.Role = q.Get("role")
	}
	p.Parent = firstOf(q.Get("parent_id"), q.Get("parent"), q.Get("plan"))
	fields := map[string][]string{}
	for k, vs := range q {
		if listKnown[k] {
			continue
		}
		for _, v := range vs {
			fields[k] = append(fields[k], strings.Split(v, ",")...)
		}
	}
	if len(fields) > 0 {
		p.Fields = fields
	}
	var res *storage.ListResult
	if text := strings.TrimSpace(q.Get("search")); text != "" {
		res, err = s.listSearch(r, p, text)
	} else {
		res, err = s.views.ListItems(r.Context(), r.PathValue("ws"), p)
	}
	if err != nil {
		return err
	}
	setPaging(w, res.HasMore, res.NextOffset)
	if len(res.UndeclaredFilterKeys) > 0 {
		w.Header().Set("X-Pad-Undeclared-Filter-Keys", strings.Join(res.UndeclaredFilterKeys, ","))
	}
	writeJSON(w, 200, wireItems(res.Items))
	return nil
}

func firstOf(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}

func (s *Server) bulkItems(w http.ResponseWriter, r *http.Request) error {
	var in api.BulkRequest
	if err := decodeBody(r, &in); err != nil {
		return err
	}
	if len(in.IDs) == 0 {
		return model.BadRequest("ids is required: the items to change")
	}
	if len(in.IDs) > RESTListCap {
		return model.BadRequest("at most %d items per bulk request, got %d", RESTListCap, len(in.IDs))
	}
	ops := make([]storage.BulkOp, 0, len(in.IDs))
	for _, ref := range in.IDs {
		op := storage.BulkOp{Ref: ref}
		switch in.Op {
		case "archive", "delete":
			op.Archive = true
		case "restore":
			op.Restore = true
		case "move", "set-status":
			patch := map[string]any{}
			if in.Status != "" {
				patch["status"] = in.Status
			}
			if in.Collection != "" {
				op.Move = &storage.MoveInput{Target: in.Collection, Fields: patch}
			} else {
				op.Update = &storage.ItemUpdate{FieldsPatch: patch, RefuseUndeclared: true}
			}
		case "set-priority":
			op.Update = &storage.ItemUpdate{FieldsPatch: map[string]any{"priority": in.Priority}, RefuseUndeclared: true}
		case "update":
			op.Update = &storage.ItemUpdate{FieldsPatch: in.Fields, RefuseUndeclared: true}
		case "tag", "untag", "assign":
			return model.BadRequest("bulk op %q needs per-item reads; use item update", in.Op)
		default:
			return model.BadRequest("unknown bulk op %q (known: archive, restore, move, set-status, set-priority, update)", in.Op).With("op", in.Op)
		}
		ops = append(ops, op)
	}
	if err := checkInput(ops); err != nil {
		return err
	}
	outcomes, err := s.store.BulkApply(r.PathValue("ws"), ops, actor(r))
	if err != nil {
		return err
	}
	resp := api.BulkResponse{Op: in.Op, Updated: []api.BulkRow{}, Failed: []api.BulkRow{}, Total: len(ops)}
	for _, o := range outcomes {
		if o.Err != nil {
			e, _ := model.AsError(o.Err)
			resp.Failed = append(resp.Failed, api.BulkRow{Ref: o.Ref, Code: e.Code, Message: e.Message, Error: e.Message})
			continue
		}
		resp.Updated = append(resp.Updated, api.BulkRow{Ref: o.Item.Ref, ID: o.Item.ID})
	}
	writeJSON(w, 200, resp)
	return nil
}
