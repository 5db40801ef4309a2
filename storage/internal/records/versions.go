package records

import (
	"strings"

	"github.com/sergi/go-diff/diffmatchpatch"
)

// lineCount counts lines as the diff does: each newline ends one, and
// text after the last newline is one more.
func lineCount(s string) int {
	n := strings.Count(s, "\n")
	if !strings.HasSuffix(s, "\n") {
		n++
	}
	return n
}

// LineDelta counts the lines a change adds and removes (a line diff).
func LineDelta(before, after string) (added, removed int) {
	switch {
	case before == after:
		return 0, 0
	case before == "": // a create adds every line: no diff needed
		return lineCount(after), 0
	case after == "": // a cleared body removes every line
		return 0, lineCount(before)
	}
	return DiffLineDelta(before, after)
}

// DiffLineDelta is lineDelta by a line diff.
func DiffLineDelta(before, after string) (added, removed int) {
	dmp := diffmatchpatch.New()
	a, b, _ := dmp.DiffLinesToChars(before, after) // one rune per line
	for _, d := range dmp.DiffMain(a, b, false) {
		n := len([]rune(d.Text))
		switch d.Type {
		case diffmatchpatch.DiffInsert:
			added += n
		case diffmatchpatch.DiffDelete:
			removed += n
		}
	}
	return added, removed
}
