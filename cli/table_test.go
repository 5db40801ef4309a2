package cli

import (
	"strings"
	"testing"
)

// A value added whole is wrapped at the terminal's width, never cut: a
// sync error's reason is read in full.
func TestKeyValuesWholeWraps(t *testing.T) {
	reason := "remote: POST /workspaces/w/items/TASK-1/comments: outcome unknown: read tcp 127.0.0.1:1->127.0.0.1:2: connection reset by peer"
	kv := &keyValues{}
	kv.add("state", plain("offline"))
	kv.addWhole("last error", plain(reason))
	var b strings.Builder
	kv.write(&b, Style{Width: 60}, "")
	out := b.String()
	if strings.Contains(out, "…") {
		t.Errorf("cut:\n%s", out)
	}
	var got []string
	for i, l := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		if textWidth(l) > 60 {
			t.Errorf("line %d is %d columns: %q", i, textWidth(l), l)
		}
		if i > 0 {
			got = append(got, strings.TrimSpace(strings.TrimPrefix(l, "last error")))
		}
	}
	if joined := strings.Join(got, " "); joined != reason {
		t.Errorf("wrapped text reads %q, want %q", joined, reason)
	}
}

// Emoji take the columns a terminal gives them, so a table's next column
// starts at the same place on every row (issue 41: a ✅ shifted it):
// East Asian Wide by Unicode is two, a text symbol made an emoji by
// U+FE0F is two, and a joined sequence (ZWJ, skin tone, flag) is one
// glyph of two.
func TestEmojiWidth(t *testing.T) {
	for _, c := range []struct {
		s string
		w int
	}{
		{"✅", 2}, {"✨", 2}, {"⭐", 2}, {"⚡", 2}, {"☕", 2}, {"⏳", 2}, {"❌", 2}, {"🚀", 2}, {"🐛", 2},
		{"⚠️", 2}, {"❤️", 2}, {"✔️", 2}, {"1️⃣", 2}, // U+FE0F asks for the emoji
		{"⚠", 1}, {"✔", 1}, {"©", 1}, // without it, a text symbol
		{"👩‍💻", 2}, {"👍🏽", 2}, {"👩‍❤️‍👨", 2}, {"🇩🇪", 2},
		{"日本", 4}, {"한국", 4}, {"e\u0301", 1}, {"Überprüfung", 11},
		{"क्\u200dष", 2}, // ZWJ joins Indic letters too: only after an emoji is the next rune part of a glyph
	} {
		if got := textWidth(c.s); got != c.w {
			t.Errorf("textWidth(%q) = %d, want %d", c.s, got, c.w)
		}
	}
	tb := &table{cols: []column{{header: "TITLE", flex: true}, {header: "STATUS"}}}
	for _, title := range []string{"Plain", "✅ Ship it", "⚠️ Check", "👩‍💻 Pair", "Überprüfung 🚀"} {
		tb.add(plain(title), plain("open"))
	}
	var b strings.Builder
	_ = tb.write(&b, Style{Width: 80})
	want := `TITLE           STATUS
Plain           open
✅ Ship it      open
⚠️ Check        open
👩‍💻 Pair         open
Überprüfung 🚀  open
`
	if b.String() != want {
		t.Errorf("the status column moved:\n%s\nwant\n%s", b.String(), want)
	}
	if got := truncate("✅✅✅", 4); got != "✅…" {
		t.Errorf("truncate(✅✅✅, 4) = %q", got)
	}
	if got := truncate("⚠️ Check", 2); got != "⚠…" {
		t.Errorf("a cut between a symbol and its U+FE0F keeps the symbol as text: %q", got)
	}
}
