package cli

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/alecthomas/kong"
	"github.com/padd/padd/model"
	"github.com/posener/complete"
	"github.com/willabides/kongplete"
)

// Shell completion works the posener/complete way: the shell runs padctl
// itself with COMP_LINE (and COMP_POINT) set, and padctl prints the
// candidates, one per line, from its kong model (kongplete). Commands and
// flags therefore never go stale, and workspace and collection names are
// asked of a running padd.

// CompletionCmd is `completion bash|zsh|fish`.
type CompletionCmd struct {
	Shell string `arg:"" enum:"bash,zsh,fish" help:"Shell: bash, zsh or fish."`
}

// completionScripts are the shell glue; BIN is the quoted padctl.
var completionScripts = map[string]string{
	"bash": `# padctl completion for bash. Load it now:   source <(padctl completion bash)
# or for every shell: padctl completion bash > ~/.local/share/bash-completion/completions/padctl
complete -o default -C BIN padctl
`,
	"zsh": `#compdef padctl
# padctl completion for zsh. Load it now:   source <(padctl completion zsh)
# or put it on $fpath as _padctl.
autoload -U +X bashcompinit && bashcompinit
complete -o default -C BIN padctl
`,
	"fish": `# padctl completion for fish. Load it now:   padctl completion fish | source
# or for every shell: padctl completion fish > ~/.config/fish/completions/padctl.fish
function __padctl_complete
    set -lx COMP_LINE (commandline --cut-at-cursor --current-process)
    if test -z (commandline --current-token)
        set COMP_LINE "$COMP_LINE "
    end
    BIN
end
complete --command padctl --no-files --arguments '(__padctl_complete)'
`,
}

// Run prints the script for the shell.
func (c *CompletionCmd) Run(a *App) error {
	script := strings.ReplaceAll(completionScripts[c.Shell], "BIN", shellQuote(c.Shell, completionBinary()))
	_, err := fmt.Fprint(a.out, script)
	return err
}

// completionBinary is how the shell should run padctl: by name when that
// finds this very binary on PATH (upgrades keep working), else by its
// absolute path.
func completionBinary() string {
	exe, err := os.Executable()
	if err != nil {
		return "padctl"
	}
	if found, err := exec.LookPath("padctl"); err == nil {
		a, errA := os.Stat(found)
		b, errB := os.Stat(exe)
		if errA == nil && errB == nil && os.SameFile(a, b) {
			return "padctl"
		}
	}
	if abs, err := filepath.Abs(exe); err == nil {
		return abs
	}
	return exe
}

// shellQuote quotes a word for the shell's script.
func shellQuote(shell, s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+") == "" {
		return s
	}
	if shell == "fish" {
		return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// completionTimeout bounds how long a <TAB> waits on padd.
const completionTimeout = 800 * time.Millisecond

// runCompletion answers a completion request (COMP_LINE is set) and prints the
// candidates. It never starts padd and never prints errors: a <TAB> must
// stay silent and fast.
func runCompletion(ctx context.Context, parser *kong.Kong, a *App) {
	kongplete.Complete(parser,
		kongplete.WithPredictor("workspace", a.predictor(ctx, a.workspaceSlugs)),
		kongplete.WithPredictor("collection", a.predictor(ctx, a.collectionSlugs)),
		kongplete.WithPredictor("template", complete.PredictSet(model.TemplateNames()...)),
		kongplete.WithPredictor("linktype", complete.PredictSet(model.LinkTypes...)),
		kongplete.WithExitFunc(func(int) {}),
		kongplete.WithErrorHandler(func(error) {}),
	)
}

// predictor adapts a name lister to posener's interface, with the
// workspace typed so far (-w/--workspace) applied.
func (a *App) predictor(ctx context.Context, list func(context.Context) []string) complete.Predictor {
	return complete.PredictFunc(func(args complete.Args) []string {
		if ws := typedWorkspace(args.Completed); ws != "" {
			a.workspaceFlag = ws
		}
		ctx, cancel := context.WithTimeout(ctx, completionTimeout)
		defer cancel()
		return list(ctx)
	})
}

// typedWorkspace finds --workspace X, --workspace=X or -w X in the words
// typed so far.
func typedWorkspace(words []string) string {
	for i, w := range words {
		switch {
		case (w == "--workspace" || w == "-w") && i+1 < len(words):
			return words[i+1]
		case strings.HasPrefix(w, "--workspace="):
			return strings.TrimPrefix(w, "--workspace=")
		}
	}
	return ""
}

// completionClient is a client for a padd that is already running.
func (a *App) completionClient(ctx context.Context) bool {
	if a.client != nil {
		return true
	}
	cl, _, err := a.connect(ctx, false)
	if err != nil {
		return false
	}
	a.client = cl
	return true
}

func (a *App) workspaceSlugs(ctx context.Context) []string {
	if !a.completionClient(ctx) {
		return nil
	}
	wss, err := a.client.ListWorkspaces(ctx)
	if err != nil {
		return nil
	}
	out := make([]string, 0, len(wss))
	for _, w := range wss {
		out = append(out, w.Slug)
	}
	sort.Strings(out)
	return out
}

func (a *App) collectionSlugs(ctx context.Context) []string {
	if !a.completionClient(ctx) {
		return nil
	}
	ws, err := a.Workspace(ctx)
	if err != nil {
		return nil
	}
	cs, err := a.client.ListCollections(ctx, ws)
	if err != nil {
		return nil
	}
	out := make([]string, 0, len(cs))
	for _, c := range cs {
		out = append(out, c.Slug)
	}
	sort.Strings(out)
	return out
}
