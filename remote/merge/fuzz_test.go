package merge

import (
	"strings"
	"testing"
)

// FuzzMerge3 merges any three texts. Properties: no panic; no input text
// lost (the merged text plus the conflicts' local lines hold every line
// of local and of remote that the other side did not delete, counted per
// distinct line); a side that did not change gives exactly the other's
// text; the mirrored merge finds the same conflicts with the sides
// swapped, and the same text when there are none; the hunks' local lines,
// put back in place of their remote lines, give the local side's merge;
// one merge allocates at most allocCap; and Merge of items holding the
// texts as content agrees with Text.
func FuzzMerge3(f *testing.F) {
	for _, s := range [][3]string{
		{"a\nb\nc\n", "A\nb\nc\n", "a\nb\nC\n"},
		{"a\nb\nc\n", "a\nL\nc\n", "a\nR\nc\n"},
		{"a\r\nb\r\n", "a\r\nb\r\nc", "x\r\na\r\nb\r\n"},
		{"", "a\n", "b\n"},
		{"a\nb", "a\nb\nL", "a\nb\nR"},
		{"a\na\na\n", "a\n", "a\na\na\na\n"},
		{"x\ny\nx\ny\n", "y\nx\n", "x\nx\ny\ny\n"},
		{"one\ntwo\nthree\n", "", "one\ntwo\nthree\nfour\n"},
	} {
		f.Add(s[0], s[1], s[2])
	}
	f.Fuzz(func(t *testing.T, base, local, remote string) {
		var merged string
		var hunks []Hunk
		if n := allocated(func() { merged, hunks = Text(base, local, remote) }); n > allocCap(base, local, remote) {
			t.Fatalf("allocated %d bytes, cap %d", n, allocCap(base, local, remote))
		}

		switch {
		case local == base && merged != remote, remote == base && merged != local:
			t.Fatalf("one side unchanged, merged %q", merged)
		case (local == base || remote == base || local == remote) && hunks != nil:
			t.Fatalf("no conflict possible, got %#v", hunks)
		}

		// Nothing lost. A line of local the remote did not delete is one
		// local inserted (no base line matched to it) or one matched to a
		// base line the remote kept; and the same for remote. Each must be
		// in the merged text or a hunk's local lines: counted per distinct
		// line, the merged text and the hunks hold at least as many
		// copies as each side needs.
		in := interner{}
		bl, ll, rl := splitLines(base), splitLines(local), splitLines(remote)
		bi, li, ri := in.ids(bl), in.ids(ll), in.ids(rl)
		ml, okL := matchLines(bi, li, len(bi)+len(li))
		mr, okR := matchLines(bi, ri, len(bi)+len(ri))
		if !okL || !okR {
			t.Fatal("matchLines gave up with no limit")
		}
		// The property leans on the alignments being longest common
		// subsequences: checked against the quadratic one where cheap.
		if len(bi)*max(len(li), len(ri)) <= 1<<16 {
			checkLCS(t, bi, li, ml)
			checkLCS(t, bi, ri, mr)
		}
		have := map[string]int{}
		for _, s := range append([]string{merged}, hunkLocals(hunks)...) {
			for _, l := range splitLines(s) {
				have[l]++
			}
		}
		for _, side := range []struct {
			name         string
			lines        []string
			match, other []int32 // base→side, base→other side
		}{{"local", ll, ml, mr}, {"remote", rl, mr, ml}} {
			need := map[string]int{}
			matched := make([]bool, len(side.lines))
			for b, j := range side.match {
				if j >= 0 {
					matched[j] = true
					if side.other[b] >= 0 {
						need[side.lines[j]]++
					}
				}
			}
			for j, l := range side.lines {
				if !matched[j] {
					need[l]++
				}
			}
			for l, n := range need {
				if have[l] < n {
					t.Fatalf("line %q of %s: %d copies not deleted by the other side, %d in merged and conflicts (merged %q, hunks %#v)",
						l, side.name, n, have[l], merged, hunks)
				}
			}
		}

		// The local side's merge is the merged text with each hunk's
		// local lines instead of its remote ones.
		mirror, mhunks := Text(base, remote, local)
		if len(mhunks) != len(hunks) {
			t.Fatalf("%d hunks, mirrored %d", len(hunks), len(mhunks))
		}
		for i, h := range hunks {
			m := mhunks[i]
			if m.Base != h.Base || m.Local != h.Remote || m.Remote != h.Local {
				t.Fatalf("hunk %d %#v, mirrored %#v", i, h, m)
			}
		}
		if hunks == nil && mirror != merged {
			t.Fatalf("no conflict, yet merged %q and mirrored %q", merged, mirror)
		}
		if hunks != nil {
			lines := splitLines(merged)
			var b strings.Builder
			at := 0 // next line of merged to copy
			for _, h := range hunks {
				n := len(splitLines(h.Remote))
				if h.Line-1 < at || h.Line-1+n > len(lines) || strings.Join(lines[h.Line-1:h.Line-1+n], "") != h.Remote {
					t.Fatalf("hunk %#v is not at its line of %q", h, merged)
				}
				b.WriteString(strings.Join(lines[at:h.Line-1], ""))
				b.WriteString(h.Local)
				at = h.Line - 1 + n
			}
			b.WriteString(strings.Join(lines[at:], ""))
			if b.String() != mirror {
				t.Fatalf("merged %q with the local lines of its hunks is %q, the mirrored merge is %q", merged, b.String(), mirror)
			}
		}

		res := Merge(&Item{Content: base}, &Item{Content: local}, &Item{Content: remote})
		if res.Merged.Content != merged || (hunks == nil) != (res.Outcome != Conflicted) {
			t.Fatalf("Merge: content %q outcome %v, Text: %q with %d hunks", res.Merged.Content, res.Outcome, merged, len(hunks))
		}
	})
}

func hunkLocals(hunks []Hunk) []string {
	var s []string
	for _, h := range hunks {
		s = append(s, h.Local)
	}
	return s
}
