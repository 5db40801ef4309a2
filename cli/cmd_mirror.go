package cli

import (
	"context"
	"fmt"
	"io"
	"path/filepath"

	"github.com/padd/padd/api"
)

// MirrorCmd is `padctl mirror`: a workspace kept as a folder of Markdown
// files, both ways (docs/MIRROR.md).
type MirrorCmd struct {
	Add    MirrorAddCmd    `cmd:"" help:"Mirror a workspace into a folder: a folder per collection, a Markdown file per item, kept in step both ways."`
	List   MirrorListCmd   `cmd:"" help:"List the mirrors."`
	Remove MirrorRemoveCmd `cmd:"" help:"Stop a mirror; its files stay where they are."`
	Status MirrorStatusCmd `cmd:"" help:"Show each mirror's state, and the files it could not apply and why."`
}

// mirrorArgs name a mirror.
type mirrorArgs struct {
	Ws  string `arg:"" name:"workspace" predictor:"workspace" help:"The workspace."`
	Dir string `arg:"" name:"dir" help:"The folder (made when missing; relative to the current directory)."`
}

func (m mirrorArgs) spec(a *App) (api.MirrorSpec, error) {
	dir := m.Dir
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(a.env.Dir, dir)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return api.MirrorSpec{}, err
	}
	return api.MirrorSpec{Workspace: m.Ws, Dir: abs}, nil
}

// MirrorAddCmd is `padctl mirror add <ws> <dir>`.
type MirrorAddCmd struct{ mirrorArgs }

// Run adds the mirror.
func (c *MirrorAddCmd) Run(ctx context.Context, a *App) error {
	cl, err := a.Client(ctx)
	if err != nil {
		return err
	}
	spec, err := c.spec(a)
	if err != nil {
		return err
	}
	m, err := cl.AddMirror(ctx, spec)
	if err != nil {
		return err
	}
	return a.emit(m, func(w io.Writer) error {
		_, err := fmt.Fprintf(w, "Mirroring %s in %s\n", clean(m.Workspace), clean(m.Dir))
		return err
	}, nil)
}

// MirrorRemoveCmd is `padctl mirror remove <ws> <dir>`.
type MirrorRemoveCmd struct{ mirrorArgs }

// Run removes the mirror.
func (c *MirrorRemoveCmd) Run(ctx context.Context, a *App) error {
	cl, err := a.Client(ctx)
	if err != nil {
		return err
	}
	spec, err := c.spec(a)
	if err != nil {
		return err
	}
	if err := cl.RemoveMirror(ctx, spec); err != nil {
		return err
	}
	return a.emit(map[string]any{"removed": spec}, func(w io.Writer) error {
		_, err := fmt.Fprintf(w, "Stopped mirroring %s in %s (the files stay)\n", clean(spec.Workspace), clean(spec.Dir))
		return err
	}, nil)
}

// MirrorListCmd is `padctl mirror list`.
type MirrorListCmd struct{}

// Run lists the mirrors.
func (c *MirrorListCmd) Run(ctx context.Context, a *App) error {
	return mirrorShow(ctx, a, false)
}

// MirrorStatusCmd is `padctl mirror status`.
type MirrorStatusCmd struct{}

// Run shows every mirror with its errors and conflicts.
func (c *MirrorStatusCmd) Run(ctx context.Context, a *App) error {
	return mirrorShow(ctx, a, true)
}

func mirrorShow(ctx context.Context, a *App, detail bool) error {
	cl, err := a.Client(ctx)
	if err != nil {
		return err
	}
	list, err := cl.Mirrors(ctx)
	if err != nil {
		return err
	}
	return a.emit(api.Mirrors{Mirrors: list}, func(w io.Writer) error {
		if len(list) == 0 {
			_, err := fmt.Fprintln(w, "No mirrors. Add one with `padctl mirror add <workspace> <dir>`.")
			return err
		}
		for _, m := range list {
			fmt.Fprintf(w, "%s  %s  %s  %s", clean(m.Workspace), clean(m.Dir), clean(m.State), plural(m.Files, "file"))
			if len(m.Errors) > 0 {
				fmt.Fprintf(w, "  %d not applied", len(m.Errors))
			}
			fmt.Fprintln(w)
			if !detail {
				continue
			}
			for _, e := range m.Errors {
				fmt.Fprintf(w, "  not applied: %s: %s\n", clean(e.Path), clean(e.Error))
			}
			for _, c := range m.Conflicts {
				fmt.Fprintf(w, "  conflict copy: %s\n", clean(c))
			}
		}
		return nil
	}, nil)
}
