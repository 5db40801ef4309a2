package model

import "strings"

// CollectionTemplate is a collection a new workspace is seeded with.
type CollectionTemplate struct {
	Name        string
	Slug        string
	Prefix      string // empty: derived from Name
	Icon        string
	Description string
	Schema      Schema
	Settings    Settings
	IsSystem    bool
}

// SeedItem is an item a template creates in a new workspace.
type SeedItem struct {
	Collection string
	Title      string
	Content    string
	Fields     map[string]any
}

// Template is a named set of collections (and optional items) a
// workspace starts from.
type Template struct {
	Name        string
	Description string
	Collections []CollectionTemplate
	Seed        []SeedItem
}

// DefaultTemplate is the template used when a create names none.
const DefaultTemplate = "startup"

func boolp(b bool) *bool { return &b }

func statusField(options, terminal []string, def string) FieldDef {
	return FieldDef{Key: "status", Label: "Status", Type: TypeSelect, Options: options,
		TerminalOptions: terminal, Default: def, Required: true}
}

func tasksTemplate() CollectionTemplate {
	return CollectionTemplate{
		Name: "Tasks", Slug: "tasks", Prefix: "TASK", Icon: "✓",
		Description: "Work to do: features, bugs, chores",
		Schema: Schema{Fields: []FieldDef{
			statusField([]string{"open", "in-progress", "done", "cancelled"}, []string{"done", "cancelled"}, "open"),
			{Key: "priority", Label: "Priority", Type: TypeSelect, Options: []string{"low", "medium", "high", "critical"}, Default: "medium"},
			{Key: "due_date", Label: "Due Date", Type: TypeDate},
			{Key: "effort", Label: "Effort", Type: TypeSelect, Options: []string{"xs", "s", "m", "l", "xl"}},
		}},
		Settings: Settings{Layout: "fields-primary", DefaultView: "board", BoardGroupBy: "status", ListSortBy: "priority", TracksWork: boolp(true)},
	}
}

func ideasTemplate() CollectionTemplate {
	return CollectionTemplate{
		Name: "Ideas", Slug: "ideas", Prefix: "IDEA", Icon: "💡",
		Description: "Ideas and requests worth thinking about",
		Schema: Schema{Fields: []FieldDef{
			statusField([]string{"new", "exploring", "planned", "implemented", "rejected"}, []string{"implemented", "rejected"}, "new"),
			{Key: "impact", Label: "Impact", Type: TypeSelect, Options: []string{"low", "medium", "high"}},
			{Key: "category", Label: "Category", Type: TypeText},
		}},
		Settings: Settings{Layout: "balanced", DefaultView: "board", ListSortBy: "created_at", ListGroupBy: "status", TracksWork: boolp(true)},
	}
}

func plansTemplate() CollectionTemplate {
	return CollectionTemplate{
		Name: "Plans", Slug: "plans", Prefix: "PLAN", Icon: "🗺️",
		Description: "Initiatives and milestones that group tasks",
		Schema: Schema{Fields: []FieldDef{
			statusField([]string{"planned", "active", "completed", "paused"}, []string{"completed"}, "planned"),
			{Key: "start_date", Label: "Start Date", Type: TypeDate},
			{Key: "end_date", Label: "End Date", Type: TypeDate},
			{Key: "progress", Label: "Progress", Type: TypeNumber, Suffix: "%", Computed: true},
		}},
		Settings: Settings{Layout: "content-primary", DefaultView: "board", ListSortBy: "sort_order", TracksWork: boolp(true)},
	}
}

func docsTemplate() CollectionTemplate {
	return CollectionTemplate{
		Name: "Docs", Slug: "docs", Prefix: "DOC", Icon: "📄",
		Description: "Reference material: notes, designs, how-tos",
		Schema: Schema{Fields: []FieldDef{
			statusField([]string{"draft", "published", "archived"}, []string{"archived"}, "draft"),
			{Key: "category", Label: "Category", Type: TypeText},
		}},
		Settings: Settings{Layout: "content-primary", DefaultView: "board", ListSortBy: "updated_at", ListGroupBy: "category", TracksWork: boolp(false)},
	}
}

// Trigger and scope vocabularies of the software templates.
var (
	ConventionTriggers = []string{"always", "on-task-start", "on-task-complete", "on-implement", "on-commit", "on-pr-create", "on-plan-start", "on-plan-complete", "on-plan"}
	ConventionScopes   = []string{"all", "backend", "frontend", "mobile", "docs", "devops"}
	PlaybookTriggers   = []string{"on-implement", "on-triage", "on-release", "on-plan", "on-review", "on-deploy", "manual"}
	PlaybookScopes     = []string{"all", "backend", "frontend", "mobile", "devops"}
)

// InvocationSlugPattern keeps playbook invocation slugs kebab-case.
const InvocationSlugPattern = `^[a-z][a-z0-9]*(-[a-z0-9]+)*$`

func conventionsTemplate(triggers, scopes []string) CollectionTemplate {
	return CollectionTemplate{
		Name: "Conventions", Slug: "conventions", Prefix: "CONVE", Icon: "📏",
		Description: "Rules agents and people follow in this workspace",
		IsSystem:    true,
		Schema: Schema{Fields: []FieldDef{
			statusField([]string{"active", "draft", "disabled"}, []string{"disabled"}, "active"),
			{Key: "trigger", Label: "When", Type: TypeSelect, Options: append([]string(nil), triggers...)},
			{Key: "scope", Label: "Scope", Type: TypeSelect, Options: append([]string(nil), scopes...)},
			{Key: "priority", Label: "Priority", Type: TypeSelect, Options: []string{"must", "should", "nice-to-have"}},
			{Key: "role", Label: "Role", Type: TypeText},
		}},
		Settings: Settings{Layout: "balanced", DefaultView: "board", ListSortBy: "trigger", ListGroupBy: "trigger", TracksWork: boolp(false)},
	}
}

func playbooksTemplate(triggers, scopes []string) CollectionTemplate {
	return CollectionTemplate{
		Name: "Playbooks", Slug: "playbooks", Prefix: "PLAYB", Icon: "📘",
		Description: "Step-by-step workflows agents run on request",
		IsSystem:    true,
		Schema: Schema{Fields: []FieldDef{
			statusField([]string{"active", "draft", "deprecated"}, []string{"deprecated"}, "draft"),
			{Key: "trigger", Label: "When", Type: TypeSelect, Options: append([]string(nil), triggers...)},
			{Key: "scope", Label: "Scope", Type: TypeSelect, Options: append([]string(nil), scopes...)},
			{Key: "invocation_slug", Label: "Invocation slug", Type: TypeText, Pattern: InvocationSlugPattern, UniqueScope: UniqueScopeCollection},
			{Key: "arguments", Label: "Arguments", Type: TypeJSON},
		}},
		Settings: Settings{Layout: "content-primary", DefaultView: "board", ListSortBy: "updated_at", ListGroupBy: "trigger", TracksWork: boolp(false)},
	}
}

// Templates lists the workspace templates padd ships.
func Templates() []Template {
	return []Template{
		{
			Name:        "startup",
			Description: "Software project: tasks, ideas, plans, docs, conventions and playbooks",
			Collections: []CollectionTemplate{
				tasksTemplate(), ideasTemplate(), plansTemplate(), docsTemplate(),
				conventionsTemplate(ConventionTriggers, ConventionScopes),
				playbooksTemplate(PlaybookTriggers, PlaybookScopes),
			},
		},
		{
			Name:        "blank",
			Description: "Start empty: only conventions and playbooks, to build your own collections",
			Collections: []CollectionTemplate{
				conventionsTemplate([]string{"always"}, []string{"all"}),
				playbooksTemplate([]string{"manual"}, []string{"all"}),
			},
		},
	}
}

// TemplateByName finds a template; "" and "default" mean the default.
func TemplateByName(name string) (Template, bool) {
	n := strings.ToLower(strings.TrimSpace(name))
	if n == "" || n == "default" {
		n = DefaultTemplate
	}
	for _, t := range Templates() {
		if t.Name == n {
			return t, true
		}
	}
	return Template{}, false
}

// TemplateNames lists the template names, for error messages.
func TemplateNames() []string {
	var out []string
	for _, t := range Templates() {
		out = append(out, t.Name)
	}
	return out
}
