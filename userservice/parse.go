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

func unitPadHome(unit string) string {
	_, env, err := UnitCommand(unit)
	if err != nil {
		return ""
	}
	home := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PAD_HOME="); ok {
			home = v
		}
	}
	return home
}

// plistPadHome reads PAD_HOME back from a plist LaunchAgent rendered.
func plistPadHome(plist string) string {
	_, rest, ok := strings.Cut(plist, "<key>PAD_HOME</key>")
	if !ok {
		return ""
	}
	_, rest, ok = strings.Cut(rest, "<string>")
	if !ok {
		return ""
	}
	v, _, _ := strings.Cut(rest, "</string>")
	return strings.NewReplacer("&lt;", "<", "&gt;", ">", "&quot;", `"`, "&apos;", "'", "&amp;", "&").Replace(v)
}

// desktopPadHome reads --home back from an autostart entry's Exec key.
func desktopPadHome(entry string) string {
	for _, l := range strings.Split(entry, "\n") {
		if v, ok := strings.CutPrefix(l, "Exec="); ok {
			// Undo the string escape, then the Exec quoting (a backslash
			// escapes the next character inside quotes), then %%.
			v = strings.NewReplacer(`\\`, `\`, `\n`, "\n", `\t`, "\t").Replace(v)
			words, err := splitWords(v)
			if err != nil {
				return ""
			}
			for i, w := range words {
				words[i] = strings.ReplaceAll(w, "%%", "%")
			}
			return homeFlag(words)
		}
	}
	return ""
}

func homeFlag(argv []string) string {
	for i, w := range argv {
		if w == "--home" && i+1 < len(argv) {
			return argv[i+1]
		}
	}
	return ""
}

// windowsSplit reads a command line as CommandLineToArgvW does.
func windowsSplit(s string) []string {
	var out []string
	var cur strings.Builder
	inQuote, have := false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\':
			n := 0
			for i < len(s) && s[i] == '\\' {
				n++
				i++
			}
			if i < len(s) && s[i] == '"' {
				cur.WriteString(strings.Repeat(`\`, n/2))
				if n%2 == 1 {
					cur.WriteByte('"')
				} else {
					inQuote = !inQuote
				}
			} else {
				cur.WriteString(strings.Repeat(`\`, n))
				i--
			}
			have = true
		case c == '"':
			inQuote = !inQuote
			have = true
		case (c == ' ' || c == '\t') && !inQuote:
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
	if have {
		out = append(out, cur.String())
	}
	return out
}
