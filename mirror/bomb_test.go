package mirror

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// laughs is a "billion laughs" YAML value at indent: ten levels of
// anchors, each a list of ten aliases of the one before, so the last
// stands for ten billion strings when expanded.
func laughs(indent string) string {
	var b strings.Builder
	b.WriteString(indent + "- &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n")
	for i := 1; i < 10; i++ {
		fmt.Fprintf(&b, "%s- &l%d [%s]\n", indent, i, strings.TrimSuffix(strings.Repeat(fmt.Sprintf("*l%d, ", i-1), 10), ", "))
	}
	return b.String()
}

// A YAML bomb in a mirror file's front matter, wherever it sits, is
// refused without being expanded: a few kilobytes of allocation, not the
// gigabytes it stands for.
func TestYAMLBombsAreRefusedUnexpanded(t *testing.T) {
	for name, front := range map[string]string{
		"an unknown key": "bomb:\n" + laughs("  "),
		"tags":           "tags:\n" + laughs("  "),
		"a list field":   "fields:\n  labels:\n" + laughs("    "),
		"aliased after":  "title: t\nx:\n" + laughs("  ") + "fields:\n  labels: *l9\n",
	} {
		doc := []byte("---\n" + front + "---\nbody\n")
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err := Parse(doc, schema)
		runtime.ReadMemStats(&after)
		if err == nil {
			t.Errorf("%s: a YAML bomb parsed", name)
		}
		if n := after.TotalAlloc - before.TotalAlloc; n > 1<<20 {
			t.Errorf("%s: refusing it allocated %d bytes", name, n)
		}
	}
}
