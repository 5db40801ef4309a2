package storage

import (
	"regexp"
	"strings"
	"testing"

	"github.com/padd/padd/model"
)

const (
	oldAtt = "0191e0a4-7c3e-7abc-8def-0123456789ab"
	newAtt = "01938f00-1111-7222-8333-444455556666"
)

func oneRef(old string) (string, bool) {
	if old == oldAtt {
		return newAtt, true
	}
	return "", false
}

func TestRewriteAttachmentRefs(t *testing.T) {
	upper := strings.ToUpper(oldAtt)
	cases := []struct{ in, want string }{
		{"", ""},
		{"no references", "no references"},
		{"![shot](pad-attachment:" + oldAtt + ")", "![shot](pad-attachment:" + newAtt + ")"},
		{"[log](pad-attachment:" + oldAtt + ` "title")`, "[log](pad-attachment:" + newAtt + ` "title")`},
		{"bare pad-attachment:" + oldAtt, "bare pad-attachment:" + newAtt},
		{"case pad-attachment:" + upper + ".", "case pad-attachment:" + newAtt + "."},
		{"twice pad-attachment:" + oldAtt + " and pad-attachment:" + oldAtt, "twice pad-attachment:" + newAtt + " and pad-attachment:" + newAtt},
		// Longer ids, other ids, an empty id and another prefix's case stay.
		{"pad-attachment:" + oldAtt + "x", "pad-attachment:" + oldAtt + "x"},
		{"pad-attachment:" + oldAtt + "_2", "pad-attachment:" + oldAtt + "_2"},
		{"pad-attachment:ffffffff-0000", "pad-attachment:ffffffff-0000"},
		{"pad-attachment:", "pad-attachment:"},
		{"pad-attachment:)" + oldAtt, "pad-attachment:)" + oldAtt},
		{"PAD-ATTACHMENT:" + oldAtt, "PAD-ATTACHMENT:" + oldAtt},
		{"päd ✓ pad-attachment:" + oldAtt + "\x00\xff", "päd ✓ pad-attachment:" + newAtt + "\x00\xff"},
	}
	for _, c := range cases {
		if got := RewriteAttachmentRefs(c.in, oneRef); got != c.want {
			t.Errorf("RewriteAttachmentRefs(%q) = %q, want %q", c.in, got, c.want)
		}
	}

	fields := map[string]any{"status": "open", "shot": "pad-attachment:" + oldAtt, "n": 3.0,
		"list": []any{"x", "![a](pad-attachment:" + oldAtt + ")", 1.0},
		"obj":  map[string]any{"deep": []any{map[string]any{"img": "pad-attachment:" + upper}}}}
	got := RewriteAttachmentRefsFields(fields, oneRef)
	want := map[string]any{"status": "open", "shot": "pad-attachment:" + newAtt, "n": 3.0,
		"list": []any{"x", "![a](pad-attachment:" + newAtt + ")", 1.0},
		"obj":  map[string]any{"deep": []any{map[string]any{"img": "pad-attachment:" + newAtt}}}}
	if !model.EqualJSON(got, want) {
		t.Errorf("fields rewritten to %v, want %v", got, want)
	}
	if fields["shot"] != "pad-attachment:"+oldAtt || fields["list"].([]any)[1] != "![a](pad-attachment:"+oldAtt+")" {
		t.Error("the rewrite changed its input")
	}
	plain := map[string]any{"status": "open"}
	if out := RewriteAttachmentRefsFields(plain, oneRef); !model.EqualJSON(out, plain) {
		t.Errorf("fields without references came back as %v", out)
	}
}

// refOracle is the rewrite by a regular expression: the same references,
// leftmost first, never overlapping.
var refOracle = regexp.MustCompile(`pad-attachment:[0-9A-Za-z_-]+`)

// FuzzRewriteAttachmentRefs holds the rewrite to the regular
// expression's on any text: no panic, at most one lookup per reference,
// and every byte outside a rewritten id kept.
func FuzzRewriteAttachmentRefs(f *testing.F) {
	for _, s := range []string{"", "pad-attachment:", "![x](pad-attachment:" + oldAtt + ")", "pad-attachment:pad-attachment:" + oldAtt,
		"pad-attachment:A-b_c pad-attachment:" + strings.ToUpper(oldAtt), "\xffpad-attachment:\x00", strings.Repeat("pad-attachment:a", 50)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		// Every id maps to a marker longer than itself, so each rewrite shows.
		calls := 0
		mapAll := func(old string) (string, bool) {
			calls++
			if old != strings.ToLower(old) {
				t.Fatalf("ids was called with %q, not lower case", old)
			}
			return "<" + old + ">", true
		}
		got := RewriteAttachmentRefs(text, mapAll)
		want := refOracle.ReplaceAllStringFunc(text, func(m string) string {
			return AttachmentRefPrefix + "<" + strings.ToLower(m[len(AttachmentRefPrefix):]) + ">"
		})
		if got != want {
			t.Fatalf("RewriteAttachmentRefs(%q) = %q, want %q", text, got, want)
		}
		if n := strings.Count(text, AttachmentRefPrefix); calls > n {
			t.Fatalf("%d lookups for %d prefixes", calls, n)
		}
		if out := RewriteAttachmentRefs(text, func(string) (string, bool) { return "", false }); out != text {
			t.Fatalf("with no id known the text changed: %q -> %q", text, out)
		}
	})
}
