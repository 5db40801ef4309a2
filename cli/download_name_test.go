package cli

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/padd/padd/api"
)

// A remote attachment's name never becomes a dot-file, a path or a name
// a system refuses.
func TestDownloadName(t *testing.T) {
	for in, want := range map[string]string{
		".bashrc":                    "bashrc",
		"../../.ssh/authorized_keys": "authorized_keys",
		"..\\..\\evil.exe":           "evil.exe",
		"/etc/passwd":                "passwd",
		"...":                        "att_1",
		"":                           "att_1",
		"a\x1b]52;c;aGk=\x07b.txt":   "a]52;c;aGk=b.txt",
		"CON.txt":                    "_CON.txt",
		"nul":                        "_nul",
		"report. ":                   "report",
		"what?<>|*\".png":            "what.png",
		"Überweisung 2026.png":       "Überweisung 2026.png",
		"スクリーンショット.png":              "スクリーンショット.png",
		"receipt-scan.png":           "receipt-scan.png",
	} {
		if got := downloadName(in, "att_1"); got != want {
			t.Errorf("downloadName(%q) = %q, want %q", in, got, want)
		}
	}
	long := downloadName(strings.Repeat("語", 200)+".png", "x")
	if len(long) > maxDownloadName || !utf8.ValidString(long) {
		t.Errorf("a long name is %d bytes (valid: %v)", len(long), utf8.ValidString(long))
	}
	if got := downloadName("../.", "../.hidden"); got != "hidden" {
		t.Errorf("a bad fallback gives %q", got)
	}
}

// A name too long for its column is cut in the middle, so an image and
// its rotated copy (the same name but for ".rotate" before the
// extension) stay told apart, and the extension shows.
func TestAttachmentListKeepsNamesApart(t *testing.T) {
	name := "Bildschirmfoto 2026-12-07 um 14.03.11 Überweisung"
	atts := []api.Attachment{
		{ID: "att_1", ItemRef: "TASK-1", Filename: name + ".png", MimeType: "image/png", SizeBytes: 2048, CreatedAt: "2026-12-07T14:03:11Z"},
		{ID: "att_2", ItemRef: "TASK-1", Filename: name + ".rotate.png", MimeType: "image/png", SizeBytes: 2048, CreatedAt: "2026-12-07T14:04:00Z"},
	}
	var b strings.Builder
	if err := attachmentTable(atts).write(&b, Style{Width: 90}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
	if len(lines) != 3 {
		t.Fatalf("want a header and two rows:\n%s", b.String())
	}
	orig, rotated := lines[1], lines[2]
	if !strings.Contains(orig, "…") || !strings.Contains(orig, "Überweisung.png ") || !strings.Contains(rotated, ".rotate.png ") ||
		!strings.Contains(orig, "Bildschirm") {
		t.Errorf("the names are not cut in the middle:\n%s", b.String())
	}
	for i, l := range lines {
		if w := textWidth(l); w > 90 {
			t.Errorf("line %d is %d columns wide: %q", i, w, l)
		}
	}
	for _, c := range []struct {
		in   string
		max  int
		want string
	}{
		{"report.pdf", 10, "report.pdf"},
		{"annual-report-2026.pdf", 12, "annua…26.pdf"},
		{"スクリーンショット.png", 13, "スクリ…ト.png"},
		{"abc", 1, "…"},
	} {
		got := truncateMiddle(c.in, c.max)
		if got != c.want || textWidth(got) > c.max {
			t.Errorf("truncateMiddle(%q, %d) = %q, want %q", c.in, c.max, got, c.want)
		}
	}
}
