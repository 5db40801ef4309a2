package cli

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/padd/padd/api"
	"github.com/padd/padd/model"
)

// InitCmd is `padctl init`: link the working directory to a workspace,
// creating the workspace when there is none by that name; with
// --workspace (-w), to that workspace, which must exist.
type InitCmd struct {
	Name     string `help:"Workspace name (default: this directory's name)."`
	Template string `predictor:"template" help:"Template for a new workspace: ${templates} (default: ${default_template})."`
	Force    bool   `help:"Relink a directory whose .pad.toml names another workspace."`
	New      bool   `help:"In a directory below one already linked, link this one to a workspace of its own (by default init uses the one found above)."`
}

// Run finds or creates the workspace and writes .pad.toml.
func (c *InitCmd) Run(ctx context.Context, a *App) error {
	dir := a.env.Dir
	existing, err := readPadToml(filepath.Join(dir, PadTomlName))
	if err != nil {
		return err
	}
	name := strings.TrimSpace(c.Name)
	if ws := strings.TrimSpace(a.workspaceFlag); ws != "" {
		return c.linkTo(ctx, a, ws, existing)
	}
	if existing == nil && !c.New {
		// Like every other command, init finds a .pad.toml above, the
		// way git finds its repository.
		above, err := findPadToml(dir)
		if err != nil {
			return err
		}
		if above != nil && above.Workspace != "" {
			return c.useAbove(ctx, a, above, name)
		}
	}
	switch {
	case existing != nil && existing.Workspace != "" && name == "":
		// A checked-out .pad.toml on a new machine: make sure its
		// workspace exists here.
		name = existing.Workspace
	case name == "":
		name = filepath.Base(dir)
	}
	slug := model.WorkspaceSlug("", name)
	if existing != nil && existing.Workspace != "" && existing.Workspace != slug && !c.Force {
		return failf(codeAlreadyLinked, "pass --force to relink it, or run padctl from another directory",
			"%s already links this directory to workspace %q", existing.Path, existing.Workspace)
	}
	cl, err := a.Client(ctx)
	if err != nil {
		return err
	}
	ws, created, err := findOrCreateWorkspace(ctx, cl, name, slug, c.Template)
	if err != nil {
		return err
	}
	if !created && c.Template != "" {
		a.warnf("workspace %s already exists; --template applies only to a new workspace", ws.Slug)
	}
	path, err := writePadToml(dir, ws.Slug)
	if err != nil {
		return err
	}
	return a.emit(initResult{outWorkspace(ws), created, path, false}, func(w io.Writer) error {
		if created {
			fmt.Fprintf(w, "Created workspace %s (%s)\n", a.style.paint(ansiBold, clean(ws.Slug)), clean(ws.Name))
		} else {
			fmt.Fprintf(w, "Using workspace %s (%s)\n", a.style.paint(ansiBold, clean(ws.Slug)), clean(ws.Name))
		}
		_, err := fmt.Fprintf(w, "Linked %s to it; padctl run here or below uses it\n", path)
		return err
	}, nil)
}

// linkTo is `init -w SLUG`: it links this directory to that workspace,
// which must exist (a workspace of its own is --name's). The directory's
// own .pad.toml naming another workspace still needs --force; one above
// does not, since -w says which workspace this directory is for.
func (c *InitCmd) linkTo(ctx context.Context, a *App, slug string, existing *padToml) error {
	if name := strings.TrimSpace(c.Name); name != "" && model.WorkspaceSlug("", name) != slug {
		return usagef(codeConflictingArgs, "give the workspace once: -w SLUG links to one that exists, --name NAME finds or creates one",
			"--workspace %s and --name %q name different workspaces", slug, name)
	}
	cl, err := a.Client(ctx)
	if err != nil {
		return err
	}
	ws, err := cl.GetWorkspace(ctx, slug)
	if api.IsNotFound(err) {
		return failf(api.CodeNotFound, fmt.Sprintf("`padctl workspace list` shows the workspaces; `padctl init --name %s` creates one", slug),
			"there is no workspace %q to link this directory to", slug)
	}
	if err != nil {
		return err
	}
	if existing != nil && existing.Workspace != "" && existing.Workspace != ws.Slug && !c.Force {
		return failf(codeAlreadyLinked, "pass --force to relink it, or run padctl from another directory",
			"%s already links this directory to workspace %q", existing.Path, existing.Workspace)
	}
	if c.Template != "" {
		a.warnf("workspace %s already exists; --template applies only to a new workspace", ws.Slug)
	}
	path, err := writePadToml(a.env.Dir, ws.Slug)
	if err != nil {
		return err
	}
	return a.emit(initResult{outWorkspace(ws), false, path, false}, func(w io.Writer) error {
		fmt.Fprintf(w, "Using workspace %s (%s)\n", a.style.paint(ansiBold, clean(ws.Slug)), clean(ws.Name))
		_, err := fmt.Fprintf(w, "Linked %s to it; padctl run here or below uses it\n", path)
		return err
	}, nil)
}

// initResult is init's answer under --format json.
type initResult struct {
	Workspace workspaceOut `json:"workspace"`
	Created   bool         `json:"created"`
	PadToml   string       `json:"pad_toml"`
	// Above says the .pad.toml is a parent directory's: none was written.
	Above bool `json:"above"`
}

// useAbove is init in a directory below a linked one: it says which
// workspace it found (making sure this padd has it, as for a checked-out
// .pad.toml) and writes nothing. A --name that is another workspace is
// refused: a second workspace here is asked for with --new.
func (c *InitCmd) useAbove(ctx context.Context, a *App, above *padToml, name string) error {
	linked := filepath.Dir(above.Path)
	if name != "" && model.WorkspaceSlug("", name) != above.Workspace {
		return failf(codeAlreadyLinked, "pass --new to link this directory to a workspace of its own",
			"this directory is inside %s, which %s links to workspace %q", linked, above.Path, above.Workspace)
	}
	cl, err := a.Client(ctx)
	if err != nil {
		return err
	}
	ws, created, err := findOrCreateWorkspace(ctx, cl, above.Workspace, above.Workspace, c.Template)
	if err != nil {
		return err
	}
	return a.emit(initResult{outWorkspace(ws), created, above.Path, true}, func(w io.Writer) error {
		verb := "Found"
		if created {
			verb = "Created"
		}
		fmt.Fprintf(w, "%s workspace %s (%s), linked by %s; padctl here uses it\n", verb, a.style.paint(ansiBold, clean(ws.Slug)), clean(ws.Name), above.Path)
		_, err := fmt.Fprintln(w, "`padctl init --new` links this directory to a workspace of its own instead")
		return err
	}, nil)
}

// findOrCreateWorkspace returns the workspace with this slug (or,
// failing that, this name), creating it when there is none.
func findOrCreateWorkspace(ctx context.Context, cl *api.Client, name, slug, template string) (*api.Workspace, bool, error) {
	wss, err := cl.ListWorkspaces(ctx)
	if err != nil {
		return nil, false, err
	}
	for i := range wss {
		if wss[i].Slug == slug {
			return &wss[i], false, nil
		}
	}
	for i := range wss {
		if strings.EqualFold(wss[i].Name, name) {
			return &wss[i], false, nil
		}
	}
	ws, err := cl.CreateWorkspace(ctx, api.WorkspaceCreate{Name: name, Slug: slug, Template: template})
	return ws, err == nil, err
}
