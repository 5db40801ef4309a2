//go:build unix

package cli

import (
	"strconv"
	"strings"
	"testing"
)

// A person replacing an item's content from the terminal is not warned
// about --expected-seq; an agent's unguarded rewrite is, and a guarded
// one is not.
func TestContentWarningOnlyWhereARaceIsReal(t *testing.T) {
	padd, _ := binaries(t)
	home := startPadd(t, padd)
	dir := t.TempDir()
	_, must := inProcess(t, home, dir)
	must("init", "--name", "Warnings")
	must("item", "create", "tasks", "Fix login", "--content", "first")
	const warning = "without --expected-seq"
	for i, c := range []struct {
		vars map[string]string
		args []string
		warn bool
	}{
		{nil, nil, false},
		{map[string]string{"PAD_AGENT": "claude"}, nil, true},
		{map[string]string{"PAD_AGENT": "claude"}, []string{"--expected-seq", "SEQ"}, false},
	} {
		seq := decode[itemResult](t, must("item", "show", "TASK-1", "--format", "json")).Seq
		args := []string{"item", "update", "TASK-1", "--content", "edit " + strings.Repeat("x", i+1)}
		for _, a := range c.args {
			args = append(args, strings.ReplaceAll(a, "SEQ", strconv.FormatInt(seq, 10)))
		}
		r := runInProcess(t, home, dir, c.vars, args...)
		if r.code != 0 {
			t.Fatalf("%v: %s", args, r)
		}
		if got := strings.Contains(r.stderr, warning); got != c.warn {
			t.Errorf("%v with %v: warned %v, want %v: %s", args, c.vars, got, c.warn, r)
		}
	}
}
