package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/padd/padd/api"
	"github.com/padd/padd/internal/launch"
)

// Env is the world one padctl run sees. Main fills it from the process;
// tests fill it in.
type Env struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	LookupEnv      func(string) (string, bool)
	Dir            string // working directory: where .pad.toml is looked for
	Now            func() time.Time
	// Style, when set, replaces the terminal detection.
	Style *Style
	// Connect finds padd, starting it when start is true. nil means
	// launch.Connect with the data directory from the environment.
	Connect func(ctx context.Context, start bool) (*api.Client, *launch.Info, error)
}

// ProcessEnv is the Env of the running process.
func ProcessEnv() Env {
	dir, _ := os.Getwd()
	return Env{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, LookupEnv: os.LookupEnv, Dir: dir, Now: time.Now}
}

// App is what every command gets: where to write, how to format, and
// the connection to padd, made on first use.
type App struct {
	env    Env
	out    io.Writer
	errw   io.Writer
	format Format
	style  Style
	now    func() time.Time

	workspaceFlag string

	client *api.Client
	info   *launch.Info
	// ws and wsFrom are the resolved workspace and where it came from
	// (for error hints).
	ws, wsFrom string
	pad        *padToml
}

func (a *App) getenv(name string) string {
	v, _ := a.env.LookupEnv(name)
	return v
}

// warnf writes a warning to stderr: never to stdout, which must stay
// parseable under --format json.
func (a *App) warnf(format string, args ...any) {
	fmt.Fprintf(a.errw, "%s %s\n", a.style.paint(ansiYellow, "warning:"), clean(fmt.Sprintf(format, args...)))
}

// notef writes a note (a paging hint, a next step) to stderr.
func (a *App) notef(format string, args ...any) {
	fmt.Fprintf(a.errw, "%s %s\n", a.style.paint(ansiDim, "note:"), clean(fmt.Sprintf(format, args...)))
}

// Client connects to padd on first use, starting it if none answers.
func (a *App) Client(ctx context.Context) (*api.Client, error) {
	if a.client != nil {
		return a.client, nil
	}
	c, info, err := a.connect(ctx, true)
	if err != nil {
		return nil, &Error{Code: codePaddUnavailable, Message: err.Error(), Exit: ExitError, Err: err,
			Hint: "padd is not running and could not be started for the reason above; `padctl daemon logs` shows padd's own log, `padctl daemon start` retries"}
	}
	a.client, a.info = c, info
	return c, nil
}

// connect reaches padd without the side effects of Client: used by the
// daemon commands, which must not start padd by accident.
func (a *App) connect(ctx context.Context, start bool) (*api.Client, *launch.Info, error) {
	var c *api.Client
	var info *launch.Info
	var err error
	if a.env.Connect != nil {
		c, info, err = a.env.Connect(ctx, start)
	} else {
		c, info, err = launch.Connect(ctx, launch.ConnectOptions{Start: start})
	}
	if err != nil {
		return nil, nil, err
	}
	if info != nil && info.Launched {
		a.notef("started padd (pid %d) on %s, data in %s", info.PID, info.URL(), info.DataDir)
	}
	c.Source = "cli"
	c.Agent = a.agentName()
	c.OnVersionMismatch = func(server, client string) { a.versionMismatch(info, server, client) }
	return c, info, nil
}

// agentName makes writes agent writes when the directory or environment
// says so, as Pad's CLI does: .pad.toml's agent_name, then PAD_AGENT.
func (a *App) agentName() string {
	if p, _ := a.padToml(); p != nil && p.AgentName != "" {
		return p.AgentName
	}
	return strings.TrimSpace(a.getenv("PAD_AGENT"))
}

// padToml finds the nearest .pad.toml once.
func (a *App) padToml() (*padToml, error) {
	if a.pad != nil {
		return a.pad, nil
	}
	p, err := findPadToml(a.env.Dir)
	if err != nil {
		return nil, err
	}
	a.pad = p
	return p, nil
}

// Workspace resolves the workspace a command works in: --workspace, then
// PAD_WORKSPACE, then workspace = "..." in the nearest .pad.toml from the
// working directory upward, then the only workspace there is.
func (a *App) Workspace(ctx context.Context) (string, error) {
	if a.ws != "" {
		return a.ws, nil
	}
	slug, from, err := a.configuredWorkspace()
	if err != nil {
		return "", err
	}
	if slug == "" {
		slug, err = a.onlyWorkspace(ctx)
		if err != nil {
			return "", err
		}
		from = "the only workspace"
	}
	a.ws, a.wsFrom = slug, from
	return slug, nil
}

// configuredWorkspace is the workspace named by flag, environment or
// .pad.toml, without asking padd ("" when none is).
func (a *App) configuredWorkspace() (slug, from string, err error) {
	if s := strings.TrimSpace(a.workspaceFlag); s != "" {
		return s, "--workspace", nil
	}
	if s := strings.TrimSpace(a.getenv("PAD_WORKSPACE")); s != "" {
		return s, "PAD_WORKSPACE", nil
	}
	p, err := a.padToml()
	if err != nil {
		return "", "", err
	}
	if p != nil {
		return p.Workspace, p.Path, nil
	}
	return "", "", nil
}

func (a *App) onlyWorkspace(ctx context.Context) (string, error) {
	c, err := a.Client(ctx)
	if err != nil {
		return "", err
	}
	wss, err := c.ListWorkspaces(ctx)
	if err != nil {
		return "", err
	}
	switch len(wss) {
	case 0:
		return "", failf(codeNoWorkspace, "`padctl init` creates a workspace and links this directory to it",
			"there is no workspace yet")
	case 1:
		return wss[0].Slug, nil
	}
	slugs := make([]string, 0, len(wss))
	for _, w := range wss {
		slugs = append(slugs, w.Slug)
	}
	sort.Strings(slugs)
	e := failf(codeNoWorkspace, "pass --workspace <slug>, set PAD_WORKSPACE, or link this directory with `padctl init --name <name>`",
		"no workspace chosen and %d exist", len(wss))
	e.Detail = []string{"available: " + strings.Join(slugs, ", ")}
	return "", e
}

// explain adds to a refusal what only the App knows: where a workspace
// that padd does not know was named.
func (a *App) explain(err error) error {
	e := explain(err)
	var ae *api.Error
	if errors.As(err, &ae) && ae.Code == api.CodeNotFound && ae.Details["scope"] == "workspace" && a.wsFrom != "" && a.wsFrom != "the only workspace" {
		e.Hint = fmt.Sprintf("workspace %q comes from %s; `padctl workspace list` shows the workspaces, `padctl init` links this directory to one", a.ws, a.wsFrom)
	}
	return e
}

// emit prints a result in the chosen format: jsonValue for json (already
// shaped for scripts), and the human renderers for table and markdown.
func (a *App) emit(jsonValue any, table, markdown func(w io.Writer) error) error {
	switch a.format {
	case FormatJSON:
		return writeJSON(a.out, jsonValue)
	case FormatMarkdown:
		if markdown == nil {
			return table(a.out) // plain lines read as Markdown paragraphs
		}
		return markdown(a.out)
	}
	return table(a.out)
}

// emitWarnings reports write warnings from padd on stderr.
func (a *App) emitWarnings(w *api.Warnings) {
	if w == nil {
		return
	}
	if len(w.UndeclaredFields) > 0 {
		a.warnf("fields not declared by the collection were stored as given: %s", strings.Join(w.UndeclaredFields, ", "))
	}
	if len(w.DroppedFields) > 0 {
		a.warnf("fields dropped (not kept by this collection): %s", strings.Join(w.DroppedFields, ", "))
	}
	for _, n := range w.NotUnique {
		if msg, _ := n["message"].(string); msg != "" {
			a.warnf("%s", msg)
		} else {
			a.warnf("value of %v is not unique", n["key"])
		}
	}
	for _, o := range w.Orphaned {
		if opt, _ := o["option"].(string); opt != "" {
			a.warnf("%v items keep %v = %q, an option the schema no longer lists", o["items"], o["field"], opt)
		} else {
			a.warnf("%v items keep values of %v, a field the schema no longer declares", o["items"], o["field"])
		}
	}
	// padd flags every content write without a guard. The race is real
	// for an agent, which rewrites a body it read earlier while other
	// agents write too; a person typing the new content says what the
	// body is now, so padctl warns agents only (PAD_AGENT, agent_name).
	if w.UnguardedContentWrite && a.agentName() != "" {
		a.warnf("content replaced without --expected-seq: an edit made since you read the item would be lost")
	}
}
