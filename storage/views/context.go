package views

import (
	"sort"
	"strings"

	"github.com/padd/padd/model"
	"github.com/padd/padd/storage/internal/records"
)

// The item work brief (Pad's ITM-22), read in one transaction: the
// item, its ancestors, the conventions and playbooks that apply, its
// direct blockers and blockees, its decisions and its other links, then
// cut to the budget by model.AdmitContext.

// ContextQuery shapes a brief: Intent picks the conventions beyond the
// always-on ones, Role leaves out conventions scoped to other roles,
// Budget (characters; 0 = default) bounds the size.
type ContextQuery struct {
	Intent string
	Role   string
	Budget int
}

// maxAncestors bounds the parent walk; parent links are acyclic by
// construction, this only guards against damaged data.
const maxAncestors = 100

// ItemContext assembles the work brief of an item. Archived items are
// served, read-only, as the item read serves them; archived neighbours
// are left out and not counted as omitted.
func (s *Views) ItemContext(ws, ref string, q ContextQuery) (*model.ContextBrief, error) {
	budget := q.Budget
	switch {
	case budget == 0:
		budget = model.DefaultContextBudget
	case budget < 0:
		return nil, model.BadRequest("budget must be a positive number of characters, got %d", budget).With("param", "budget")
	case budget > model.MaxContextBudget:
		budget = model.MaxContextBudget
	}
	var out *model.ContextBrief
	err := s.base.Read(ws, func(r *records.Rtx) error {
		b := r.WS
		it, err := records.ItemByRef(b, ref, true)
		if err != nil {
			return err
		}
		colls := map[string]*model.Collection{}
		c, err := records.CollOf(b, colls, it.CollectionID)
		if err != nil {
			return err
		}
		if err := checkContextRole(b, q.Role); err != nil {
			return err
		}
		cs, err := records.CollectionsOf(b)
		if err != nil {
			return err
		}
		var triggers []string
		for _, cc := range records.OfKind(cs, model.KindConvention) {
			if f, ok := cc.Schema.Field("trigger"); ok {
				triggers = append(triggers, f.Options...)
			}
		}
		trigger, err := model.ResolveIntent(q.Intent, triggers)
		if err != nil {
			return err
		}
		cx := &contextReader{b: b, cs: cs, colls: colls, it: it, ref: records.RefOf(c, it.Number)}
		out = &model.ContextBrief{Item: cx.itemPart(c), Intent: strings.ToLower(strings.TrimSpace(q.Intent)),
			Trigger: trigger, Role: q.Role, Budget: budget,
			Parents: []model.ContextParent{}, Conventions: []model.ContextConvention{}, Playbooks: []model.PlaybookMeta{},
			Deps:      model.ContextDeps{Blocks: []model.ContextDep{}, BlockedBy: []model.ContextDep{}},
			Decisions: []model.ContextDecision{}, Links: []model.ContextLink{}}

		var cands []model.ContextCandidate
		parents, err := cx.parents()
		if err != nil {
			return err
		}
		for _, p := range parents {
			cands = append(cands, model.ContextCandidate{Part: model.PartParents, Ref: p.Ref, Seq: p.Seq, Value: p})
		}
		convs, err := cx.conventions(trigger, q.Role)
		if err != nil {
			return err
		}
		out.Conflicts.RoleAndGlobalConvention = conventionClashes(convs)
		for _, cv := range convs {
			cands = append(cands, model.ContextCandidate{Part: model.PartConventions, Ref: cv.Ref, Seq: cv.Seq, Value: cv})
		}
		pbs, err := records.PlaybooksOf(b, cs, func(pb *model.Item) bool {
			return records.StrField(pb.Fields, "status") == "active" && (q.Intent == "" || playbookMatches(records.StrField(pb.Fields, "trigger"), out.Intent))
		})
		if err != nil {
			return err
		}
		for _, pb := range pbs {
			cands = append(cands, model.ContextCandidate{Part: model.PartPlaybooks, Ref: pb.Ref, Seq: pb.Seq, Value: pb})
		}
		blocks, blockedBy, err := cx.deps()
		if err != nil {
			return err
		}
		for _, d := range blocks {
			cands = append(cands, model.ContextCandidate{Part: model.PartDeps, Side: "blocks", Ref: d.Ref, Seq: d.Seq, Value: d})
		}
		for _, d := range blockedBy {
			cands = append(cands, model.ContextCandidate{Part: model.PartDeps, Side: "blocked_by", Ref: d.Ref, Seq: d.Seq, Value: d})
			if d.State == model.StateOpen {
				out.Conflicts.OpenBlocker = append(out.Conflicts.OpenBlocker, model.ConflictRef{Ref: d.Ref, Title: d.Title, Status: d.Status})
			}
		}
		for _, d := range cx.decisions() {
			cands = append(cands, model.ContextCandidate{Part: model.PartDecisions, Ref: d.Ref, Seq: d.Seq, Value: d})
		}
		links, err := cx.links()
		if err != nil {
			return err
		}
		for _, l := range links {
			cands = append(cands, model.ContextCandidate{Part: model.PartLinks, Ref: l.Ref, Seq: l.Seq, Value: l})
		}
		if c.State(it.Fields) == model.StateOpen {
			for _, p := range parents {
				if p.closed {
					out.Conflicts.OpenUnderClosedParent = append(out.Conflicts.OpenUnderClosedParent,
						model.ConflictRef{Ref: p.Ref, Title: p.Title, Status: p.Status})
				}
			}
		}

		admitted, omitted, used := model.AdmitContext(cands, budget, model.ContextSize(out.Item))
		out.Omitted, out.Used = omitted, used
		for _, a := range admitted {
			switch v := a.Value.(type) {
			case contextParent:
				out.Parents = append(out.Parents, v.ContextParent)
			case model.ContextConvention:
				out.Conventions = append(out.Conventions, v)
			case model.PlaybookMeta:
				out.Playbooks = append(out.Playbooks, v)
			case model.ContextDep:
				if a.Side == "blocks" {
					out.Deps.Blocks = append(out.Deps.Blocks, v)
				} else {
					out.Deps.BlockedBy = append(out.Deps.BlockedBy, v)
				}
			case model.ContextDecision:
				out.Decisions = append(out.Decisions, v)
			case model.ContextLink:
				out.Links = append(out.Links, v)
			}
		}
		return nil
	})
	return out, err
}

// checkContextRole accepts "" or a role slug of the workspace.
func checkContextRole(b *records.Wsb, role string) error {
	if role == "" || b.RoleSlugs().Get([]byte(role)) != nil {
		return nil
	}
	roles, err := records.SortedRoles(b)
	if err != nil {
		return err
	}
	valid := make([]string, 0, len(roles))
	for _, r := range roles {
		valid = append(valid, r.Slug)
	}
	return model.UnknownRole(role, valid)
}

// playbookMatches reports whether a playbook's trigger is the intent's,
// spelled either way ("implement" or "on-implement").
func playbookMatches(trigger, intent string) bool {
	return trigger != "" && (trigger == intent || trigger == "on-"+intent || "on-"+trigger == intent)
}

// contextReader reads one item's neighbourhood.
type contextReader struct {
	b     *records.Wsb
	cs    []*model.Collection // the workspace's collections
	colls map[string]*model.Collection
	it    *model.Item
	ref   string
}

func (cx *contextReader) itemPart(c *model.Collection) model.ContextItem {
	fields := make(map[string]any, len(cx.it.Fields))
	for k, v := range cx.it.Fields {
		if k != model.FieldDecisionLog { // shipped as the decisions part
			fields[k] = v
		}
	}
	return model.ContextItem{Ref: cx.ref, Seq: cx.it.Seq, Title: cx.it.Title, Collection: c.Slug,
		Status: records.StrField(cx.it.Fields, model.DoneField(c.Schema, c.Settings)), Fields: fields, Body: cx.it.Content}
}

// liveNeighbour loads another item with its collection, or nil when it
// or its collection is archived (a neighbour the brief leaves out).
func (cx *contextReader) liveNeighbour(id []byte, withContent bool) (*model.Item, *model.Collection, error) {
	it, err := records.GetItem(cx.b, id, withContent)
	if err != nil || it == nil || it.DeletedAt != nil {
		return nil, nil, err
	}
	c, err := records.CollOf(cx.b, cx.colls, it.CollectionID)
	if err != nil || c.ArchivedAt != nil {
		return nil, nil, err
	}
	return it, c, nil
}

// contextParent is a parent part with what the conflicts need.
type contextParent struct {
	model.ContextParent
	closed bool
}

// parents walks the ancestors nearest first; only the nearest live one
// ships its body.
func (cx *contextReader) parents() ([]contextParent, error) {
	var out []contextParent
	seen := map[string]bool{cx.it.ID: true}
	for cur, n := cx.it.ParentID, 0; cur != "" && !seen[cur] && n < maxAncestors; n++ {
		seen[cur] = true
		k, ok := records.IDKey(cur)
		if !ok {
			break
		}
		p, err := records.GetItem(cx.b, k, true)
		if err != nil || p == nil {
			return out, err
		}
		cur = p.ParentID
		if p.DeletedAt != nil {
			continue
		}
		c, err := records.CollOf(cx.b, cx.colls, p.CollectionID)
		if err != nil {
			return nil, err
		}
		if c.ArchivedAt != nil {
			continue
		}
		part := model.ContextParent{Ref: records.RefOf(c, p.Number), Seq: p.Seq, Title: p.Title,
			Status: records.StrField(p.Fields, model.DoneField(c.Schema, c.Settings)), AcceptanceCriteria: model.AcceptanceCriteria(p.Content)}
		if len(out) == 0 {
			body := p.Content
			part.Body = &body
		}
		out = append(out, contextParent{ContextParent: part, closed: c.State(p.Fields) != model.StateOpen})
	}
	return out, nil
}

// conventions lists the active conventions whose trigger is always or
// the intent's, leaving out those scoped to another role than role, in
// the brief's order.
func (cx *contextReader) conventions(trigger, role string) ([]model.ContextConvention, error) {
	out := []model.ContextConvention{}
	triggers := []string{"always"}
	if trigger != "always" {
		triggers = append(triggers, trigger)
	}
	for _, t := range triggers {
		err := activeConventions(cx.b, cx.cs, t, true, func(it *model.Item, c *model.Collection) error {
			r := conventionRole(cx.b, it)
			if role != "" && r != "" && r != role {
				return nil
			}
			out = append(out, model.ContextConvention{Ref: records.RefOf(c, it.Number), Seq: it.Seq, Title: it.Title,
				Trigger: t, Priority: records.StrField(it.Fields, "priority"), Scope: records.StrField(it.Fields, "scope"),
				Role: r, Body: it.Content})
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	model.SortConventions(out)
	return out, nil
}

// conventionClashes pairs a role-scoped and a global convention that
// match the same trigger under the same title.
func conventionClashes(cs []model.ContextConvention) []model.ConventionClash {
	type key struct{ trigger, title string }
	global := map[key]string{}
	for _, c := range cs {
		if c.Role == "" {
			k := key{c.Trigger, strings.ToLower(strings.TrimSpace(c.Title))}
			if _, seen := global[k]; !seen {
				global[k] = c.Ref
			}
		}
	}
	var out []model.ConventionClash
	for _, c := range cs {
		if c.Role == "" {
			continue
		}
		if g, ok := global[key{c.Trigger, strings.ToLower(strings.TrimSpace(c.Title))}]; ok {
			out = append(out, model.ConventionClash{Title: c.Title, Role: c.Role, Scoped: c.Ref, Global: g})
		}
	}
	return out
}

// deps lists the item's direct blocking neighbours, oldest link first.
func (cx *contextReader) deps() (blocks, blockedBy []model.ContextDep, err error) {
	id := records.MustID(cx.it.ID)
	for _, side := range []struct {
		edges []records.Edge
		into  *[]model.ContextDep
	}{{records.EdgesOf(cx.b.LinkSrc(), id, model.LinkBlocks), &blocks}, {records.EdgesOf(cx.b.LinkDst(), id, model.LinkBlocks), &blockedBy}} {
		for _, e := range side.edges {
			o, c, err := cx.liveNeighbour(e.Other, false)
			if err != nil {
				return nil, nil, err
			}
			if o == nil {
				continue
			}
			*side.into = append(*side.into, model.ContextDep{Ref: records.RefOf(c, o.Number), Seq: o.Seq, Title: o.Title,
				Status: records.StrField(o.Fields, model.DoneField(c.Schema, c.Settings)), State: c.State(o.Fields)})
		}
	}
	return blocks, blockedBy, nil
}

// decisions lists the item's decision log, oldest first.
func (cx *contextReader) decisions() []model.ContextDecision {
	list, _ := cx.it.Fields[model.FieldDecisionLog].([]any)
	out := make([]model.ContextDecision, 0, len(list))
	for _, e := range list {
		m, ok := e.(map[string]any)
		if !ok {
			continue
		}
		out = append(out, model.ContextDecision{Ref: cx.ref, Seq: cx.it.Seq, ID: records.StrField(m, "id"),
			Decision: records.StrField(m, "decision"), Rationale: records.StrField(m, "rationale"), CreatedAt: records.StrField(m, "created_at"),
			CreatedBy: records.StrField(m, "created_by"), Agent: records.StrField(m, "agent"), Current: true})
	}
	return out
}

// links lists the item's links other than blocking ones, both ways,
// typed as the item sees them, oldest first.
func (cx *contextReader) links() ([]model.ContextLink, error) {
	type found struct {
		linkID string
		link   model.ContextLink
	}
	var all []found
	id := records.MustID(cx.it.ID)
	for _, side := range []struct {
		edges   []records.Edge
		inverse bool
	}{{records.EdgesOf(cx.b.LinkSrc(), id, ""), false}, {records.EdgesOf(cx.b.LinkDst(), id, ""), true}} {
		for _, e := range side.edges {
			if e.Typ == model.LinkBlocks {
				continue
			}
			o, c, err := cx.liveNeighbour(e.Other, false)
			if err != nil {
				return nil, err
			}
			if o == nil {
				continue
			}
			typ := e.Typ
			if side.inverse {
				typ = model.InverseLinkType(e.Typ)
			}
			all = append(all, found{records.IDString(e.LinkID), model.ContextLink{Ref: records.RefOf(c, o.Number), Seq: o.Seq, Title: o.Title,
				Status: records.StrField(o.Fields, model.DoneField(c.Schema, c.Settings)), Type: typ}})
		}
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].linkID < all[j].linkID })
	out := make([]model.ContextLink, 0, len(all))
	for _, f := range all {
		out = append(out, f.link)
	}
	return out, nil
}
