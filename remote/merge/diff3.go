package merge

import "strings"

// Limits of the line-by-line merge. Past either, Text compares the
// contents whole instead: the merge is the changed side's text, or the
// remote's with one conflict hunk holding the three texts when both sides
// changed.
const (
	// MaxLineMergeBytes is the largest text (any of the three) merged line
	// by line: 1 MiB.
	MaxLineMergeBytes = 1 << 20
	// MaxLineMergeEdits is the most inserted plus deleted lines either
	// side may differ from the base by and still be merged line by line.
	// It bounds a merge's time to O(lines·MaxLineMergeEdits) and the
	// diff's memory to O(MaxLineMergeEdits²).
	MaxLineMergeEdits = 1000
)

// Hunk is one region of a text both sides changed differently: the lines
// the base, the local and the remote side have there, each joined with
// its line ends. The merged text holds Remote's lines at line Line
// (1-based; where they would start when Remote is empty).
type Hunk struct {
	Line   int
	Base   string
	Local  string
	Remote string
}

// Text merges two edits of base line by line (diff3). A region only one
// side changed takes that side's lines; a region both changed the same
// way takes them once; a region both changed differently takes the
// remote's lines and is returned as a Hunk. Two edits conflict when they
// touch the same base lines or lines next to each other with no unchanged
// line between them (as git does), or insert at the same place. Line ends
// ("\n", "\r\n") and a missing final newline come through as they are.
//
// Texts over MaxLineMergeBytes, or differing from the base by more than
// MaxLineMergeEdits lines, are compared whole: see the limits above.
func Text(base, local, remote string) (merged string, conflicts []Hunk) {
	switch {
	case local == remote || local == base:
		return remote, nil
	case remote == base:
		return local, nil
	}
	if len(base) <= MaxLineMergeBytes && len(local) <= MaxLineMergeBytes && len(remote) <= MaxLineMergeBytes {
		if merged, conflicts, ok := lineMerge(base, local, remote); ok {
			return merged, conflicts
		}
	}
	return remote, []Hunk{{Line: 1, Base: base, Local: local, Remote: remote}}
}

// lineMerge is Text's diff3; ok is false when a diff is over
// MaxLineMergeEdits.
func lineMerge(base, local, remote string) (merged string, conflicts []Hunk, ok bool) {
	bl, ll, rl := splitLines(base), splitLines(local), splitLines(remote)
	in := make(interner, len(bl)+len(ll)+len(rl))
	bi, li, ri := in.ids(bl), in.ids(ll), in.ids(rl)
	ml, ok := matchLines(bi, li, MaxLineMergeEdits)
	if !ok {
		return "", nil, false
	}
	mr, ok := matchLines(bi, ri, MaxLineMergeEdits)
	if !ok {
		return "", nil, false
	}

	var out strings.Builder
	out.Grow(max(len(local), len(remote)))
	line := 1 // the merged text's next line
	emit := func(lines []string) {
		for _, l := range lines {
			out.WriteString(l)
		}
		line += len(lines)
	}
	same := func(a, b []int32) bool {
		if len(a) != len(b) {
			return false
		}
		for i := range a {
			if a[i] != b[i] {
				return false
			}
		}
		return true
	}

	b, l, r := 0, 0, 0
	for {
		// Lines all three keep, in step.
		for b < len(bl) && int(ml[b]) == l && int(mr[b]) == r {
			emit(bl[b : b+1])
			b, l, r = b+1, l+1, r+1
		}
		// The changed region runs to the next base line both sides keep.
		eb, el, er := b, len(ll), len(rl)
		for ; eb < len(bl); eb++ {
			if ml[eb] >= 0 && mr[eb] >= 0 {
				el, er = int(ml[eb]), int(mr[eb])
				break
			}
		}
		if eb == len(bl) && b == len(bl) && l == len(ll) && r == len(rl) {
			break
		}
		switch {
		case same(li[l:el], bi[b:eb]) || same(li[l:el], ri[r:er]):
			emit(rl[r:er])
		case same(ri[r:er], bi[b:eb]):
			emit(ll[l:el])
		default:
			conflicts = append(conflicts, Hunk{
				Line:   line,
				Base:   strings.Join(bl[b:eb], ""),
				Local:  strings.Join(ll[l:el], ""),
				Remote: strings.Join(rl[r:er], ""),
			})
			emit(rl[r:er])
		}
		b, l, r = eb, el, er
	}
	return out.String(), conflicts, true
}
