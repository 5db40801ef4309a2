package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"runtime"

	"github.com/padd/padd/api"
	"github.com/padd/padd/internal/launch"
	"github.com/padd/padd/mcpinstall"
)

// MCPDoctorCmd is `mcp doctor [client]`.
type MCPDoctorCmd struct {
	Client string `arg:"" optional:"" help:"One client (default: every client that has padd's server installed)."`
}

// doctorReport is one installed client's check.
type doctorReport struct {
	Client string `json:"client"`
	Path   string `json:"path"`
	// DataDir is the data directory the client's server uses: the padd
	// it reaches.
	DataDir string `json:"data_dir,omitempty"`
	// Workspace is this directory's workspace and whether that padd
	// has it ("" when no .pad.toml names one).
	Workspace      string   `json:"workspace,omitempty"`
	WorkspaceFound *bool    `json:"workspace_found,omitempty"`
	Problems       []string `json:"problems"`
}

// Run checks each installed client's entry against this padctl: the
// command runs, it is `mcp serve`, it reaches this padd's data directory,
// and that padd has this directory's workspace.
func (c *MCPDoctorCmd) Run(ctx context.Context, a *App) error {
	sts, err := a.clientStatuses(c.Client)
	if err != nil {
		return err
	}
	ours, err := launch.DataDirEnv(a.getenv)
	if err != nil {
		return failf(codeNoHome, "set PAD_HOME to padd's data directory", "cannot find padd's data directory: %v", err)
	}
	ws, wsFrom := a.doctorWorkspace()
	reports := []doctorReport{}
	bad := 0
	for _, st := range sts {
		if !st.Installed && st.Problem == "" {
			continue
		}
		r := doctorReport{Client: st.Client, Path: st.Path, Problems: []string{}}
		if st.Problem != "" {
			r.Problems = append(r.Problems, "its config is unreadable: "+st.Problem)
		} else {
			r.Problems = append(r.Problems, commandProblems(st)...)
			r.DataDir = clientDataDir(st.Env, a.getenv)
			if r.DataDir != ours {
				r.Problems = append(r.Problems, fmt.Sprintf("its server uses padd's data in %s, not this padd's %s: `padctl mcp install %s` records PAD_HOME", r.DataDir, ours, st.Client))
			} else if ws != "" {
				r.Workspace = ws
				found := a.workspaceExists(ctx, ws)
				if found != nil {
					r.WorkspaceFound = found
					if !*found {
						r.Problems = append(r.Problems, fmt.Sprintf("workspace %q (from %s) is not in this padd: `padctl workspace list` shows what is, `padctl init` links this directory", ws, wsFrom))
					}
				}
			}
		}
		if len(r.Problems) > 0 {
			bad++
		}
		reports = append(reports, r)
	}
	err = a.emit(reports, func(w io.Writer) error { return writeDoctor(w, reports) }, nil)
	if err == nil && bad > 0 {
		return &Error{Code: codeMcpDoctorProblems, Message: fmt.Sprintf("%d MCP client(s) would not reach this padd", bad),
			Hint: "the problems and their fixes are listed above", Exit: ExitError}
	}
	return err
}

// commandProblems checks that the entry's command can run and serves MCP.
func commandProblems(st mcpinstall.ClientStatus) []string {
	var out []string
	fi, err := os.Stat(st.Command)
	switch {
	case err != nil:
		out = append(out, fmt.Sprintf("its command %s cannot be found: `padctl mcp install %s` points it at this padctl", st.Command, st.Client))
	case fi.IsDir() || (runtime.GOOS != "windows" && fi.Mode()&0o111 == 0):
		out = append(out, fmt.Sprintf("its command %s is not an executable file", st.Command))
	}
	if !reflect.DeepEqual(st.Args, []string{"mcp", "serve"}) {
		out = append(out, fmt.Sprintf("it runs %s %v, not `mcp serve`: `padctl mcp install %s` fixes it", filepath.Base(st.Command), st.Args, st.Client))
	}
	return out
}

// clientDataDir is the data directory a server started by the client
// uses: the entry's PAD_HOME, else the default, which a client started
// from the desktop computes without PAD_HOME or XDG_DATA_HOME.
func clientDataDir(env map[string]string, getenv func(string) string) string {
	dir, err := launch.DataDirEnv(func(k string) string {
		switch k {
		case "PAD_HOME", "XDG_DATA_HOME":
			return env[k]
		}
		return getenv(k)
	})
	if err != nil {
		return "(unknown: " + err.Error() + ")"
	}
	return dir
}

// doctorWorkspace is the workspace this directory links to (.pad.toml or
// PAD_WORKSPACE), "" when none.
func (a *App) doctorWorkspace() (slug, from string) {
	slug, from, err := a.configuredWorkspace()
	if err != nil {
		return "", ""
	}
	return slug, from
}

// workspaceExists asks the running padd (never starting one) whether it
// has ws; nil when it cannot tell.
func (a *App) workspaceExists(ctx context.Context, ws string) *bool {
	c, _, err := a.connect(ctx, false)
	if err != nil {
		return nil
	}
	_, err = c.GetWorkspace(ctx, ws)
	var ae *api.Error
	if err != nil && !(errors.As(err, &ae) && ae.Code == api.CodeNotFound) {
		return nil
	}
	found := err == nil
	return &found
}

// writeDoctor prints mcp doctor's reports for a person.
func writeDoctor(w io.Writer, reports []doctorReport) error {
	if len(reports) == 0 {
		fmt.Fprintf(w, "No MCP client has padd's server installed; `padctl mcp install <client>` adds it (one of %v).\n", mcpinstall.ClientNames())
	}
	for _, r := range reports {
		if len(r.Problems) == 0 {
			line := fmt.Sprintf("%-15s ok: reaches this padd (%s)", r.Client, r.DataDir)
			if r.Workspace != "" && r.WorkspaceFound != nil {
				line += fmt.Sprintf(" and workspace %s", r.Workspace)
			}
			fmt.Fprintln(w, line)
			continue
		}
		fmt.Fprintf(w, "%-15s %s in %s\n", clean(r.Client), plural(len(r.Problems), "problem"), clean(r.Path))
		for _, p := range r.Problems {
			fmt.Fprintf(w, "%-15s - %s\n", "", clean(fmt.Sprint(p)))
		}
	}
	return nil
}
