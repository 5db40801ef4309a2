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

// remindersView is an item's reminders.
type remindersView struct{ list []api.ReminderView }

func (v remindersView) jsonValue() any { return v.list }

func (v remindersView) doc(markdown bool) doc {
	d := doc{}
	d.add(section{t: remindersTable(v.list, false), empty: "No reminders."})
	return d
}

// patchView is a patch's outcome and its unified diff: coloured lines on
// a terminal, a diff block in Markdown.
type patchView struct{ r *model.PatchReply }

func (v patchView) jsonValue() any { return v.r }

func (v patchView) doc(markdown bool) doc {
	r := v.r
	head := fmt.Sprintf("Patched %s: now seq %d, patch %s", r.Ref, r.Seq, r.PatchID)
	if r.UndoOf != "" {
		head = fmt.Sprintf("Undid patch %s on %s: now seq %d, patch %s", r.UndoOf, r.Ref, r.Seq, r.PatchID)
	}
	lines := []cell{plain(head)}
	if r.Rebased {
		note := "rebased over changes made since the expected seq"
		if iv := r.Intervening; iv != nil {
			note = fmt.Sprintf("rebased over %s made between seq %d and %d", plural(len(iv.Changes), "change"), iv.FromSeq, iv.ToSeq)
		}
		lines = append(lines, cell{text: note, color: ansiYellow})
	}
	diff := strings.TrimRight(r.Diff, "\n")
	d := doc{}
	if markdown {
		body := ""
		for _, l := range lines {
			body += l.mdText() + "\n\n"
		}
		if diff != "" {
			// Four backticks: the diff itself may hold a ``` fence.
			body += "````diff\n" + sanitizeBlock(diff) + "\n````\n"
		}
		d.add(section{body: body})
		return d
	}
	if diff != "" {
		lines = append(lines, plain(""))
		for _, l := range strings.Split(diff, "\n") {
			lines = append(lines, cell{text: clean(l), color: diffColor(l)})
		}
	}
	d.add(section{lines: lines})
	return d
}

// diffColor colours a unified diff line by its mark.
func diffColor(l string) string {
	switch {
	case strings.HasPrefix(l, "+++"), strings.HasPrefix(l, "---"):
		return ansiBold
	case strings.HasPrefix(l, "@@"):
		return ansiCyan
	case strings.HasPrefix(l, "+"):
		return ansiGreen
	case strings.HasPrefix(l, "-"):
		return ansiRed
	}
	return ""
}

// contextView is an item's work brief: the item, then the parts that
// fit the budget. In Markdown, bodies (the item's, the conventions') are
// given in full: that output is for an agent to read.
type contextView struct{ b *model.ContextBrief }

func (v contextView) jsonValue() any { return v.b }

func (v contextView) doc(markdown bool) doc {
	b := v.b
	it := b.Item
	d := doc{title: it.Ref + " · " + it.Title}
	kv := &keyValues{}
	kv.add("status", statusCell(it.Status))
	kv.add("collection", plain(it.Collection))
	keys := make([]string, 0, len(it.Fields))
	for k := range it.Fields {
		if !systemField[k] && k != "status" {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		kv.add(k, plain(fieldText(it.Fields[k])))
	}
	if b.Intent != "" {
		kv.add("intent", plain(b.Intent+" (conventions triggered "+b.Trigger+")"))
	}
	kv.add("role", plain(b.Role))
	kv.add("seq", plain(strconv.FormatInt(it.Seq, 10)))
	kv.add("budget", plain(fmt.Sprintf("%d of %d characters used", b.Used, b.Budget)))
	d.add(section{kv: kv, body: it.Body})

	notes := &table{cols: []column{{header: "NOTED"}, {header: "SUMMARY", flex: true, min: 16}, {header: "DETAILS", flex: true, min: 16}}}
	list, _ := it.Fields["implementation_notes"].([]any)
	for _, n := range list {
		m, _ := n.(map[string]any)
		at, _ := m["created_at"].(string)
		notes.add(plain(stamp(parseTime(at))), plain(fieldText(m["summary"])), plain(fieldText(m["details"])))
	}
	d.add(section{heading: "Implementation notes", t: notes})

	parents := &table{cols: []column{{header: "REF"}, {header: "TITLE", flex: true, min: 12}, {header: "STATUS"}, {header: "CRITERIA MET"}}}
	for _, p := range b.Parents {
		met, n := 0, 0
		for _, c := range p.AcceptanceCriteria {
			if c.Checked != nil {
				n++
				if *c.Checked {
					met++
				}
			}
		}
		crit := ""
		if n > 0 {
			crit = fmt.Sprintf("%d of %d", met, n)
		}
		parents.add(keyCell(p.Ref), plain(p.Title), statusCell(p.Status), plain(crit))
	}
	d.add(section{heading: "Parents", t: parents})

	convs := &table{cols: []column{{header: "REF"}, {header: "TITLE", flex: true, min: 12}, {header: "TRIGGER"}, {header: "PRIORITY"}, {header: "ROLE"}}}
	for _, c := range b.Conventions {
		convs.add(keyCell(c.Ref), plain(c.Title), plain(c.Trigger), priorityCell(c.Priority), plain(c.Role))
	}
	d.add(section{heading: "Conventions", t: convs})
	if markdown {
		for _, c := range b.Conventions {
			d.add(section{heading: "Convention " + c.Ref + ": " + c.Title, body: c.Body})
		}
	}

	d.add(section{heading: "Playbooks", t: playbooksTable(b.Playbooks)})

	deps := &table{cols: []column{{header: "LINK"}, {header: "REF"}, {header: "TITLE", flex: true, min: 12}, {header: "STATUS"}}}
	for _, part := range []struct {
		link string
		list []model.ContextDep
	}{{"blocks", b.Deps.Blocks}, {"blocked-by", b.Deps.BlockedBy}} {
		for _, dep := range part.list {
			deps.add(plain(part.link), keyCell(dep.Ref), plain(dep.Title), statusCell(firstNonEmpty(dep.Status, string(dep.State))))
		}
	}
	for _, l := range b.Links {
		deps.add(plain(l.Type), keyCell(l.Ref), plain(l.Title), statusCell(l.Status))
	}
	d.add(section{heading: "Links", t: deps})

	decisions := &table{cols: []column{{header: "DECIDED"}, {header: "DECISION", flex: true, min: 16}, {header: "WHY", flex: true, min: 16}}}
	for _, dc := range b.Decisions {
		decisions.add(plain(stamp(parseTime(dc.CreatedAt))), plain(dc.Decision), plain(dc.Rationale))
	}
	d.add(section{heading: "Decisions", t: decisions})

	var conflicts []cell
	for _, part := range []struct {
		what string
		refs []model.ConflictRef
	}{{"open blocker", b.Conflicts.OpenBlocker}, {"open under a closed parent", b.Conflicts.OpenUnderClosedParent},
		{"stale decision", b.Conflicts.StaleDecision}} {
		for _, r := range part.refs {
			conflicts = append(conflicts, cell{text: clean(fmt.Sprintf("%s: %s %s", part.what, r.Ref, r.Title)), color: ansiYellow})
		}
	}
	for _, c := range b.Conflicts.RoleAndGlobalConvention {
		conflicts = append(conflicts, cell{text: clean(fmt.Sprintf("conventions %s (role %s) and %s (everyone) are both titled %q",
			c.Scoped, c.Role, c.Global, c.Title)), color: ansiYellow})
	}
	d.add(section{heading: "Conflicts", lines: conflicts})

	omitted := &table{cols: []column{{header: "PART"}, {header: "REF"}, {header: "SIZE"}, {header: "WHY", flex: true, min: 12}}}
	for _, o := range b.Omitted {
		omitted.add(plain(o.Part), plain(o.Ref), plain(strconv.Itoa(o.Size)), plain(o.Reason))
	}
	d.add(section{heading: "Left out (over budget)", t: omitted})
	return d
}

// systemField are the fields padd writes itself, shown by the brief in
// sections of their own (or, for a convention's copy, not at all).
var systemField = map[string]bool{"implementation_notes": true, "decision_log": true, "convention": true, "github_pr": true}

// historyView is an item's versions, newest first.
type historyView struct {
	list []api.ItemVersion
	now  time.Time
}

func (v historyView) jsonValue() any { return v.list }

func (v historyView) doc(markdown bool) doc {
	t := &table{cols: []column{{header: "VERSION"}, {header: "WHEN"}, {header: "BY"}, {header: "LINES"},
		{header: "SUMMARY", flex: true, min: 12}}}
	for _, ver := range v.list {
		summary := ver.ChangeSummary
		if ver.IsCreate && summary == "" {
			summary = "created"
		}
		t.add(keyCell(strconv.FormatInt(ver.VersionSeq, 10)), when(ver.CreatedAt, v.now, markdown),
			plain(firstNonEmpty(ver.ActorName, ver.CreatedBy)), plain(fmt.Sprintf("+%d −%d", ver.LinesAdded, ver.LinesRemoved)), plain(summary))
	}
	d := doc{}
	d.add(section{t: t, empty: "No versions."})
	return d
}

// backlinksView is the items that mention an item.
type backlinksView struct {
	list []api.Backlink
	now  time.Time
}

func (v backlinksView) jsonValue() any { return v.list }

func (v backlinksView) doc(markdown bool) doc {
	t := &table{cols: []column{{header: "REF"}, {header: "TITLE", flex: true, min: 12}, {header: "COLLECTION"},
		{header: "MENTION", flex: true, min: 16}, {header: "UPDATED"}}}
	for _, b := range v.list {
		snippet := splitMarks(b.Snippet)
		t.add(keyCell(b.SourceRef), plain(b.SourceTitle), plain(b.SourceCollectionSlug),
			cell{text: clean(spansText(snippet)), md: spansMarkdown(snippet)}, whenText(b.UpdatedAt, v.now, markdown))
	}
	d := doc{}
	d.add(section{t: t, empty: "No backlinks: no item mentions this one."})
	return d
}

// depsView is an item's blocking graph.
type depsView struct{ d *api.Deps }

func (v depsView) jsonValue() any { return v.d }

func (v depsView) doc(markdown bool) doc {
	it := v.d.Item
	d := doc{title: strings.TrimSpace(fmt.Sprintf("%s · %s (%s)", it.Ref, it.Title, firstNonEmpty(it.Status, it.State)))}
	for _, part := range []struct {
		heading string
		list    []api.DepNode
	}{{"Blocks", v.d.Blocks}, {"Blocked by", v.d.BlockedBy}} {
		t := &table{cols: []column{{header: "REF"}, {header: "TITLE", flex: true, min: 12}, {header: "STATUS"}, {header: "DEPTH"}, {header: "VIA"}}}
		for _, n := range part.list {
			title := n.Title
			if n.Archived {
				title += " (archived)"
			}
			t.add(keyCell(n.Ref), plain(title), statusCell(firstNonEmpty(n.Status, n.State)),
				plain(strconv.Itoa(n.Depth)), plain(n.Via))
		}
		d.add(section{heading: counted(part.heading, len(part.list), len(part.list)), t: t, empty: "Nothing."})
	}
	if v.d.Truncated {
		d.add(section{lines: []cell{{text: "The graph is larger than padd walks; the farthest items are left out.", color: ansiYellow}}})
	}
	return d
}

// progressView is how much of an item's work children is done.
type progressView struct {
	ref string
	p   *api.Progress
}

// progressBar is a 20-cell bar of the done share.
func progressBar(pct int) string {
	n := min(max(pct, 0), 100) / 5
	return "[" + strings.Repeat("#", n) + strings.Repeat("-", 20-n) + "]"
}

func (v progressView) jsonValue() any { return v.p }

func (v progressView) doc(markdown bool) doc {
	p := v.p
	d := doc{}
	if p.Total == 0 {
		d.add(section{empty: clean(v.ref) + " has no work children."})
		return d
	}
	kv := &keyValues{}
	kv.add("done", cell{text: fmt.Sprintf("%d of %d (%d%%)", p.Done, p.Total, p.Percentage), color: ansiGreen})
	kv.add("open", plain(strconv.Itoa(p.Open)))
	kv.add("abandoned", plain(strconv.Itoa(p.Abandoned)))
	if !markdown {
		d.add(section{lines: []cell{plain(clean(v.ref) + "  " + progressBar(p.Percentage))}})
	}
	d.add(section{kv: kv})
	return d
}
