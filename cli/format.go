package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"golang.org/x/term"
)

// Format is an output format: --format table|json|markdown.
type Format string

// The output formats.
const (
	FormatTable    Format = "table"
	FormatJSON     Format = "json"
	FormatMarkdown Format = "markdown"
)

// DefaultWidth is the table width when stdout is not a terminal (or its
// size is unknown): wide enough for a ref, a title and four short columns.
const DefaultWidth = 100

// Style is how human output is laid out: the width tables must fit and
// whether ANSI colour may be used. It is decided once per run from the
// terminal and the environment, and fixed in tests.
type Style struct {
	Width int
	Color bool
}

// detectStyle inspects stdout and the environment (see styleFor).
func detectStyle(out io.Writer, lookupEnv func(string) (string, bool)) Style {
	tty, width := false, 0
	if f, ok := out.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		tty = true
		if w, _, err := term.GetSize(int(f.Fd())); err == nil {
			width = w
		}
	}
	return styleFor(tty, width, lookupEnv)
}

// styleFor decides the style: a terminal gets its own width and colour
// (unless NO_COLOR is set, whatever its value, per no-color.org, or TERM
// is dumb); anything else gets DefaultWidth and no colour, so piped
// output is stable.
func styleFor(tty bool, width int, lookupEnv func(string) (string, bool)) Style {
	st := Style{Width: DefaultWidth}
	if !tty {
		return st
	}
	if width > 0 {
		st.Width = width
	}
	_, noColor := lookupEnv("NO_COLOR")
	termName, _ := lookupEnv("TERM")
	st.Color = !noColor && termName != "dumb"
	return st
}

// writeJSON prints v as indented JSON with a final newline. HTML is not
// escaped: the output is for scripts and terminals, not web pages.
func writeJSON(w io.Writer, v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("encode output: %w", err)
	}
	_, err := w.Write(buf.Bytes())
	return err
}
