package searchindex

import (
	"fmt"
	"strings"
	"testing"

	"github.com/padd/padd/bench"
)

func TestSnippet(t *testing.T) {
	long := strings.Repeat("filler words about nothing in particular ", 10)
	for _, tc := range []struct{ name, text, q, want string }{
		{"word", "Users see a timeout after SSO redirect.", "timeout", "Users see a <mark>timeout</mark> after SSO redirect."},
		{"stemmed", "The runners keep timing out.", "runner", "The <mark>runners</mark> keep timing out."},
		{"every match", "cache miss, then cache fill", "cache", "<mark>cache</mark> miss, then <mark>cache</mark> fill"},
		{"phrase words", "we rotate the key weekly", `"rotate the key"`, "we <mark>rotate</mark> the <mark>key</mark> weekly"},
		{"prefix", "Deployment to staging", "deplo*", "<mark>Deployment</mark> to staging"},
		{"one line", "first line\n\nsecond   line with cache", "cache", "first line second line with <mark>cache</mark>"},
		{"window", long + "the needle is here " + long, "needle", ""},
		{"no match", "nothing relevant", "cache", ""},
		{"stopword query", "out of the box", "the", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Snippet(tc.text, tc.q)
			if tc.name == "window" {
				if !strings.HasPrefix(got, "…") || !strings.HasSuffix(got, "…") || !strings.Contains(got, "<mark>needle</mark>") || len(got) > snippetLen+40 {
					t.Fatalf("window snippet %q", got)
				}
				return
			}
			if got != tc.want {
				t.Fatalf("Snippet(%q, %q)\n got %q\nwant %q", tc.text, tc.q, got, tc.want)
			}
		})
	}
}

func FuzzSnippet(f *testing.F) {
	f.Add("Users see a timeout after SSO redirect.", "timeout")
	f.Add("ünïcode çontent with emoji 🎉 here", "emoji")
	f.Add("月末の請求書の支払いが二回、支払い済み。ＡＰＩの仕様", "支払い ＡＰＩ")
	f.Add("결제가 실패한 뒤 재시도하면", "재시도 결제")
	f.Fuzz(func(t *testing.T, text, q string) {
		s := Snippet(text, q)
		if s != "" && strings.Count(s, "<mark>") != strings.Count(s, "</mark>") {
			t.Fatalf("unbalanced marks in %q", s)
		}
		if qt := termsOf(q); len(qt.terms)+len(qt.prefixes) > 0 {
			if err := probesAgree(qt, text); err != "" {
				t.Fatalf("query %q: %s", q, err)
			}
		}
	})
}

// The probe-guided search for a snippet's first match, and for the
// matches in its window, finds what analyzing the whole text finds, over
// generated bodies and words whose stems differ from their text.
func TestFirstMatchAgreesWithFullScan(t *testing.T) {
	queries := append([]string{"fly", "flies", "studies", "relational", "sensibility", "organization",
		"running", "happy", "test", "tests", "deplo*", "cach*", `"rotate the key"`}, bench.Topics...)
	texts := []string{"The flies fly over relational, sensible organizations; happily testing the latest tests.",
		"pre-caching and re-deployment: studying tested studies", "ünïcode flies ñ organization"}
	for _, it := range bench.Workspace(7, 300) {
		texts = append(texts, it.Title+"\n"+it.Content)
	}
	for _, q := range queries {
		qt := termsOf(q)
		for _, text := range texts {
			if err := probesAgree(qt, text); err != "" {
				t.Fatalf("query %q: %s, in %q", q, err, text)
			}
		}
	}
}

// probesAgree compares the probe-guided matches in text with a full
// analysis: the first match, and every match of the snippet's window
// and of the whole text. It returns what differs, or "".
func probesAgree(qt queryTerms, text string) string {
	f := qt.finder(text)
	first, want := f.firstMatch(), qt.firstMatchFrom(text, 0)
	if first != want {
		return fmt.Sprintf("first match at %d, a full scan says %d", first, want)
	}
	windows := [][2]int{{0, len(text)}}
	if first >= 0 {
		start := wordStart(text, max(0, first-snippetBefore))
		windows = append(windows, [2]int{start, wordEnd(text, min(len(text), start+snippetLen))})
	}
	for _, w := range windows {
		if got, want := f.matches(w[0], w[1]), qt.matches(text, w[0], w[1]); fmt.Sprint(got) != fmt.Sprint(want) {
			return fmt.Sprintf("matches in [%d,%d) %v, a full scan says %v", w[0], w[1], got, want)
		}
	}
	return ""
}
