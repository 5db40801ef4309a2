// Package cli is padctl: Pad's command-line vocabulary over the local
// padd daemon. Commands are kong structs (one file per command group);
// output is a table for people, stable JSON for scripts, or Markdown.
//
// Conventions every command follows:
//   - results go to stdout, in the --format asked for;
//   - warnings, notes and errors go to stderr only, so --format json stays
//     parseable;
//   - a failure prints `error: <message> (<code>)` and a `hint:` line and
//     exits 1 (2 for a wrong command line).
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"reflect"
	"regexp"
	"strings"

	"github.com/alecthomas/kong"
	"github.com/padd/padd/api"
	"github.com/padd/padd/model"
)

// Root is padctl's command line.
type Root struct {
	WorkspaceFlag string `name:"workspace" short:"w" placeholder:"SLUG" predictor:"workspace" help:"Workspace to work in. Default: $$PAD_WORKSPACE, then workspace = \"...\" in the nearest .pad.toml from here upward, then the only workspace."`
	Format        Format `enum:"table,json,markdown" default:"table" help:"Output format: table (for people), json (for scripts), markdown."`

	Init       InitCmd       `cmd:"" help:"Link this directory to a workspace (creating it if needed; -w SLUG: one that exists) by writing .pad.toml."`
	Workspace  WorkspaceCmd  `cmd:"" help:"List and manage workspaces."`
	Collection CollectionCmd `cmd:"" help:"List and manage the collections of a workspace."`
	Item       ItemCmd       `cmd:"" help:"Create, list, show, update, move and delete items; claim, remind, note, patch them."`
	Search     SearchCmd     `cmd:"" help:"Search items by their words (also: padctl item search)."`
	Project    ProjectCmd    `cmd:"" help:"Project views: dashboard, next, ready, stale, standup, changelog, report, activity, catch-up."`
	Playbook   PlaybookCmd   `cmd:"" help:"List, show and run the workspace's playbooks."`
	Library    LibraryCmd    `cmd:"" help:"The built-in conventions and playbooks: list, show, activate."`
	Role       RoleCmd       `cmd:"" help:"List and manage agent roles."`
	Tag        TagCmd        `cmd:"" help:"List the tags used across the workspace, with their item counts."`
	Attachment AttachmentCmd `cmd:"" help:"Upload, download, list, show, attach and delete files attached to items."`
	Bootstrap  BootstrapCmd  `cmd:"" help:"What an agent reads before it works here: collections, conventions, roles, playbooks, dashboard."`
	Index      IndexCmd      `cmd:"" help:"padd's search index: status, rebuild."`
	Watch      WatchCmd      `cmd:"" help:"Print changes as they happen (padd's event stream) until Ctrl-C; watch list: the watched items."`
	Sync       SyncCmd       `cmd:"" help:"Sync workspaces with a Pad server: clone, link, status, conflicts, resolve."`
	Mirror     MirrorCmd     `cmd:"" help:"Keep a workspace as a folder of Markdown files, edited in any editor, both ways."`
	Daemon     DaemonCmd     `cmd:"" help:"Start, stop and inspect padd, the background service."`
	Mcp        MCPCmd        `cmd:"" name:"mcp" help:"Serve Pad's MCP tools to AI agents over stdio, and install them into MCP clients."`
	Env        EnvCmd        `cmd:"" help:"Print PAD_URL and PAD_TOKEN for Pad's own CLI: eval \"$(padctl env)\"."`
	Completion CompletionCmd `cmd:"" help:"Print a shell completion script (bash, zsh or fish)."`
	Version    VersionCmd    `cmd:"" help:"Print padctl's version (and padd's, when it is running)."`
}

// exitPanic carries kong's exit request (after --help) out of the parser
// so Run can return the code instead of ending the process.
type exitPanic struct{ code int }

// newParser builds the kong parser over root, a pointer to Root or to a
// pruned copy of it (prune.go), writing to the App's streams.
func newParser(root any, a *App) (*kong.Kong, error) {
	return kong.New(root,
		kong.Name("padctl"),
		kong.Description("padctl talks to padd, Pad on your laptop. It starts padd when needed."),
		kong.Writers(a.out, a.errw),
		kong.Exit(func(code int) { panic(exitPanic{code}) }),
		kong.ConfigureHelp(kong.HelpOptions{Compact: true, NoExpandSubcommands: true}),
		kong.Bind(a),
		kong.Vars{"templates": strings.Join(model.TemplateNames(), ", "), "default_template": model.DefaultTemplate,
			"link_types": strings.Join(model.LinkTypes, ", "), "worker_file": WorkerFile},
	)
}

// mustParser is newParser over a new value of root type t.
func mustParser(t reflect.Type, a *App) (*kong.Kong, reflect.Value) {
	root := reflect.New(t)
	parser, err := newParser(root.Interface(), a)
	if err != nil {
		// The command structs are wrong: a bug, not a user error.
		panic(fmt.Sprintf("padctl: bad command model: %v", err))
	}
	return parser, root.Elem()
}

// Run runs padctl with args (without the program name) and returns the
// process exit code.
func Run(ctx context.Context, args []string, env Env) (code int) {
	a := &App{env: env, out: env.Stdout, errw: env.Stderr, now: env.Now, format: FormatTable}
	if a.now == nil {
		panic("cli.Env.Now is required")
	}
	if env.Style != nil {
		a.style = *env.Style
	} else {
		a.style = detectStyle(env.Stdout, env.LookupEnv)
	}
	defer func() {
		if p := recover(); p != nil {
			ep, ok := p.(exitPanic)
			if !ok {
				panic(p)
			}
			code = ep.code
		}
	}()
	rootType := reflect.TypeFor[Root]()
	if line, ok := env.LookupEnv("COMP_LINE"); ok && line != "" {
		parser, _ := mustParser(rootType, a)
		runCompletion(ctx, parser, a)
		return ExitOK
	}
	if len(args) == 0 {
		args = []string{"--help"} // a bare padctl is a question: answer with the overview
	}
	path, pruned := prunePath(args)
	parser, root := mustParser(prunedType(rootType, path), a)
	kctx, err := parser.Parse(args)
	if err != nil && pruned {
		parser, root = mustParser(rootType, a)
		kctx, err = parser.Parse(args)
	}
	if err != nil {
		return report(a.errw, parseError(err), a.style)
	}
	a.format = root.FieldByName("Format").Interface().(Format)
	a.workspaceFlag = root.FieldByName("WorkspaceFlag").String()
	kctx.BindTo(ctx, (*context.Context)(nil))
	if err := kctx.Run(); err != nil {
		var ec *exitCode
		if errors.As(err, &ec) {
			return ec.code
		}
		return report(a.errw, a.explain(err), a.style)
	}
	return ExitOK
}

// negativeNumber is kong's complaint about a negative number given to
// a number flag.
var negativeNumber = regexp.MustCompile(`^--([a-z][a-z0-9-]*): expected (?:int|uint|float) value but got "(-[0-9.]+)" \(short flag\)`)

// parseError turns kong's complaint into a usage error whose hint points
// at the help of the command being typed.
func parseError(err error) error {
	var pe *kong.ParseError
	path := "padctl"
	if errors.As(err, &pe) && pe.Context != nil {
		path = commandPath(pe.Context.Selected())
	}
	if m := negativeNumber.FindStringSubmatch(err.Error()); m != nil {
		// kong reads -1 as a short flag and suggests --flag="-1", which
		// it would then refuse as below range anyway.
		return usagef(codeBadPrefix+strings.ReplaceAll(m[1], "-", "_"), fmt.Sprintf("`%s --help` says what --%s takes", path, m[1]), "--%s %s is negative", m[1], m[2])
	}
	return usagef(codeUsage, fmt.Sprintf("`%s --help` shows the arguments and flags", path), "%s", err.Error())
}

// commandPath is "padctl item create" for a selected command node.
func commandPath(n *kong.Node) string {
	var parts []string
	for ; n != nil; n = n.Parent {
		if n.Type == kong.CommandNode || n.Type == kong.ApplicationNode {
			parts = append([]string{n.Name}, parts...)
		}
	}
	if len(parts) == 0 {
		return "padctl"
	}
	return strings.Join(parts, " ")
}

// VersionCmd prints the versions of padctl and, if running, padd.
type VersionCmd struct{}

// Run prints versions without starting padd.
func (c *VersionCmd) Run(ctx context.Context, a *App) error {
	out := map[string]string{"padctl": api.Version}
	if cl, _, err := a.connect(ctx, false); err == nil {
		if st, err := cl.DaemonStatus(ctx); err == nil {
			out["padd"] = st.Version
		}
	}
	return a.emit(out, func(w io.Writer) error {
		fmt.Fprintf(w, "padctl %s\n", out["padctl"])
		if v, ok := out["padd"]; ok {
			fmt.Fprintf(w, "padd   %s\n", clean(fmt.Sprint(v)))
		} else {
			fmt.Fprintln(w, "padd   not running")
		}
		return nil
	}, nil)
}
