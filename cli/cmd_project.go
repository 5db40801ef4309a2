package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/padd/padd/api"
)

// ProjectCmd groups the project views, in Pad's vocabulary (pad project
// ...). Every view is a read except seen.
type ProjectCmd struct {
	Dashboard ProjectDashboardCmd `cmd:"" help:"The workspace at a glance: work in flight, plans, what needs attention, what to do next."`
	Next      ProjectNextCmd      `cmd:"" help:"The few items to work on next (never blocked, never claimed by someone else), and reminders due."`
	Ready     ProjectReadyCmd     `cmd:"" help:"The actionable backlog, ranked as next ranks it."`
	Stale     ProjectStaleCmd     `cmd:"" help:"Work that is stalled, blocked, overdue or outside the workflow."`
	Standup   ProjectStandupCmd   `cmd:"" help:"What was done, what is in progress and what blocks, over the last days."`
	Changelog ProjectChangelogCmd `cmd:"" help:"Work completed in a window, newest first: release notes."`
	Report    ProjectReportCmd    `cmd:"" help:"Insights: created vs completed, cycle time and work in progress over a window."`
	Activity  ProjectActivityCmd  `cmd:"" help:"The activity feed, newest first."`
	CatchUp   ProjectCatchUpCmd   `cmd:"" name:"catch-up" help:"What happened since you last marked the workspace seen (at most 14 days), without your own actions."`
	Seen      ProjectSeenCmd      `cmd:"" help:"Mark the workspace seen now: the next catch-up starts here."`
}

// ProjectDashboardCmd is `project dashboard`.
type ProjectDashboardCmd struct {
	workerFlag
}

// Run shows the dashboard, as padctl's worker sees it: work it holds is
// suggested, work others hold is not.
func (c *ProjectDashboardCmd) Run(ctx context.Context, a *App) error {
	cl, ws, err := a.inWorkspace(ctx)
	if err != nil {
		return err
	}
	if _, err := a.useWorker(cl, c.workerFlag, false); err != nil {
		return err
	}
	d, err := cl.Dashboard(ctx, ws)
	if err != nil {
		return err
	}
	if len(d.DegradedSections) > 0 || d.Degraded {
		a.warnf("padd could not complete every part of the dashboard (%s)", firstNonEmpty(strings.Join(d.DegradedSections, ", "), "it names none"))
	}
	return a.emitDoc(dashboardView{d: d, now: a.now()})
}

// workCmd is next and ready: ranked work, role-aware, as a worker sees
// it.
type workCmd struct {
	Role string `placeholder:"SLUG" help:"Rank work for this agent role first."`
	workerFlag
}

func (c *workCmd) run(ctx context.Context, a *App, ready bool, limit int) error {
	cl, ws, err := a.inWorkspace(ctx)
	if err != nil {
		return err
	}
	if _, err := a.useWorker(cl, c.workerFlag, false); err != nil {
		return err
	}
	q := api.WorkQuery{Role: c.Role, Limit: limit}
	fetch, name := cl.Next, "next"
	if ready {
		fetch, name = cl.Ready, "ready"
	}
	work, err := fetch(ctx, ws, q)
	if err != nil {
		return err
	}
	if err := a.emitDoc(workView{w: work}); err != nil {
		return err
	}
	if work.HasMore {
		if ready {
			a.notef("more work is ready than the %d shown; raise --limit", len(work.Items))
		} else {
			a.notef("%s shows the top %d; `padctl project ready` lists the rest", name, len(work.Items))
		}
	}
	return nil
}

// ProjectNextCmd is `project next`.
type ProjectNextCmd struct{ workCmd }

// Run shows what to do next (padd answers at most three).
func (c *ProjectNextCmd) Run(ctx context.Context, a *App) error { return c.run(ctx, a, false, 0) }

// ProjectReadyCmd is `project ready`.
type ProjectReadyCmd struct {
	workCmd
	Limit int `default:"20" help:"At most this many items."`
}

// Run shows the actionable backlog.
func (c *ProjectReadyCmd) Run(ctx context.Context, a *App) error {
	if c.Limit < 1 {
		return usagef(codeBadLimit, "give --limit 1 or more", "--limit %d is out of range", c.Limit)
	}
	return c.run(ctx, a, true, c.Limit)
}

// ProjectStaleCmd is `project stale`.
type ProjectStaleCmd struct {
	Days  int    `help:"Call work stalled after this many days without a change (default: padd's)."`
	Type  string `enum:",blocked,overdue,stalled,out_of_workflow" default:"" help:"Only this kind: blocked, overdue, stalled or out_of_workflow."`
	Limit int    `help:"At most this many items."`
}

// Run shows stale work.
func (c *ProjectStaleCmd) Run(ctx context.Context, a *App) error {
	if c.Days < 0 || c.Limit < 0 {
		return usagef(codeBadNumber, "give --days and --limit as positive numbers", "--days and --limit cannot be negative")
	}
	cl, ws, err := a.inWorkspace(ctx)
	if err != nil {
		return err
	}
	r, err := cl.Stale(ctx, ws, api.StaleQuery{Days: c.Days, Limit: c.Limit, Type: c.Type})
	if err != nil {
		return err
	}
	if err := a.emitDoc(staleView{r: r}); err != nil {
		return err
	}
	if r.HasMore {
		a.notef("more stale work than the %d shown; raise --limit", len(r.Items))
	}
	return nil
}

// ProjectStandupCmd is `project standup`.
type ProjectStandupCmd struct {
	Days  int `default:"1" help:"Look back this many days."`
	Limit int `help:"At most this many items per section."`
}

// Run shows the standup.
func (c *ProjectStandupCmd) Run(ctx context.Context, a *App) error {
	if c.Days < 1 || c.Limit < 0 {
		return usagef(codeBadNumber, "give --days 1 or more (and --limit 0 or more)", "--days %d or --limit %d is out of range", c.Days, c.Limit)
	}
	cl, ws, err := a.inWorkspace(ctx)
	if err != nil {
		return err
	}
	s, err := cl.Standup(ctx, ws, api.StandupQuery{Days: c.Days, Limit: c.Limit})
	if err != nil {
		return err
	}
	return a.emitDoc(standupView{s: s})
}

// ProjectChangelogCmd is `project changelog`.
type ProjectChangelogCmd struct {
	Since  string `placeholder:"DATE" help:"From this date (YYYY-MM-DD) or RFC 3339 instant."`
	Until  string `placeholder:"DATE" help:"Up to this date or instant (default: now)."`
	Days   int    `help:"From this many days ago (instead of --since)."`
	Parent string `placeholder:"REF" help:"Only the children of this item (a plan)."`
	Limit  int    `help:"At most this many entries."`
}

// Run shows the changelog.
func (c *ProjectChangelogCmd) Run(ctx context.Context, a *App) error {
	if c.Days < 0 || c.Limit < 0 {
		return usagef(codeBadNumber, "give --days and --limit as positive numbers", "--days and --limit cannot be negative")
	}
	if c.Days > 0 && c.Since != "" {
		return usagef(codeConflictingFlags, "give either --since or --days", "--since and --days both say where the window starts")
	}
	cl, ws, err := a.inWorkspace(ctx)
	if err != nil {
		return err
	}
	l, err := cl.Changelog(ctx, ws, api.ChangelogQuery{Since: c.Since, Until: c.Until, Days: c.Days, Parent: c.Parent, Limit: c.Limit})
	if err != nil {
		return err
	}
	if err := a.emitDoc(changelogView{l: l}); err != nil {
		return err
	}
	if l.HasMore {
		a.notef("%d entries match and this shows %d; raise --limit", l.Total, len(l.Items))
	}
	return nil
}

// ProjectReportCmd is `project report`.
type ProjectReportCmd struct {
	Window       string `enum:"day,week,2wk,month" default:"week" help:"The period: day, week, 2wk or month."`
	Offset       int    `help:"Periods back from the current one (1 = the previous period)."`
	Collections  string `help:"Only these collections (comma-separated slugs; default: every collection)."`
	TZ           string `name:"tz" placeholder:"ZONE" help:"Time zone of the buckets (IANA name, e.g. Europe/Paris; default UTC)."`
	IncludeItems bool   `help:"List the items completed in the period."`
}

// Run shows the report.
func (c *ProjectReportCmd) Run(ctx context.Context, a *App) error {
	if c.Offset < 0 {
		return usagef(codeBadOffset, "give --offset 0 (this period) or more", "--offset %d is negative", c.Offset)
	}
	cl, ws, err := a.inWorkspace(ctx)
	if err != nil {
		return err
	}
	r, err := cl.Report(ctx, ws, api.ReportQuery{Window: c.Window, Offset: c.Offset, Collections: splitComma(c.Collections),
		TZ: c.TZ, IncludeItems: c.IncludeItems})
	if err != nil {
		return err
	}
	return a.emitDoc(reportView{r: r})
}

// ProjectActivityCmd is `project activity`.
type ProjectActivityCmd struct {
	Ref        string `arg:"" optional:"" help:"Only this item's activity (ref, slug or id)."`
	Actor      string `enum:",user,agent" default:"" help:"Only actions by the user or by agents."`
	Since      string `placeholder:"DATE" help:"Only since this date (YYYY-MM-DD) or RFC 3339 instant."`
	Action     string `help:"Only this action (created, updated, claimed, ...)."`
	Source     string `help:"Only actions through this door (cli, mcp, web, ...)."`
	Collection string `predictor:"collection" help:"Only items of this collection."`
	Limit      int    `default:"50" help:"At most this many entries (up to 1000)."`
	Before     int64  `placeholder:"SEQ" help:"Only entries before this seq (the next page)."`
}

// activityMaxLimit is padd's cap on one page of the activity feed.
const activityMaxLimit = 1000

// Run shows the activity feed.
func (c *ProjectActivityCmd) Run(ctx context.Context, a *App) error {
	if c.Limit < 1 || c.Limit > activityMaxLimit {
		return usagef(codeBadLimit, fmt.Sprintf("give --limit between 1 and %d, and page with --before", activityMaxLimit), "--limit %d is out of range", c.Limit)
	}
	cl, ws, err := a.inWorkspace(ctx)
	if err != nil {
		return err
	}
	list, page, err := cl.Activity(ctx, ws, c.Ref, api.ActivityQuery{Action: c.Action, Actor: c.Actor, Source: c.Source,
		Since: c.Since, Collection: c.Collection, Limit: c.Limit, Before: c.Before})
	if err != nil {
		return err
	}
	if list == nil {
		list = []api.Activity{}
	}
	if err := a.emitDoc(activityView{list: list, now: a.now()}); err != nil {
		return err
	}
	if page.HasMore && page.NextBefore > 0 {
		a.notef("there is older activity; add --before %d for the next page", page.NextBefore)
	}
	return nil
}

// ProjectCatchUpCmd is `project catch-up`.
type ProjectCatchUpCmd struct {
	Seen bool `help:"Then mark the workspace seen, so the next catch-up starts after this one."`
}

// Run shows the catch-up digest.
func (c *ProjectCatchUpCmd) Run(ctx context.Context, a *App) error {
	cl, ws, err := a.inWorkspace(ctx)
	if err != nil {
		return err
	}
	cu, err := cl.CatchUp(ctx, ws)
	if err != nil {
		return err
	}
	if len(cu.Degraded) > 0 {
		a.warnf("padd could not complete every part of the catch-up (%s)", strings.Join(cu.Degraded, ", "))
	}
	if err := a.emitDoc(catchUpView{c: cu, now: a.now()}); err != nil {
		return err
	}
	if !c.Seen {
		return nil
	}
	s, err := cl.MarkSeen(ctx, ws)
	if err != nil {
		return err
	}
	a.notef("marked %s seen at %s; the next catch-up starts there", ws, stamp(s.SeenAt))
	return nil
}

// ProjectSeenCmd is `project seen`.
type ProjectSeenCmd struct{}

// Run marks the workspace seen.
func (c *ProjectSeenCmd) Run(ctx context.Context, a *App) error {
	cl, ws, err := a.inWorkspace(ctx)
	if err != nil {
		return err
	}
	s, err := cl.MarkSeen(ctx, ws)
	if err != nil {
		return err
	}
	return a.emitLine(seenLine(ws, s))
}
