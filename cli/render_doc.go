package cli

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// doc is a view of several parts (a dashboard, a work brief, a report):
// an optional title, then sections, each holding key-value pairs, a
// table, lines and/or a Markdown body. One definition renders both for
// a terminal and as Markdown, so the two cannot drift apart. A view of
// one list is a doc of one section without a heading.
type doc struct {
	title    string
	sections []section
}

// section is one part of a doc. A section holding nothing prints its
// empty sentence, or is left out when it has none.
type section struct {
	heading string
	kv      *keyValues
	t       *table
	lines   []cell // sentences: one line each on a terminal; in Markdown a paragraph, or list items when several
	body    string // Markdown text (an item's body), shown as written
	empty   string // said when the section holds nothing
}

func (s *section) isEmpty() bool {
	return (s.kv == nil || len(s.kv.rows) == 0) && (s.t == nil || len(s.t.rows) == 0) &&
		len(s.lines) == 0 && strings.TrimSpace(s.body) == ""
}

// line adds a sentence to the section.
func (s *section) line(c cell) { s.lines = append(s.lines, c) }

func (d *doc) add(s section) { d.sections = append(d.sections, s) }

// write renders the doc for a terminal: the title in bold, headings in
// bold colour, parts separated by a blank line.
func (d doc) write(w io.Writer, st Style) error {
	var b strings.Builder
	gap := func() {
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
	}
	if d.title != "" {
		b.WriteString(st.paint(ansiBold, clean(d.title)) + "\n")
	}
	for i := range d.sections {
		s := &d.sections[i]
		if s.isEmpty() && s.empty == "" {
			continue
		}
		gap()
		if s.heading != "" {
			b.WriteString(st.paint(ansiBold+ansiCyan, clean(s.heading)) + "\n")
		}
		if s.isEmpty() {
			b.WriteString(s.empty + "\n")
			continue
		}
		if s.kv != nil {
			s.kv.write(&b, st, "")
		}
		if s.t != nil && len(s.t.rows) > 0 {
			if s.kv != nil {
				b.WriteByte('\n')
			}
			_ = s.t.write(&b, st)
		}
		for _, l := range s.lines {
			b.WriteString(st.paint(l.color, l.text) + "\n")
		}
		if body := strings.TrimRight(s.body, "\n"); strings.TrimSpace(body) != "" {
			if s.kv != nil || s.t != nil || len(s.lines) > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(sanitizeBlock(body) + "\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeMarkdown renders the doc as Markdown: "# title", "## heading",
// GitHub tables, lines as a paragraph or a list, bodies as written.
func (d doc) writeMarkdown(w io.Writer) error {
	var b strings.Builder
	gap := func() {
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
	}
	if d.title != "" {
		b.WriteString("# " + mdCell(d.title) + "\n")
	}
	for i := range d.sections {
		s := &d.sections[i]
		if s.isEmpty() && s.empty == "" {
			continue
		}
		gap()
		if s.heading != "" {
			b.WriteString("## " + mdCell(s.heading) + "\n\n")
		}
		if s.isEmpty() {
			b.WriteString("_" + mdCell(s.empty) + "_\n")
			continue
		}
		parts := 0
		sep := func() {
			if parts > 0 {
				b.WriteByte('\n')
			}
			parts++
		}
		if s.kv != nil {
			sep()
			_ = s.kv.writeMarkdown(&b)
		}
		if s.t != nil && len(s.t.rows) > 0 {
			sep()
			_ = s.t.writeMarkdown(&b)
		}
		switch {
		case len(s.lines) == 1: // a sentence is a paragraph
			sep()
			b.WriteString(s.lines[0].mdText() + "\n")
		case len(s.lines) > 1:
			sep()
			for _, l := range s.lines {
				b.WriteString("- " + l.mdText() + "\n")
			}
		}
		if body := strings.TrimRight(s.body, "\n"); strings.TrimSpace(body) != "" {
			sep()
			b.WriteString(sanitizeBlock(body) + "\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// docView is a view drawn as a doc. doc's markdown asks for absolute
// times (a document outlives "5m ago"); jsonValue is what --format json
// prints instead: padd's answer, its JSON-text members decoded.
type docView interface {
	doc(markdown bool) doc
	jsonValue() any
}

// emitDoc prints a doc view in the chosen format.
func (a *App) emitDoc(v docView) error {
	return a.emit(v.jsonValue(), func(w io.Writer) error { return v.doc(false).write(w, a.style) },
		func(w io.Writer) error { return v.doc(true).writeMarkdown(w) })
}

// span is a piece of a line that may be highlighted (a search match).
type span struct {
	text string
	mark bool
}

// Search highlights are wrapped in <mark>...</mark> by padd.
const (
	markOpen  = "<mark>"
	markClose = "</mark>"
)

// splitMarks cuts a snippet at its <mark> tags. An unclosed mark runs
// to the end; a stray closing tag is dropped.
func splitMarks(s string) []span {
	var out []span
	for s != "" {
		i := strings.Index(s, markOpen)
		if i < 0 {
			out = append(out, span{text: strings.ReplaceAll(s, markClose, "")})
			break
		}
		if i > 0 {
			out = append(out, span{text: strings.ReplaceAll(s[:i], markClose, "")})
		}
		s = s[i+len(markOpen):]
		j := strings.Index(s, markClose)
		if j < 0 {
			j = len(s)
		}
		out = append(out, span{text: s[:j], mark: true})
		s = strings.TrimPrefix(s[j:], markClose)
	}
	return out
}

// writeSpans renders a line of spans cut to max columns (with an
// ellipsis). A highlight is bold yellow when colour is on, else in
// [brackets], so it shows without a single escape code.
func writeSpans(spans []span, st Style, max int) string {
	if max < 1 {
		return ""
	}
	type piece struct{ text, color string }
	pieces := make([]piece, 0, len(spans))
	total := 0
	for _, sp := range spans {
		p := piece{text: clean(sp.text)}
		if sp.mark && p.text != "" {
			p.color = ansiBold + ansiYellow
			if !st.Color {
				p.text = "[" + p.text + "]"
			}
		}
		total += textWidth(p.text)
		pieces = append(pieces, p)
	}
	if total > max {
		room := max - 1 // the ellipsis takes the last column
		for i := range pieces {
			if w := textWidth(pieces[i].text); w <= room {
				room -= w
				continue
			}
			pieces[i].text = widthPrefix(pieces[i].text, room) + "…"
			pieces = pieces[:i+1]
			break
		}
	}
	var b strings.Builder
	for _, p := range pieces {
		b.WriteString(st.paint(p.color, p.text))
	}
	return b.String()
}

// widthPrefix is the longest prefix of clean text at most max columns
// wide.
func widthPrefix(s string, max int) string {
	var m widthRun
	w := 0
	for i, r := range s {
		if w += m.next(r); w > max {
			return s[:i]
		}
	}
	return s
}

// spansMarkdown renders spans as Markdown, highlights in bold.
func spansMarkdown(spans []span) string {
	var b strings.Builder
	for _, sp := range spans {
		text := mdCell(sp.text)
		if sp.mark && strings.TrimSpace(text) != "" {
			text = "**" + text + "**"
		}
		b.WriteString(text)
	}
	return b.String()
}

// spansText is the plain text of spans.
func spansText(spans []span) string {
	var b strings.Builder
	for _, sp := range spans {
		b.WriteString(sp.text)
	}
	return b.String()
}

// parseTime reads a wire time (RFC 3339, as padd writes them in its
// views); zero when empty or unreadable.
func parseTime(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}
	}
	return t
}

// when renders a time for a view: "5m ago" for a terminal, absolute for
// Markdown.
func when(t, now time.Time, markdown bool) cell {
	if markdown {
		return plain(stamp(t))
	}
	return cell{text: ago(t, now), color: ansiDim}
}

// whenText is when for a wire time string.
func whenText(s string, now time.Time, markdown bool) cell { return when(parseTime(s), now, markdown) }

// counted is "Heading (n)", or "Heading (n of total)" when a list was
// cut.
func counted(heading string, shown, total int) string {
	if total > shown {
		return fmt.Sprintf("%s (%d of %d)", heading, shown, total)
	}
	return fmt.Sprintf("%s (%d)", heading, shown)
}
