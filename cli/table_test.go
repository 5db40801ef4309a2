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
