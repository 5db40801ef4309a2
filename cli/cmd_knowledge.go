package cli

import (
	"context"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/padd/padd/api"
	"github.com/padd/padd/model"
)

// What agents read before and while they work: playbooks, the built-in
// library, agent roles and the bootstrap, in Pad's vocabulary.

// PlaybookCmd groups the playbook commands.
type PlaybookCmd struct {
	List PlaybookListCmd `cmd:"" aliases:"ls" help:"List the workspace's playbooks (without their bodies)."`
	Show PlaybookShowCmd `cmd:"" help:"Show a playbook in full."`
	Run  PlaybookRunCmd  `cmd:"" help:"Bind arguments to a playbook and print the steps to follow (nothing is executed or stored)."`
}

// PlaybookListCmd is `playbook list`.
type PlaybookListCmd struct{}

// Run lists the playbooks.
func (c *PlaybookListCmd) Run(ctx context.Context, a *App) error {
	cl, ws, err := a.inWorkspace(ctx)
	if err != nil {
		return err
	}
	list, err := cl.ListPlaybooks(ctx, ws)
	if err != nil {
		return err
	}
	if list == nil {
		list = []model.PlaybookMeta{}
	}
	return a.emitDoc(playbooksView{list: list})
}

// PlaybookShowCmd is `playbook show <ref>`.
type PlaybookShowCmd struct {
	Ref string `arg:"" help:"The playbook: its invocation slug (ship), slug or ref."`
}

// Run shows the playbook as item show shows an item.
func (c *PlaybookShowCmd) Run(ctx context.Context, a *App) error {
	cl, ws, err := a.inWorkspace(ctx)
	if err != nil {
		return err
	}
	pb, err := cl.GetPlaybook(ctx, ws, c.Ref)
	if err != nil {
		return err
	}
	d := itemDetail{it: &pb.Item, now: a.now()}
	return a.emit(playbookOut{itemOut: outItem(&pb.Item), Status: pb.Status},
		func(w io.Writer) error { return d.writeTable(w, a.style) }, d.writeMarkdown)
}

// PlaybookRunCmd is `playbook run <ref> [args...]`.
type PlaybookRunCmd struct {
	Ref        string   `arg:"" help:"The playbook: its invocation slug (ship), slug or ref."`
	Args       []string `arg:"" optional:"" name:"args" help:"Arguments as the playbook reads them: positionals, bare flag names, key=value (after -- if one starts with -)."`
	Arg        []string `sep:"none" placeholder:"KEY=VALUE" help:"Set a named argument (repeatable; wins over the positional ones)."`
	AllowDraft bool     `help:"Run the playbook even if it is not active (a draft)."`
}

// Run binds the arguments and prints the playbook to follow. Required
// arguments left unbound are warned about on stderr: ask for them.
func (c *PlaybookRunCmd) Run(ctx context.Context, a *App) error {
	entries, err := parseEntries("--arg", c.Arg)
	if err != nil {
		return err
	}
	in := api.PlaybookRunRequest{RawArgs: c.Args, AllowDraft: c.AllowDraft}
	if len(entries) > 0 {
		in.Args = map[string]any{}
		for _, e := range entries {
			in.Args[e[0]] = e[1]
		}
	}
	cl, ws, err := a.inWorkspace(ctx)
	if err != nil {
		return err
	}
	r, err := cl.RunPlaybook(ctx, ws, c.Ref, in)
	if err != nil {
		return err
	}
	for _, u := range r.Unbound {
		a.warnf("required argument %s has no value: ask for it, then pass --arg %s=...", u.Name, u.Name)
	}
	if len(r.IgnoredArgs) > 0 {
		a.warnf("the playbook declares no argument %s; ignored", strings.Join(r.IgnoredArgs, ", "))
	}
	return a.emitDoc(playbookRunView{r: r})
}

// LibraryCmd groups the built-in library commands.
type LibraryCmd struct {
	List     LibraryListCmd     `cmd:"" aliases:"ls" help:"List the built-in conventions and playbooks a workspace can activate."`
	Show     LibraryShowCmd     `cmd:"" help:"Show a library entry in full."`
	Activate LibraryActivateCmd `cmd:"" help:"Copy a library entry into the workspace (conventions or playbooks)."`
}

// LibraryListCmd is `library list`.
type LibraryListCmd struct {
	Type     string `enum:",conventions,playbooks" default:"" help:"Only conventions or only playbooks."`
	Category string `help:"Only this category (git, planning, ...)."`
}

// libraryList is the library as printed: the kinds asked for, each a
// list of categories ([] when the filters matched none).
type libraryList struct {
	Conventions *[]api.ConventionCategory `json:"conventions,omitempty"`
	Playbooks   *[]api.PlaybookCategory   `json:"playbooks,omitempty"`
}

// Run lists the library; playbooks come with summaries, not bodies.
func (c *LibraryListCmd) Run(ctx context.Context, a *App) error {
	cl, err := a.Client(ctx)
	if err != nil {
		return err
	}
	var out libraryList
	if c.Type != "playbooks" {
		cs, err := cl.ConventionLibrary(ctx, c.Category)
		if err != nil {
			return err
		}
		if cs == nil {
			cs = []api.ConventionCategory{}
		}
		out.Conventions = &cs
	}
	if c.Type != "conventions" {
		ps, err := cl.PlaybookLibrary(ctx, c.Category, true)
		if err != nil {
			return err
		}
		if ps == nil {
			ps = []api.PlaybookCategory{}
		}
		out.Playbooks = &ps
	}
	return a.emitDoc(libraryView{l: out})
}

// libraryRef names an entry: a key (convention/<slug>) when it looks
// like one, else a title.
func libraryRef(name string) api.LibraryRef {
	name = strings.TrimSpace(name)
	if strings.Contains(name, "/") && !strings.ContainsAny(name, " \t") {
		return api.LibraryRef{Key: name}
	}
	return api.LibraryRef{Title: name}
}

// byKeyOrTitle calls fn with the entry named as a key and, when no key
// matches, as a title: a title may look like a key.
func byKeyOrTitle[T any](name string, fn func(api.LibraryRef) (T, error)) (T, error) {
	ref := libraryRef(name)
	v, err := fn(ref)
	if ref.Key != "" && api.IsNotFound(err) {
		return fn(api.LibraryRef{Title: strings.TrimSpace(name)})
	}
	return v, err
}

// LibraryShowCmd is `library show <title-or-key>`.
type LibraryShowCmd struct {
	Name string `arg:"" name:"title-or-key" help:"The entry's key (convention/commit-messages-say-why) or its exact title."`
}

// Run shows the entry.
func (c *LibraryShowCmd) Run(ctx context.Context, a *App) error {
	cl, err := a.Client(ctx)
	if err != nil {
		return err
	}
	e, err := byKeyOrTitle(c.Name, func(r api.LibraryRef) (*api.LibraryEntry, error) { return cl.GetLibraryEntry(ctx, r) })
	if err != nil {
		return err
	}
	return a.emitDoc(libraryEntryView{e: e})
}

// LibraryActivateCmd is `library activate <title-or-key>`.
type LibraryActivateCmd struct {
	Name string `arg:"" name:"title-or-key" help:"The entry's key (convention/commit-messages-say-why) or its exact title."`
}

// Run copies the entry into the workspace.
func (c *LibraryActivateCmd) Run(ctx context.Context, a *App) error {
	cl, ws, err := a.inWorkspace(ctx)
	if err != nil {
		return err
	}
	act, err := byKeyOrTitle(c.Name, func(r api.LibraryRef) (*api.Activation, error) { return cl.ActivateLibrary(ctx, ws, r) })
	if err != nil {
		return err
	}
	if w := act.Warnings; w != nil {
		a.emitWarnings(&w.Warnings)
		for _, field := range slices.Sorted(maps.Keys(w.OptionsAdded)) {
			a.warnf("%s gained %s options to hold it: %s", act.Library.Collection, field, strings.Join(w.OptionsAdded[field], ", "))
		}
	}
	return a.emit(activationOut{itemOut: outItem(&act.Item), Warnings: act.Warnings, Library: act.Library},
		func(w io.Writer) error {
			return itemDone(w, a.style, "Activated "+clean(act.Library.Key)+" as", &act.Item)
		}, nil)
}

// RoleCmd groups the agent role commands.
type RoleCmd struct {
	List   RoleListCmd   `cmd:"" aliases:"ls" help:"List the workspace's agent roles."`
	Create RoleCreateCmd `cmd:"" help:"Create an agent role (Planner, Implementer, Reviewer, ...)."`
	Update RoleUpdateCmd `cmd:"" help:"Rename or describe an agent role."`
	Delete RoleDeleteCmd `cmd:"" aliases:"rm" help:"Delete an agent role; items that had it lose it."`
}

// RoleListCmd is `role list`.
type RoleListCmd struct{}

// Run lists the roles.
func (c *RoleListCmd) Run(ctx context.Context, a *App) error {
	cl, ws, err := a.inWorkspace(ctx)
	if err != nil {
		return err
	}
	list, err := cl.ListRoles(ctx, ws)
	if err != nil {
		return err
	}
	if list == nil {
		list = []api.AgentRole{}
	}
	return a.emitDoc(rolesView{list: list})
}

// RoleCreateCmd is `role create <name>`.
type RoleCreateCmd struct {
	Name        string `arg:"" help:"The role's name."`
	Slug        string `help:"Its slug (default: from the name)."`
	Description string `help:"What the role does."`
	Icon        string `help:"An icon (an emoji)."`
	Tools       string `help:"The tools the role uses (free text)."`
	SortOrder   int    `help:"Position among the roles."`
}

// Run creates the role.
func (c *RoleCreateCmd) Run(ctx context.Context, a *App) error {
	cl, ws, err := a.inWorkspace(ctx)
	if err != nil {
		return err
	}
	r, err := cl.CreateRole(ctx, ws, api.AgentRoleCreate{Name: c.Name, Slug: c.Slug, Description: c.Description,
		Icon: c.Icon, Tools: c.Tools, SortOrder: c.SortOrder})
	if err != nil {
		return err
	}
	return a.emitLine(roleLine("Created", r))
}

// RoleUpdateCmd is `role update <role>`.
type RoleUpdateCmd struct {
	Role        string  `arg:"" help:"The role's slug (or id)."`
	Name        *string `help:"New name."`
	Slug        *string `help:"New slug."`
	Description *string `help:"New description."`
	Icon        *string `help:"New icon."`
	Tools       *string `help:"New tools."`
	SortOrder   *int    `help:"New position."`
}

// Run updates the role.
func (c *RoleUpdateCmd) Run(ctx context.Context, a *App) error {
	in := api.AgentRoleUpdate{Name: c.Name, Slug: c.Slug, Description: c.Description, Icon: c.Icon, Tools: c.Tools, SortOrder: c.SortOrder}
	if in == (api.AgentRoleUpdate{}) {
		return usagef(codeNothingToUpdate, "`padctl role update --help` lists what can change", "nothing to update")
	}
	cl, ws, err := a.inWorkspace(ctx)
	if err != nil {
		return err
	}
	r, err := cl.UpdateRole(ctx, ws, c.Role, in)
	if err != nil {
		return err
	}
	return a.emitLine(roleLine("Updated", r))
}

// RoleDeleteCmd is `role delete <role>`.
type RoleDeleteCmd struct {
	Role string `arg:"" help:"The role's slug (or id)."`
}

// Run deletes the role.
func (c *RoleDeleteCmd) Run(ctx context.Context, a *App) error {
	cl, ws, err := a.inWorkspace(ctx)
	if err != nil {
		return err
	}
	if err := cl.DeleteRole(ctx, ws, c.Role); err != nil {
		return err
	}
	return a.emitLine(roleDeletedLine(c.Role))
}

// BootstrapCmd is `bootstrap`.
type BootstrapCmd struct {
	workerFlag
}

// Run shows what an agent reads before it works here.
func (c *BootstrapCmd) Run(ctx context.Context, a *App) error {
	cl, ws, err := a.inWorkspace(ctx)
	if err != nil {
		return err
	}
	if _, err := a.useWorker(cl, c.workerFlag, false); err != nil {
		return err
	}
	b, err := cl.Bootstrap(ctx, ws)
	if err != nil {
		return err
	}
	return a.emitDoc(bootstrapView{b: b, now: a.now()})
}
