package cli

import (
	"strings"
	"testing"
	"unicode/utf8"
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
