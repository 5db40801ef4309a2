package cli

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/alecthomas/kong"
)

// parseWith parses args with the model of root type t, as Run does, and
// returns what a user sees (help or kong's error), the selected command
// and the parsed root.
func parseWith(t reflect.Type, args []string) (shown, command string, root reflect.Value) {
	var out bytes.Buffer
	a := &App{out: &out, errw: &out}
	parser, root := mustParser(t, a)
	func() {
		defer func() {
			if p := recover(); p != nil {
				if _, ok := p.(exitPanic); !ok {
					panic(p)
				}
			}
		}()
		kctx, err := parser.Parse(args)
		if err != nil {
			out.WriteString("error: " + err.Error())
			return
		}
		command = kctx.Command()
	}()
	return out.String(), command, root
}

// parsed is what parseWith returns.
type parsed struct {
	shown, command string
	root           reflect.Value
}

// parseBoth parses args with the whole model and with the one prunePath
// picks; ok is false (and the test marked failed) when args get no
// pruned model.
func parseBoth(t *testing.T, args []string) (full, pruned parsed, ok bool) {
	t.Helper()
	path, ok := prunePath(args)
	if !ok {
		t.Errorf("%q: not pruned", args)
		return full, pruned, false
	}
	whole := reflect.TypeFor[Root]()
	full.shown, full.command, full.root = parseWith(whole, args)
	pruned.shown, pruned.command, pruned.root = parseWith(prunedType(whole, path), args)
	return full, pruned, true
}

// commandPaths lists every command of the full model as its words.
func commandPaths(t *testing.T) [][]string {
	parser, _ := mustParser(reflect.TypeFor[Root](), &App{out: &bytes.Buffer{}, errw: &bytes.Buffer{}})
	var paths [][]string
	var walk func(n *kong.Node, words []string)
	walk = func(n *kong.Node, words []string) {
		for _, c := range n.Children {
			if c.Type != kong.CommandNode {
				continue
			}
			p := append(append([]string(nil), words...), c.Name)
			paths = append(paths, p)
			for _, alias := range c.Aliases {
				paths = append(paths, append(append([]string(nil), words...), alias))
			}
			walk(c, p)
		}
	}
	walk(parser.Model.Node, nil)
	if len(paths) < 50 {
		t.Fatalf("only %d command paths in the model", len(paths))
	}
	return paths
}

// Every command's help is the same from its pruned model as from the
// whole one, and every command (by name and by alias) gets a pruned model.
func TestPrunedModelHelpIsTheSame(t *testing.T) {
	cases := [][]string{{"item", "--help", "list"}, {"-w", "x", "project", "-h"}}
	for _, words := range commandPaths(t) {
		cases = append(cases, append(words, "--help"))
	}
	for _, args := range cases {
		full, pruned, ok := parseBoth(t, args)
		if !ok {
			continue
		}
		if got, want := pruned.shown, full.shown; got != want {
			t.Errorf("padctl %s: help differs when pruned\n--- full\n%s\n--- pruned\n%s", strings.Join(args, " "), want, got)
		}
	}
}

// A pruned model parses a command line exactly as the whole one does:
// the same command, flags and arguments.
func TestPrunedModelParsesTheSame(t *testing.T) {
	for _, args := range [][]string{
		{"item", "list"},
		{"-w", "demo", "item", "ls", "tasks", "--status", "done", "--limit", "10"},
		{"--workspace=demo", "--format", "json", "item", "show", "TASK-1"},
		{"-wdemo", "item", "create", "task", "Fix it", "-f", "priority=high"},
		{"item", "-w", "item", "list"},
		{"item", "bulk-update", "TASK-1", "TASK-2", "--status", "done"},
		{"project", "next", "--format=markdown"},
		{"workspace", "list"},
		{"mcp", "serve"},
		{"version"},
		{"search", "hello world"},
		{"daemon", "status", "-w", "x"},
	} {
		want, got, ok := parseBoth(t, args)
		if !ok {
			continue
		}
		if want.command == "" {
			t.Errorf("%q: selects no command: %s", args, want.shown)
		}
		if d := parseDiff(args, want, got); d != "" {
			t.Errorf("%q: %s", args, d)
		}
	}
}

// parseDiff says how a pruned parse differs from the whole model's: what
// was shown, the command, the global flags, the command's values.
func parseDiff(args []string, want, got parsed) string {
	if got.shown != want.shown || got.command != want.command {
		return fmt.Sprintf("pruned %q %q, full %q %q", got.command, got.shown, want.command, want.shown)
	}
	for _, name := range []string{"WorkspaceFlag", "Format"} {
		if g, w := got.root.FieldByName(name).Interface(), want.root.FieldByName(name).Interface(); g != w {
			return fmt.Sprintf("%s pruned %v, full %v", name, g, w)
		}
	}
	g, w := got.root, want.root
	path, _ := prunePath(args)
	for _, f := range path {
		g, w = g.Field(indexOf(g.Type(), w.Type().Field(f).Name)), w.Field(f)
	}
	if !reflect.DeepEqual(g.Interface(), w.Interface()) {
		return fmt.Sprintf("command values pruned %+v, full %+v", g.Interface(), w.Interface())
	}
	return ""
}

// Whatever the command line, a pruned model that parses it (or shows
// help for it) parses it as the whole model does; one that refuses it is
// replaced by the whole model in Run, so only success is compared.
func FuzzPrunedModel(f *testing.F) {
	for _, args := range []string{"item list", "-w demo item ls tasks --status done", "--format=json item show TASK-1",
		"-wdemo item create task x -f a=b", "item -w item list", "project next --help", "item --help list",
		"workspace create Demo", "item update TASK-1 --title t -f priority=high", "mcp install cursor", "daemon status"} {
		f.Add(args)
	}
	f.Fuzz(func(t *testing.T, line string) {
		args := strings.Fields(line)
		if len(args) > 12 {
			return
		}
		path, ok := prunePath(args)
		if !ok {
			return
		}
		whole := reflect.TypeFor[Root]()
		var want, got parsed
		got.shown, got.command, got.root = parseWith(prunedType(whole, path), args)
		if strings.HasPrefix(got.shown, "error: ") {
			return // Run asks the whole model
		}
		want.shown, want.command, want.root = parseWith(whole, args)
		if d := parseDiff(args, want, got); d != "" {
			t.Fatalf("%q: %s", args, d)
		}
	})
}

func indexOf(t reflect.Type, name string) int {
	f, _ := t.FieldByName(name)
	return f.Index[0]
}

// What the scan is not sure of gets the whole model.
func TestPruneFallsBackToTheWholeModel(t *testing.T) {
	for _, args := range [][]string{
		{},
		{"--help"},
		{"-h", "item"},
		{"--", "item", "list"},
		{"--verbose", "item", "list"},
		{"itme", "list"},
		{"item", "lst"},
	} {
		if path, ok := prunePath(args); ok {
			t.Errorf("%q: pruned to %v", args, path)
		}
	}
	// A parse error of a pruned model is reported from the whole one, so
	// kong's suggestions see every command.
	args := []string{"item", "list", "--statsu", "done"}
	want, _, _ := parseWith(reflect.TypeFor[Root](), args)
	var out, errw bytes.Buffer
	noEnv := func(string) (string, bool) { return "", false }
	code := Run(t.Context(), args, Env{Stdout: &out, Stderr: &errw, Now: time.Now, LookupEnv: noEnv})
	if code != ExitUsage || !strings.HasPrefix(want, "error: ") || !strings.Contains(errw.String(), strings.TrimPrefix(want, "error: ")) {
		t.Fatalf("exit %d, stderr %q; the whole model says %q", code, errw.String(), want)
	}
}
