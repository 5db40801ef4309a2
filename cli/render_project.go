package cli

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/padd/padd/api"
	"github.com/padd/padd/model"
)

// Renderers of the project views. Their wire shapes are model's (see
// api/client_project.go); times in them are RFC 3339 text.

// words turns a wire token into words: out_of_workflow -> out of workflow.
func words(s string) string { return strings.ReplaceAll(s, "_", " ") }

// keyCell is the cell that names a row (a ref, a slug, a key): bold,
// the first of names that is not empty (an item's ref, else its slug).
func keyCell(names ...string) cell {
	return cell{text: clean(firstNonEmpty(names...)), color: ansiBold}
}

func statusCell(s string) cell   { return cell{text: clean(s), color: statusColor(s)} }
func priorityCell(p string) cell { return cell{text: clean(p), color: priorityColor(p)} }

// noticeTable lists items the dashboard points at, with why.
func noticeTable(list []api.DashboardNotice, showKind bool) *table {
	var cols []column
	if showKind {
		cols = append(cols, column{header: "KIND"})
	}
	t := &table{cols: append(cols, column{header: "REF"}, column{header: "TITLE", flex: true, min: 12},
		column{header: "WHY", flex: true, min: 16})}
	for _, n := range list {
		var row []cell
		if showKind {
			row = append(row, cell{text: clean(words(n.Type)), color: ansiYellow})
		}
		t.add(append(row, keyCell(n.ItemRef, n.ItemSlug), plain(n.ItemTitle), plain(n.Reason))...)
	}
	return t
}

// workTable lists ranked or flagged work with its state and why.
func workTable(list []api.WorkItem, showKind bool) *table {
	var cols []column
	if showKind {
		cols = append(cols, column{header: "KIND"})
	}
	t := &table{cols: append(cols, column{header: "REF"}, column{header: "TITLE", flex: true, min: 12},
		column{header: "STATUS"}, column{header: "PRIORITY"}, column{header: "WHY", flex: true, min: 16})}
	for _, it := range list {
		var row []cell
		if showKind {
			row = append(row, cell{text: clean(words(it.Type)), color: ansiYellow})
		}
		t.add(append(row, keyCell(it.ItemRef, it.ItemSlug), plain(it.ItemTitle), statusCell(it.Status),
			priorityCell(it.Priority), plain(it.Reason))...)
	}
	return t
}

var reminderColors = map[string]string{model.ReminderArmed: ansiBlue, model.ReminderFired: ansiYellow, model.ReminderAcknowledged: ansiDim}

// remindersTable lists reminders; withItem adds the item each is on.
// Times are absolute: a reminder is mostly in the future, where "ago"
// says nothing.
func remindersTable(list []api.ReminderView, withItem bool) *table {
	cols := []column{{header: "ID"}}
	if withItem {
		cols = append(cols, column{header: "REF"}, column{header: "TITLE", flex: true, min: 12})
	}
	t := &table{cols: append(cols, column{header: "STATE"}, column{header: "REMIND AT"}, column{header: "FIRED"})}
	for _, r := range list {
		row := []cell{{text: clean(r.ID), color: ansiDim}}
		if withItem {
			row = append(row, keyCell(r.ItemRef, r.ItemID), plain(r.ItemTitle))
		}
		t.add(append(row, cell{text: clean(r.State), color: reminderColors[r.State]},
			plain(stamp(parseTime(r.RemindAt))), plain(stamp(parseTime(r.FiredAt))))...)
	}
	return t
}

// activityLine is one feed entry, from either feed shape.
type activityLine struct {
	at                      time.Time
	who, action, ref, title string
}

func activityTable(lines []activityLine, now time.Time, markdown bool) *table {
	t := &table{cols: []column{{header: "WHEN"}, {header: "WHO"}, {header: "ACTION"}, {header: "REF"},
		{header: "TITLE", flex: true, min: 12}}}
	for _, l := range lines {
		t.add(when(l.at, now, markdown), plain(l.who), plain(words(l.action)), keyCell(l.ref), plain(l.title))
	}
	return t
}

// dashboardView is the workspace dashboard.
type dashboardView struct {
	d   *api.Dashboard
	now time.Time
}

func (v dashboardView) jsonValue() any { return outDashboard(v.d) }

func (v dashboardView) doc(markdown bool) doc {
	d := doc{title: "Dashboard"}
	for _, s := range v.sections(markdown) {
		d.add(s)
	}
	return d
}

// sections are the dashboard's parts; the bootstrap shows them too.
func (v dashboardView) sections(markdown bool) []section {
	d := v.d
	var out []section

	sum := &keyValues{}
	colls := make([]string, 0, len(d.Summary.ByCollection))
	for c := range d.Summary.ByCollection {
		colls = append(colls, c)
	}
	sort.Strings(colls)
	for _, c := range colls {
		sum.add(c, plain(facetText(d.Summary.ByCollection[c])))
	}
	out = append(out, section{heading: "Summary: " + plural(d.Summary.TotalItems, "item"), kv: sum})

	attention := 0
	for _, n := range d.AttentionTotals {
		attention += n
	}
	out = append(out, section{heading: counted("Needs attention", len(d.Attention), attention),
		t: noticeTable(d.Attention, true), empty: "Nothing needs attention."})
	out = append(out, section{heading: "Suggested next", t: noticeTable(d.SuggestedNext, false)})
	out = append(out, section{heading: "Reminders due", t: remindersTable(d.PendingReminders, true)})

	active := &table{cols: []column{{header: "REF"}, {header: "TITLE", flex: true, min: 12}, {header: "STATUS"},
		{header: "PRIORITY"}, {header: "COLLECTION"}, {header: "UPDATED"}}}
	for _, it := range d.ActiveItems {
		active.add(keyCell(it.ItemRef, it.Slug), plain(it.Title), statusCell(it.Status), priorityCell(it.Priority),
			plain(it.CollectionSlug), whenText(it.UpdatedAt, v.now, markdown))
	}
	out = append(out, section{heading: "In progress", t: active})

	plans := &table{cols: []column{{header: "REF"}, {header: "TITLE", flex: true, min: 12}, {header: "DONE"}, {header: "PROGRESS"}}}
	for _, p := range d.ActivePlans {
		plans.add(keyCell(p.Ref, p.Slug), plain(p.Title), plain(fmt.Sprintf("%d of %d", p.DoneCount, p.TaskCount)),
			plain(strconv.Itoa(p.Progress)+"%"))
	}
	out = append(out, section{heading: "Active plans", t: plans})

	roles := &table{cols: []column{{header: "ROLE"}, {header: "OPEN ITEMS"}}}
	for _, r := range d.ByRole {
		roles.add(plain(strings.TrimSpace(r.RoleIcon+" "+r.RoleName)), plain(strconv.Itoa(r.ItemCount)))
	}
	out = append(out, section{heading: "Open work by role", t: roles})

	recent := make([]activityLine, 0, len(d.RecentActivity))
	for _, r := range d.RecentActivity {
		recent = append(recent, activityLine{at: parseTime(r.CreatedAt), who: firstNonEmpty(r.ActorName, r.Actor),
			action: r.Action, ref: firstNonEmpty(r.ItemRef, r.ItemSlug), title: r.ItemTitle})
	}
	out = append(out, section{heading: "Recent activity", t: activityTable(recent, v.now, markdown)})
	return out
}

// workView is next or ready: ranked work, then reminders due.
type workView struct{ w *api.NextWork }

func (v workView) jsonValue() any { return v.w }

func (v workView) doc(markdown bool) doc {
	d := doc{}
	d.add(section{t: workTable(v.w.Items, false), empty: "Nothing to work on: no open, unblocked, unclaimed work."})
	d.add(section{heading: "Reminders due", t: remindersTable(v.w.Reminders, true)})
	return d
}

// staleView is the stale report: counts by kind, then the items.
type staleView struct{ r *api.StaleReport }

func (v staleView) jsonValue() any { return v.r }

func (v staleView) doc(markdown bool) doc {
	kinds := []string{model.NoticeBlocked, model.NoticeOverdue, model.NoticeStalled, model.NoticeOutOfWorkflow}
	parts := make([]string, 0, len(kinds))
	for _, k := range kinds {
		parts = append(parts, fmt.Sprintf("%s %d", words(k), v.r.Totals[k]))
	}
	d := doc{}
	d.add(section{lines: []cell{{text: fmt.Sprintf("%s (stalled: no change in %s)", strings.Join(parts, " · "), plural(v.r.Days, "day")), color: ansiDim}}})
	d.add(section{t: workTable(v.r.Items, true), empty: "Nothing is stale."})
	return d
}

// standupView is the standup: done, in progress, blockers.
type standupView struct{ s *api.Standup }

func (v standupView) jsonValue() any { return v.s }

func (v standupView) doc(markdown bool) doc {
	s := v.s
	d := doc{title: fmt.Sprintf("Standup: the last %s", plural(s.Days, "day"))}
	d.add(section{lines: []cell{{text: span2(s.Since, s.Until), color: ansiDim}}})
	for _, part := range []struct {
		heading string
		sec     api.Section
	}{{"Done", s.Done}, {"In progress", s.InProgress}, {"Blockers", s.Blockers}} {
		d.add(section{heading: counted(part.heading, len(part.sec.Items), part.sec.Total), t: workTable(part.sec.Items, false), empty: "Nothing."})
	}
	return d
}

// span2 is "2026-03-09 12:00 UTC → 2026-03-10 12:00 UTC".
func span2(since, until string) string {
	return stamp(parseTime(since)) + " → " + stamp(parseTime(until))
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
}

// changelogView is completed work, newest first.
type changelogView struct{ l *api.Changelog }

func (v changelogView) jsonValue() any { return v.l }

func (v changelogView) doc(markdown bool) doc {
	t := &table{cols: []column{{header: "COMPLETED"}, {header: "REF"}, {header: "TITLE", flex: true, min: 12},
		{header: "COLLECTION"}, {header: "PARENT"}}}
	for _, e := range v.l.Items {
		t.add(plain(stamp(parseTime(e.CompletedAt))), keyCell(e.Ref, e.Slug), plain(e.Title), plain(e.Collection),
			plain(strings.TrimSpace(e.ParentRef+" "+e.ParentTitle)))
	}
	d := doc{title: "Changelog"}
	d.add(section{lines: []cell{{text: span2(v.l.Since, v.l.Until), color: ansiDim}}})
	d.add(section{heading: counted("Completed", len(v.l.Items), v.l.Total), t: t, empty: "Nothing was completed in this window."})
	return d
}

// reportView is the insights report.
type reportView struct{ r *api.Report }

// hoursText renders a duration given in hours: "40m", "5.5h", or days
// past two.
func hoursText(h float64) string {
	switch {
	case h < 1:
		return strconv.Itoa(int(h*60+0.5)) + "m"
	case h >= 48:
		return strconv.FormatFloat(h/24, 'f', 1, 64) + "d"
	}
	return strconv.FormatFloat(h, 'f', 1, 64) + "h"
}

func (v reportView) jsonValue() any { return v.r }

func (v reportView) doc(markdown bool) doc {
	r := v.r
	title := "Report: " + r.Window
	if r.Offset > 0 {
		title += fmt.Sprintf(" (%s back)", plural(r.Offset, "period"))
	}
	d := doc{title: title}
	zone := ""
	if r.TZ != "" {
		zone = " (buckets in " + r.TZ + ")"
	}
	d.add(section{lines: []cell{{text: clean(span2(r.RangeStart, r.RangeEnd) + zone + " · " + strings.Join(r.Collections, ", ")), color: ansiDim}}})

	kv := &keyValues{}
	kv.add("created", plain(strconv.Itoa(r.Totals.Created)))
	kv.add("completed", plain(strconv.Itoa(r.Totals.Completed)))
	kv.add("net flow", plain(fmt.Sprintf("%+d", r.Totals.NetFlow)))
	if r.CycleTime.SampleSize > 0 {
		kv.add("cycle time", plain(fmt.Sprintf("median %s, p90 %s (%s)", hoursText(r.CycleTime.MedianHours),
			hoursText(r.CycleTime.P90Hours), plural(r.CycleTime.SampleSize, "item"))))
	}
	kv.add("open now", plain(fmt.Sprintf("%d, median age %s", r.WIP.OpenCount, hoursText(r.WIP.MedianAgeHours))))
	d.add(section{heading: "Totals", kv: kv})

	buckets := &table{cols: []column{{header: "BUCKET"}, {header: "CREATED"}, {header: "COMPLETED"}}}
	for _, b := range r.Buckets {
		buckets.add(plain(b.Bucket), plain(strconv.Itoa(b.Created)), plain(strconv.Itoa(b.Completed)))
	}
	d.add(section{heading: "By " + r.Granularity, t: buckets})

	done := &table{cols: []column{{header: "COLLECTION"}, {header: "COMPLETED"}, {header: "MEDIAN CYCLE"}}}
	cycle := map[string]api.Duration{}
	for _, c := range r.CycleTime.ByCollection {
		cycle[c.Collection] = c
	}
	for _, c := range r.CompletedByCollection {
		med := ""
		if ct, ok := cycle[c.Collection]; ok && ct.Count > 0 {
			med = hoursText(ct.MedianHours)
		}
		done.add(plain(c.Collection), plain(strconv.Itoa(c.Count)), plain(med))
	}
	d.add(section{heading: "Completed by collection", t: done})

	status := &table{cols: []column{{header: "COLLECTION"}, {header: "STATUS"}, {header: "ITEMS"}}}
	for _, s := range r.StatusDistribution {
		status.add(plain(s.Collection), statusCell(s.Status), plain(strconv.Itoa(s.Count)))
	}
	d.add(section{heading: "Status now", t: status})

	aging := &table{cols: []column{{header: "AGE"}, {header: "OPEN ITEMS"}}}
	for _, b := range r.WIP.AgingBuckets {
		aging.add(plain(b.Label), plain(strconv.Itoa(b.Count)))
	}
	d.add(section{heading: "Open work by age", t: aging})

	items := &table{cols: []column{{header: "COMPLETED"}, {header: "REF"}, {header: "TITLE", flex: true, min: 12}, {header: "COLLECTION"}}}
	for _, c := range r.CompletedItems {
		items.add(plain(stamp(parseTime(c.CompletedAt))), keyCell(c.Ref), plain(c.Title), plain(c.Collection))
	}
	heading := "Completed items"
	if r.CompletedItemsOverflow > 0 {
		heading = fmt.Sprintf("Completed items (%d more not listed)", r.CompletedItemsOverflow)
	}
	d.add(section{heading: heading, t: items})
	return d
}

// activityView is the activity feed.
type activityView struct {
	list []api.Activity
	now  time.Time
}

func (v activityView) jsonValue() any { return outActivity(v.list) }

func (v activityView) doc(markdown bool) doc {
	lines := make([]activityLine, 0, len(v.list))
	for _, e := range v.list {
		lines = append(lines, activityLine{at: e.CreatedAt, who: firstNonEmpty(e.ActorName, e.Actor), action: e.Action,
			ref: firstNonEmpty(e.ItemRef, e.ItemSlug), title: e.ItemTitle})
	}
	d := doc{}
	d.add(section{t: activityTable(lines, v.now, markdown), empty: "No activity."})
	return d
}

// catchUpView is the catch-up digest.
type catchUpView struct {
	c   *api.CatchUp
	now time.Time
}

func (v catchUpView) linesTable(lines []api.CatchUpLine, markdown bool) *table {
	t := &table{cols: []column{{header: "REF"}, {header: "TITLE", flex: true, min: 12}, {header: "WHAT", flex: true, min: 12},
		{header: "WHO"}, {header: "WHEN"}}}
	for _, l := range lines {
		at := cell{}
		if l.At != "" {
			at = whenText(l.At, v.now, markdown)
		}
		t.add(keyCell(l.Ref), plain(l.Title), plain(l.What), plain(firstNonEmpty(l.Agent, l.Actor)), at)
	}
	return t
}

func (v catchUpView) jsonValue() any { return v.c }

func (v catchUpView) doc(markdown bool) doc {
	c := v.c
	d := doc{title: "Catch-up"}
	window := span2(c.Window.Since, c.Window.Until)
	switch {
	case !c.Window.HasCursor:
		window += " (never marked seen: the last 14 days)"
	case c.Window.CappedAtCeiling:
		window += " (capped at 14 days)"
	}
	d.add(section{lines: []cell{{text: window, color: ansiDim}}})
	some := false
	for _, part := range []struct {
		heading string
		sec     api.CatchUpSection
	}{{"Needs you", c.NeedsYou}, {"Finished", c.Finished}, {"New and reopened", c.NewAndReopened}, {"Comments", c.Comments}} {
		some = some || part.sec.Total > 0
		d.add(section{heading: counted(part.heading, len(part.sec.Lines), part.sec.Total), t: v.linesTable(part.sec.Lines, markdown)})
	}
	for _, g := range c.Agents.Groups {
		some = true
		d.add(section{heading: fmt.Sprintf("Agent %s: %s on %s", g.Agent, plural(g.Changes, "change"), plural(g.Items, "item")),
			t: v.linesTable(g.Lines, markdown)})
	}
	if !some {
		d.add(section{empty: "Nothing new since then."})
	}
	return d
}
