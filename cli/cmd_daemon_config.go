package cli

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"
)

// DaemonConfigCmd is `padctl daemon config`: padd.toml as padd holds it
// (docs/MIRROR.md, "padd.toml").
type DaemonConfigCmd struct{}

// Run prints the settings in force and the file's state.
func (c *DaemonConfigCmd) Run(ctx context.Context, a *App) error {
	cl, err := a.Client(ctx)
	if err != nil {
		return err
	}
	st, err := cl.ConfigStatus(ctx)
	if err != nil {
		return err
	}
	return a.emit(st, func(w io.Writer) error {
		fmt.Fprintf(w, "file: %s\n", clean(st.Path))
		writeSettings(w, "", st.Settings)
		if st.Error != "" {
			fmt.Fprintf(w, "not applied (the settings above are kept): %s\n", clean(st.Error))
		}
		if len(st.RestartToApply) > 0 {
			fmt.Fprintf(w, "restart to apply: %s (`padctl daemon restart`)\n", clean(strings.Join(st.RestartToApply, ", ")))
		}
		if len(st.Unknown) > 0 {
			fmt.Fprintf(w, "ignored, not known to this padd: %s\n", clean(strings.Join(st.Unknown, ", ")))
		}
		return nil
	}, nil)
}

// writeSettings prints settings as dotted keys (mirror.on_delete), an
// unset one as "(default)".
func writeSettings(w io.Writer, prefix string, m map[string]any) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		switch v := m[k].(type) {
		case map[string]any:
			writeSettings(w, prefix+k+".", v)
		case string:
			if v == "" {
				v = "(default)"
			}
			fmt.Fprintf(w, "%s%s: %s\n", prefix, clean(k), clean(v))
		default:
			fmt.Fprintf(w, "%s%s: %s\n", prefix, clean(k), clean(fmt.Sprint(v)))
		}
	}
}
