package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/padd/padd/api"
	"github.com/padd/padd/model"
)

// WorkspaceContextCmd is `workspace context`: Pad's `pad workspace
// context` (show, the default) and `context set`.
type WorkspaceContextCmd struct {
	Show WorkspaceContextShowCmd `cmd:"" default:"withargs" help:"Show the workspace's context (the default): padctl workspace context [slug]."`
	Set  WorkspaceContextSetCmd  `cmd:"" help:"Replace the workspace's context with a JSON object (repositories, paths, commands, stack, deployment, assumptions)."`
}

// WorkspaceContextShowCmd is `workspace context [show] [slug]`.
type WorkspaceContextShowCmd struct {
	Slug string `arg:"" optional:"" predictor:"workspace" help:"Workspace slug (default: the current workspace)."`
}

// Run shows the context; --json prints it alone ({} when none), as Pad's
// CLI does.
func (c *WorkspaceContextShowCmd) Run(ctx context.Context, a *App) error {
	cl, slug, err := a.workspaceArg(ctx, c.Slug)
	if err != nil {
		return err
	}
	ws, err := cl.GetWorkspace(ctx, slug)
	if err != nil {
		return err
	}
	return a.emitContext(ws)
}

// maxContextFile bounds the JSON `context set` reads: far more than a
// context within padd's limits takes.
const maxContextFile = 1 << 20

// WorkspaceContextSetCmd is `workspace context set --file F | --stdin`.
type WorkspaceContextSetCmd struct {
	Slug  string `arg:"" optional:"" predictor:"workspace" help:"Workspace slug (default: the current workspace)."`
	File  string `type:"path" xor:"source" help:"A file holding the context's JSON object."`
	Stdin bool   `xor:"source" help:"Read the context's JSON object from stdin."`
}

// Run replaces the context with the object given.
func (c *WorkspaceContextSetCmd) Run(ctx context.Context, a *App) error {
	name := c.File
	if c.Stdin {
		name = "-"
	}
	if name == "" {
		return usagef(codeMissingValue, "padctl workspace context set --file context.json (or --stdin)", "give --file or --stdin")
	}
	raw, err := readArgFile(a, name, maxContextFile, "the context's JSON object")
	if err != nil {
		return err
	}
	if !json.Valid(raw) {
		return failf(codeBadJson, "the context is one JSON object: {\"commands\": {\"test\": \"make test\"}, ...}", "%s is not JSON", contextSource(name))
	}
	cl, slug, err := a.workspaceArg(ctx, c.Slug)
	if err != nil {
		return err
	}
	ws, err := cl.UpdateWorkspace(ctx, slug, api.WorkspaceUpdate{Context: raw})
	if err != nil {
		return err
	}
	if a.format == FormatJSON {
		return a.emitContext(ws)
	}
	if _, err := fmt.Fprintf(a.out, "Updated workspace context for %s (%s)\n", clean(ws.Name), clean(ws.Slug)); err != nil {
		return err
	}
	return a.emitContext(ws)
}

func contextSource(name string) string {
	if name == "-" {
		return "stdin"
	}
	return name
}

func (a *App) emitContext(ws *api.Workspace) error {
	var v any = ws.Context
	if ws.Context == nil {
		v = map[string]any{}
	}
	return a.emit(v, func(w io.Writer) error { return writeContext(w, ws.Context) }, nil)
}

// writeContext prints a context section by section, each value on a
// line of its own, the empty ones left out.
func writeContext(w io.Writer, c *model.WorkspaceContext) error {
	if c == nil {
		_, err := fmt.Fprintln(w, "No workspace context set.")
		return err
	}
	var b strings.Builder
	section := func(title string, rows [][2]string) {
		head := false
		for _, r := range rows {
			if r[1] == "" {
				continue
			}
			if !head {
				fmt.Fprintf(&b, "%s:\n", title)
				head = true
			}
			fmt.Fprintf(&b, "  %-16s %s\n", r[0], clean(r[1]))
		}
	}
	if len(c.Repositories) > 0 {
		b.WriteString("Repositories:\n")
		for _, r := range c.Repositories {
			fmt.Fprintf(&b, "  %s", clean(r.Name))
			for _, p := range [][2]string{{"role", r.Role}, {"path", r.Path}, {"repo", r.Repo}} {
				if p[1] != "" {
					fmt.Fprintf(&b, "  %s=%s", p[0], clean(p[1]))
				}
			}
			b.WriteString("\n")
		}
	}
	if p := c.Paths; p != nil {
		section("Paths", [][2]string{{"root", p.Root}, {"docs_repo", p.DocsRepo}, {"web", p.Web}, {"server", p.Server},
			{"skills", p.Skills}, {"config", p.Config}, {"install_root", p.InstallRoot}})
	}
	if m := c.Commands; m != nil {
		section("Commands", [][2]string{{"setup", m.Setup}, {"build", m.Build}, {"test", m.Test}, {"lint", m.Lint},
			{"format", m.Format}, {"dev", m.Dev}, {"start", m.Start}, {"web", m.Web}})
	}
	if s := c.Stack; s != nil {
		section("Stack", [][2]string{{"languages", strings.Join(s.Languages, ", ")}, {"frameworks", strings.Join(s.Frameworks, ", ")},
			{"package_managers", strings.Join(s.PackageManagers, ", ")}})
	}
	if d := c.Deployment; d != nil {
		section("Deployment", [][2]string{{"mode", d.Mode}, {"base_url", d.BaseURL}, {"host", d.Host}})
	}
	if len(c.Assumptions) > 0 {
		b.WriteString("Assumptions:\n")
		for _, s := range c.Assumptions {
			fmt.Fprintf(&b, "  - %s\n", clean(s))
		}
	}
	if b.Len() == 0 {
		b.WriteString("The workspace context is empty.\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}
