package cli

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/padd/padd/api"
	"github.com/padd/padd/model"
)

// playbooksTable lists playbooks without their bodies.
func playbooksTable(list []model.PlaybookMeta) *table {
	t := &table{cols: []column{{header: "REF"}, {header: "INVOKE"}, {header: "TITLE", flex: true, min: 12},
		{header: "TRIGGER"}, {header: "STATUS"}, {header: "ARGS"}}}
	for _, p := range list {
		t.add(keyCell(p.Ref), plain(p.InvocationSlug), plain(p.Title), plain(p.Trigger),
			statusCell(p.Status), plain(yesNo(p.HasArguments)))
	}
	return t
}

// playbooksView is the workspace's playbooks.
type playbooksView struct{ list []model.PlaybookMeta }

func (v playbooksView) jsonValue() any { return v.list }

func (v playbooksView) doc(markdown bool) doc {
	d := doc{}
	d.add(section{t: playbooksTable(v.list), empty: "No playbooks. `padctl library list --type playbooks` shows built-in ones to activate."})
	return d
}

// argsTable lists a playbook's declared arguments; bound, when not nil,
// adds the values a run bound.
func argsTable(specs []api.ArgSpec, bound map[string]any, unbound []api.UnboundArg) *table {
	cols := []column{{header: "ARGUMENT"}, {header: "TYPE"}}
	if bound != nil {
		cols = append(cols, column{header: "VALUE"})
	}
	t := &table{cols: append(cols, column{header: "DEFAULT"}, column{header: "DESCRIPTION", flex: true, min: 16})}
	missing := map[string]bool{}
	for _, u := range unbound {
		missing[u.Name] = true
	}
	for _, a := range specs {
		typ := a.Type
		if len(a.Enum) > 0 {
			typ += " " + strings.Join(a.Enum, "|")
		}
		if a.Required {
			typ += ", required"
		}
		row := []cell{keyCell(a.Name), plain(typ)}
		if bound != nil {
			v, ok := bound[a.Name]
			switch {
			case missing[a.Name]:
				row = append(row, cell{text: "(missing)", color: ansiRed})
			case ok:
				row = append(row, plain(fieldText(v)))
			default:
				row = append(row, cell{})
			}
		}
		t.add(append(row, plain(fieldText(a.Default)), plain(a.Description))...)
	}
	return t
}

// playbookRunView is a run: the bound arguments, then the steps.
type playbookRunView struct{ r *api.PlaybookRun }

func (v playbookRunView) jsonValue() any { return v.r }

func (v playbookRunView) doc(markdown bool) doc {
	r := v.r
	d := doc{title: fmt.Sprintf("%s (%s)", r.Title, firstNonEmpty(r.Ref, r.Slug))}
	if r.Status != "" && r.Status != "active" {
		d.add(section{lines: []cell{{text: "status " + clean(r.Status) + ": run as a draft", color: ansiYellow}}})
	}
	d.add(section{heading: "Arguments", t: argsTable(r.Arguments, r.BoundArgs, r.Unbound)})
	d.add(section{heading: "Steps", body: r.Body})
	return d
}

// libraryView is the library listing.
type libraryView struct{ l libraryList }

func (v libraryView) jsonValue() any { return v.l }

func (v libraryView) doc(markdown bool) doc {
	t := &table{cols: []column{{header: "KIND"}, {header: "KEY"}, {header: "TITLE", flex: true, min: 16},
		{header: "CATEGORY"}, {header: "TRIGGER"}}}
	if v.l.Conventions != nil {
		for _, c := range *v.l.Conventions {
			for _, e := range c.Conventions {
				t.add(plain(model.KindConvention), keyCell(e.Key), plain(e.Title), plain(e.Category), plain(e.Trigger))
			}
		}
	}
	if v.l.Playbooks != nil {
		for _, c := range *v.l.Playbooks {
			for _, e := range c.Playbooks {
				t.add(plain(model.KindPlaybook), keyCell(e.Key), plain(e.Title), plain(e.Category), plain(e.Trigger))
			}
		}
	}
	d := doc{}
	d.add(section{t: t, empty: "The library has nothing that matches."})
	return d
}

// libraryEntryView is one library entry in full.
type libraryEntryView struct{ e *api.LibraryEntry }

func (v libraryEntryView) jsonValue() any { return v.e }

func (v libraryEntryView) doc(markdown bool) doc {
	kv := &keyValues{}
	d := doc{}
	switch {
	case v.e.Convention != nil:
		c := v.e.Convention
		d.title = c.Title
		kv.add("key", plain(c.Key))
		kv.add("kind", plain(model.KindConvention))
		kv.add("category", plain(c.Category))
		kv.add("trigger", plain(c.Trigger))
		kv.add("enforcement", priorityCell(c.Enforcement))
		kv.add("surfaces", plain(strings.Join(c.Surfaces, ", ")))
		d.add(section{kv: kv})
		commands := make([]cell, 0, len(c.Commands))
		for _, cmd := range c.Commands {
			commands = append(commands, cell{text: clean(cmd), md: mdCode(cmd)})
		}
		d.add(section{heading: "Commands", lines: commands})
		d.add(section{heading: "Convention", body: c.Content})
	case v.e.Playbook != nil:
		p := v.e.Playbook
		d.title = p.Title
		kv.add("key", plain(p.Key))
		kv.add("kind", plain(model.KindPlaybook))
		kv.add("category", plain(p.Category))
		kv.add("trigger", plain(p.Trigger))
		kv.add("scope", plain(p.Scope))
		kv.add("invoke", plain(p.InvocationSlug))
		d.add(section{kv: kv})
		d.add(section{heading: "Arguments", t: argsTable(p.Arguments, nil, nil)})
		d.add(section{heading: "Steps", body: firstNonEmpty(p.Content, p.Summary)})
	default:
		d.add(section{empty: "padd sent an entry of kind " + clean(v.e.Type) + ", which this padctl cannot show; try --format json."})
	}
	return d
}

// rolesView is the workspace's agent roles.
type rolesView struct{ list []api.AgentRole }

func (v rolesView) jsonValue() any { return v.list }

func (v rolesView) doc(markdown bool) doc {
	t := &table{cols: []column{{header: "SLUG"}, {header: "NAME", flex: true, min: 10}, {header: "ITEMS"},
		{header: "DESCRIPTION", flex: true, min: 16}}}
	for _, r := range v.list {
		t.add(keyCell(r.Slug), plain(strings.TrimSpace(r.Icon+" "+r.Name)),
			plain(strconv.Itoa(r.ItemCount)), plain(r.Description))
	}
	d := doc{}
	d.add(section{t: t, empty: "No agent roles. `padctl role create <name>` makes one."})
	return d
}

// bootstrapView is the agent bootstrap: the workspace, its collections,
// rules, roles and playbooks, and its dashboard.
type bootstrapView struct {
	b   *api.Bootstrap
	now time.Time
}

func (v bootstrapView) jsonValue() any { return outBootstrap(v.b) }

func (v bootstrapView) doc(markdown bool) doc {
	b := v.b
	d := doc{title: fmt.Sprintf("%s (%s)", b.Workspace.Name, b.Workspace.Slug)}
	var notes []cell
	if b.Workspace.Description != "" {
		notes = append(notes, plain(b.Workspace.Description))
	}
	if b.NeedsOnboarding {
		notes = append(notes, cell{text: "Needs onboarding: `padctl library list` shows conventions and playbooks to activate.", color: ansiYellow})
	}
	if b.BuiltinUpdates > 0 {
		notes = append(notes, cell{text: plural(b.BuiltinUpdates, "built-in entry") + " can be updated from the library.", color: ansiYellow})
	}
	d.add(section{lines: notes})

	colls := &table{cols: []column{{header: "SLUG"}, {header: "NAME"}, {header: "PREFIX"}, {header: "OPEN"}, {header: "TOTAL"},
		{header: "FIELDS", flex: true, min: 12}}}
	for _, c := range b.Collections {
		keys := make([]string, 0, len(c.Schema.Fields))
		for _, f := range c.Schema.Fields {
			keys = append(keys, f.Key)
		}
		colls.add(keyCell(c.Slug), plain(strings.TrimSpace(c.Icon+" "+c.Name)), plain(c.Prefix),
			plain(strconv.Itoa(c.ActiveItemCount)), plain(strconv.Itoa(c.ItemCount)), plain(strings.Join(keys, ", ")))
	}
	d.add(section{heading: "Collections", t: colls})

	always := &table{cols: []column{{header: "REF"}, {header: "TITLE", flex: true, min: 12}, {header: "PRIORITY"}, {header: "SCOPE"}}}
	for _, c := range b.Conventions {
		always.add(keyCell(c.Ref), plain(c.Title), priorityCell(c.Priority), plain(c.Scope))
	}
	d.add(section{heading: "Conventions always in force", t: always})
	if markdown {
		for _, c := range b.Conventions {
			d.add(section{heading: "Convention " + c.Ref + ": " + c.Title, body: c.Content})
		}
	}
	index := &table{cols: []column{{header: "REF"}, {header: "TITLE", flex: true, min: 12}, {header: "TRIGGER"}, {header: "ROLE"}}}
	for _, c := range b.ConventionIndex {
		index.add(keyCell(c.Ref), plain(c.Title), plain(c.Trigger), plain(c.Role))
	}
	d.add(section{heading: "All active conventions", t: index})

	roles := &table{cols: []column{{header: "SLUG"}, {header: "NAME", flex: true, min: 10}, {header: "ITEMS"}}}
	for _, r := range b.Roles {
		roles.add(keyCell(r.Slug), plain(strings.TrimSpace(r.Icon+" "+r.Name)), plain(strconv.Itoa(r.ItemCount)))
	}
	d.add(section{heading: "Agent roles", t: roles})
	d.add(section{heading: "Playbooks", t: playbooksTable(b.Playbooks)})

	if bd := b.Dashboard; bd != nil && bd.Dashboard != nil {
		for _, s := range (dashboardView{d: bd.Dashboard, now: v.now}).sections(markdown) {
			d.add(s)
		}
		if bd.AttentionOverflowCount+bd.RecentActivityOverflowCount+bd.ActiveItemsOverflowCount+bd.ActivePlansOverflowCount+bd.ByRoleOverflowCount > 0 {
			d.add(section{lines: []cell{{text: fmt.Sprintf("The dashboard's lists are cut at %d; `padctl project dashboard` shows them whole.", model.BootstrapCap), color: ansiDim}}})
		}
	}
	return d
}

// mdCode is text as Markdown inline code, its fence longer than any run
// of backticks inside.
func mdCode(s string) string {
	fence := "`"
	for strings.Contains(s, fence) {
		fence += "`"
	}
	pad := ""
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		pad = " "
	}
	return fence + pad + clean(s) + pad + fence
}
