package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/padd/padd/internal/launch"
	"github.com/padd/padd/mcpinstall"
)

// MCPCmd groups the MCP commands: the stdio server agents run, and the
// installers that register it with their clients.
type MCPCmd struct {
	Serve     MCPServeCmd     `cmd:"" help:"Run the MCP server on stdin/stdout (MCP clients start this; it starts padd when needed)."`
	Install   MCPInstallCmd   `cmd:"" help:"Register padd's MCP server with a client: cursor, windsurf, claude-desktop, claude-code, vscode or codex."`
	Uninstall MCPUninstallCmd `cmd:"" help:"Remove padd's MCP server from a client's config, and nothing else."`
	Status    MCPStatusCmd    `cmd:"" help:"Show whether each client (or one) has padd's MCP server installed."`
	Doctor    MCPDoctorCmd    `cmd:"" help:"Check that each installed client's server reaches this padd and this directory's workspace."`
}

// MCPServeCmd is `mcp serve`.
type MCPServeCmd struct{}

// Run serves MCP until the client closes stdin. The server is padd's
// binary (`padd mcp-serve`, found as padctl finds padd to start it) on
// this process's stdin, stdout and stderr: padctl itself does not link
// mcp-go, so every other padctl command starts faster. Stdout is the
// protocol stream, so everything else goes to stderr.
func (c *MCPServeCmd) Run(ctx context.Context, a *App) error {
	bin, err := launch.PaddPath("")
	if err != nil {
		return failf(codeNoPadd, "install padd beside padctl or on PATH",
			"padctl mcp serve runs padd's MCP server: %v", err)
	}
	cmd := exec.CommandContext(ctx, bin, "mcp-serve")
	// Told to stop (the client's SIGTERM reached padctl), padd's server
	// gets the same chance to finish; a server that ignores it is killed.
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = 5 * time.Second
	dieWithParent(cmd)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = a.env.Stdin, a.out, a.errw
	cmd.Dir = a.env.Dir
	// The environment padctl sees (its -w flag as PAD_WORKSPACE) is the
	// server's: the later of two equal keys wins.
	cmd.Env = os.Environ()
	for _, k := range []string{"PAD_HOME", "PAD_WORKSPACE"} {
		if v := a.mcpEnv(k); v != "" {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
	}
	err = cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil || ctx.Err() != nil:
		return nil
	case errors.As(err, &exit):
		// padd's server said why on stderr.
		return &Error{Code: codeMcpServeFailed, Message: fmt.Sprintf("padd's MCP server (%s) exited with status %d", bin, exit.ExitCode()),
			Hint: "its message is above; `padctl daemon logs` shows padd's side", Exit: ExitError, Err: err}
	default:
		return failf(codeMcpServeFailed, "check that "+bin+" is padd and can run",
			"cannot run padd's MCP server %s: %v", bin, err)
	}
}

// mcpEnv is the environment the MCP server reads: padctl's --workspace,
// when given, stands in for PAD_WORKSPACE (the server's default
// workspace after the call's own and pad_set_workspace, before any
// .pad.toml), so `padctl -w slug mcp serve` serves that workspace.
func (a *App) mcpEnv(name string) string {
	if name == "PAD_WORKSPACE" && a.workspaceFlag != "" {
		return a.workspaceFlag
	}
	return a.getenv(name)
}

// The client names are checked by mcpinstall, which owns the list (an
// unknown one is refused with the list as the hint).

// MCPInstallCmd is `mcp install <client>`.
type MCPInstallCmd struct {
	Client string `arg:"" help:"The MCP client (padctl mcp status lists them)."`
	DryRun bool   `help:"Show the change to the client's config as a diff, and write nothing."`
}

// Run merges padd's entry into the client's config.
func (c *MCPInstallCmd) Run(ctx context.Context, a *App) error {
	o, err := a.installOptions(c.Client, c.DryRun)
	if err != nil {
		return err
	}
	ch, err := mcpinstall.Install(o)
	if err != nil {
		return installFailure(err)
	}
	return a.emitChange(ch, c.DryRun)
}

// MCPUninstallCmd is `mcp uninstall <client>`.
type MCPUninstallCmd struct {
	Client string `arg:"" help:"The MCP client (padctl mcp status lists them)."`
	DryRun bool   `help:"Show the change as a diff, and write nothing."`
}

// Run removes padd's entry from the client's config.
func (c *MCPUninstallCmd) Run(ctx context.Context, a *App) error {
	o, err := a.installOptions(c.Client, c.DryRun)
	if err != nil {
		return err
	}
	ch, err := mcpinstall.Uninstall(o)
	if err != nil {
		return installFailure(err)
	}
	return a.emitChange(ch, c.DryRun)
}

// MCPStatusCmd is `mcp status [client]`.
type MCPStatusCmd struct {
	Client string `arg:"" optional:"" help:"One client (default: all)."`
}

// Run reports each client's entry.
func (c *MCPStatusCmd) Run(ctx context.Context, a *App) error {
	sts, err := a.clientStatuses(c.Client)
	if err != nil {
		return err
	}
	return a.emit(sts, func(w io.Writer) error {
		for _, st := range sts {
			state := "not installed"
			switch {
			case st.Problem != "":
				state = "unreadable: " + st.Problem
			case st.Installed && st.Current:
				state = "installed"
			case st.Installed:
				state = fmt.Sprintf("installed, but runs %s (`padctl mcp install %s` points it at this padctl)", st.Command, st.Client)
			}
			fmt.Fprintf(w, "%-15s %s\n%-15s %s\n", clean(st.Client), clean(state), "", clean(st.Path))
		}
		return nil
	}, nil)
}

// clientStatuses is padd's entry in one client's config, or in each's.
func (a *App) clientStatuses(client string) ([]mcpinstall.ClientStatus, error) {
	o, err := a.installOptions(client, false)
	if err != nil {
		return nil, err
	}
	sts, err := mcpinstall.Status(o)
	if err != nil {
		return nil, installFailure(err)
	}
	return sts, nil
}

// installOptions reads the home directory and this padctl's path.
func (a *App) installOptions(client string, dryRun bool) (mcpinstall.InstallOptions, error) {
	home := a.getenv("HOME")
	if home == "" {
		home = a.getenv("USERPROFILE")
	}
	if home == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			return mcpinstall.InstallOptions{}, failf(codeNoHome, "set HOME to your home directory", "cannot find your home directory: %v", err)
		}
		home = h
	}
	exe, err := os.Executable()
	if err != nil {
		return mcpinstall.InstallOptions{}, failf(codeNoExecutable, "run padctl by its full path", "cannot find padctl's own path: %v", err)
	}
	if abs, err := filepath.Abs(exe); err == nil {
		exe = abs
	}
	env, err := a.serverEnv()
	if err != nil {
		return mcpinstall.InstallOptions{}, err
	}
	return mcpinstall.InstallOptions{Client: client, Home: home, Getenv: a.getenv, Command: exe, Env: env, DryRun: dryRun}, nil
}

// serverEnv is the environment an installed server needs to reach the
// padd this padctl reaches: PAD_HOME, absolute, when the data directory
// is not the default one (PAD_HOME or XDG_DATA_HOME moved it). An agent's
// client starts its servers with an environment of its own, which has
// neither.
func (a *App) serverEnv() (map[string]string, error) {
	if a.getenv("PAD_HOME") == "" && a.getenv("XDG_DATA_HOME") == "" {
		return nil, nil
	}
	dir, err := launch.DataDirEnv(a.getenv)
	if err != nil {
		return nil, failf(codeNoHome, "set PAD_HOME to padd's data directory", "cannot find padd's data directory: %v", err)
	}
	if dir == clientDataDir(nil, a.getenv) {
		return nil, nil // PAD_HOME names the default: the client reaches it without
	}
	return map[string]string{"PAD_HOME": dir}, nil
}

func installFailure(err error) error {
	var ie *mcpinstall.InstallError
	if errors.As(err, &ie) {
		return failf(ie.Code, ie.Hint, "%s", ie.Message)
	}
	return err
}

func (a *App) emitChange(ch *mcpinstall.Change, dryRun bool) error {
	return a.emit(ch, func(w io.Writer) error {
		switch {
		case ch.Action == "unchanged":
			fmt.Fprintf(w, "%s already has padd's MCP server: %s is unchanged\n", clean(ch.Client), clean(ch.Path))
		case ch.Action == "absent":
			fmt.Fprintf(w, "%s has no padd MCP server in %s: nothing to remove\n", clean(ch.Client), clean(ch.Path))
		case dryRun:
			fmt.Fprintf(w, "Would change %s (dry run, nothing written):\n%s", clean(ch.Path), sanitizeBlock(ch.Diff))
		default:
			fmt.Fprintf(w, "%s padd's MCP server for %s in %s\n", map[string]string{"installed": "Installed", "updated": "Updated", "removed": "Removed"}[ch.Action], clean(ch.Client), clean(ch.Path))
			if ch.Action != "removed" {
				fmt.Fprintf(w, "Restart %s to load it.\n", clean(ch.Client))
			}
		}
		return nil
	}, nil)
}
