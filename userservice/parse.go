package userservice

import (
	"fmt"
	"strings"
)

// UnitCommand reads back the ExecStart and Environment= lines of a unit
// this package rendered, the way systemd reads them: the command's words
// and the KEY=value pairs. The tests run it verbatim; status checks that
// the padd it names is still there.
func UnitCommand(unit string) (argv, env []string, err error) {
	for _, l := range strings.Split(unit, "\n") {
		switch {
		case strings.HasPrefix(l, "ExecStart="):
			if argv, err = SplitExec(strings.TrimPrefix(l, "ExecStart=")); err != nil {
				return nil, nil, err
			}
		case strings.HasPrefix(l, "Environment="):
			words, err := splitWords(strings.TrimPrefix(l, "Environment="))
			if err != nil {
				return nil, nil, err
			}
			for _, w := range words {
				env = append(env, strings.ReplaceAll(w, "%%", "%"))
			}
		}
	}
	if len(argv) == 0 {
		return nil, nil, fmt.Errorf("the unit has no ExecStart line")
	}
	return argv, env, nil
}

// SplitExec splits an Exec line into its words: quotes and C escapes as
// systemd reads them, then %% as a literal %, and in the arguments (not
// the executable) $$ as a literal $.
func SplitExec(line string) ([]string, error) {
	words, err := splitWords(line)
	for i, w := range words {
		w = strings.ReplaceAll(w, "%%", "%")
		if i > 0 {
			w = strings.ReplaceAll(w, "$$", "$")
		}
		words[i] = w
	}
	return words, err
}

func splitWords(line string) ([]string, error) {
	var out []string
	var cur strings.Builder
	var quote byte
	have := false
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == '\\':
			if i+1 >= len(line) {
				return nil, fmt.Errorf("a backslash ends %q", line)
			}
			i++
			switch line[i] {
			case 'n':
				cur.WriteByte('\n')
			case 't':
				cur.WriteByte('\t')
			default:
				cur.WriteByte(line[i])
			}
			have = true
		case quote != 0 && c == quote:
			quote = 0
		case quote == 0 && (c == '"' || c == '\''):
			quote, have = c, true
		case quote == 0 && (c == ' ' || c == '\t'):
			if have {
				out = append(out, cur.String())
				cur.Reset()
				have = false
			}
		default:
			cur.WriteByte(c)
			have = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("an unclosed quote in %q", line)
	}
	if have {
		out = append(out, cur.String())
	}
	return out, nil
}
