package cli

import (
	"reflect"
	"strings"
)

// Building kong's model of every padctl command costs a few milliseconds
// of reflection and tag parsing on each run, more than most commands
// spend talking to padd. A run names its command up front, so padctl
// builds the model of that command path alone: a copy of Root whose
// command groups keep only the command the arguments select.
//
// The pruned grammar is a subset of the full one, so an argument list it
// parses, the full grammar parses the same way. Anything the scan is not
// sure of (an unknown flag, "--", a name that is no command, the
// overview's help) gets the full model, and so does any parse error, so
// that kong's complaint and suggestions come from the whole grammar. A
// global flag added to Root and not to rootValueFlags only costs the
// saving: the scan does not know it and builds the full model.

// rootValueFlags are Root's flags that take a value, by every spelling.
var rootValueFlags = map[string]bool{"-w": true, "--workspace": true, "--format": true}

// prunePath returns the command fields to keep, one per level from Root,
// for args; ok is false when padctl should build the full model.
func prunePath(args []string) (path []int, ok bool) {
	t := reflect.TypeFor[Root]()
	for i := 0; i < len(args); i++ {
		arg := args[i]
		switch {
		case arg == "-h" || arg == "--help":
			if len(path) == 0 {
				return nil, false // the overview lists every command
			}
			return path, true // the group's help: its commands are all kept
		case arg == "--":
			return nil, false
		case strings.HasPrefix(arg, "-"):
			name, _, inline := strings.Cut(arg, "=")
			if !rootValueFlags[name] {
				if !strings.HasPrefix(arg, "--") && len(arg) > 2 && rootValueFlags[arg[:2]] {
					continue // -wSLUG
				}
				return nil, false
			}
			if !inline {
				i++
			}
			continue
		}
		f, found := subcommand(t, arg)
		if !found {
			return nil, false
		}
		path = append(path, f)
		t = t.Field(f).Type
		if !hasSubcommands(t) {
			return path, true
		}
	}
	return path, len(path) > 0
}

// subcommand finds the command field of group type t that name (or an
// alias) selects.
func subcommand(t reflect.Type, name string) (int, bool) {
	for i := range t.NumField() {
		f := t.Field(i)
		if _, isCmd := f.Tag.Lookup("cmd"); !isCmd {
			continue
		}
		if commandName(f) == name {
			return i, true
		}
		if aliases, ok := f.Tag.Lookup("aliases"); ok {
			for _, a := range strings.Split(aliases, ",") {
				if strings.TrimSpace(a) == name {
					return i, true
				}
			}
		}
	}
	return 0, false
}

// commandName is kong's name for a command field: its name tag, or the
// field name in kebab case.
func commandName(f reflect.StructField) string {
	if n, ok := f.Tag.Lookup("name"); ok && n != "" {
		return n
	}
	var b strings.Builder
	for i, r := range f.Name {
		if r >= 'A' && r <= 'Z' {
			if i > 0 {
				b.WriteByte('-')
			}
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}

func hasSubcommands(t reflect.Type) bool {
	if t.Kind() != reflect.Struct {
		return false
	}
	for i := range t.NumField() {
		if _, isCmd := t.Field(i).Tag.Lookup("cmd"); isCmd {
			return true
		}
	}
	return false
}

// prunedType is t with, at each level of path, only the chosen command
// field among the command fields; flags and arguments stay.
func prunedType(t reflect.Type, path []int) reflect.Type {
	if len(path) == 0 {
		return t
	}
	var fields []reflect.StructField
	for i := range t.NumField() {
		f := t.Field(i)
		if _, isCmd := f.Tag.Lookup("cmd"); isCmd {
			if i != path[0] {
				continue
			}
			f.Type = prunedType(f.Type, path[1:])
		}
		fields = append(fields, f)
	}
	return reflect.StructOf(fields)
}
