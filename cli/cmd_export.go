package cli

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"golang.org/x/term"

	"github.com/padd/padd/api"
)

// WorkspaceExportCmd is `workspace export [<ws>]`.
type WorkspaceExportCmd struct {
	Workspace string `arg:"" optional:"" help:"Workspace slug (default: the current one)."`
	Output    string `short:"o" help:"File to write (default: <slug>-export.tar.gz, or .json with --json); - writes to stdout."`
	JSON      bool   `name:"json" help:"Write Pad's JSON export (pad-export.json) instead of the tar.gz bundle."`
}

// Run streams the export into a file beside the target, renamed into
// place once whole: a failed export leaves no partial file.
func (c *WorkspaceExportCmd) Run(ctx context.Context, a *App) error {
	cl, err := a.Client(ctx)
	if err != nil {
		return err
	}
	ws := c.Workspace
	if ws == "" {
		if ws, err = a.Workspace(ctx); err != nil {
			return err
		}
	}
	out := c.Output
	if out == "" {
		out = ws + "-export.tar.gz"
		if c.JSON {
			out = ws + "-export.json"
		}
	}
	if out == "-" {
		_, err := cl.ExportWorkspace(ctx, ws, !c.JSON, a.out)
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(out), "."+filepath.Base(out)+".part-*")
	if err != nil {
		return failf(codeExportFile, "check that the folder exists and that you may write there, or give -o", "cannot write %s: %v", out, err)
	}
	defer func() { _ = os.Remove(f.Name()) }()
	p := a.progress("Exporting "+ws, -1)
	bw := bufio.NewWriterSize(io.MultiWriter(f, p), 256<<10)
	n, err := cl.ExportWorkspace(ctx, ws, !c.JSON, bw)
	if err == nil {
		err = bw.Flush()
	}
	if err == nil {
		err = f.Sync()
	}
	if err == nil {
		err = f.Chmod(0o644) // CreateTemp's 0600 is for the part file only
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	p.done(err == nil)
	if err != nil {
		return err
	}
	if err := os.Rename(f.Name(), out); err != nil {
		return failf(codeExportFile, "check that the folder exists and that you may write there, or give -o", "cannot write %s: %v", out, err)
	}
	return a.emit(map[string]any{"workspace": ws, "file": out, "bytes": n, "format": exportFormat(c.JSON)},
		func(w io.Writer) error {
			_, err := fmt.Fprintf(w, "Exported %s to %s (%s, %s)\n", ws, out, exportFormat(c.JSON), humanBytes(n))
			return err
		}, nil)
}

func exportFormat(json bool) string {
	if json {
		return "json"
	}
	return "bundle"
}

// WorkspaceImportCmd is `workspace import <file>`.
type WorkspaceImportCmd struct {
	File string `arg:"" help:"A Pad export: the tar.gz bundle or pad-export.json (- reads stdin)."`
	Name string `help:"Name of the new workspace (default: the exported one's; its slug is made unique)."`
}

// Run sends the file; it is a bundle when it starts as gzip does.
func (c *WorkspaceImportCmd) Run(ctx context.Context, a *App) error {
	cl, err := a.Client(ctx)
	if err != nil {
		return err
	}
	var r io.Reader
	size := int64(-1)
	if c.File == "-" {
		r = a.env.Stdin
	} else {
		f, err := os.Open(c.File)
		if err != nil {
			return usagef(codeImportFile, "", "cannot read %s: %v", c.File, err)
		}
		defer f.Close()
		if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
			size = st.Size()
		}
		r = f
	}
	br := bufio.NewReaderSize(r, 64<<10)
	head, _ := br.Peek(2)
	// A bundle by its bytes (gzip's), or by its name: one named .tar.gz
	// that is not gzip is refused as the bundle it claims to be.
	bundle := len(head) == 2 && head[0] == 0x1f && head[1] == 0x8b ||
		strings.HasSuffix(strings.ToLower(c.File), ".tar.gz") || strings.HasSuffix(strings.ToLower(c.File), ".tgz")
	p := a.progress("Importing "+filepath.Base(c.File), size)
	res, err := cl.ImportWorkspace(ctx, io.TeeReader(br, p), size, bundle, c.Name)
	p.done(err == nil)
	if err != nil {
		e := explain(a.explain(err))
		if e.Hint == "" {
			e.Hint = "nothing was imported: padd writes an import whole or not at all"
		} else {
			e.Hint += "; nothing was imported"
		}
		return e
	}
	return a.emit(res, func(w io.Writer) error { return writeImportSummary(w, res) }, nil)
}

func writeImportSummary(w io.Writer, res *api.ImportResult) error {
	s := res.ImportSummary
	line := func(word string, in, got int) string {
		if in == got {
			return plural(got, word)
		}
		return fmt.Sprintf("%d of %s", got, plural(in, word))
	}
	parts := []string{line("collection", s.InBundle.Collections, s.Imported.Collections),
		line("item", s.InBundle.Items, s.Imported.Items), line("comment", s.InBundle.Comments, s.Imported.Comments),
		line("link", s.InBundle.Links, s.Imported.Links), plural(s.Imported.Versions, "version")}
	if s.InBundle.Roles > 0 {
		parts = append(parts, line("role", s.InBundle.Roles, s.Imported.Roles))
	}
	if s.InBundle.Attachments > 0 {
		parts = append(parts, line("attachment", s.InBundle.Attachments, s.Imported.Attachments))
	}
	if _, err := fmt.Fprintf(w, "Imported workspace %s (%s): %s\n", clean(res.Name), clean(res.Slug), clean(strings.Join(parts, ", "))); err != nil {
		return err
	}
	if len(s.NotModelled) > 0 {
		keys := make([]string, 0, len(s.NotModelled))
		for k := range s.NotModelled {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var nm []string
		for _, k := range keys {
			nm = append(nm, fmt.Sprintf("%s %d", strings.ReplaceAll(k, "_", " "), s.NotModelled[k]))
		}
		if _, err := fmt.Fprintf(w, "Left out (padd does not model them): %s\n", clean(strings.Join(nm, ", "))); err != nil {
			return err
		}
	}
	return nil
}

// progress shows bytes moving on stderr when it is a terminal and the
// transfer has taken over a second; otherwise it prints nothing.
type progress struct {
	label      string
	total      int64
	n          int64
	start      time.Time
	last       time.Time
	w          io.Writer
	shown, tty bool
	now        func() time.Time
}

func (a *App) progress(label string, total int64) *progress {
	f, ok := a.errw.(*os.File)
	return &progress{label: label, total: total, w: a.errw, tty: ok && term.IsTerminal(int(f.Fd())),
		now: a.now, start: a.now()}
}

func (p *progress) Write(b []byte) (int, error) {
	p.n += int64(len(b))
	if !p.tty {
		return len(b), nil
	}
	now := p.now()
	if now.Sub(p.start) < time.Second || now.Sub(p.last) < 100*time.Millisecond {
		return len(b), nil
	}
	p.last, p.shown = now, true
	if p.total > 0 {
		pct := min(100, p.n*100/p.total)
		bar := strings.Repeat("#", int(pct/5)) + strings.Repeat(".", 20-int(pct/5))
		note := ""
		if p.n >= p.total {
			note = "; padd is importing"
		}
		fmt.Fprintf(p.w, "\r%s [%s] %3d%% %s of %s%s ", p.label, bar, pct, humanBytes(p.n), humanBytes(p.total), note)
	} else {
		fmt.Fprintf(p.w, "\r%s: %s ", p.label, humanBytes(p.n))
	}
	return len(b), nil
}

// done ends the progress line.
func (p *progress) done(ok bool) {
	if !p.shown {
		return
	}
	status := "done"
	if !ok {
		status = "failed"
	}
	fmt.Fprintf(p.w, "\r%s: %s, %s\x1b[K\n", p.label, humanBytes(p.n), status)
}

// ItemExportCmd is `item export <ref>`.
type ItemExportCmd struct {
	Ref    string `arg:"" help:"The playbook or convention (ref, slug or id)."`
	Output string `short:"o" help:"File to write (default: <slug>.pad.md); - writes to stdout."`
}

// Run writes the artifact.
func (c *ItemExportCmd) Run(ctx context.Context, a *App) error {
	cl, ws, err := a.inWorkspace(ctx)
	if err != nil {
		return err
	}
	text, err := cl.ExportItemArtifact(ctx, ws, c.Ref)
	if err != nil {
		return err
	}
	out := c.Output
	if out == "-" {
		_, err := a.out.Write(text)
		return err
	}
	if out == "" {
		it, err := cl.GetItem(ctx, ws, c.Ref)
		if err != nil {
			return err
		}
		out = it.Slug + ".pad.md"
	}
	if err := os.WriteFile(out, text, 0o644); err != nil {
		return failf(codeExportFile, "check that the folder exists and that you may write there, or give -o", "cannot write %s: %v", out, err)
	}
	return a.emit(map[string]any{"ref": c.Ref, "file": out}, func(w io.Writer) error {
		_, err := fmt.Fprintf(w, "Exported %s to %s\n", c.Ref, out)
		return err
	}, nil)
}

// ItemImportCmd is `item import <file>`.
type ItemImportCmd struct {
	File string `arg:"" help:"An artifact file (- reads stdin)."`
}

// Run sends the artifact.
func (c *ItemImportCmd) Run(ctx context.Context, a *App) error {
	cl, ws, err := a.inWorkspace(ctx)
	if err != nil {
		return err
	}
	var text []byte
	if c.File == "-" {
		text, err = io.ReadAll(io.LimitReader(a.env.Stdin, api.MaxArtifactBytes+1))
	} else {
		text, err = os.ReadFile(c.File)
	}
	if err != nil {
		return usagef(codeImportFile, "", "cannot read %s: %v", c.File, err)
	}
	res, err := cl.ImportArtifact(ctx, ws, text)
	if err != nil {
		return err
	}
	for _, w := range res.Warnings {
		a.warnf("%s", w)
	}
	return a.emit(res, func(w io.Writer) error {
		_, err := fmt.Fprintf(w, "Imported %s (%s)\n", clean(res.Ref), clean(res.Slug))
		return err
	}, nil)
}
