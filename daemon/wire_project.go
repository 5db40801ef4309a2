package daemon

import (
	"github.com/padd/padd/api"
	"github.com/padd/padd/storage"
	"github.com/padd/padd/storage/views"
)

// Storage -> wire conversions for the project views (dashboard, next and
// ready, stale, standup, changelog, report, catch-up), reminders and the
// agent bootstrap. storage computes each view as a plain result; its
// JSON shape is api's. A row with only plain members converts with a
// type conversion (api.X(v)), which stops compiling the day the two
// types' members differ; a row that holds other rows is built member by
// member. Lists keep their nil or empty (null or [] on the wire).

// wireList converts each element of a list with f; nil stays nil.
func wireList[S, T any](in []S, f func(S) T) []T {
	if in == nil {
		return nil
	}
	out := make([]T, len(in))
	for i, v := range in {
		out[i] = f(v)
	}
	return out
}

func wireDashboard(d *views.Dashboard) *api.Dashboard {
	return &api.Dashboard{
		Summary:     api.DashboardSummary(d.Summary),
		ActiveItems: wireList(d.ActiveItems, func(v views.DashboardItem) api.DashboardItem { return api.DashboardItem(v) }),
		ActivePlans: wireList(d.ActivePlans, func(v views.DashboardPlan) api.DashboardPlan { return api.DashboardPlan(v) }),
		ByRole:      wireList(d.ByRole, func(v views.RoleBreakdown) api.RoleBreakdown { return api.RoleBreakdown(v) }),
		Attention:   wireList(d.Attention, wireNotice),
		RecentActivity: wireList(d.RecentActivity, func(v views.DashboardRecent) api.DashboardRecent {
			return api.DashboardRecent{DashboardActivity: api.DashboardActivity(v.DashboardActivity),
				Metadata: v.Metadata, ReorderCount: v.ReorderCount}
		}),
		SuggestedNext:    wireList(d.SuggestedNext, wireNotice),
		PendingReminders: wireReminders(d.PendingReminders),
		AttentionTotals:  d.AttentionTotals,
		Degraded:         d.Degraded,
		DegradedSections: d.DegradedSections,
	}
}

func wireNotice(v views.DashboardNotice) api.DashboardNotice { return api.DashboardNotice(v) }

func wireWorkItem(v views.WorkItem) api.WorkItem {
	return api.WorkItem{DashboardNotice: wireNotice(v.DashboardNotice), Status: v.Status, Priority: v.Priority,
		Tier: v.Tier, UpdatedAt: v.UpdatedAt, ParentRef: v.ParentRef}
}

func wireWorkItems(vs []views.WorkItem) []api.WorkItem { return wireList(vs, wireWorkItem) }

func wireReminder(v storage.ReminderView) api.ReminderView { return api.ReminderView(v) }

// wireReminderReply is the answer of a reminder write: the reminder.
func wireReminderReply(v *storage.ReminderView) *api.ReminderView {
	out := api.ReminderView(*v)
	return &out
}

func wireReminders(vs []storage.ReminderView) []api.ReminderView { return wireList(vs, wireReminder) }

func wireNextWork(n *views.NextWork) *api.NextWork {
	return &api.NextWork{Items: wireWorkItems(n.Items), Reminders: wireReminders(n.Reminders), HasMore: n.HasMore,
		Role: n.Role}
}

func wireStale(s *views.StaleReport) *api.StaleReport {
	return &api.StaleReport{Days: s.Days, Totals: s.Totals, Items: wireWorkItems(s.Items), HasMore: s.HasMore}
}

func wireSection(s views.Section) api.Section {
	return api.Section{Total: s.Total, Items: wireWorkItems(s.Items)}
}

func wireStandup(s *views.Standup) *api.Standup {
	return &api.Standup{Days: s.Days, Since: s.Since, Until: s.Until, Done: wireSection(s.Done),
		InProgress: wireSection(s.InProgress), Blockers: wireSection(s.Blockers)}
}

func wireChangelog(c *views.Changelog) *api.Changelog {
	return &api.Changelog{Since: c.Since, Until: c.Until, Total: c.Total,
		Items:   wireList(c.Items, func(v views.ChangelogEntry) api.ChangelogEntry { return api.ChangelogEntry(v) }),
		HasMore: c.HasMore}
}

func wireDurations(vs []views.Duration) []api.Duration {
	return wireList(vs, func(v views.Duration) api.Duration { return api.Duration(v) })
}

func wireReport(r *views.Report) *api.Report {
	return &api.Report{
		Window: r.Window, Offset: r.Offset, Granularity: r.Granularity, RangeStart: r.RangeStart, RangeEnd: r.RangeEnd,
		TZ: r.TZ, Collections: r.Collections,
		Buckets: wireList(r.Buckets, func(v views.ReportBucket) api.ReportBucket { return api.ReportBucket(v) }),
		Totals:  api.ReportTotals(r.Totals),
		CompletedByCollection: wireList(r.CompletedByCollection,
			func(v views.CollectionCount) api.CollectionCount { return api.CollectionCount(v) }),
		StatusDistribution: wireList(r.StatusDistribution, func(v views.StatusCount) api.StatusCount { return api.StatusCount(v) }),
		CycleTime: api.CycleTime{SampleSize: r.CycleTime.SampleSize, MedianHours: r.CycleTime.MedianHours,
			P90Hours: r.CycleTime.P90Hours, ByCollection: wireDurations(r.CycleTime.ByCollection)},
		WIP: api.WIP{OpenCount: r.WIP.OpenCount, MedianAgeHours: r.WIP.MedianAgeHours,
			AgingBuckets: wireList(r.WIP.AgingBuckets, func(v views.AgingBucket) api.AgingBucket { return api.AgingBucket(v) }),
			ByCollection: wireDurations(r.WIP.ByCollection)},
		CompletedItems:         wireList(r.CompletedItems, func(v views.CompletedItem) api.CompletedItem { return api.CompletedItem(v) }),
		CompletedItemsOverflow: r.CompletedItemsOverflow,
	}
}

func wireCatchUpLines(vs []views.CatchUpLine) []api.CatchUpLine {
	return wireList(vs, func(v views.CatchUpLine) api.CatchUpLine { return api.CatchUpLine(v) })
}

func wireCatchUpSection(s views.CatchUpSection) api.CatchUpSection {
	return api.CatchUpSection{Total: s.Total, Lines: wireCatchUpLines(s.Lines)}
}

func wireCatchUp(c *views.CatchUp) *api.CatchUp {
	return &api.CatchUp{
		Window:         api.CatchUpWindow(c.Window),
		NeedsYou:       wireCatchUpSection(c.NeedsYou),
		Finished:       wireCatchUpSection(c.Finished),
		NewAndReopened: wireCatchUpSection(c.NewAndReopened),
		Comments:       wireCatchUpSection(c.Comments),
		Agents: api.CatchUpAgents{Total: c.Agents.Total, Groups: wireList(c.Agents.Groups,
			func(v views.CatchUpAgent) api.CatchUpAgent {
				return api.CatchUpAgent{Agent: v.Agent, Changes: v.Changes, Items: v.Items, Lines: wireCatchUpLines(v.Lines)}
			})},
		Degraded: c.Degraded,
	}
}

func wireBootstrap(b *views.Bootstrap) *api.Bootstrap {
	out := &api.Bootstrap{
		Workspace: api.BootstrapWorkspace(b.Workspace),
		User:      api.BootstrapUser(b.User),
		Collections: wireList(b.Collections, func(c views.BootstrapCollection) api.BootstrapCollection {
			return api.BootstrapCollection{Slug: c.Slug, Name: c.Name, Prefix: c.Prefix, Icon: c.Icon,
				Description: c.Description, Schema: wireSchema(c.Schema), SortOrder: c.SortOrder, IsDefault: c.IsDefault,
				IsSystem: c.IsSystem, ItemCount: c.ItemCount, ActiveItemCount: c.ActiveItemCount}
		}),
		Conventions: wireList(b.Conventions,
			func(v views.BootstrapConvention) api.BootstrapConvention { return api.BootstrapConvention(v) }),
		ConventionIndex: wireList(b.ConventionIndex, func(v views.ConventionMeta) api.ConventionMeta { return api.ConventionMeta(v) }),
		Roles:           wireList(b.Roles, func(v views.BootstrapRole) api.BootstrapRole { return api.BootstrapRole(v) }),
		Playbooks:       b.Playbooks,
		NeedsOnboarding: b.NeedsOnboarding,
		BuiltinUpdates:  b.BuiltinUpdates,
	}
	if d := b.Dashboard; d != nil {
		out.Dashboard = wireBootstrapDashboard(d)
	}
	return out
}

func wireBootstrapDashboard(d *views.BootstrapDashboard) *api.BootstrapDashboard {
	return &api.BootstrapDashboard{Dashboard: wireDashboard(d.Dashboard),
		AttentionOverflowCount: d.AttentionOverflowCount, RecentActivityOverflowCount: d.RecentActivityOverflowCount,
		ActiveItemsOverflowCount: d.ActiveItemsOverflowCount, ActivePlansOverflowCount: d.ActivePlansOverflowCount,
		ByRoleOverflowCount: d.ByRoleOverflowCount}
}

func wireSchema(s views.BootstrapSchema) api.BootstrapSchema {
	return api.BootstrapSchema{Fields: wireList(s.Fields,
		func(f views.BootstrapField) api.BootstrapField { return api.BootstrapField(f) })}
}
