package merge

// The line diff under the content merge: Myers' O(ND) algorithm over lines
// interned as numbers, after trimming the lines both texts share at their
// start and end.

// splitLines cuts s into lines that keep their terminator ("\n", so
// "\r\n" stays whole), the last one without a terminator when s does not
// end in one. Joining the lines gives s back byte for byte.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			n++
		}
	}
	if s[len(s)-1] != '\n' {
		n++
	}
	lines := make([]string, 0, n)
	start := 0
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			lines = append(lines, s[start:i+1])
			start = i + 1
		}
	}
	if start < len(s) {
		lines = append(lines, s[start:])
	}
	return lines
}

// interner numbers distinct lines so that the diff compares numbers.
type interner map[string]int32

func (in interner) ids(lines []string) []int32 {
	ids := make([]int32, len(lines))
	for i, l := range lines {
		id, ok := in[l]
		if !ok {
			id = int32(len(in))
			in[l] = id
		}
		ids[i] = id
	}
	return ids
}

// matchLines aligns a with b: match[i] is the index in b of the line
// matched to a[i] (a longest common subsequence), or -1 when a[i] is not
// in the alignment. It gives up (ok false) when the texts differ by more
// than maxEdits inserted and deleted lines, which bounds its time to
// O((len(a)+len(b))·maxEdits) and its memory to O(maxEdits²).
func matchLines(a, b []int32, maxEdits int) (match []int32, ok bool) {
	match = make([]int32, len(a))
	for i := range match {
		match[i] = -1
	}
	p := 0
	for p < len(a) && p < len(b) && a[p] == b[p] {
		match[p] = int32(p)
		p++
	}
	s := 0
	for s < len(a)-p && s < len(b)-p && a[len(a)-1-s] == b[len(b)-1-s] {
		match[len(a)-1-s] = int32(len(b) - 1 - s)
		s++
	}
	ok = myers(a[p:len(a)-s], b[p:len(b)-s], maxEdits, func(i, j int) {
		match[p+i] = int32(p + j)
	})
	if !ok {
		return nil, false
	}
	return match, true
}

// myers finds a shortest edit script from a to b and calls matched for
// each pair of lines it keeps, from the end backwards. It returns false,
// having called nothing, when the script would be longer than maxEdits.
func myers(a, b []int32, maxEdits int, matched func(i, j int)) bool {
	n, m := len(a), len(b)
	if n == 0 || m == 0 {
		return n+m <= maxEdits
	}
	maxD := min(maxEdits, n+m)
	off := maxD + 1
	v := make([]int32, 2*maxD+3) // v[off+k]: furthest x on diagonal k
	// trace[d] holds v[off-d : off+d+1] after round d, for the way back.
	var trace [][]int32
	for d := 0; d <= maxD; d++ {
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
				x = int(v[off+k+1])
			} else {
				x = int(v[off+k-1]) + 1
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x++
				y++
			}
			v[off+k] = int32(x)
			if x >= n && y >= m {
				backtrack(trace, n, m, d, matched)
				return true
			}
		}
		trace = append(trace, append([]int32(nil), v[off-d:off+d+1]...))
	}
	return false
}

// backtrack walks the rounds of myers back from (n, m), reached in round
// d, calling matched for the diagonal moves.
func backtrack(trace [][]int32, n, m, d int, matched func(i, j int)) {
	x, y := n, m
	for ; d > 0; d-- {
		prev := trace[d-1] // prev[k+d-1] is diagonal k of round d-1
		at := func(k int) int { return int(prev[k+d-1]) }
		k := x - y
		var px, py, sx, sy int
		if k == -d || (k != d && at(k-1) < at(k+1)) {
			px = at(k + 1) // a line inserted from b
			py = px - (k + 1)
			sx, sy = px, py+1
		} else {
			px = at(k - 1) // a line of a deleted
			py = px - (k - 1)
			sx, sy = px+1, py
		}
		for x > sx && y > sy {
			x--
			y--
			matched(x, y)
		}
		x, y = px, py
	}
	for x > 0 && y > 0 {
		x--
		y--
		matched(x, y)
	}
}
