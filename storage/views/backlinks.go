package views

import (
	"bytes"
	"regexp"
	"sort"
	"strings"

	"github.com/padd/padd/model"
	"github.com/padd/padd/storage"
	"github.com/padd/padd/storage/internal/records"
)

// Backlinks are Pad's "Mentioned in" list: the live items whose body
// carries a [[...]] wiki-link to an item. Typed links are not backlinks
// (ListLinks serves those). Pad keeps a wiki-link table that every body
// write refreshes; padd has no such index yet, so Backlinks scans the
// live bodies of the workspace at read time. That is linear in the
// workspace's text, which a single user's workspace affords.
//
// The forms understood, as Pad's renderer resolves them:
//
//	[[TASK-5]]  [[task-5|shown text]]   a ref (any case, old refs too);
//	                                     a ref that names no item falls
//	                                     back to a title
//	[[ws-slug::TASK-5]]                  a ref qualified with this
//	                                     workspace's slug (no fallback);
//	                                     other workspaces are not searched
//	[[Some Title]]  [[tasks/Some Title]] a title, case-insensitive,
//	                                     optionally with the collection
//
// Links inside fenced or inline code do not count. The rows leave out
// the item itself and its hierarchy (its parent, its children, and
// items joined to it by an implements link either way), which Pad shows
// elsewhere on the page.

// Backlink page bounds (Pad's).
const (
	DefaultBacklinks = 50
	MaxBacklinks     = 300
	snippetRadius    = 40
)

// Backlink is one [[...]] mention of an item in another item's body.
type Backlink struct {
	Source   storage.ItemBrief
	Snippet  string
	Position int // byte offset of the "[[" in the source body
	// DisplayText is the text after "|", nil when the link has none
	// (Pad distinguishes "[[X]]" from "[[X|]]").
	DisplayText *string
}

// BacklinkPage is one page of backlinks, most recently updated source
// first, then by position in the body.
type BacklinkPage struct {
	Backlinks  []Backlink
	HasMore    bool
	NextOffset int
}

var (
	wikiLinkRE = regexp.MustCompile(`\[\[((?:\\.|[^\]\\])+)\]\]`)
	wikiRefRE  = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9]*-[0-9]+$`)
)

// wikiLink is one [[...]] occurrence outside code.
type wikiLink struct {
	pos        int
	key        string // unescaped, untrimmed
	display    string
	hasDisplay bool
}

// Backlinks lists the items mentioning itemRef (archived targets too),
// limit defaulting to DefaultBacklinks and capped at MaxBacklinks.
func (s *Views) Backlinks(ws, itemRef string, limit, offset int) (*BacklinkPage, error) {
	if limit <= 0 {
		limit = DefaultBacklinks
	}
	if limit > MaxBacklinks {
		limit = MaxBacklinks
	}
	if offset < 0 {
		offset = 0
	}
	out := &BacklinkPage{Backlinks: []Backlink{}}
	err := s.base.Read(ws, func(r *records.Rtx) error {
		b := r.WS
		target, err := records.ItemByRef(b, itemRef, false)
		if err != nil {
			return err
		}
		colls := map[string]*model.Collection{}
		tc, err := records.CollOf(b, colls, target.CollectionID)
		if err != nil {
			return err
		}
		tid := records.MustID(target.ID)
		hidden := map[string]bool{target.ID: true, target.ParentID: true}
		for _, bk := range [][]records.Edge{records.EdgesOf(b.LinkSrc(), tid, model.LinkImplements), records.EdgesOf(b.LinkDst(), tid, model.LinkImplements)} {
			for _, e := range bk {
				hidden[records.IDString(e.Other)] = true
			}
		}
		m := mentionMatcher{b: b, wsSlug: r.WSRec.Slug, target: target, targetColl: tc, refs: map[string]bool{}}

		var hits []Backlink
		var updated []int64 // the source's updated_at, for the order
		p := []byte{records.KindAll, records.LifeLive}
		c := b.Index().Cursor()
		for k, _ := c.Seek(p); k != nil && bytes.HasPrefix(k, p); k, _ = c.Next() {
			id := k[len(k)-16:]
			body := b.Content().Get(id)
			if !bytes.Contains(body, []byte("[[")) || hidden[records.IDString(id)] {
				continue
			}
			links := m.mentions(string(body))
			if len(links) == 0 {
				continue
			}
			src, err := records.GetItem(b, id, false)
			if err != nil {
				return err
			}
			if src == nil || src.ParentID == target.ID {
				continue
			}
			br, err := records.BriefOf(b, src, colls)
			if err != nil {
				return err
			}
			if br.Archived {
				continue
			}
			for _, l := range links {
				bl := Backlink{Source: br, Snippet: snippetAt(string(body), l.pos), Position: l.pos}
				if l.hasDisplay {
					d := l.display
					bl.DisplayText = &d
				}
				hits = append(hits, bl)
				updated = append(updated, src.UpdatedAt.Unix())
			}
		}
		idx := make([]int, len(hits))
		for i := range idx {
			idx[i] = i
		}
		sort.SliceStable(idx, func(i, j int) bool {
			a, z := idx[i], idx[j]
			if updated[a] != updated[z] {
				return updated[a] > updated[z]
			}
			if hits[a].Position != hits[z].Position {
				return hits[a].Position < hits[z].Position
			}
			return hits[a].Source.ID < hits[z].Source.ID
		})
		for n, i := range idx {
			if n < offset {
				continue
			}
			if len(out.Backlinks) == limit {
				out.HasMore, out.NextOffset = true, offset+limit
				break
			}
			out.Backlinks = append(out.Backlinks, hits[i])
		}
		return nil
	})
	return out, err
}

// mentionMatcher decides which wiki-links of a body point at one target.
type mentionMatcher struct {
	b          *records.Wsb
	wsSlug     string
	target     *model.Item
	targetColl *model.Collection
	refs       map[string]bool // resolved refs: does it name the target?
}

func (m *mentionMatcher) mentions(body string) []wikiLink {
	var out []wikiLink
	for _, l := range wikiLinks(body) {
		if m.names(l.key) {
			out = append(out, l)
		}
	}
	return out
}

func (m *mentionMatcher) names(key string) bool {
	trimmed := strings.TrimSpace(key)
	if ws, ref, ok := strings.Cut(trimmed, "::"); ok && wikiRefRE.MatchString(strings.TrimSpace(ref)) {
		if strings.TrimSpace(ws) != m.wsSlug {
			return false
		}
		hit, _ := m.ref(strings.TrimSpace(ref))
		return hit
	}
	if wikiRefRE.MatchString(trimmed) {
		if hit, resolved := m.ref(trimmed); resolved {
			return hit
		}
		// A ref that names nothing reads as a title, as Pad's renderer does.
	}
	if strings.EqualFold(key, m.target.Title) {
		return true
	}
	coll, title, ok := strings.Cut(key, "/")
	return ok && strings.EqualFold(coll, m.targetColl.Slug) && strings.EqualFold(title, m.target.Title)
}

// ref resolves a ref once per read: hit says it names the target,
// resolved that it names any item.
func (m *mentionMatcher) ref(ref string) (hit, resolved bool) {
	key := strings.ToUpper(ref)
	if h, ok := m.refs[key]; ok {
		return h, true
	}
	id := records.FindItem(m.b, ref)
	if id == nil {
		return false, false
	}
	m.refs[key] = records.IDString(id) == m.target.ID
	return m.refs[key], true
}

// wikiLinks finds the [[...]] occurrences of a body outside code.
func wikiLinks(body string) []wikiLink {
	code := codeRanges(body)
	var out []wikiLink
	for _, g := range wikiLinkRE.FindAllStringSubmatchIndex(body, -1) {
		if inRanges(g[0], code) {
			continue
		}
		key, display, has := splitWikiBody(body[g[2]:g[3]])
		key = unescapeWiki(key)
		if key == "" {
			continue
		}
		out = append(out, wikiLink{pos: g[0], key: key, display: unescapeWiki(display), hasDisplay: has})
	}
	return out
}

// splitWikiBody cuts at the first "|" not escaped by a backslash.
func splitWikiBody(s string) (key, display string, has bool) {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++ // a backslash always takes the next byte with it
		case '|':
			return s[:i], s[i+1:], true
		}
	}
	return s, "", false
}

// unescapeWiki undoes the editor's \], \| and \\ escapes and leaves any
// other backslash alone.
func unescapeWiki(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var sb strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && strings.IndexByte(`\]|`, s[i+1]) >= 0 {
			i++
		}
		sb.WriteByte(s[i])
	}
	return sb.String()
}

func inRanges(pos int, rs [][2]int) bool {
	for _, r := range rs {
		if pos >= r[0] && pos < r[1] {
			return true
		}
	}
	return false
}

// codeRanges returns the byte ranges of fenced code blocks and inline
// code spans, where a [[...]] renders as text (CommonMark's rules, as
// far as links care: fences of 3+ backticks or tildes indented at most
// 3 spaces, closed by a like fence at least as long or by the end; code
// spans closed by a backtick run of the same length, within a
// paragraph).
func codeRanges(s string) [][2]int {
	var out [][2]int
	var text [][2]int // the stretches between fenced blocks
	from := 0
	for i := 0; i < len(s); {
		end := lineEnd(s, i)
		ch, n, ok := fenceAt(s, i, end, true)
		if !ok {
			i = nextLine(s, end)
			continue
		}
		text = append(text, [2]int{from, i})
		stop := len(s) // an unclosed fence runs to the end
		for j := nextLine(s, end); j < len(s); {
			e := lineEnd(s, j)
			if c2, n2, ok2 := fenceAt(s, j, e, false); ok2 && c2 == ch && n2 >= n && onlyFence(s[j:e], ch) {
				stop = e
				break
			}
			j = nextLine(s, e)
		}
		out = append(out, [2]int{i, stop})
		from = stop
		i = nextLine(s, stop)
	}
	text = append(text, [2]int{from, len(s)})
	for _, t := range text {
		out = append(out, inlineCode(s, t[0], t[1])...)
	}
	sort.Slice(out, func(i, j int) bool { return out[i][0] < out[j][0] })
	return out
}

func lineEnd(s string, i int) int {
	if j := strings.IndexByte(s[i:], '\n'); j >= 0 {
		return i + j
	}
	return len(s)
}

func nextLine(s string, end int) int { return min(end+1, len(s)) }

// fenceAt reads a fence on the line s[i:end]: up to three spaces, then
// three or more of one fence character. An opener of backticks may not
// carry a backtick in its info string.
func fenceAt(s string, i, end int, opener bool) (ch byte, n int, ok bool) {
	j := i
	for j < end && j-i < 4 && s[j] == ' ' {
		j++
	}
	if j-i > 3 || j >= end || (s[j] != '`' && s[j] != '~') {
		return 0, 0, false
	}
	ch = s[j]
	for j < end && s[j] == ch {
		j++
		n++
	}
	if opener && ch == '`' && strings.IndexByte(s[j:end], '`') >= 0 {
		return 0, 0, false
	}
	return ch, n, n >= 3
}

// onlyFence says a closing line holds nothing but the fence run and spaces.
func onlyFence(line string, ch byte) bool {
	t := strings.Trim(line, " \t")
	return strings.Trim(t, string(ch)) == ""
}

// inlineCode finds code spans in s[from:to].
func inlineCode(s string, from, to int) [][2]int {
	var out [][2]int
	for i := from; i < to; {
		j := strings.IndexByte(s[i:to], '`')
		if j < 0 {
			break
		}
		open := i + j
		k := open
		for k < to && s[k] == '`' {
			k++
		}
		n := k - open
		closed := -1
		for p := k; p < to; {
			if s[p] == '\n' && blankLineAt(s, p+1, to) {
				break
			}
			if s[p] != '`' {
				p++
				continue
			}
			q := p
			for q < to && s[q] == '`' {
				q++
			}
			if q-p == n {
				closed = q
				break
			}
			p = q
		}
		if closed < 0 {
			i = k // an unmatched run is literal text
			continue
		}
		out = append(out, [2]int{open, closed})
		i = closed
	}
	return out
}

func blankLineAt(s string, i, to int) bool {
	for ; i < to && s[i] != '\n'; i++ {
		if s[i] != ' ' && s[i] != '\t' {
			return false
		}
	}
	return true
}

// snippetAt cuts about snippetRadius bytes either side of pos on rune
// boundaries, on one line, with an ellipsis where it cut.
func snippetAt(s string, pos int) string {
	start, end := max(pos-snippetRadius, 0), min(pos+snippetRadius, len(s))
	for start < len(s) && start > 0 && s[start]&0xC0 == 0x80 {
		start++
	}
	for end < len(s) && s[end]&0xC0 == 0x80 {
		end++
	}
	out := strings.ReplaceAll(s[start:end], "\n", " ")
	if start > 0 {
		out = "…" + out
	}
	if end < len(s) {
		out += "…"
	}
	return out
}
