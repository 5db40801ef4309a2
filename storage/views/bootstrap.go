package views

import (
	"context"
	"sort"

	"github.com/padd/padd/model"
	"github.com/padd/padd/storage/internal/records"
)

// The agent bootstrap (Pad's PRJ-09), read in one transaction from the
// maintained counts and index streams (the dashboard's included):
// nothing here scans the items, so its cost follows the number of
// conventions, playbooks and roles, not the size of the workspace.

// Bootstrap is the read model behind GET /workspaces/{ws}/agent/bootstrap.
type Bootstrap struct {
	Workspace       BootstrapWorkspace
	User            BootstrapUser
	Collections     []BootstrapCollection
	Conventions     []BootstrapConvention
	ConventionIndex []ConventionMeta
	Roles           []BootstrapRole
	Playbooks       []model.PlaybookMeta
	Dashboard       *BootstrapDashboard
	NeedsOnboarding bool
	BuiltinUpdates  int
}

// BootstrapWorkspace addresses the workspace.
type BootstrapWorkspace struct {
	ID          string
	Slug        string
	Name        string
	Description string
}

// BootstrapUser is the caller.
type BootstrapUser struct {
	ID    string
	Name  string
	Email string
}

// BootstrapCollection is a collection without ids, timestamps or
// settings, its schema without the labels an agent can derive.
type BootstrapCollection struct {
	Slug            string
	Name            string
	Prefix          string
	Icon            string
	Description     string
	Schema          BootstrapSchema
	SortOrder       int
	IsDefault       bool
	IsSystem        bool
	ItemCount       int
	ActiveItemCount int
}

// BootstrapSchema is a schema whose labels are left out (empty) when
// they equal TitleCase(key): an agent can rebuild those, so they only
// cost bytes.
type BootstrapSchema struct {
	Fields []BootstrapField
}

// BootstrapField is a FieldDef whose label may be left out. The outer
// Label shadows the embedded one (on the wire too), so every other
// member of FieldDef, present or future, still ships verbatim.
type BootstrapField struct {
	model.FieldDef
	Label string
}

// SlimSchema drops the derivable labels.
func SlimSchema(s model.Schema) BootstrapSchema {
	out := BootstrapSchema{Fields: make([]BootstrapField, len(s.Fields))}
	for i, f := range s.Fields {
		out.Fields[i] = BootstrapField{FieldDef: f}
		if f.Label != model.TitleCase(f.Key) {
			out.Fields[i].Label = f.Label
		}
	}
	return out
}

// BootstrapConvention is an always-on convention with its body; it has
// no slug (agents address items by ref).
type BootstrapConvention struct {
	Ref      string
	Title    string
	Content  string
	Priority string
	Scope    string
	Trigger  string
}

// ConventionMeta lists every active convention without its body, so the
// triggered ones are discoverable before their trigger fires.
type ConventionMeta struct {
	Ref     string
	Title   string
	Trigger string
	Role    string
}

// BootstrapRole is a role without ids, timestamps or tools.
type BootstrapRole struct {
	Slug        string
	Name        string
	Description string
	Icon        string
	SortOrder   int
	ItemCount   int
}

// BootstrapDashboard is the workspace dashboard with five of its lists
// capped at model.BootstrapCap and the remainder of each counted in its
// overflow count (0 when nothing was cut). The cap is the bootstrap's:
// the dashboard view answers the full lists.
type BootstrapDashboard struct {
	*Dashboard
	AttentionOverflowCount      int
	RecentActivityOverflowCount int
	ActiveItemsOverflowCount    int
	ActivePlansOverflowCount    int
	ByRoleOverflowCount         int
}

// CapDashboard makes the bootstrap's view of a dashboard. d is not
// changed: the capped lists are new slice headers over its arrays.
func CapDashboard(d *Dashboard) *BootstrapDashboard {
	c := *d
	out := &BootstrapDashboard{Dashboard: &c}
	c.Attention, out.AttentionOverflowCount = capList(d.Attention)
	c.RecentActivity, out.RecentActivityOverflowCount = capList(d.RecentActivity)
	c.ActiveItems, out.ActiveItemsOverflowCount = capList(d.ActiveItems)
	c.ActivePlans, out.ActivePlansOverflowCount = capList(d.ActivePlans)
	c.ByRole, out.ByRoleOverflowCount = capList(d.ByRole)
	return out
}

func capList[T any](l []T) ([]T, int) {
	if len(l) <= model.BootstrapCap {
		return l, 0
	}
	return l[:model.BootstrapCap:model.BootstrapCap], len(l) - model.BootstrapCap
}

// Bootstrap assembles the agent bootstrap of a workspace; p is the
// dashboard's (the caller, for suggestions, and the time).
func (s *Views) Bootstrap(ctx context.Context, ws string, p DashboardParams) (*Bootstrap, error) {
	if p.Now.IsZero() {
		p.Now = s.base.Clock()
	}
	var out *Bootstrap
	err := s.base.ReadCtx(ctx, ws, func(r *records.Rtx) error {
		b := r.WS
		w := r.WSRec
		out = &Bootstrap{
			Workspace: BootstrapWorkspace{ID: w.ID, Slug: w.Slug, Name: w.Name, Description: w.Description},
			User:      BootstrapUser{ID: "local", Name: model.LocalUserName},
		}
		cs, err := records.CollectionsOf(b)
		if err != nil {
			return err
		}
		live := cs[:0:0]
		out.Collections = []BootstrapCollection{}
		for _, c := range cs {
			if c.ArchivedAt != nil {
				continue
			}
			live = append(live, c)
			ci := records.CollectionInfoOf(b, c)
			out.Collections = append(out.Collections, BootstrapCollection{Slug: c.Slug, Name: c.Name,
				Prefix: c.Prefix, Icon: c.Icon, Description: c.Description, Schema: SlimSchema(c.Schema),
				SortOrder: c.SortOrder, IsDefault: c.IsDefault, IsSystem: c.IsSystem,
				ItemCount: ci.ItemCount, ActiveItemCount: ci.ActiveItemCount})
		}
		if out.Conventions, out.ConventionIndex, err = bootstrapConventions(b, live); err != nil {
			return err
		}
		if out.Roles, err = bootstrapRoles(b); err != nil {
			return err
		}
		if out.Playbooks, err = records.PlaybooksOf(b, live, nil); err != nil {
			return err
		}
		// The workspace dashboard, read in this same transaction, so the
		// bootstrap is one consistent snapshot.
		x, err := newProjectCtx(b, p.Now)
		if err != nil {
			return err
		}
		d, err := x.dashboard(p.Who)
		if err != nil {
			return err
		}
		out.Dashboard = CapDashboard(d)
		// No item yet, live or archived. Templates seed none today; if
		// they start to, seeds must be left out of this count.
		out.NeedsOnboarding = records.CountOf(b, []byte{records.KindAll, records.LifeLive})+records.CountOf(b, []byte{records.KindAll, records.LifeArchived}) == 0
		out.BuiltinUpdates, err = records.BuiltinUpdates(b)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// activeConventions visits the active conventions among the
// collections cs, reading only the index stream of status "active" (or,
// with trigger, of that trigger) of each conventions collection.
func activeConventions(b *records.Wsb, cs []*model.Collection, trigger string, withContent bool, fn func(it *model.Item, c *model.Collection) error) error {
	for _, c := range records.OfKind(cs, model.KindConvention) {
		statusKey := model.DoneField(c.Schema, c.Settings)
		stream := records.FieldStream(c.ID, statusKey, "active")
		if trigger != "" {
			stream = records.FieldStream(c.ID, "trigger", trigger)
		}
		err := records.EachInStreams(b, [][]byte{stream}, withContent, func(it *model.Item) (bool, error) {
			if records.StrField(it.Fields, statusKey) != "active" {
				return true, nil
			}
			return true, fn(it, c)
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// conventionRole is the role a convention is scoped to: its agent-role
// column, else its role field.
func conventionRole(b *records.Wsb, it *model.Item) string {
	if k, ok := records.IDKey(it.AgentRoleID); ok {
		if r, _ := records.GetRole(b, k); r != nil {
			return r.Slug
		}
	}
	return records.StrField(it.Fields, "role")
}

// bootstrapConventions returns the always-on conventions with bodies,
// must first, and the index of every active convention without bodies.
func bootstrapConventions(b *records.Wsb, cs []*model.Collection) ([]BootstrapConvention, []ConventionMeta, error) {
	always := []BootstrapConvention{}
	rank := map[string]int{}
	err := activeConventions(b, cs, "always", true, func(it *model.Item, c *model.Collection) error {
		ref := records.RefOf(c, it.Number)
		rank[ref] = model.ConventionRank(records.StrField(it.Fields, "priority"))
		always = append(always, BootstrapConvention{Ref: ref, Title: it.Title, Content: it.Content,
			Priority: records.StrField(it.Fields, "priority"), Scope: records.StrField(it.Fields, "scope"), Trigger: "always"})
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	sort.SliceStable(always, func(i, j int) bool {
		if a, b := rank[always[i].Ref], rank[always[j].Ref]; a != b {
			return a < b
		}
		return model.RefLess(always[i].Ref, always[j].Ref)
	})
	index := []ConventionMeta{}
	err = activeConventions(b, cs, "", false, func(it *model.Item, c *model.Collection) error {
		index = append(index, ConventionMeta{Ref: records.RefOf(c, it.Number), Title: it.Title,
			Trigger: records.StrField(it.Fields, "trigger"), Role: conventionRole(b, it)})
		return nil
	})
	sort.SliceStable(index, func(i, j int) bool {
		if index[i].Trigger != index[j].Trigger {
			return index[i].Trigger < index[j].Trigger
		}
		return model.RefLess(index[i].Ref, index[j].Ref)
	})
	return always, index, err
}

func bootstrapRoles(b *records.Wsb) ([]BootstrapRole, error) {
	roles, err := records.SortedRoles(b)
	out := make([]BootstrapRole, 0, len(roles))
	for _, r := range roles {
		out = append(out, BootstrapRole{Slug: r.Slug, Name: r.Name, Description: r.Description,
			Icon: r.Icon, SortOrder: r.SortOrder, ItemCount: int(records.CountOf(b, records.RoleStream(r.ID, records.LifeLive)))})
	}
	return out, err
}
