//go:build unix

package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// searchHelpExamples extracts the examples of `padctl search --help`:
// the queries of its syntax rows (each row's text before its
// description, two spaces or ", " apart) and the padctl command lines
// it shows, split into arguments.
func searchHelpExamples(help string) (queries []string, commands [][]string) {
	// The syntax is the help's text between its first line and the
	// arguments.
	_, syntax, found := strings.Cut(help, "Query syntax")
	syntax, _, ends := strings.Cut(syntax, "\nArguments:")
	if !found || !ends {
		return nil, nil
	}
	_, syntax, _ = strings.Cut(syntax, "\n")
	column := regexp.MustCompile(` {3,}`)
	for _, line := range strings.Split(syntax, "\n") {
		if i := strings.Index(line, "padctl search "); i >= 0 {
			commands = append(commands, strings.Fields(line[i+len("padctl "):]))
			continue
		}
		trimmed := strings.TrimLeft(line, " ")
		indent := len(line) - len(trimmed)
		// Example rows are indented a little; descriptions that go on
		// under them, a lot.
		if trimmed == "" || indent == 0 || indent > 8 {
			continue
		}
		left := column.Split(trimmed, 2)[0]
		for _, ex := range regexp.MustCompile(`  |, `).Split(left, -1) {
			if ex = strings.TrimSpace(ex); ex != "" {
				queries = append(queries, ex)
			}
		}
	}
	return queries, commands
}

// docSearchLines are the `padctl search` command lines of the README and
// docs/: lines of their code blocks, and inline code.
func docSearchLines(t *testing.T) map[string]string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("..", "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, filepath.Join("..", "README.md"))
	inline := regexp.MustCompile("`(padctl (?:item )?search [^`]+)`")
	out := map[string]string{}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(raw), "\n") {
			where := filepath.Base(f) + ":" + strconv.Itoa(i+1)
			if l := strings.TrimSpace(line); strings.HasPrefix(l, "padctl search ") || strings.HasPrefix(l, "padctl item search ") {
				out[l] = where
				continue
			}
			for _, m := range inline.FindAllStringSubmatch(line, -1) {
				out[m[1]] = where
			}
		}
	}
	return out
}

// Every example `padctl search --help` shows, and every `padctl search`
// line of the README and docs, runs against a real padd: none is refused.
func TestSearchExamplesRun(t *testing.T) {
	padd, padctlBin := binaries(t)
	home := startPadd(t, padd)
	dir := t.TempDir()
	run, must := inProcess(t, home, dir)
	must("init", "--name", "Examples")
	must("item", "create", "tasks", "Fix login redirect", "--content", "a stale cookie loops the session cookie")
	must("item", "create", "tasks", "新しいパスワードの支払い画面")

	queries, commands := searchHelpExamples(must("search", "--help").stdout)
	if len(queries) < 12 || len(commands) < 1 {
		t.Fatalf("extracted %d queries and %d commands from the help; the extraction is broken: %q %q", len(queries), len(commands), queries, commands)
	}
	t.Logf("help examples: %q; commands: %q", queries, commands)
	for _, q := range queries {
		args := []string{"search", q}
		if strings.HasPrefix(q, "-") {
			// As the help says: such a query goes after --.
			args = []string{"search", "--", q}
		}
		if r := run(args...); r.code != 0 {
			t.Errorf("the help's example %q does not run: %s", q, r)
		}
	}
	for _, c := range commands {
		if r := run(c...); r.code != 0 {
			t.Errorf("the help's command `padctl %s` does not run: %s", strings.Join(c, " "), r)
		}
	}

	lines := docSearchLines(t)
	if len(lines) == 0 {
		t.Fatal("found no `padctl search` line in the README or docs/; the extraction is broken")
	}
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skipf("no sh to run the docs' command lines as written (%v)", err)
	}
	env := append(testEnv(home), "PATH="+filepath.Dir(padctlBin)+string(os.PathListSeparator)+os.Getenv("PATH"))
	for line, where := range lines {
		r := runBin(t, sh, env, dir, "", "-c", line)
		if r.code != 0 {
			t.Errorf("%s: `%s` does not run: %s", where, line, r)
		}
	}
}
