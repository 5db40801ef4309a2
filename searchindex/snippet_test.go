package searchindex

import (
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
	f.Fuzz(func(t *testing.T, text, q string) {
		s := Snippet(text, q)
		if s != "" && strings.Count(s, "<mark>") != strings.Count(s, "</mark>") {
			t.Fatalf("unbalanced marks in %q", s)
		}
		if qt := termsOf(q); len(qt.terms)+len(qt.prefixes) > 0 {
			if got, want := qt.firstMatch(text), qt.firstMatchFrom(text, 0); got != want {
				t.Fatalf("query %q: first match at %d, a full scan says %d", q, got, want)
			}
		}
	})
}

// The probe-guided search for a snippet's first match finds the same
// match as analyzing the whole text, over generated bodies and words
// whose stems differ from their text.
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
			if got, want := qt.firstMatch(text), qt.firstMatchFrom(text, 0); got != want {
				t.Fatalf("query %q: first match at %d, a full scan says %d, in %q", q, got, want, text)
			}
		}
	}
}
