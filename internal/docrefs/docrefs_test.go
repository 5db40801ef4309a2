// Package docrefs holds the test that keeps the docs honest about tests:
// every test, fuzz target and benchmark README.md and docs/*.md cite by
// name exists in the module, so a renamed or removed test cannot leave a
// guarantee pointing at nothing.
package docrefs

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// cited matches a test name as the docs write it, bare or after its
// package ("storage.TestX").
var cited = regexp.MustCompile(`\b(?:Test|Fuzz|Benchmark)[A-Z][A-Za-z0-9_]*`)

var declared = regexp.MustCompile(`(?m)^func ((?:Test|Fuzz|Benchmark)[A-Z][A-Za-z0-9_]*)\(`)

func TestDocsCiteTestsThatExist(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range declared.FindAllSubmatch(b, -1) {
			have[string(m[1])] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	docs = append(docs, filepath.Join(root, "README.md"))
	sort.Strings(docs)
	for _, doc := range docs {
		b, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]bool{}
		for _, loc := range cited.FindAllIndex(b, -1) {
			name := string(b[loc[0]:loc[1]])
			if loc[1] < len(b) && b[loc[1]] == '<' {
				continue // a pattern ("BenchmarkSync<name>"), not a name
			}
			if !have[name] && !seen[name] {
				seen[name] = true
				rel, _ := filepath.Rel(root, doc)
				t.Errorf("%s cites %s, which no test file declares", rel, name)
			}
		}
	}
}
