// Package inventory holds the test that keeps docs/INVENTORY.md current
// with Pad's feature inventory (../shared/spec/pad-inventory.md, beside
// the checkout): one row for each of the inventory's entries, each with
// a known status, and no file or test named in a row that is gone. It
// reads two text files and the test files the rows name, so it runs in
// milliseconds. Without the inventory (a checkout with no ../shared) it
// skips.
package inventory

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// The statuses a row may have (docs/INVENTORY.md says what each means).
var statuses = []string{"✔", "◐", "✘", "n/a"}

// entry is one feature of Pad's inventory, from its heading
// "#### ID · title · Pn".
type entry struct{ id, title, priority string }

// row is one row of docs/INVENTORY.md's table.
type row struct {
	line                                               int
	id, title, priority, status, where, tests, missing string
}

var (
	headingRe = regexp.MustCompile(`(?m)^#### (\S+) · (.+) · (P\d)[ \t]*$`)
	idRe      = regexp.MustCompile(`^[A-Z]+-\d+$`)
	// A path of the module: a word of lower-case letters and a slash
	// at a word's start, up to the path's end (routes start with a slash
	// and resources with pad://, so neither matches).
	pathRe = regexp.MustCompile(`(?:^|[\s(])((?:[a-z][a-z0-9_]*/)+[A-Za-z0-9_.-]*)`)
	// A test file and the tests named after it in brackets.
	testsRe = regexp.MustCompile(`((?:[a-z][a-z0-9_]*/)+[a-z0-9_]+_test\.go) \(([^)]*)\)`)
	funcRe  = regexp.MustCompile(`\b(?:Test|Fuzz|Benchmark)[A-Za-z0-9_]+`)
)

const (
	root      = "../.."
	docPath   = "docs/INVENTORY.md"
	inventory = "../shared/spec/pad-inventory.md" // from the module root
)

func readInventory(t *testing.T) []entry {
	t.Helper()
	var b []byte
	for _, p := range inventoryPaths() {
		var err error
		if b, err = os.ReadFile(p); err == nil {
			break
		}
		if !errors.Is(err, fs.ErrNotExist) {
			t.Fatal(err)
		}
	}
	if b == nil {
		t.Skipf("Pad's inventory (%s from the module's root, or from the main checkout of a worktree) is not there: a checkout without the shared specs has nothing to hold %s to", inventory, docPath)
	}
	var out []entry
	for _, m := range headingRe.FindAllStringSubmatch(string(b), -1) {
		out = append(out, entry{id: m[1], title: strings.TrimSpace(m[2]), priority: m[3]})
	}
	if len(out) == 0 {
		t.Fatalf("%s has no heading of the form \"#### ID · title · Pn\": has its format changed?", inventory)
	}
	return out
}

// inventoryPaths are where the inventory may be: beside the module's
// root and, when the checkout is a git worktree (its .git a file naming
// the repository's worktrees/ directory), beside the main checkout too.
func inventoryPaths() []string {
	paths := []string{filepath.Join(root, inventory)}
	dotgit, err := os.ReadFile(filepath.Join(root, ".git"))
	if err != nil {
		return paths // a directory (the main checkout) or none
	}
	gitdir, ok := strings.CutPrefix(strings.TrimSpace(string(dotgit)), "gitdir: ")
	if !ok {
		return paths
	}
	if !filepath.IsAbs(gitdir) {
		gitdir = filepath.Join(root, gitdir)
	}
	common, err := os.ReadFile(filepath.Join(gitdir, "commondir"))
	if err != nil {
		return paths
	}
	dir := strings.TrimSpace(string(common))
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(gitdir, dir)
	}
	if filepath.Base(dir) != ".git" {
		return paths // a bare repository: no main checkout
	}
	return append(paths, filepath.Join(filepath.Dir(dir), inventory))
}

// readDoc returns the table's rows and the text before the table.
func readDoc(t *testing.T) (rows []row, head string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, docPath))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	for i, l := range lines {
		cells := splitRow(l)
		if len(cells) == 0 || !idRe.MatchString(cells[0]) {
			if rows == nil {
				head += l + "\n"
			}
			continue
		}
		if len(cells) != 7 {
			t.Errorf("%s:%d: a row has 7 cells (id, title, priority, status, where, tests, missing), this one %d", docPath, i+1, len(cells))
			continue
		}
		rows = append(rows, row{line: i + 1, id: cells[0], title: cells[1], priority: cells[2], status: cells[3],
			where: cells[4], tests: cells[5], missing: cells[6]})
	}
	if len(rows) == 0 {
		t.Fatalf("%s has no table rows", docPath)
	}
	return rows, head
}

// splitRow returns the cells of a Markdown table line, or nil.
func splitRow(l string) []string {
	l = strings.TrimSpace(l)
	if !strings.HasPrefix(l, "|") || !strings.HasSuffix(l, "|") || len(l) < 2 {
		return nil
	}
	cells := strings.Split(l[1:len(l)-1], "|")
	for i := range cells {
		cells[i] = strings.TrimSpace(cells[i])
	}
	return cells
}

func TestEveryEntryHasARow(t *testing.T) {
	entries := readInventory(t)
	rows, _ := readDoc(t)
	byID := map[string]row{}
	for _, r := range rows {
		if prev, ok := byID[r.id]; ok {
			t.Errorf("%s:%d: %s has a row already, at line %d", docPath, r.line, r.id, prev.line)
		}
		byID[r.id] = r
	}
	known := map[string]bool{}
	for _, e := range entries {
		known[e.id] = true
		r, ok := byID[e.id]
		switch {
		case !ok:
			t.Errorf("%s · %s · %s has no row in %s: add one (status, where padd implements it, its tests, what is missing) and count it in the summary", e.id, e.title, e.priority, docPath)
		case r.priority != e.priority:
			t.Errorf("%s:%d: %s is %s in the inventory, %s in the row", docPath, r.line, e.id, e.priority, r.priority)
		case r.title != e.title:
			t.Errorf("%s:%d: %s is titled %q in the inventory, %q in the row", docPath, r.line, e.id, e.title, r.title)
		}
	}
	for _, r := range rows {
		if !known[r.id] {
			t.Errorf("%s:%d: %s is not an entry of %s", docPath, r.line, r.id, inventory)
		}
	}
}

func TestEveryRowHasAStatus(t *testing.T) {
	rows, _ := readDoc(t)
	for _, r := range rows {
		switch {
		case !isStatus(r.status):
			t.Errorf("%s:%d: %s's status %q is not one of %s", docPath, r.line, r.id, r.status, strings.Join(statuses, " "))
		case (r.status == "◐" || r.status == "✘") && r.missing == "":
			t.Errorf("%s:%d: %s is %s but does not say what is missing", docPath, r.line, r.id, r.status)
		case r.status == "n/a" && (r.where == "" || r.where == "—"):
			t.Errorf("%s:%d: %s is n/a but gives no reason", docPath, r.line, r.id)
		}
	}
}

func isStatus(s string) bool {
	for _, st := range statuses {
		if s == st {
			return true
		}
	}
	return false
}

// The summary's counts are the table's.
func TestSummaryCountsTheTable(t *testing.T) {
	rows, head := readDoc(t)
	want := map[string]map[string]int{} // priority -> status -> rows
	all := map[string]int{}
	for _, r := range rows {
		if want[r.priority] == nil {
			want[r.priority] = map[string]int{}
		}
		want[r.priority][r.status]++
		all[r.status]++
	}
	want["all"] = all
	seen := map[string]bool{}
	for _, l := range strings.Split(head, "\n") {
		cells := splitRow(l)
		if len(cells) != len(statuses)+2 || (cells[0] != "all" && !strings.HasPrefix(cells[0], "P")) {
			continue
		}
		p := cells[0]
		seen[p] = true
		total := 0
		for i, st := range statuses {
			total += want[p][st]
			if cells[i+1] != strconv.Itoa(want[p][st]) {
				t.Errorf("%s's summary counts %s %s rows for %s; the table has %d", docPath, cells[i+1], st, p, want[p][st])
			}
		}
		if cells[len(cells)-1] != strconv.Itoa(total) {
			t.Errorf("%s's summary totals %s for %s; the table has %d rows", docPath, cells[len(cells)-1], p, total)
		}
	}
	for p := range want {
		if !seen[p] {
			t.Errorf("%s's summary has no line for %s", docPath, p)
		}
	}
}

// Every file a row names is there, and every test it names is declared
// in the test file it is named after: a row does not outlive what it
// points at.
func TestRowsNameWhatExists(t *testing.T) {
	rows, _ := readDoc(t)
	tops := map[string]bool{}
	ents, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if e.IsDir() {
			tops[e.Name()] = true
		}
	}
	files := map[string]string{} // test file -> text, read once
	for _, r := range rows {
		for _, cell := range []string{r.where, r.tests, r.missing} {
			for _, m := range pathRe.FindAllStringSubmatch(cell, -1) {
				p := strings.TrimRight(m[1], ".,;:")
				if !tops[strings.SplitN(p, "/", 2)[0]] {
					continue // not a path of the module (a bundle's member, a pair of words)
				}
				if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(p))); err != nil {
					t.Errorf("%s:%d: %s names %s, which is not in the module", docPath, r.line, r.id, p)
				}
			}
		}
		for _, m := range testsRe.FindAllStringSubmatch(r.tests, -1) {
			text, ok := files[m[1]]
			if !ok {
				b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(m[1])))
				if err != nil {
					continue // reported above
				}
				text = string(b)
				files[m[1]] = text
			}
			for _, name := range funcRe.FindAllString(m[2], -1) {
				if !strings.Contains(text, "func "+name+"(") {
					t.Errorf("%s:%d: %s names %s in %s, which declares no such test", docPath, r.line, r.id, name, m[1])
				}
			}
		}
	}
}
