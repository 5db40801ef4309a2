package merge

import (
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"testing"
)

func TestText(t *testing.T) {
	for _, tc := range []struct {
		name                string
		base, local, remote string
		want                string
		hunks               []Hunk
		mirrorWant          string // when it differs from want (a conflict)
	}{
		{name: "nothing changed", base: "a\nb\n", local: "a\nb\n", remote: "a\nb\n", want: "a\nb\n"},
		{name: "one side changed", base: "a\nb\n", local: "a\nb\n", remote: "a\nB\n", want: "a\nB\n"},
		{name: "different lines", base: "a\nb\nc\n", local: "A\nb\nc\n", remote: "a\nb\nC\n", want: "A\nb\nC\n"},
		{name: "insert and delete apart", base: "a\nb\nc\nd\n", local: "x\na\nb\nc\nd\n", remote: "a\nb\nc\n", want: "x\na\nb\nc\n"},
		{name: "the same edit on both sides", base: "a\nb\nc\n", local: "a\nB\nc\n", remote: "a\nB\nc\n", want: "a\nB\nc\n"},
		{name: "the same line both sides apart from another edit", base: "a\nb\nc\nd\n", local: "a\nB\nc\nD\n", remote: "a\nB\nc\nd\n", want: "a\nB\nc\nD\n"},
		{
			name: "the same line changed differently", base: "a\nb\nc\n", local: "a\nL\nc\n", remote: "a\nR\nc\n",
			want: "a\nR\nc\n", mirrorWant: "a\nL\nc\n",
			hunks: []Hunk{{Line: 2, Base: "b\n", Local: "L\n", Remote: "R\n"}},
		},
		{
			name: "adjacent lines conflict, as in git", base: "a\nb\nc\nd\n", local: "a\nB\nc\nd\n", remote: "a\nb\nC\nd\n",
			want: "a\nb\nC\nd\n", mirrorWant: "a\nB\nc\nd\n",
			hunks: []Hunk{{Line: 2, Base: "b\nc\n", Local: "B\nc\n", Remote: "b\nC\n"}},
		},
		{
			name: "inserts at the same place", base: "a\nb\n", local: "a\nL\nb\n", remote: "a\nR\nb\n",
			want: "a\nR\nb\n", mirrorWant: "a\nL\nb\n",
			hunks: []Hunk{{Line: 2, Base: "", Local: "L\n", Remote: "R\n"}},
		},
		{
			name: "a line deleted on one side, changed on the other", base: "a\nb\nc\n", local: "a\nc\n", remote: "a\nB\nc\n",
			want: "a\nB\nc\n", mirrorWant: "a\nc\n",
			hunks: []Hunk{{Line: 2, Base: "b\n", Local: "", Remote: "B\n"}},
		},
		{name: "CRLF lines round-trip", base: "a\r\nb\r\nc\r\n", local: "A\r\nb\r\nc\r\n", remote: "a\r\nb\r\nC\r\n", want: "A\r\nb\r\nC\r\n"},
		{name: "mixed line ends round-trip", base: "a\nb\r\nc\n", local: "a\nb\r\nc\nd", remote: "A\nb\r\nc\n", want: "A\nb\r\nc\nd"},
		{name: "a line end changed on one side", base: "a\nb\nc\n", local: "a\r\nb\nc\n", remote: "a\nb\nC\n", want: "a\r\nb\nC\n"},
		{name: "no final newline kept", base: "a\nb\nc", local: "A\nb\nc", remote: "a\nb\nC", want: "A\nb\nC"},
		{name: "final newline added on one side", base: "a\nb\nc", local: "A\nb\nc", remote: "a\nb\nc\n", want: "A\nb\nc\n"},
		{
			name: "both append to a text with no final newline", base: "a\nb", local: "a\nb\nL", remote: "a\nb\nR",
			want: "a\nb\nR", mirrorWant: "a\nb\nL",
			hunks: []Hunk{{Line: 2, Base: "b", Local: "b\nL", Remote: "b\nR"}},
		},
		{name: "from empty", base: "", local: "a\n", remote: "", want: "a\n"},
		{
			name: "both fill an empty text", base: "", local: "a\n", remote: "b\n",
			want: "b\n", mirrorWant: "a\n",
			hunks: []Hunk{{Line: 1, Base: "", Local: "a\n", Remote: "b\n"}},
		},
		{name: "both emptied", base: "a\n", local: "", remote: "", want: ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, hunks := Text(tc.base, tc.local, tc.remote)
			if got != tc.want || !reflect.DeepEqual(hunks, tc.hunks) {
				t.Errorf("Text = %q %#v\nwant %q %#v", got, hunks, tc.want, tc.hunks)
			}
			mirrorWant := tc.want
			if tc.mirrorWant != "" {
				mirrorWant = tc.mirrorWant
			}
			got, mhunks := Text(tc.base, tc.remote, tc.local)
			if got != mirrorWant || len(mhunks) != len(tc.hunks) {
				t.Fatalf("mirrored Text = %q %#v, want %q", got, mhunks, mirrorWant)
			}
			for i, h := range mhunks {
				w := tc.hunks[i]
				if h.Base != w.Base || h.Local != w.Remote || h.Remote != w.Local {
					t.Errorf("mirrored hunk %d %#v, want the sides of %#v swapped", i, h, w)
				}
			}
		})
	}
}

func TestSplitLines(t *testing.T) {
	for s, want := range map[string][]string{
		"":            nil,
		"\n":          {"\n"},
		"a":           {"a"},
		"a\r\nb":      {"a\r\n", "b"},
		"a\n\nb\n":    {"a\n", "\n", "b\n"},
		"a\rb\r\n\r":  {"a\rb\r\n", "\r"},
		"x\ny\nz\n\n": {"x\n", "y\n", "z\n", "\n"},
	} {
		if got := splitLines(s); !reflect.DeepEqual(got, want) || strings.Join(got, "") != s {
			t.Errorf("splitLines(%q) = %q, want %q", s, got, want)
		}
	}
}

// TestMatchLinesIsALongestCommonSubsequence checks the diff against a
// dynamic-programming LCS on small inputs: the matches are increasing,
// pair equal lines, and are as many as the LCS's length.
func TestMatchLinesIsALongestCommonSubsequence(t *testing.T) {
	texts := []string{"", "a", "ab", "abc", "abcabba", "cbabac", "xaxbxcx", "aaaa", "ba", "zzyzx", "abcdefg", "gfedcba"}
	for _, as := range texts {
		for _, bs := range texts {
			a, b := runes(as), runes(bs)
			match, ok := matchLines(a, b, len(a)+len(b))
			if !ok {
				t.Fatalf("%q %q: gave up", as, bs)
			}
			n := checkLCS(t, a, b, match)
			if want := len(a) + len(b) - 2*n; want > 0 {
				if _, ok := matchLines(a, b, want-1); ok {
					t.Errorf("%q %q: did not give up at %d edits of %d", as, bs, want-1, want)
				}
			}
		}
	}
}

// checkLCS fails t unless match pairs equal elements of a and b in
// increasing order and pairs as many as a longest common subsequence; it
// returns how many it pairs.
func checkLCS(t *testing.T, a, b, match []int32) int {
	t.Helper()
	n, last := 0, int32(-1)
	for i, j := range match {
		if j < 0 {
			continue
		}
		if j <= last || int(j) >= len(b) || a[i] != b[j] {
			t.Fatalf("%v %v: bad match %v", a, b, match)
		}
		last = j
		n++
	}
	if want := lcs(a, b); n != want {
		t.Fatalf("%v %v: %d matches, the LCS has %d", a, b, n, want)
	}
	return n
}

func runes(s string) []int32 {
	var r []int32
	for _, c := range s {
		r = append(r, c)
	}
	return r
}

func lcs(a, b []int32) int {
	t := make([][]int, len(a)+1)
	for i := range t {
		t[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				t[i][j] = t[i+1][j+1] + 1
			} else {
				t[i][j] = max(t[i+1][j], t[i][j+1])
			}
		}
	}
	return t[0][0]
}

// TestTextFallsBackWhole: past the limits the texts are compared whole;
// within them, a large text with edits far apart still merges by line.
func TestTextFallsBackWhole(t *testing.T) {
	numbered := func(n int, mark func(i int) string) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "line %d%s\n", i, mark(i))
		}
		return b.String()
	}
	none := func(int) string { return "" }
	base := numbered(20000, none)
	local := numbered(20000, func(i int) string {
		if i == 10 {
			return " local"
		}
		return ""
	})
	remote := numbered(20000, func(i int) string {
		if i == 19990 {
			return " remote"
		}
		return ""
	})
	want := numbered(20000, func(i int) string {
		switch i {
		case 10:
			return " local"
		case 19990:
			return " remote"
		}
		return ""
	})
	if got, hunks := Text(base, local, remote); got != want || hunks != nil {
		t.Fatalf("far-apart edits of a large text did not merge: %d hunks", len(hunks))
	}

	// Too many edits: every other line of local changed.
	many := numbered(20000, func(i int) string {
		if i%2 == 0 {
			return " local"
		}
		return ""
	})
	got, hunks := Text(base, many, remote)
	if got != remote || !reflect.DeepEqual(hunks, []Hunk{{Line: 1, Base: base, Local: many, Remote: remote}}) {
		t.Fatalf("a diff over MaxLineMergeEdits was not compared whole")
	}
	if got, hunks := Text(base, many, base); got != many || hunks != nil {
		t.Fatalf("one side changed past the limits: want that side's text")
	}

	// Too large: one text over MaxLineMergeBytes.
	big := base + strings.Repeat("x", MaxLineMergeBytes)
	got, hunks = Text(base, local, big)
	if got != big || len(hunks) != 1 || hunks[0].Local != local {
		t.Fatalf("a text over MaxLineMergeBytes was not compared whole")
	}
}

// TestTextAllocationIsBounded merges the worst texts the limits let
// through (1 MiB each, as many edits as allowed) and the ones just past
// them, and holds each merge's allocation under allocCap.
func TestTextAllocationIsBounded(t *testing.T) {
	lines := func(n int, f func(i int) string) string {
		var b strings.Builder
		for i := range n {
			b.WriteString(f(i))
		}
		return b.String()
	}
	base := lines(MaxLineMergeBytes/8, func(i int) string { return fmt.Sprintf("%6d\n", i) })
	edits := func(tag string, every int) string {
		return lines(MaxLineMergeBytes/8, func(i int) string {
			if i%every == 0 {
				return fmt.Sprintf("%5d%s\n", i%100000, tag)
			}
			return fmt.Sprintf("%6d\n", i)
		})
	}
	// 131,072 lines: a change every 300 lines is 437 changed lines, 874
	// edits, within MaxLineMergeEdits; every 3 lines is far past it.
	for _, tc := range []struct {
		name, local, remote string
		byLine              bool
	}{
		{"within the edit limit", edits("L", 300), edits("R", 301), true},
		{"past the edit limit", edits("L", 3), edits("R", 5), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var hunks []Hunk
			got := allocated(func() { _, hunks = Text(base, tc.local, tc.remote) })
			if whole := len(hunks) == 1 && hunks[0].Base == base; whole == tc.byLine {
				t.Fatalf("merged by line: %v, want %v", !whole, tc.byLine)
			}
			if c := allocCap(base, tc.local, tc.remote); got > c {
				t.Errorf("allocated %d bytes, cap %d", got, c)
			}
		})
	}
}

// allocCap is the most one Text call may allocate: the lines' index
// (about 48 bytes a line for the map entry, the line's string header and
// its number, for each text, with room for the map's growth: 160 bytes a
// line), the merged text and joined hunks (three times the input), and
// the two diffs' traces (4·(d+1)² bytes each for d edits, d at most
// MaxLineMergeEdits), plus 64 KiB for everything small.
func allocCap(base, local, remote string) uint64 {
	n := uint64(len(base) + len(local) + len(remote))
	lines := uint64(len(splitLines(base)) + len(splitLines(local)) + len(splitLines(remote)))
	d := min(lines, MaxLineMergeEdits)
	// Each diff's trace holds (d+1)² int32s in d+1 slices, each rounded
	// up to the allocator's size class (at most 1/8 more below 32 KiB).
	return 64<<10 + 160*lines + 3*n + 2*(4*(d+1)*(d+1)*9/8+64*d)
}

// allocated is the bytes f allocates on the heap.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}
