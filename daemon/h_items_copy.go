package daemon

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"strings"

	"github.com/google/uuid"

	"github.com/padd/padd/api"
	"github.com/padd/padd/model"
	"github.com/padd/padd/storage"
	"github.com/padd/padd/storage/views"
)

// Copying an item into another of one's workspaces (ITM-11): the
// preflight says what the copy would carry, drop and need and changes
// nothing; the copy creates the item in the destination and, with
// archive_source, then archives the source (a move between workspaces).
// Both answer from one plan (planCopy), so the preview cannot promise
// what the copy then does otherwise.
//
// What travels, as on Pad's server: the title, the content, the tags,
// the fields migrated into the destination's schema by the rules a move
// between collections uses (model.MigrateFields, CheckMoveOverrides,
// CheckMoveState), the reserved metadata (notes, decisions, a
// convention; a linked pull request only within its own workspace), the
// assignee when a member of the destination (padd's one user), and the
// attachments the content and fields name, as new rows in the
// destination on the same stored bytes. What does not: the parent, the
// children, the links (counted in the preflight's warnings), the agent
// role (roles belong to their workspace), and relation values pointing
// into the source workspace. The copy records no origin of its own.

func (s *Server) itemCopyRoutes() {
	s.handle("POST /api/v1/workspaces/{ws}/items/{ref}/copy/preflight", s.copyItemPreflight)
	s.handle("POST /api/v1/workspaces/{ws}/items/{ref}/copy", s.copyItem)
}

// copyPlan is what a copy would write, and what it leaves behind.
type copyPlan struct {
	src   *storage.ItemView
	srcWS *model.Workspace
	dstWS *model.Workspace
	dst   *storage.CollectionInfo

	// fields is what the create is given (defaults not yet applied);
	// final what the destination would store, for the preview.
	fields    map[string]any
	final     map[string]any
	origin    map[string]string
	overrides map[string]any
	reserved  map[string]any
	content   string
	assign    string

	carried []api.CopyCarried
	dropped []api.CopyDropped
	needs   []api.CopyNeedsValue
	// stateChange is the refusal a needs_value row of reason
	// state_change stands for: the copy answers it.
	stateChange *model.Error
	invalid     []string

	warn       api.CopyResultWarnings
	notUnique  []model.NotUnique
	attach     []storage.CarriedAttachment
	dropParent bool
	// fwDropped are keys the destination's field write leaves out (a
	// computed field an override names).
	fwDropped []string
}

func (s *Server) copyItemPreflight(w http.ResponseWriter, r *http.Request) error {
	var in api.ItemCopyRequest
	if err := decodeBody(r, &in); err != nil {
		return err
	}
	p, err := s.planCopy(r.Context(), r.PathValue("ws"), r.PathValue("ref"), in)
	if err != nil {
		return err
	}
	out := api.ItemCopyPreflight{
		Source:        copySource(p.srcWS, p.src),
		Destination:   copyDestination(p.dstWS, p.dst, nil),
		ArchiveSource: in.ArchiveSource,
		Valid:         len(p.needs) == 0,
		Fields:        api.CopyFields{Carried: p.carried, Dropped: p.dropped, NeedsValue: p.needs},
		Warnings: api.CopyPreflightWarnings{OutgoingLinks: map[string]int{}, IncomingLinks: map[string]int{},
			DroppedParent: p.dropParent, DroppedAssignee: p.warn.DroppedAssignee, DroppedAgentRole: p.warn.DroppedAgentRole,
			AttachmentCount: p.warn.AttachmentCount, AttachmentBytes: p.warn.AttachmentBytes,
			UnresolvableRefCount: p.warn.UnresolvableRefCount, NotUnique: p.warn.NotUnique},
	}
	if err := s.copyRelations(p, &out.Warnings); err != nil {
		return err
	}
	out.Warnings.ChildrenOrphaned = in.ArchiveSource && out.Warnings.ChildCount > 0
	writeJSON(w, 200, out)
	return nil
}

// copyItem is the copy. It is two writes, each its own transaction: the
// create in the destination (the item, its attachment rows and the
// idempotency record, together), then, with archive_source, the archive
// of the source. A crash between them leaves the copy made and the
// source still live: nothing is lost, but the move is half done. A retry
// with the same key settles it, since the key is looked up before any
// check of the source: it replays the create (no second item) and runs
// the archive, which does nothing to an item already archived. A retry
// without a key copies again (Pad's server answers the same).
func (s *Server) copyItem(w http.ResponseWriter, r *http.Request) error {
	var in api.ItemCopyRequest
	if err := decodeBody(r, &in); err != nil {
		return err
	}
	ws, ref := r.PathValue("ws"), r.PathValue("ref")
	key, err := idemKey(r, in.OpKey)
	if err != nil {
		return err
	}
	idem := fingerprint(key, r, in)
	if key != "" {
		if err := copyTargetsNamed(in); err != nil {
			return err
		}
		dstWS, err := s.views.GetWorkspace(in.TargetWorkspace)
		if err != nil {
			return err
		}
		rep, err := s.store.ReplayedItem(dstWS.ID, idem)
		if err != nil {
			return err
		}
		if rep != nil {
			return s.answerCopy(w, r, ws, ref, in, dstWS, rep, nil)
		}
	}
	p, err := s.planCopy(r.Context(), ws, ref, in)
	if err != nil {
		return err
	}
	if p.stateChange != nil {
		return model.Invalid("%s", p.stateChange.Message).With("field", p.stateChange.Details["field"]).
			With("reason", "state_change").With("options", p.stateChange.Details["options"]).
			With("from", p.stateChange.Details["from"]).With("to", p.stateChange.Details["to"])
	}
	if len(p.needs) > 0 {
		msgs := p.invalid
		for _, n := range p.needs {
			if n.Reason == "missing_required" {
				msgs = append(msgs, n.Message)
			}
		}
		return model.Invalid("the copy's fields are not valid in %q: %s; give them with field_overrides (the preflight lists them)",
			p.dst.Slug, strings.Join(msgs, "; ")).With("field", p.needs[0].Key).With("needs_value", p.needs)
	}
	payload, err := json.Marshal(p.warn)
	if err != nil {
		return err
	}
	create := storage.ItemCreate{Collection: p.dst.ID, Title: p.src.Title, Content: p.content, Fields: p.fields,
		Tags: p.src.Tags, AssignUser: p.assign, Reserved: p.reserved, Attachments: p.attach,
		IdemPayload: payload, Idem: idem}
	if err := checkInput(create); err != nil {
		return err
	}
	res, err := s.store.CreateItem(p.dstWS.ID, create, actor(r))
	if err != nil {
		return err
	}
	return s.answerCopy(w, r, ws, ref, in, p.dstWS, res, &p.warn)
}

// answerCopy finishes a copy whose create res is (made now, with its
// warnings, or replayed, with those it recorded): archives the source
// when asked, and answers 201 with the result.
func (s *Server) answerCopy(w http.ResponseWriter, r *http.Request, ws, ref string, in api.ItemCopyRequest,
	dstWS *model.Workspace, res *storage.ItemResult, made *api.CopyResultWarnings) error {
	var warn api.CopyResultWarnings
	switch {
	case made != nil:
		warn = *made
	case len(res.IdemPayload) > 0:
		if err := json.Unmarshal(res.IdemPayload, &warn); err != nil {
			return fmt.Errorf("item copy: the recorded answer is unreadable: %w", err)
		}
	}
	if warn.DroppedFields == nil {
		warn.DroppedFields = []string{}
	}
	srcWS, err := s.views.GetWorkspace(ws)
	if err != nil {
		return err
	}
	src, err := s.views.GetItem(srcWS.ID, ref)
	if err != nil {
		return err
	}
	archived := false
	var archiveSeq int64
	if in.ArchiveSource {
		v, err := s.store.DeleteItem(srcWS.ID, src.ID, actor(r))
		if err != nil {
			return fmt.Errorf("item copy: %s is copied to %s in %s, but archiving the source failed (a retry with the same key finishes the move): %w",
				src.Ref, res.Item.Ref, dstWS.Slug, err)
		}
		src, archived, archiveSeq = v, true, v.Seq
	}
	out := api.ItemCopyResult{
		Source:        copySource(srcWS, src),
		Destination:   copyDestination(dstWS, nil, res.Item),
		ArchiveSource: in.ArchiveSource,
		Warnings:      warn,
	}
	out.Source.Archived, out.Source.Seq = &archived, archiveSeq
	item := wireItem(res.Item)
	out.Item = &item
	if res.Replayed {
		w.Header().Set("Idempotent-Replayed", "true")
	}
	writeJSON(w, 201, out)
	return nil
}

func copySource(ws *model.Workspace, v *storage.ItemView) api.CopySource {
	return api.CopySource{WorkspaceSlug: ws.Slug, CollectionSlug: v.Collection.Slug, Ref: v.Ref, Slug: v.Slug, Title: v.Title}
}

// copyDestination names the destination; made is the copy once made.
func copyDestination(ws *model.Workspace, c *storage.CollectionInfo, made *storage.ItemView) api.CopyDestination {
	out := api.CopyDestination{WorkspaceSlug: ws.Slug, WorkspaceName: ws.Name}
	if c != nil {
		out.CollectionSlug, out.CollectionName = c.Slug, c.Name
	}
	if made != nil {
		out.CollectionSlug, out.CollectionName = made.Collection.Slug, made.Collection.Name
		out.Ref, out.Slug, out.Seq = made.Ref, made.Slug, made.Seq
	}
	return out
}

func copyTargetsNamed(in api.ItemCopyRequest) error {
	if strings.TrimSpace(in.TargetWorkspace) == "" {
		return model.BadRequest("target_workspace is required").With("field", "target_workspace")
	}
	if strings.TrimSpace(in.TargetCollection) == "" {
		return model.BadRequest("target_collection is required").With("field", "target_collection")
	}
	return nil
}

// planCopy works out what copying ws's item ref as in asks would write,
// reading only.
func (s *Server) planCopy(ctx context.Context, ws, ref string, in api.ItemCopyRequest) (*copyPlan, error) {
	p := &copyPlan{}
	var err error
	if p.srcWS, err = s.views.GetWorkspace(ws); err != nil {
		return nil, err
	}
	if p.src, err = s.views.GetItem(p.srcWS.ID, ref); err != nil {
		return nil, err
	}
	if p.src.DeletedAt != nil || p.src.Collection.ArchivedAt != nil {
		return nil, model.Errorf(model.CodeArchived, "Item %s is archived; restore it first (item restore) to copy it", p.src.Ref).With("ref", p.src.Ref)
	}
	if err := copyTargetsNamed(in); err != nil {
		return nil, err
	}
	if p.dstWS, err = s.views.GetWorkspace(in.TargetWorkspace); err != nil {
		return nil, err
	}
	if p.dst, err = s.views.GetCollection(p.dstWS.ID, in.TargetCollection); err != nil {
		return nil, err
	}
	dst, srcColl := &p.dst.Collection, p.src.Collection
	across := p.dstWS.ID != p.srcWS.ID
	if p.overrides, err = copyOverrides(dst, in); err != nil {
		return nil, err
	}

	// Fields: the move's migration; then what may not leave its
	// workspace; then carried values a unique field already holds there.
	migrated, dropped := model.MigrateFields(p.src.Fields, srcColl.Schema, dst.Schema)
	reason := map[string]string{}
	for _, k := range dropped {
		td, declared := dst.Schema.Field(k)
		switch {
		case !declared:
			reason[k] = "no_target_field"
		case td.Computed:
			reason[k] = "target_computed"
		case !srcColl.Schema.Declares(k):
			reason[k] = "undeclared_source_field"
		default:
			reason[k] = "incompatible_type"
		}
	}
	p.reserved = map[string]any{}
	for k, v := range migrated {
		if model.IsReservedField(k) {
			delete(migrated, k)
			if across && k == model.FieldGitHubPR {
				dropped, reason[k] = append(dropped, k), "referent_not_portable"
				continue
			}
			p.reserved[k] = v
			continue
		}
		if td, _ := dst.Schema.Field(k); across && (td.Type == model.TypeRelation || td.Type == model.TypeMultiRelation) {
			delete(migrated, k)
			dropped, reason[k] = append(dropped, k), "referent_not_portable"
		}
	}
	if err := s.dropHeldUnique(ctx, p, migrated, reason, &dropped); err != nil {
		return nil, err
	}
	p.origin = map[string]string{}
	for k := range migrated {
		p.origin[k] = "migrated"
	}
	for k, v := range p.overrides {
		if v == nil {
			delete(migrated, k)
			delete(p.origin, k)
			continue
		}
		migrated[k] = v
		p.origin[k] = "override"
	}
	p.fields = migrated
	if err := p.preview(); err != nil {
		return nil, err
	}
	for _, k := range p.fwDropped {
		if _, ok := reason[k]; !ok {
			dropped, reason[k] = append(dropped, k), "target_computed"
		}
	}
	for _, k := range model.StillDropped(dropped, p.final) {
		label := k
		if d, ok := srcColl.Schema.Field(k); ok && d.Label != "" {
			label = d.Label
		} else if l := reservedLabels[k]; l != "" {
			label = l
		}
		row := api.CopyDropped{Key: k, Label: label, Kind: "field", Reason: reason[k]}
		for _, n := range p.notUnique {
			if n.Key == k {
				row.Detail = n.Message
			}
		}
		p.dropped = append(p.dropped, row)
		p.warn.DroppedFields = append(p.warn.DroppedFields, k)
	}
	if p.warn.DroppedFields == nil {
		p.warn.DroppedFields = []string{}
	}
	for _, n := range p.notUnique {
		m := map[string]any{"key": n.Key, "value": n.Value, "message": n.Message}
		if n.Holder != "" {
			m["holder"] = n.Holder
		}
		p.warn.NotUnique = append(p.warn.NotUnique, m)
	}

	// Assignment: padd's one user is a member of every workspace; an
	// assignee from a linked Pad server is not one here.
	if a := p.src.AssignedUserID; a != "" {
		if a == localUserID || !across {
			p.assign = a
		} else {
			p.warn.DroppedAssignee = true
			p.dropped = append(p.dropped, api.CopyDropped{Key: "assigned_user", Label: "Assignee", Kind: "assignment", Reason: "assignee_not_a_member"})
		}
	}
	if p.src.AgentRoleID != "" {
		p.warn.DroppedAgentRole = true
		p.dropped = append(p.dropped, api.CopyDropped{Key: "agent_role", Label: "Agent role", Kind: "assignment", Reason: "agent_role_not_portable"})
	}
	p.dropParent = p.src.ParentID != ""
	if err := s.planAttachments(p); err != nil {
		return nil, err
	}
	if p.carried == nil {
		p.carried = []api.CopyCarried{}
	}
	if p.dropped == nil {
		p.dropped = []api.CopyDropped{}
	}
	if p.needs == nil {
		p.needs = []api.CopyNeedsValue{}
	}
	return p, nil
}

// copyOverrides merges the request's overrides (field_overrides, and
// padd's key=value entries typed by the destination's schema) and
// refuses what a move refuses: a reserved key, a key the destination
// does not declare (malformed_override), a value over its limit. A null
// override stays, as nil: it keeps the key from being carried.
func copyOverrides(dst *model.Collection, in api.ItemCopyRequest) (map[string]any, error) {
	nulls := map[string]bool{}
	set := api.ItemMove{Field: in.Field, FieldOverrides: map[string]any{}}
	for k, v := range in.FieldOverrides {
		if v == nil {
			nulls[k] = true
			continue
		}
		set.FieldOverrides[k] = v
	}
	out, err := moveOverrides(dst.Schema, set)
	if err != nil {
		return nil, err
	}
	for k := range nulls {
		if _, ok := out[k]; ok {
			return nil, model.BadRequest("field %q is given twice, as null and as a value: send it once", k).With("field", k)
		}
		out[k] = nil
	}
	if err := model.CheckFields(out); err != nil {
		return nil, err
	}
	if err := model.CheckMoveOverrides(dst, out); err != nil {
		return nil, err
	}
	return out, nil
}

// dropHeldUnique drops a carried value of a unique field that an item
// of the destination collection already holds (warnings.not_unique), as
// a move does; a value the caller gives is left to the create, which
// refuses it with 409 conflict.
func (s *Server) dropHeldUnique(ctx context.Context, p *copyPlan, migrated map[string]any, reason map[string]string, dropped *[]string) error {
	for _, f := range p.dst.Schema.Fields {
		v, ok := migrated[f.Key]
		if f.UniqueScope == "" || !ok {
			continue
		}
		if _, overridden := p.overrides[f.Key]; overridden {
			continue
		}
		str, isStr := v.(string)
		if !isStr || str == "" {
			continue
		}
		held, err := s.views.ListItems(ctx, p.dstWS.ID, storage.ListParams{Collection: p.dst.ID,
			Fields: map[string][]string{f.Key: {str}}, Limit: 1})
		if err != nil {
			return err
		}
		if len(held.Items) == 0 {
			continue
		}
		delete(migrated, f.Key)
		*dropped, reason[f.Key] = append(*dropped, f.Key), "not_unique"
		p.notUnique = append(p.notUnique, model.NotUnique{Key: f.Key, Value: v, Holder: held.Items[0].Ref,
			Message: "dropped: " + held.Items[0].Ref + " in " + p.dst.Slug + " holds this value"})
	}
	return nil
}

// preview runs the destination's field write on the plan's fields,
// without writing, and sorts what it finds into carried and needs_value
// rows; a state change the copy would make unasked is one more.
func (p *copyPlan) preview() error {
	dst := &p.dst.Collection
	issues := map[string]*model.FieldIssue{}
	fields := maps.Clone(p.fields)
	if fields == nil {
		fields = map[string]any{}
	}
	schema := dst.Schema
	var out map[string]any
	var fwarn model.Warnings
	// A refusal stops the write before its defaults: each pass leaves
	// out the keys refused so far (and no longer requires them) until
	// the write goes through, so that every refusal is found and the
	// defaults of the rest are seen.
	for {
		var err error
		out, fwarn, err = model.FieldWrite{Schema: schema, Patch: fields, Create: true}.Apply()
		if err == nil {
			break
		}
		found := fieldIssues(err)
		fresh := false
		for _, is := range found {
			if issues[is.Key] == nil {
				issues[is.Key], fresh = is, true
			}
		}
		if !fresh {
			return err
		}
		schema = model.Schema{Fields: append([]model.FieldDef(nil), schema.Fields...)}
		for i, f := range schema.Fields {
			if issues[f.Key] != nil {
				schema.Fields[i].Required = false
				delete(fields, f.Key)
			}
		}
	}
	p.final = out
	p.fwDropped = fwarn.DroppedFields
	for k, v := range p.reserved {
		p.final[k] = v
	}
	if len(issues) == 0 {
		err := model.CheckMoveState(p.src.Fields, out, p.src.Collection, dst, p.overrides)
		if e, ok := model.AsError(err); ok && e.Code == model.CodeStateChangeRequiresValue {
			key, _ := e.Details["field"].(string)
			e.Message = fmt.Sprintf("the copy would change the item from %v to %v in %q; give its %q with field_overrides",
				e.Details["from"], e.Details["to"], p.dst.Slug, key)
			p.stateChange = e
			issues[key] = &model.FieldIssue{Key: key, Reason: "state_change", Message: e.Message}
		} else if err != nil {
			return err
		}
	}
	for _, def := range dst.Schema.Fields {
		if is := issues[def.Key]; is != nil {
			reason := is.Reason
			switch {
			case reason == "state_change":
			case reason == model.ReasonRequired && p.fields[def.Key] == nil:
				reason = "missing_required"
			default:
				reason = "invalid_value"
				p.invalid = append(p.invalid, is.Message)
			}
			p.needs = append(p.needs, api.CopyNeedsValue{Key: def.Key, Label: def.Label, Type: def.Type,
				Options: def.Options, Required: def.Required, Reason: reason, Message: is.Message})
			continue
		}
		v, ok := p.final[def.Key]
		if !ok {
			continue
		}
		from := p.origin[def.Key]
		if from == "" {
			from = "default"
		}
		p.carried = append(p.carried, api.CopyCarried{Key: def.Key, Label: def.Label, Type: def.Type, Value: v, From: from})
	}
	for _, k := range model.ReservedFields() {
		if v, ok := p.reserved[k]; ok {
			p.carried = append(p.carried, api.CopyCarried{Key: k, Label: reservedLabels[k], Type: "system", Value: v, From: "migrated"})
		}
	}
	return nil
}

// reservedLabels name the reserved keys in the preflight's rows.
var reservedLabels = map[string]string{model.FieldImplementationNotes: "Implementation notes",
	model.FieldDecisionLog: "Decisions", model.FieldGitHubPR: "Pull request", model.FieldConvention: "Convention"}

// fieldIssues are the per-field refusals inside a field write's
// validation_error (none for any other refusal).
func fieldIssues(err error) []*model.FieldIssue {
	e, ok := model.AsError(err)
	if !ok || e.Code != model.CodeValidation {
		return nil
	}
	if list, ok := e.Details["issues"].([]*model.FieldIssue); ok {
		return list
	}
	key, _ := e.Details["field"].(string)
	reason, _ := e.Details["reason"].(string)
	if key == "" || reason == "" || reason == model.ReasonReserved || reason == model.ReasonUndeclared {
		return nil
	}
	return []*model.FieldIssue{{Key: key, Reason: reason, Message: strings.TrimPrefix(e.Message, "field validation failed: ")}}
}

// planAttachments finds the attachments the content and the carried
// fields name that live in the source workspace, plans a new row for
// each in the destination (on the same stored bytes) and rewrites the
// references to the new ids. A reference to nothing is left as it is
// and counted.
func (s *Server) planAttachments(p *copyPlan) error {
	seen := map[string]bool{}
	var ids []string
	note := func(id string) (string, bool) {
		if !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
		return "", false
	}
	storage.RewriteAttachmentRefs(p.src.Content, note)
	storage.RewriteAttachmentRefsFields(p.fields, note)
	storage.RewriteAttachmentRefsFields(p.reserved, note)
	if len(ids) == 0 {
		p.content = p.src.Content
		return nil
	}
	newIDs := map[string]string{}
	for _, id := range ids {
		a, err := s.views.GetAttachment(p.srcWS.ID, id)
		if model.IsNotFound(err) {
			p.warn.UnresolvableRefCount++
			continue
		}
		if err != nil {
			return err
		}
		nid, err := uuid.NewV7()
		if err != nil {
			return err
		}
		newIDs[id] = nid.String()
		p.attach = append(p.attach, storage.CarriedAttachment{ID: nid.String(), NewAttachment: storage.NewAttachment{
			Filename: a.Filename, FilenameSource: a.FilenameSource, MIME: a.MIME, Size: a.Size, Hash: a.Hash,
			Width: a.Width, Height: a.Height}})
		p.warn.AttachmentCount++
		p.warn.AttachmentBytes += a.Size
	}
	ren := func(old string) (string, bool) { n, ok := newIDs[old]; return n, ok }
	p.content = storage.RewriteAttachmentRefs(p.src.Content, ren)
	p.fields = storage.RewriteAttachmentRefsFields(p.fields, ren)
	p.reserved = storage.RewriteAttachmentRefsFields(p.reserved, ren)
	return nil
}

// copyRelations counts, for the preflight, what of the item's relations
// stays behind: its children, and its links by type and direction.
func (s *Server) copyRelations(p *copyPlan, out *api.CopyPreflightWarnings) error {
	for offset := 0; ; {
		page, err := s.views.Children(p.srcWS.ID, p.src.ID, views.DefaultChildrenLimit, offset)
		if err != nil {
			return err
		}
		out.ChildCount += len(page.Items)
		if !page.HasMore {
			break
		}
		offset = page.NextOffset
	}
	links, err := s.views.ListLinks(p.srcWS.ID, p.src.ID)
	if err != nil {
		return err
	}
	for _, l := range links {
		if l.Direction == storage.DirOut {
			out.OutgoingLinks[l.Link.Type]++
		} else {
			out.IncomingLinks[l.Link.Type]++
		}
	}
	return nil
}
