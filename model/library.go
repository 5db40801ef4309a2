package model

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"
)

// The built-in library (Pad's LIB-01/02): conventions and playbooks a
// workspace can activate, which copies an entry into the collection that
// holds its kind. The text is padd's own. Answers carry the entries as
// api's LibraryConvention and LibraryPlaybook.

// Library entry kinds; a collection holds one kind (CollectionKind).
const (
	KindConvention = "convention"
	KindPlaybook   = "playbook"
)

// LibraryConvention is a rule ready to activate.
type LibraryConvention struct {
	Key         string
	Title       string
	Content     string
	Category    string
	Trigger     string
	Surfaces    []string
	Enforcement string
	Commands    []string
}

// LibraryPlaybook is a workflow ready to activate.
type LibraryPlaybook struct {
	Key            string
	Title          string
	Content        string
	Category       string
	Trigger        string
	Scope          string
	InvocationSlug string
	Arguments      []ArgSpec
}

// ConventionCategory and PlaybookCategory group entries for browsing.
type ConventionCategory struct {
	Name        string
	Description string
	Conventions []LibraryConvention
}

// PlaybookCategory groups playbooks.
type PlaybookCategory struct {
	Name        string
	Description string
	Playbooks   []LibraryPlaybook
}

// LibraryEntry is one entry of either kind, as activation needs it.
type LibraryEntry struct {
	Kind       string
	Convention *LibraryConvention
	Playbook   *LibraryPlaybook
}

// Key is the entry's stable name ("convention/<slug>", "playbook/<slug>").
func (e LibraryEntry) Key() string {
	if e.Convention != nil {
		return e.Convention.Key
	}
	return e.Playbook.Key
}

// Title is the entry's title, which becomes the item's.
func (e LibraryEntry) Title() string {
	if e.Convention != nil {
		return e.Convention.Title
	}
	return e.Playbook.Title
}

// Content is the entry's body.
func (e LibraryEntry) Content() string {
	if e.Convention != nil {
		return e.Convention.Content
	}
	return e.Playbook.Content
}

// Fields are the ordinary field values an activation writes. Reserved
// metadata (a convention's copy) is separate: see ConventionCopy.
func (e LibraryEntry) Fields() map[string]any {
	if c := e.Convention; c != nil {
		scope := "all"
		if len(c.Surfaces) > 0 {
			scope = c.Surfaces[0]
		}
		return map[string]any{"status": "active", "trigger": c.Trigger, "scope": scope, "priority": c.Enforcement}
	}
	p := e.Playbook
	f := map[string]any{"status": "active", "trigger": p.Trigger, "scope": p.Scope}
	if p.InvocationSlug != "" {
		f["invocation_slug"] = p.InvocationSlug
	}
	if len(p.Arguments) > 0 {
		args := make([]any, 0, len(p.Arguments))
		for _, a := range p.Arguments {
			args = append(args, argSpecValue(a))
		}
		f["arguments"] = args
	}
	return f
}

// argSpecValue is an ArgSpec as a decoded JSON value, the form stored
// fields hold, so a stored copy compares equal to a fresh one.
func argSpecValue(a ArgSpec) map[string]any {
	m := map[string]any{"name": a.Name, "type": a.Type}
	if a.Required {
		m["required"] = true
	}
	if a.Default != nil {
		m["default"] = a.Default
	}
	if a.Description != "" {
		m["description"] = a.Description
	}
	if len(a.Enum) > 0 {
		enum := make([]any, len(a.Enum))
		for i, v := range a.Enum {
			enum[i] = v
		}
		m["enum"] = enum
	}
	return m
}

// Hash is the entry's version: sha256 of its body and the fields an
// update would write, so a change to either is an update to offer.
func (e LibraryEntry) Hash() string {
	h := sha256.New()
	h.Write([]byte(e.Content()))
	h.Write([]byte{0})
	fields := e.Fields()
	delete(fields, "status") // an update never touches status
	if c := e.ConventionCopy(); c != nil {
		fields[FieldConvention] = c
	}
	b, _ := json.Marshal(fields) // map keys marshal sorted: stable
	h.Write(b)
	return hex.EncodeToString(h.Sum(nil))
}

// ConventionCopy is the reserved convention metadata an activated
// convention carries; nil for a playbook.
func (e LibraryEntry) ConventionCopy() map[string]any {
	c := e.Convention
	if c == nil {
		return nil
	}
	return conventionCopy(c.Category, c.Trigger, c.Enforcement, c.Surfaces, c.Commands)
}

func conventionCopy(category, trigger, enforcement string, surfaces, commands []string) map[string]any {
	m := map[string]any{}
	put := func(k, v string) {
		if v != "" {
			m[k] = v
		}
	}
	putList := func(k string, l []string) {
		var out []any
		seen := map[string]bool{}
		for _, s := range l {
			if s != "" && !seen[s] {
				seen[s] = true
				out = append(out, s)
			}
		}
		if len(out) > 0 {
			m[k] = out
		}
	}
	put("category", category)
	put("trigger", trigger)
	putList("surfaces", surfaces)
	put("enforcement", enforcement)
	putList("commands", commands)
	return m
}

// conventionSources maps each member of the reserved convention copy to
// the ordinary keys it is rebuilt from (ITM-16).
var conventionSources = map[string][]string{
	"category":    {"category"},
	"trigger":     {"trigger"},
	"surfaces":    {"surfaces", "scope"},
	"enforcement": {"enforcement", "priority"},
	"commands":    {"commands"},
}

// SyncConventionCopy keeps an item's reserved convention copy in step
// with its ordinary metadata keys (Pad's ITM-16). It is called by the
// item update path with the stored fields and the fields about to be
// stored. An item without a copy, or an update that changes none of
// trigger, scope/surfaces, enforcement/priority, category and commands,
// is returned as it is. Otherwise each member whose sources changed is
// rebuilt from the merged fields (surfaces from surfaces, else [scope];
// enforcement from enforcement, else priority) and the others keep
// their stored value. A rebuild that would leave the copy empty is
// refused with 400 validation_error.
func SyncConventionCopy(before, after map[string]any) (map[string]any, error) {
	stored, ok := after[FieldConvention].(map[string]any)
	if !ok {
		return after, nil
	}
	next := map[string]any{}
	for k, v := range stored {
		next[k] = v
	}
	changed := false
	for member, sources := range conventionSources {
		touched := false
		for _, k := range sources {
			if !EqualJSON(before[k], after[k]) {
				touched = true
			}
		}
		if !touched {
			continue
		}
		changed = true
		delete(next, member)
		for _, k := range sources {
			if v := conventionMember(member, after[k]); v != nil {
				next[member] = v
				break
			}
		}
	}
	if !changed {
		return after, nil
	}
	if len(next) == 0 {
		return nil, Invalid("this change would leave the convention's metadata empty (no trigger, scope, enforcement, category or commands); keep at least one").
			With("field", FieldConvention)
	}
	out := make(map[string]any, len(after))
	for k, v := range after {
		out[k] = v
	}
	out[FieldConvention] = next
	return out, nil
}

// conventionMember shapes one ordinary value as a copy member: the list
// members take a list (a lone scope becomes [scope]); blanks are nil.
func conventionMember(member string, v any) any {
	list := member == "surfaces" || member == "commands"
	switch x := v.(type) {
	case string:
		if strings.TrimSpace(x) == "" {
			return nil
		}
		if list {
			return []any{x}
		}
		return x
	case []any:
		if len(x) == 0 {
			return nil
		}
		if list {
			return x
		}
		return x[0]
	case nil:
		return nil
	}
	return v
}

// CollectionKind says which library kind a collection holds, from its
// schema rather than its slug, so a renamed collection keeps its role: a
// collection routing by invocation_slug holds playbooks; one whose
// trigger and priority are selects, with "must" among the priorities,
// holds conventions.
func CollectionKind(c *Collection) string {
	if f, ok := c.Schema.Field("invocation_slug"); ok && f.Type == TypeText {
		return KindPlaybook
	}
	t, tok := c.Schema.Field("trigger")
	p, pok := c.Schema.Field("priority")
	if tok && pok && t.Type == TypeSelect && p.Type == TypeSelect && p.HasOption("must") {
		return KindConvention
	}
	return ""
}

// ConventionLibrary lists the built-in conventions by category. The
// slices are the library itself, shared by every caller: read them,
// copy before changing anything (as the summary listing does).
func ConventionLibrary() []ConventionCategory {
	return conventionLibrary
}

// PlaybookLibrary lists the built-in playbooks by category; shared like
// ConventionLibrary's.
func PlaybookLibrary() []PlaybookCategory {
	return playbookLibrary
}

// FindLibraryEntry finds an entry by key or by exact title, conventions
// first, or reports false.
func FindLibraryEntry(key, title string) (LibraryEntry, bool) {
	for _, cat := range conventionLibrary {
		for i := range cat.Conventions {
			c := &cat.Conventions[i]
			if key != "" && c.Key == key || key == "" && c.Title == title {
				return LibraryEntry{Kind: KindConvention, Convention: c}, true
			}
		}
	}
	for _, cat := range playbookLibrary {
		for i := range cat.Playbooks {
			p := &cat.Playbooks[i]
			if key != "" && p.Key == key || key == "" && p.Title == title {
				return LibraryEntry{Kind: KindPlaybook, Playbook: p}, true
			}
		}
	}
	return LibraryEntry{}, false
}

// LibraryNotFound is the refusal for a name the library does not have.
func LibraryNotFound(key, title string) *Error {
	if key != "" {
		return NotFound("not found in convention or playbook library: %s", key).With("key", key)
	}
	return NotFound("not found in convention or playbook library: %s", title).With("title", title)
}

var conventionLibrary = []ConventionCategory{
	{
		Name:        "git",
		Description: "How changes are recorded in version control",
		Conventions: []LibraryConvention{
			{
				Key: "convention/commit-messages-say-why", Title: "Commit messages say what and why",
				Category: "git", Trigger: "on-commit", Surfaces: []string{"all"}, Enforcement: "should",
				Commands: []string{`git commit -m "<type>(<area>): <what changed>" -m "<why>; refs <ITEM-REF>"`},
				Content: `Write each commit message for the person who runs ` + "`git log`" + ` a year from now.

- First line: ` + "`<type>(<area>): <what changed>`" + `, imperative mood, at most 72 characters. Types: feat, fix, docs, test, refactor, perf, chore.
- Body (after a blank line): why the change was needed and anything surprising about how it was done. The diff already says what.
- Name the item the work belongs to (for example ` + "`refs TASK-42`" + `) so the commit and the item find each other.
- One logical change per commit. If the message needs "and", consider two commits.`,
			},
			{
				Key: "convention/small-reviewable-changes", Title: "Keep changes small and reviewable",
				Category: "git", Trigger: "on-pr-create", Surfaces: []string{"all"}, Enforcement: "should",
				Content: `A change someone can review in one sitting gets a real review; a large one gets a skim.

- Aim for pull requests under about 400 changed lines, excluding generated files and fixtures.
- Separate mechanical changes (renames, moves, formatting) from behaviour changes, in different commits or different PRs.
- When a task turns out bigger than planned, split it: land the groundwork first, then the feature, and record the split on the item.
- The PR description says what to look at first and how the change was tested.`,
			},
		},
	},
	{
		Name:        "quality",
		Description: "What must be true before work counts as finished",
		Conventions: []LibraryConvention{
			{
				Key: "convention/tests-before-done", Title: "Tests pass before work is marked done",
				Category: "quality", Trigger: "on-task-complete", Surfaces: []string{"all"}, Enforcement: "must",
				Content: `Do not move an item to done while its tests are failing or missing.

1. Run the project's full test suite, not only the tests you touched.
2. A bug fix comes with a test that failed before the fix and passes after it.
3. New behaviour comes with tests that would catch it breaking.
4. If a test is flaky or a suite cannot run here, say so in a comment on the item instead of marking it done quietly.`,
			},
			{
				Key: "convention/docs-follow-behaviour", Title: "Update the docs when behaviour changes",
				Category: "quality", Trigger: "on-task-complete", Surfaces: []string{"all"}, Enforcement: "should",
				Content: `If a user, an operator or another developer would notice the change, the documentation changes in the same piece of work.

- Check the README, reference pages, command help and examples that describe the behaviour you changed.
- Removed or renamed options, flags, fields and endpoints are called out, with what to use instead.
- A change with no documentation impact says so in the PR description, so the reviewer does not have to guess.`,
			},
		},
	},
	{
		Name:        "safety",
		Description: "Guardrails for agents and people working in this project",
		Conventions: []LibraryConvention{
			{
				Key: "convention/no-secrets-in-code", Title: "Never put secrets in code or items",
				Category: "safety", Trigger: "always", Surfaces: []string{"all"}, Enforcement: "must",
				Commands: []string{"git diff --cached"},
				Content: `API keys, passwords, tokens, private keys and connection strings never go into source files, commits, item bodies, comments or logs.

- Read configuration from the environment or the platform's secret store; commit only a template with placeholder values.
- Review staged changes before every commit (` + "`git diff --cached`" + `) for anything that looks like a credential.
- A secret that was committed or pasted anywhere is compromised: tell the owner so it can be rotated. Deleting it from the latest version is not enough.`,
			},
			{
				Key: "convention/ask-before-destructive", Title: "Ask before destructive operations",
				Category: "safety", Trigger: "always", Surfaces: []string{"all"}, Enforcement: "must",
				Content: `Stop and get explicit confirmation from a person before anything that cannot easily be undone.

This includes deleting files, branches, data or items in bulk; force-pushing or rewriting published history; dropping or truncating tables and running migrations against shared databases; changing permissions, credentials or billing; and anything touching production.

When asking, say exactly what will happen, what it affects, and how it could be reversed. Silence or a vague earlier instruction is not confirmation.`,
			},
		},
	},
	{
		Name:        "pm",
		Description: "Keeping the workspace an accurate picture of the work",
		Conventions: []LibraryConvention{
			{
				Key: "convention/record-decisions", Title: "Record decisions on the item they shape",
				Category: "pm", Trigger: "on-implement", Surfaces: []string{"all"}, Enforcement: "should",
				Content: `When you choose between real alternatives (a library, a data shape, an approach, a trade-off), record the decision on the item while the reasons are fresh.

- Use the item's decision log (MCP ` + "`pad_item`" + ` action ` + "`decide`" + `): the decision in one sentence, then the rationale, including what was rejected and why.
- Small, reversible choices do not need an entry; anything a later reader might question does.
- If a decision changes, record the new one and say what it replaces rather than editing history.`,
			},
			{
				Key: "convention/link-work-to-plans", Title: "Link work to the plan it serves",
				Category: "pm", Trigger: "on-task-start", Surfaces: []string{"all"}, Enforcement: "should",
				Content: `Every task belongs to something larger. Before starting one, make sure it is connected.

- Set the task's parent to the plan it advances, or link it with ` + "`implements`" + ` when it fulfils an item elsewhere.
- If no plan fits, say so on the task instead of leaving it floating; unparented work is invisible in plan progress.
- Work discovered along the way becomes its own item under the same plan, linked ` + "`split-from`" + ` the task that revealed it.`,
			},
			{
				Key: "convention/claim-before-working", Title: "Say what you are working on",
				Category: "pm", Trigger: "on-task-start", Surfaces: []string{"all"}, Enforcement: "should",
				Content: `Before starting an item, make it visible that it is taken, so two agents or people do not do the same work.

- Move the item to its in-progress state and, when several agents share the workspace, claim it (MCP ` + "`pad_item`" + ` action ` + "`claim`" + `).
- When you stop without finishing, leave a comment saying where you got to and release the claim.`,
			},
		},
	},
}

var playbookLibrary = []PlaybookCategory{
	{
		Name:        "planning",
		Description: "Turning intentions into plans and plans into work",
		Playbooks: []LibraryPlaybook{
			{
				Key: "playbook/plan", Title: "Plan an initiative", Category: "planning",
				Trigger: "on-plan", Scope: "all", InvocationSlug: "plan",
				Arguments: []ArgSpec{
					{Name: "topic", Type: ArgString, Required: true, Description: "what the initiative should achieve"},
					{Name: "horizon", Type: ArgEnum, Enum: []string{"week", "month", "quarter"}, Default: "month", Description: "how far ahead to plan"},
				},
				Content: `Shape a loose goal into a plan item the team can work from, by talking it through with the user before writing anything.

## Arguments
- ` + "`topic`" + ` (string, required): what the initiative should achieve.
- ` + "`horizon`" + ` (enum week|month|quarter, default month): how far ahead to plan.

## Steps
1. Search the workspace for existing plans, ideas and docs on the topic; mention what you found so nothing is planned twice.
2. Ask the user, one question at a time, until you can state: the outcome, who it is for, how you will know it worked, and what is out of scope.
3. Draft the plan body with sections ` + "`## Goal`" + `, ` + "`## Scope`" + `, ` + "`## Out of scope`" + `, ` + "`## Acceptance criteria`" + ` (a list) and ` + "`## Risks`" + `. Show it to the user.
4. Only after the user agrees, create the plan item with status ` + "`planned`" + ` and link any related ideas to it.
5. Offer to break it into tasks next (the ` + "`decompose`" + ` playbook).`,
			},
			{
				Key: "playbook/decompose", Title: "Break a plan into tasks", Category: "planning",
				Trigger: "on-plan", Scope: "all", InvocationSlug: "decompose",
				Arguments: []ArgSpec{
					{Name: "plan", Type: ArgRef, Required: true, Description: "the plan to break down"},
					{Name: "dry-run", Type: ArgFlag, Description: "propose the tasks without creating them"},
				},
				Content: `Turn a plan into a set of tasks, each small enough to finish in a day or two, that together meet the plan's acceptance criteria.

## Arguments
- ` + "`plan`" + ` (ref, required): the plan to break down.
- ` + "`dry-run`" + ` (flag): propose the tasks without creating them.

## Steps
1. Read the plan with its context (MCP ` + "`pad_item`" + ` action ` + "`context`" + `) and list its existing children so you do not duplicate them.
2. Propose tasks as a numbered list: a title, one line on what done means, and which acceptance criteria it covers. Every criterion must be covered by at least one task.
3. Mark dependencies between tasks explicitly (this one blocks that one).
4. Wait for the user to confirm or edit the list. With ` + "`dry-run`" + `, stop here.
5. Create each task with the plan as its parent, then add the ` + "`blocks`" + ` links.
6. Report the created refs in order.`,
			},
			{
				Key: "playbook/retro", Title: "Run a retrospective", Category: "planning",
				Trigger: "manual", Scope: "all", InvocationSlug: "retro",
				Arguments: []ArgSpec{
					{Name: "plan", Type: ArgRef, Description: "a plan to focus on; the whole workspace when omitted"},
					{Name: "days", Type: ArgNumber, Default: 14, Description: "how many days back to look"},
				},
				Content: `Look back over recent work, find what helped and what hurt, and turn the lessons into changes that stick.

## Arguments
- ` + "`plan`" + ` (ref, optional): a plan to focus on.
- ` + "`days`" + ` (number, default 14): how far back to look.

## Steps
1. Gather the facts: items finished and abandoned in the period, items that stayed in progress longest, reopened items, and the decisions recorded.
2. Present them plainly, without judgement, and ask the user what stood out.
3. Together, sort observations into: keep doing, stop doing, try next.
4. For each "try next", create one concrete item (an idea or a task) with an owner, or propose a new convention if it is a rule everyone should follow.
5. Write a short summary doc of the retrospective and link the items it produced.`,
			},
		},
	},
	{
		Name:        "delivery",
		Description: "Getting work finished and shipped",
		Playbooks: []LibraryPlaybook{
			{
				Key: "playbook/ship", Title: "Implement and ship a task", Category: "delivery",
				Trigger: "on-implement", Scope: "all", InvocationSlug: "ship",
				Arguments: []ArgSpec{
					{Name: "task", Type: ArgRef, Required: true, Description: "the task to implement"},
					{Name: "no-pr", Type: ArgFlag, Description: "commit locally without opening a pull request"},
				},
				Content: `Take one task from open to done: understand it, change the code, prove it works, and leave a record.

## Arguments
- ` + "`task`" + ` (ref, required): the task to implement.
- ` + "`no-pr`" + ` (flag): commit locally without opening a pull request.

## Steps
1. Load the task's context (MCP ` + "`pad_item`" + ` action ` + "`context`" + ` with intent ` + "`implement`" + `) and follow the conventions it returns. Stop if an open blocker is listed.
2. Move the task to in progress.
3. Make the change in small steps, running the relevant tests as you go.
4. Run the full test suite; fix what fails.
5. Commit with a message that names the task. Unless ` + "`no-pr`" + ` is set, open a pull request describing what changed and how it was tested.
6. Add an implementation note to the task (what was done, anything left over), record decisions you made, and move it to done.`,
			},
			{
				Key: "playbook/release", Title: "Cut a release", Category: "delivery",
				Trigger: "on-release", Scope: "all", InvocationSlug: "release",
				Arguments: []ArgSpec{
					{Name: "version", Type: ArgString, Required: true, Description: "the version to release, e.g. 1.4.0"},
					{Name: "skip-changelog", Type: ArgFlag, Description: "do not write release notes (for a re-run)"},
				},
				Content: `Release a version deliberately: know what is in it, check it, tag it, and tell people.

## Arguments
- ` + "`version`" + ` (string, required): the version to release.
- ` + "`skip-changelog`" + ` (flag): do not write release notes.

## Steps
1. List the items finished since the previous release and anything still in progress that was meant to be in this one; confirm the scope with the user.
2. Make sure the main branch builds and every test passes on it.
3. Unless ` + "`skip-changelog`" + `, write release notes grouped as added, changed, fixed and removed, in words a user understands, each line naming its item.
4. Bump the version where the project records it, commit, and tag ` + "`v<version>`" + `.
5. Ask the user before pushing the tag or publishing artifacts; publishing cannot be taken back.
6. Create a doc item for the release notes and link the released items to it.`,
			},
		},
	},
	{
		Name:        "quality",
		Description: "Handling problems as they arrive",
		Playbooks: []LibraryPlaybook{
			{
				Key: "playbook/triage", Title: "Triage a bug report", Category: "quality",
				Trigger: "on-triage", Scope: "all", InvocationSlug: "triage",
				Arguments: []ArgSpec{
					{Name: "report", Type: ArgString, Required: true, Description: "the report, or the ref of the item holding it"},
					{Name: "severity", Type: ArgEnum, Enum: []string{"low", "medium", "high", "critical"}, Description: "severity, when the reporter already knows it"},
				},
				Content: `Turn a bug report into a well-formed task with a severity, or close it with a reason.

## Arguments
- ` + "`report`" + ` (string, required): the report text, or the ref of the item that holds it.
- ` + "`severity`" + ` (enum low|medium|high|critical): when already known.

## Steps
1. Search for existing items describing the same problem. If one exists, add this report to it as a comment and stop.
2. Work out the facts: what was expected, what happened, exact steps to reproduce, version and environment. Ask the reporter for what is missing.
3. Try to reproduce it. Record whether you could, and how.
4. Judge severity by impact: data loss or security is critical, a broken main workflow is high, a workaround exists is medium, cosmetic is low.
5. Create (or update) the task with the facts, the severity as its priority, and a parent plan if one fits. Close reports that are not bugs with a comment explaining why.`,
			},
		},
	},
}

// ConventionMetadata is a convention's reserved metadata as a create names
// it: Pad's typed create member `convention`, or the reserved field of the
// same name that Pad's CLI writes when it activates a library convention.
type ConventionMetadata struct {
	Category    string
	Trigger     string
	Surfaces    []string
	Enforcement string
	Commands    []string
}

// ConventionFromField reads the reserved convention field a create
// carries: an object of category, trigger, surfaces, enforcement and
// commands. Anything else in it, a value of the wrong type or an object
// that says nothing is refused with 400 validation_error.
func ConventionFromField(v any) (ConventionMetadata, error) {
	var c ConventionMetadata
	m, ok := v.(map[string]any)
	if !ok {
		return c, Invalid("field %q must be an object of category, trigger, surfaces, enforcement and commands", FieldConvention).With("field", FieldConvention)
	}
	str := func(k string, dst *string) error {
		switch x := m[k].(type) {
		case nil:
		case string:
			*dst = x
		default:
			return Invalid("convention.%s must be a string", k).With("field", FieldConvention)
		}
		return nil
	}
	list := func(k string, dst *[]string) error {
		switch x := m[k].(type) {
		case nil:
		case []any:
			for _, e := range x {
				s, ok := e.(string)
				if !ok {
					return Invalid("convention.%s must be a list of strings", k).With("field", FieldConvention)
				}
				*dst = append(*dst, s)
			}
		default:
			return Invalid("convention.%s must be a list of strings", k).With("field", FieldConvention)
		}
		return nil
	}
	for k := range m {
		if _, known := conventionSources[k]; !known {
			return c, Invalid("convention.%s is not a convention member (category, trigger, surfaces, enforcement, commands)", k).With("field", FieldConvention)
		}
	}
	for _, err := range []error{str("category", &c.Category), str("trigger", &c.Trigger), list("surfaces", &c.Surfaces),
		str("enforcement", &c.Enforcement), list("commands", &c.Commands)} {
		if err != nil {
			return c, err
		}
	}
	return c, nil
}

// Copy is the reserved field's value; nil when the metadata says nothing.
func (c ConventionMetadata) Copy() map[string]any {
	m := conventionCopy(c.Category, c.Trigger, c.Enforcement, c.Surfaces, c.Commands)
	if len(m) == 0 {
		return nil
	}
	return m
}

// ApplyTo writes the metadata into a create's fields as Pad's server does
// for the typed member: the reserved copy, and the ordinary keys it is
// kept in step with (priority and enforcement alike; scope the first
// surface). An empty member is refused.
func (c ConventionMetadata) ApplyTo(fields map[string]any) error {
	cp := c.Copy()
	if cp == nil {
		return Invalid("convention names no category, trigger, surfaces, enforcement or commands").With("field", FieldConvention)
	}
	fields[FieldConvention] = cp
	for _, k := range []string{"category", "trigger", "enforcement", "surfaces", "commands"} {
		if v, ok := cp[k]; ok {
			fields[k] = v
		}
	}
	if e, ok := cp["enforcement"]; ok {
		fields["priority"] = e
	}
	if s, ok := cp["surfaces"].([]any); ok {
		fields["scope"] = s[0]
	}
	return nil
}

// ConventionOf is an item's convention metadata as Pad answers it beside
// the fields (an item's `convention`): the reserved copy when the item
// has one, each member it lacks read from the ordinary keys (surfaces
// from surfaces, else [scope]), and enforcement from priority when
// nothing else names it. Category alone does not make a convention (ideas
// and bugs have one too): nil unless trigger, surfaces, scope,
// enforcement, commands or the reserved copy say the item is one.
func ConventionOf(fields map[string]any) *ConventionMetadata {
	var c ConventionMetadata
	marked := false
	if cp, ok := fields[FieldConvention].(map[string]any); ok {
		if got, err := ConventionFromField(cp); err == nil {
			c, marked = got, true
		}
	}
	str := func(k string) string { s, _ := fields[k].(string); return s }
	strs := func(k string) []string {
		l, _ := fields[k].([]any)
		var out []string
		for _, e := range l {
			if s, ok := e.(string); ok && s != "" {
				out = append(out, s)
			}
		}
		return out
	}
	if c.Category == "" {
		c.Category = str("category")
	}
	if c.Trigger == "" {
		if c.Trigger = str("trigger"); c.Trigger != "" {
			marked = true
		}
	}
	if c.Enforcement == "" {
		if c.Enforcement = str("enforcement"); c.Enforcement != "" {
			marked = true
		}
	}
	if len(c.Surfaces) == 0 {
		if c.Surfaces = strs("surfaces"); len(c.Surfaces) == 0 {
			if s := str("scope"); s != "" {
				c.Surfaces = []string{s}
			}
		}
		marked = marked || len(c.Surfaces) > 0
	}
	if len(c.Commands) == 0 {
		c.Commands = strs("commands")
		marked = marked || len(c.Commands) > 0
	}
	if !marked {
		return nil
	}
	if c.Enforcement == "" {
		c.Enforcement = str("priority")
	}
	return &c
}
