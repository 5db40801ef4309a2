package cli

import (
	"fmt"
	"io"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/width"
)

// ANSI SGR colours used on a terminal. They are written only around
// already-padded text, so they never disturb the column arithmetic.
const (
	ansiReset  = "\x1b[0m"
	ansiBold   = "\x1b[1m"
	ansiDim    = "\x1b[2m"
	ansiRed    = "\x1b[31m"
	ansiGreen  = "\x1b[32m"
	ansiYellow = "\x1b[33m"
	ansiBlue   = "\x1b[34m"
	ansiCyan   = "\x1b[36m"
)

// paint wraps s in an SGR colour when the style allows colour.
func (st Style) paint(color, s string) string {
	if !st.Color || color == "" || s == "" {
		return s
	}
	return color + s + ansiReset
}

// Status words by the colour they get. Pad's collections name their
// states freely, so this is a vocabulary, not a schema: anything unknown
// stays uncoloured.
var statusColors = map[string]string{}

func init() {
	for color, words := range map[string][]string{
		ansiGreen:  {"done", "completed", "fixed", "implemented", "resolved", "accepted", "published"},
		ansiYellow: {"in-progress", "exploring", "active", "review", "paused", "blocked"},
		ansiBlue:   {"open", "new", "draft", "todo", "planned", "proposed"},
		ansiRed:    {"cancelled", "canceled", "rejected", "wontfix"},
		ansiDim:    {"archived", "disabled", "deprecated"},
	} {
		for _, w := range words {
			statusColors[w] = color
		}
	}
}

var priorityColors = map[string]string{
	"critical": ansiRed + ansiBold, "urgent": ansiRed + ansiBold, "high": ansiYellow,
	"must": ansiYellow, "low": ansiDim,
}

func statusColor(s string) string {
	return statusColors[strings.ReplaceAll(strings.ToLower(s), "_", "-")]
}

func priorityColor(p string) string { return priorityColors[strings.ToLower(p)] }

// clean makes stored text safe and single-line for a table cell: control
// characters (including ESC, so data cannot drive the terminal) and bidi
// embeddings, overrides and isolates (which would reorder what is shown
// after them) are dropped, and line breaks and tabs become spaces.
func clean(s string) string { return sanitize(s, false) }

// sanitizeBlock is clean for multi-line text (an item's content): line
// breaks and tabs are kept, carriage returns and other controls dropped.
func sanitizeBlock(s string) string { return sanitize(s, true) }

func sanitize(s string, block bool) string {
	if !needsSanitize(s, block) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	rs := []rune(s)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case r == 0x1b:
			i = skipEscape(rs, i)
		case block && (r == '\n' || r == '\t'):
			b.WriteRune(r)
		case block && r == '\r':
			// dropped: CRLF becomes LF
		case r == '\n' || r == '\r' || r == '\t':
			b.WriteByte(' ')
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || isBidiControl(r):
			// dropped
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// isBidiControl reports the bidi embeddings and overrides
// (U+202A-U+202E) and isolates (U+2066-U+2069): what remote text could
// use to show a terminal's reader something else than it holds. The
// marks (U+200E, U+200F, U+061C) reorder nothing and are kept.
func isBidiControl(r rune) bool { return (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) }

// needsSanitize reports whether s holds anything sanitize changes: a C0
// control or DEL (a line break or tab in block text is kept), a C1
// control (U+0080-U+009F, encoded 0xC2 0x80-0x9F), a bidi control
// (0xE2 0x80 0xAA-0xAE, 0xE2 0x81 0xA6-0xA9), or invalid UTF-8. Most
// text holds none, and is returned as it is.
func needsSanitize(s string, block bool) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 && !(block && (c == '\n' || c == '\t')) || c == 0x7f {
			return true
		}
		if c == 0xc2 && i+1 < len(s) && s[i+1] >= 0x80 && s[i+1] < 0xa0 {
			return true
		}
		if c == 0xe2 && i+2 < len(s) && ((s[i+1] == 0x80 && s[i+2] >= 0xaa && s[i+2] <= 0xae) || (s[i+1] == 0x81 && s[i+2] >= 0xa6 && s[i+2] <= 0xa9)) {
			return true
		}
	}
	return !utf8.ValidString(s)
}

// skipEscape returns the index of the last rune of the escape sequence
// starting at rs[i] (an ESC): a CSI (ESC [ ... final byte), an OSC (ESC ]
// ... BEL or ESC \\), or a two-rune escape. Dropping the whole sequence
// leaves no "[31m" litter behind.
func skipEscape(rs []rune, i int) int {
	if i+1 >= len(rs) {
		return i
	}
	switch rs[i+1] {
	case '[':
		for j := i + 2; j < len(rs); j++ {
			if rs[j] >= 0x40 && rs[j] <= 0x7e {
				return j
			}
		}
		return len(rs) - 1
	case ']':
		for j := i + 2; j < len(rs); j++ {
			if rs[j] == 0x07 {
				return j
			}
			if rs[j] == 0x1b && j+1 < len(rs) && rs[j+1] == '\\' {
				return j + 1
			}
		}
		return len(rs) - 1
	}
	return i + 1
}

// runeWidth is the terminal columns of a rune on its own: combining
// marks, zero-width joiners and variation selectors take none, what
// Unicode's East Asian Width calls wide or full-width (CJK, Hangul, the
// emoji shown as emoji by default: ✅ 🚀) takes two, everything else one.
// textWidth adds what a rune's neighbours change.
func runeWidth(r rune) int {
	if r < 0x300 { // Latin: the common case, before any combining mark
		return 1
	}
	switch {
	case r == zwj || (r >= 0xfe00 && r <= 0xfe0f) || r == 0x200b:
		return 0
	case unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Me, r):
		return 0
	}
	switch width.LookupRune(r).Kind() {
	case width.EastAsianWide, width.EastAsianFullwidth:
		return 2
	}
	return 1
}

const (
	zwj  = 0x200d // zero-width joiner: 👩 ZWJ 💻 is one glyph
	vs16 = 0xfe0f // variation selector 16: the rune before it as an emoji
)

// widthRun measures text a rune at a time with what came before it, as
// a terminal draws it: U+FE0F widens a one-column symbol to an emoji of
// two (⚠️), and a rune joined by ZWJ or a skin tone after an emoji adds
// nothing to the glyph it joins.
type widthRun struct {
	prev  rune
	prevW int // the columns of the glyph prev belongs to
}

func (m *widthRun) next(r rune) int {
	w := runeWidth(r)
	switch {
	case r == vs16 && m.prevW == 1 && (m.prev >= 0x80 || isKeycapBase(m.prev)):
		w, m.prevW = 1, 2
	case m.prev == zwj && m.prevW == 2 && w > 0: // after an emoji only: Indic scripts join letters with ZWJ too
		w = 0
	case r >= 0x1f3fb && r <= 0x1f3ff && m.prevW == 2: // a skin tone on the emoji before it
		w = 0
	case w > 0:
		m.prevW = w
	}
	m.prev = r
	return w
}

// isKeycapBase reports the ASCII runes a keycap emoji is made of (1️⃣).
func isKeycapBase(r rune) bool { return r == '#' || r == '*' || r >= '0' && r <= '9' }

// textWidth is the display width of clean (escape-free) text.
func textWidth(s string) int {
	var m widthRun
	n := 0
	for _, r := range s {
		n += m.next(r)
	}
	return n
}

// truncate cuts clean text to at most max columns, marking the cut with
// an ellipsis.
func truncate(s string, max int) string {
	if textWidth(s) <= max {
		return s
	}
	if max <= 0 {
		return ""
	}
	var m widthRun
	w := 0
	for i, r := range s {
		rw := m.next(r)
		if w+rw > max-1 {
			return s[:i] + "…"
		}
		w += rw
	}
	return s + "…"
}

// truncateMiddle cuts clean text to at most max columns in its middle,
// keeping its start and its end (half the room or more): for a file name,
// whose end (a ".rotate" before the extension, a number) tells it from
// its neighbours.
func truncateMiddle(s string, max int) string {
	if textWidth(s) <= max {
		return s
	}
	if max <= 1 {
		return truncate(s, max)
	}
	type glyph struct {
		at, w int
		joins bool // part of the glyph before it (a mark, U+FE0F, a joined emoji)
	}
	var gs []glyph
	var m widthRun
	for i, r := range s {
		w := m.next(r)
		gs = append(gs, glyph{at: i, w: w, joins: w == 0 || r == vs16})
	}
	room := max - 1
	head, hw := 0, 0
	for head < len(gs) && hw+gs[head].w <= room/2 {
		hw += gs[head].w
		head++
	}
	tail, tw := len(gs), 0
	for tail > head && hw+tw+gs[tail-1].w <= room {
		tw += gs[tail-1].w
		tail--
	}
	for tail < len(gs) && gs[tail].joins { // never start on half a glyph
		tail++
	}
	end := len(s)
	if tail < len(gs) {
		end = gs[tail].at
	}
	cut := len(s)
	if head < len(gs) {
		cut = gs[head].at
	}
	return s[:cut] + "…" + s[end:]
}

// cell is one table cell: clean text and the colour it is painted with.
// md, when set, is the cell as Markdown, already escaped (a search
// snippet with its matches in bold); Markdown output uses it instead of
// the escaped text.
type cell struct {
	text  string
	color string
	md    string
}

// mdText is the cell as Markdown.
func (c cell) mdText() string {
	if c.md != "" {
		return c.md
	}
	return mdCell(c.text)
}

func plain(s string) cell { return cell{text: clean(s)} }

// column describes a table column. Flexible columns share the width
// left by the others and are truncated to fit; the others are never cut
// (a ref or a status must stay whole).
type column struct {
	header string
	flex   bool
	// min is the width below which a flexible column is not squeezed.
	min int
	// middle cuts a squeezed cell in its middle, not at its end: a file
	// name's end tells it from its neighbours.
	middle bool
}

// table is a human table laid out to a width.
type table struct {
	cols []column
	rows [][]cell
	// below holds a line printed under a row (a search hit's snippet),
	// by row index: indented to the second column and cut to the width.
	// Markdown tables have no room for it; views that need it there give
	// it a column of its own.
	below map[int][]span
}

// add appends a row. Every cell's text is cleaned here, whoever made it:
// no text in a table can drive the terminal.
func (t *table) add(cells ...cell) {
	for i := range cells {
		cells[i].text = clean(cells[i].text)
	}
	t.rows = append(t.rows, cells)
}

// addBelow puts a line under the row added last.
func (t *table) addBelow(line []span) {
	if t.below == nil {
		t.below = map[int][]span{}
	}
	t.below[len(t.rows)-1] = line
}

const colGap = 2

// write renders the table: a header, then rows, columns separated by two
// spaces, the flexible columns squeezed (and their cells truncated) when the
// natural width exceeds st.Width. Trailing spaces are never written.
func (t *table) write(w io.Writer, st Style) error {
	widths := make([]int, len(t.cols))
	for i, c := range t.cols {
		widths[i] = textWidth(c.header)
	}
	for _, r := range t.rows {
		for i := range t.cols {
			if i < len(r) {
				widths[i] = max(widths[i], textWidth(r[i].text))
			}
		}
	}
	total := colGap * (len(widths) - 1)
	for i := range t.cols {
		total += widths[i]
	}
	// Squeeze the widest flexible column a column at a time, so several
	// flexible columns end up sharing the room evenly; none goes below
	// its floor.
	for ; total > st.Width; total-- {
		widest := -1
		for i, c := range t.cols {
			if c.flex && widths[i] > max(c.min, textWidth(c.header)) && (widest < 0 || widths[i] > widths[widest]) {
				widest = i
			}
		}
		if widest < 0 {
			break
		}
		widths[widest]--
	}
	var b strings.Builder
	line := func(cells []cell, header bool) {
		b.Reset()
		last := len(t.cols) - 1
		for last > 0 && (last >= len(cells) || cells[last].text == "") {
			last-- // no trailing blank columns
		}
		for i := 0; i <= last; i++ {
			var c cell
			if i < len(cells) {
				c = cells[i]
			}
			text := c.text
			switch {
			case t.cols[i].middle:
				text = truncateMiddle(text, widths[i])
			case t.cols[i].flex:
				text = truncate(text, widths[i])
			}
			pad := ""
			if i < last {
				pad = strings.Repeat(" ", max(0, widths[i]-textWidth(text))+colGap)
			}
			color := c.color
			if header {
				color = ansiDim
			}
			b.WriteString(st.paint(color, text))
			b.WriteString(pad)
		}
		b.WriteByte('\n')
		_, _ = io.WriteString(w, b.String())
	}
	hdr := make([]cell, len(t.cols))
	for i, c := range t.cols {
		hdr[i] = cell{text: c.header}
	}
	line(hdr, true)
	indent := 0
	if len(widths) > 1 {
		indent = widths[0] + colGap
	}
	for i, r := range t.rows {
		line(r, false)
		if sp := t.below[i]; len(sp) > 0 {
			_, _ = io.WriteString(w, strings.Repeat(" ", indent)+writeSpans(sp, st, st.Width-indent)+"\n")
		}
	}
	return nil
}

// writeMarkdown renders the table as a GitHub-flavoured Markdown table,
// unpadded and uncoloured, every cell escaped.
func (t *table) writeMarkdown(w io.Writer) error {
	var b strings.Builder
	b.WriteString("|")
	for _, c := range t.cols {
		b.WriteString(" " + mdCell(c.header) + " |")
	}
	b.WriteString("\n|")
	for range t.cols {
		b.WriteString(" --- |")
	}
	b.WriteByte('\n')
	for _, r := range t.rows {
		b.WriteString("|")
		for i := range t.cols {
			text := ""
			if i < len(r) {
				text = r[i].mdText()
			}
			b.WriteString(" " + text + " |")
		}
		b.WriteByte('\n')
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// mdEscaper escapes text for a Markdown table cell: a pipe would end
// the cell, a backslash would escape the next character, and an asterisk
// (the terminal-option mark) would start emphasis.
var mdEscaper = strings.NewReplacer(`\`, `\\`, "|", `\|`, "*", `\*`)

func mdCell(s string) string { return mdEscaper.Replace(clean(s)) }

// keyValues is a two-column list ("status    open") for detail views.
// A value longer than the terminal is cut, or wrapped when added whole.
type keyValues struct {
	rows  [][2]cell
	whole map[int]bool // rows wrapped, never cut
}

func (kv *keyValues) add(key string, value cell) {
	value.text = clean(value.text) // as table.add
	if value.text != "" {
		kv.rows = append(kv.rows, [2]cell{{text: clean(key)}, value})
	}
}

// addWhole adds a value the reader needs whole (an error's reason):
// wrapped at the terminal's width, never cut.
func (kv *keyValues) addWhole(key string, value cell) {
	n := len(kv.rows)
	kv.add(key, value)
	if len(kv.rows) > n {
		if kv.whole == nil {
			kv.whole = map[int]bool{}
		}
		kv.whole[n] = true
	}
}

// wrapText breaks clean text into lines of at most room columns, at
// spaces where it can, inside a word longer than a line where it must.
func wrapText(s string, room int) []string {
	var lines []string
	var line strings.Builder
	w := 0
	flush := func() {
		lines = append(lines, strings.TrimRight(line.String(), " "))
		line.Reset()
		w = 0
	}
	for i, word := range strings.Split(s, " ") {
		ww := textWidth(word)
		if i > 0 && w > 0 && w+1+ww > room {
			flush()
		} else if i > 0 {
			line.WriteByte(' ')
			w++
		}
		var m widthRun
		for _, r := range word {
			if rw := m.next(r); w+rw > room && r != vs16 { // a U+FE0F stays with its symbol
				flush()
				line.WriteRune(r)
				w = rw
			} else {
				line.WriteRune(r)
				w += rw
			}
		}
	}
	flush()
	return lines
}

func (kv *keyValues) write(w io.Writer, st Style, indent string) {
	width := 0
	for _, r := range kv.rows {
		width = max(width, textWidth(r[0].text))
	}
	for i, r := range kv.rows {
		room := st.Width - len(indent) - width - colGap
		lines := []string{r[1].text}
		switch {
		case room <= 10:
		case kv.whole[i]:
			lines = wrapText(r[1].text, room)
		default:
			lines[0] = truncate(r[1].text, room)
		}
		key := st.paint(ansiDim, r[0].text) + strings.Repeat(" ", width-textWidth(r[0].text)+colGap)
		for j, val := range lines {
			if j > 0 {
				key = strings.Repeat(" ", width+colGap)
			}
			fmt.Fprintf(w, "%s%s%s\n", indent, key, st.paint(r[1].color, val))
		}
	}
}

// writeMarkdown renders the pairs as a two-column Markdown table.
func (kv *keyValues) writeMarkdown(w io.Writer) error {
	t := table{cols: []column{{header: "Field"}, {header: "Value"}}}
	for _, r := range kv.rows {
		t.add(r[0], r[1])
	}
	return t.writeMarkdown(w)
}

// ago renders a time relative to now for people: "just now", "5m ago",
// "3h ago", "2d ago", then the date.
func ago(t, now time.Time) string {
	if t.IsZero() {
		return ""
	}
	d := now.Sub(t)
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return fmt.Sprintf("%dm ago", int(d.Minutes()))
	case d < 24*time.Hour:
		return fmt.Sprintf("%dh ago", int(d.Hours()))
	case d < 30*24*time.Hour:
		return fmt.Sprintf("%dd ago", int(d.Hours()/24))
	}
	return t.UTC().Format("2006-01-02")
}

// stamp renders a time absolutely, for Markdown (a document outlives
// "5m ago") and detail views.
func stamp(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format("2006-01-02 15:04 UTC")
}
