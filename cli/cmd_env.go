package cli

import (
	"context"
	"fmt"
	"io"
	"strings"
)

// EnvCmd is `padctl env`: the environment that points Pad's own CLI (and
// anything else that reads PAD_URL and PAD_TOKEN) at this padd.
type EnvCmd struct {
	Shell string `enum:"sh,fish,powershell" default:"sh" help:"The shell to print for: sh (bash, zsh), fish or powershell."`
}

// Run prints PAD_URL and PAD_TOKEN as the shell's assignments, starting
// padd if it is not running (the port is only known once it listens).
func (c *EnvCmd) Run(ctx context.Context, a *App) error {
	if _, err := a.Client(ctx); err != nil {
		return err
	}
	vars := [][2]string{{"PAD_URL", a.info.URL()}, {"PAD_TOKEN", a.info.Token}}
	return a.emit(map[string]string{"PAD_URL": vars[0][1], "PAD_TOKEN": vars[1][1]}, func(w io.Writer) error {
		for _, kv := range vars {
			fmt.Fprintln(w, shellAssign(c.Shell, kv[0], kv[1]))
		}
		return nil
	}, nil)
}

// shellAssign is name=value exported in the shell's syntax, the value
// single-quoted.
func shellAssign(shell, name, value string) string {
	switch shell {
	case "fish":
		return fmt.Sprintf("set -gx %s '%s';", name, strings.ReplaceAll(strings.ReplaceAll(value, `\`, `\\`), `'`, `\'`))
	case "powershell":
		return fmt.Sprintf("$env:%s = '%s'", name, strings.ReplaceAll(value, `'`, `''`))
	}
	return fmt.Sprintf("export %s='%s'", name, strings.ReplaceAll(value, `'`, `'\''`))
}
