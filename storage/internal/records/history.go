package records

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/padd/padd/model"
	"github.com/sergi/go-diff/diffmatchpatch"
)

// Content history (Pad's VER-01..03).
//
// Pad stores a version row as the body BEFORE the update that wrote it
// (a reverse patch), so its diff of an update row runs from that row's
// body to the next newer body. padd stores the body AFTER the change
// (versions.go), so the same diff, the change made by the mutation that
// wrote the row, runs from the previous row's body to this row's. Both
// say "what this edit did"; a create row diffs "" -> its body in both.

func DecodeVersion(b *Wsb, k, v []byte) (*model.Version, error) {
	var out model.Version
	if err := DecodeVersionRecord(v, &out); err != nil {
		return nil, model.Errorf(model.CodeVersionUnreconstructable,
			"version %d of item %s is unreadable: %v", GetU64(k[16:]), IDString(k[:16]), err).
			With("reason", "unreadable")
	}
	if out.Current {
		out.Content = string(b.Content().Get(k[:16]))
	}
	return &out, nil
}

// FindVersion resolves a version of the item by id or by its
// version_seq, with the version before it (nil for the first).
func FindVersion(b *Wsb, itemID, ref string) (ver, prev *model.Version, err error) {
	p := MustID(itemID)
	notFound := model.NotFound("Version not found: %s", ref).With("version", ref)
	c := b.Versions().Cursor()
	if n, perr := strconv.ParseInt(strings.TrimSpace(ref), 10, 64); perr == nil {
		if n < 1 {
			return nil, nil, notFound
		}
		k, v := c.Seek(Cat(p, U64(uint64(n))))
		if k == nil || string(k[:16]) != string(p) || int64(GetU64(k[16:])) != n {
			return nil, nil, notFound
		}
		if ver, err = DecodeVersion(b, k, v); err != nil {
			return nil, nil, err
		}
		if k, v = c.Prev(); k != nil && string(k[:16]) == string(p) {
			if prev, err = DecodeVersion(b, k, v); err != nil {
				return nil, nil, err
			}
		}
		return ver, prev, nil
	}
	id, ok := IDKey(ref)
	if !ok {
		return nil, nil, notFound
	}
	// Only the row whose record carries the id is decoded: a long history
	// is otherwise a decode per row.
	want := IDString(id)
	var prevK, prevV []byte
	for k, v := c.Seek(p); k != nil && string(k[:16]) == string(p); k, v = c.Next() {
		if VersionRecordMayBe(v, id, want) {
			if ver, err = DecodeVersion(b, k, v); err != nil {
				return nil, nil, err
			}
			if ver.ID == want {
				if prevK != nil {
					if prev, err = DecodeVersion(b, prevK, prevV); err != nil {
						return nil, nil, err
					}
				}
				return ver, prev, nil
			}
		}
		prevK, prevV = k, v
	}
	return nil, nil, notFound
}

// UnifiedDiff renders a line diff of before -> after in unified format
// (---/+++ headers naming a/name and b/name, @@ hunks with three lines
// of context, "\ No newline at end of file" markers), or "" when the
// texts are equal.
func UnifiedDiff(before, after, name string) string {
	if before == after {
		return ""
	}
	const context = 3
	type line struct {
		op   diffmatchpatch.Operation
		text string
	}
	dmp := diffmatchpatch.New()
	a, b, lines := dmp.DiffLinesToRunes(before, after)
	var script []line
	for _, d := range dmp.DiffCharsToLines(dmp.DiffMainRunes(a, b, false), lines) {
		for _, l := range SplitLines(d.Text) {
			script = append(script, line{d.Type, l})
		}
	}

	var sb strings.Builder
	fmt.Fprintf(&sb, "--- a/%s\n+++ b/%s\n", name, name)
	// oldAt/newAt are the 0-based line numbers before script[i].
	oldAt := make([]int, len(script)+1)
	newAt := make([]int, len(script)+1)
	for i, l := range script {
		oldAt[i+1], newAt[i+1] = oldAt[i], newAt[i]
		if l.op != diffmatchpatch.DiffInsert {
			oldAt[i+1]++
		}
		if l.op != diffmatchpatch.DiffDelete {
			newAt[i+1]++
		}
	}
	for i := 0; i < len(script); {
		if script[i].op == diffmatchpatch.DiffEqual {
			i++
			continue
		}
		// A hunk: from context lines before this change to context lines
		// after the last change that is no more than 2*context away.
		start := max(i-context, 0)
		end := i
		for j := i; j < len(script); j++ {
			if script[j].op != diffmatchpatch.DiffEqual {
				end = j + 1
			} else if j-end >= 2*context {
				break
			}
		}
		end = min(end+context, len(script))
		oldN, newN := oldAt[end]-oldAt[start], newAt[end]-newAt[start]
		fmt.Fprintf(&sb, "@@ -%s +%s @@\n", hunkRange(oldAt[start], oldN), hunkRange(newAt[start], newN))
		for _, l := range script[start:end] {
			switch l.op {
			case diffmatchpatch.DiffEqual:
				sb.WriteByte(' ')
			case diffmatchpatch.DiffDelete:
				sb.WriteByte('-')
			case diffmatchpatch.DiffInsert:
				sb.WriteByte('+')
			}
			sb.WriteString(l.text)
			if !strings.HasSuffix(l.text, "\n") {
				sb.WriteString("\n\\ No newline at end of file\n")
			}
		}
		i = end
	}
	return sb.String()
}

// hunkRange is one side of an @@ header: "start,count" (1-based), where
// an empty side names the line before it, as diff(1) does.
func hunkRange(at, n int) string {
	if n == 0 {
		return fmt.Sprintf("%d,0", at)
	}
	if n == 1 {
		return strconv.Itoa(at + 1)
	}
	return fmt.Sprintf("%d,%d", at+1, n)
}

// SplitLines splits text after each newline, keeping them; a last line
// without one is kept too.
func SplitLines(text string) []string {
	var out []string
	for text != "" {
		i := strings.IndexByte(text, '\n')
		if i < 0 {
			out = append(out, text)
			break
		}
		out = append(out, text[:i+1])
		text = text[i+1:]
	}
	return out
}
