package cli

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/padd/padd/api"
)

// WorkspaceCmd groups the workspace commands.
type WorkspaceCmd struct {
	List    WorkspaceListCmd    `cmd:"" aliases:"ls" help:"List workspaces; * marks the one this directory uses."`
	Create  WorkspaceCreateCmd  `cmd:"" help:"Create a workspace."`
	Show    WorkspaceShowCmd    `cmd:"" help:"Show a workspace (default: the current one)."`
	Update  WorkspaceUpdateCmd  `cmd:"" help:"Rename or describe a workspace (default: the current one)."`
	Context WorkspaceContextCmd `cmd:"" help:"Show or set the workspace's context for agents (repositories, paths, commands, stack...)."`
	Delete  WorkspaceDeleteCmd  `cmd:"" aliases:"rm" help:"Delete a workspace (restorable for 30 days)."`
	Restore WorkspaceRestoreCmd `cmd:"" help:"Restore a deleted workspace."`
	Deleted WorkspaceDeletedCmd `cmd:"" help:"List deleted workspaces still in their restore window."`
	Export  WorkspaceExportCmd  `cmd:"" help:"Export a workspace in Pad's format (tar.gz bundle, or --json)."`
	Import  WorkspaceImportCmd  `cmd:"" help:"Import a Pad export (bundle or JSON) as a new workspace."`
}

// WorkspaceListCmd is `workspace list`.
type WorkspaceListCmd struct{}

// Run lists workspaces and marks the current one; failing to resolve the
// current one is not an error here (this is how you find one).
func (c *WorkspaceListCmd) Run(ctx context.Context, a *App) error {
	cl, err := a.Client(ctx)
	if err != nil {
		return err
	}
	wss, err := cl.ListWorkspaces(ctx)
	if err != nil {
		return err
	}
	current, _, _ := a.configuredWorkspace()
	if current == "" && len(wss) == 1 {
		current = wss[0].Slug
	}
	return a.emitWorkspaces(workspacesView{list: wss, current: current, now: a.now()})
}

func (a *App) emitWorkspaces(v workspacesView) error {
	return a.emit(outWorkspaces(v.list), func(w io.Writer) error { return v.writeTable(w, a.style) }, v.writeMarkdown)
}

// WorkspaceDeletedCmd is `workspace deleted`.
type WorkspaceDeletedCmd struct{}

// Run lists the deleted workspaces that can still be restored.
func (c *WorkspaceDeletedCmd) Run(ctx context.Context, a *App) error {
	cl, err := a.Client(ctx)
	if err != nil {
		return err
	}
	wss, err := cl.ListDeletedWorkspaces(ctx)
	if err != nil {
		return err
	}
	return a.emitWorkspaces(workspacesView{list: wss, now: a.now(), deleted: true})
}

// WorkspaceCreateCmd is `workspace create <name>`.
type WorkspaceCreateCmd struct {
	Name        string `arg:"" help:"Display name."`
	Slug        string `help:"Slug (default: derived from the name; padd makes it unique)."`
	Template    string `predictor:"template" help:"Template that seeds the collections: ${templates} (default: ${default_template})."`
	Description string `help:"Description."`
}

// Run creates the workspace.
func (c *WorkspaceCreateCmd) Run(ctx context.Context, a *App) error {
	cl, err := a.Client(ctx)
	if err != nil {
		return err
	}
	ws, err := cl.CreateWorkspace(ctx, api.WorkspaceCreate{Name: c.Name, Slug: c.Slug, Template: c.Template, Description: c.Description})
	if err != nil {
		return err
	}
	return a.emitWorkspaceDone(ws, "Created workspace")
}

func (a *App) emitWorkspaceDone(ws *api.Workspace, verb string) error {
	return a.emit(outWorkspace(ws), func(w io.Writer) error {
		_, err := fmt.Fprintf(w, "%s %s (%s)\n", verb, a.style.paint(ansiBold, clean(ws.Slug)), clean(ws.Name))
		return err
	}, nil)
}

// WorkspaceShowCmd is `workspace show [slug]`.
type WorkspaceShowCmd struct {
	Slug string `arg:"" optional:"" predictor:"workspace" help:"Workspace slug (default: the current workspace)."`
}

// Run shows one workspace.
func (c *WorkspaceShowCmd) Run(ctx context.Context, a *App) error {
	cl, slug, err := a.workspaceArg(ctx, c.Slug)
	if err != nil {
		return err
	}
	ws, err := cl.GetWorkspace(ctx, slug)
	if err != nil {
		return err
	}
	d := workspaceDetail{ws: ws, now: a.now()}
	return a.emit(outWorkspace(ws), func(w io.Writer) error { return d.writeTable(w, a.style) }, d.writeMarkdown)
}

// workspaceArg is the workspace a workspace command names, defaulting to
// the current one.
func (a *App) workspaceArg(ctx context.Context, slug string) (*api.Client, string, error) {
	cl, err := a.Client(ctx)
	if err != nil {
		return nil, "", err
	}
	if slug = strings.TrimSpace(slug); slug == "" {
		if slug, err = a.Workspace(ctx); err != nil {
			return nil, "", err
		}
	}
	return cl, slug, nil
}

// WorkspaceUpdateCmd is `workspace update [slug]`.
type WorkspaceUpdateCmd struct {
	Slug        string  `arg:"" optional:"" predictor:"workspace" help:"Workspace slug (default: the current workspace)."`
	Name        *string `help:"New display name (the slug stays)."`
	Description *string `help:"New description (\"\" clears it)."`
	SortOrder   *int    `help:"Position in the workspace list (lower first)."`
}

// Run updates the workspace.
func (c *WorkspaceUpdateCmd) Run(ctx context.Context, a *App) error {
	if c.Name == nil && c.Description == nil && c.SortOrder == nil {
		return usagef(codeNothingToUpdate, "give at least one of --name, --description, --sort-order", "nothing to update")
	}
	cl, slug, err := a.workspaceArg(ctx, c.Slug)
	if err != nil {
		return err
	}
	ws, err := cl.UpdateWorkspace(ctx, slug, api.WorkspaceUpdate{Name: c.Name, Description: c.Description, SortOrder: c.SortOrder})
	if err != nil {
		return err
	}
	return a.emitWorkspaceDone(ws, "Updated workspace")
}

// WorkspaceDeleteCmd is `workspace delete <slug>`: the slug is required,
// never defaulted, so a delete always names what it deletes.
type WorkspaceDeleteCmd struct {
	Slug string `arg:"" predictor:"workspace" help:"Workspace slug."`
}

// Run soft-deletes the workspace.
func (c *WorkspaceDeleteCmd) Run(ctx context.Context, a *App) error {
	cl, err := a.Client(ctx)
	if err != nil {
		return err
	}
	if err := cl.DeleteWorkspace(ctx, c.Slug); err != nil {
		return err
	}
	return a.emit(map[string]any{"slug": c.Slug, "deleted": true}, func(w io.Writer) error {
		_, err := fmt.Fprintf(w, "Deleted workspace %s; `padctl workspace restore %s` brings it back within 30 days\n", clean(c.Slug), clean(c.Slug))
		return err
	}, nil)
}

// WorkspaceRestoreCmd is `workspace restore <slug>`.
type WorkspaceRestoreCmd struct {
	Slug string `arg:"" help:"Slug of the deleted workspace (see \"padctl workspace deleted\")."`
}

// Run restores the workspace.
func (c *WorkspaceRestoreCmd) Run(ctx context.Context, a *App) error {
	cl, err := a.Client(ctx)
	if err != nil {
		return err
	}
	ws, err := cl.RestoreWorkspace(ctx, c.Slug)
	if err != nil {
		return err
	}
	return a.emitWorkspaceDone(ws, "Restored workspace")
}
