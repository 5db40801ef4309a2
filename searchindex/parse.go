package searchindex

import (
	"strings"
	"unicode"

	"github.com/padd/padd/model"
)

// Parsed is a query in the language people already know: words (all
// must match), "phrases", prefix*, -exclusions, field:value filters, and
// refs (TASK-12) that find their item first.
type Parsed struct {
	Words    []string
	Phrases  []string
	Prefixes []string
	Refs     []string // upper-case refs
	Exclude  []string // words or phrases that must not match
	Filters  map[string][]string
	// InTitle are title:word (a column filter of Pad's full-text
	// search): words or "phrases" that must match in the title.
	InTitle []string
	// Unknown is the first name:value whose name is no filter, and Or
	// says the query used OR: Search refuses both rather than search
	// them as words and answer something else than was asked.
	Unknown string
	Or      bool

	// terms[i] is Words[i] as the index holds it, when it analyzes to
	// exactly one term ("" otherwise): the query then looks that term up
	// itself instead of through a match query's one-term disjunction.
	terms []string
	// fuzz[i] is how many typos the typo-tolerant search allows in
	// Words[i] (wordFuzziness).
	fuzz []int
	// refAlts[r] are the refs the item(s) that ref r names carry now (an
	// old ref after a move, a provisional ref after the remote numbered
	// the item): resolved against the store before the search runs.
	refAlts map[string][]string
	// numRefs[w] are the refs of the items numbered w in the workspaces
	// searched, for each word w that is a bare number: numbers are
	// looked up exactly, as refs are.
	numRefs map[string][]string
}

// filterFields are the field:value names the language knows.
var filterFields = map[string]string{
	"status": "status", "collection": "collection", "coll": "collection", "in": "collection",
	"tag": "tag", "tags": "tag", "priority": "priority", "ref": "ref", "is": "state", "state": "state",
	"title": "title",
}

// FilterNames are the filters as a refusal lists them.
const FilterNames = "status:, priority:, tag:, in: (a collection), is: (open, done, ...), ref:, title:"

// Empty reports whether the query says nothing at all.
func (p *Parsed) Empty() bool {
	return len(p.Words)+len(p.Phrases)+len(p.Prefixes)+len(p.Refs)+len(p.Exclude)+len(p.Filters)+len(p.InTitle) == 0
}

// Parse reads a query string. It never fails: anything it does not
// recognise is searched as words, but for what Search refuses (Unknown,
// Or).
func Parse(q string) *Parsed {
	p := &Parsed{Filters: map[string][]string{}}
	toks := tokenize(q)
	for i := 0; i < len(toks); i++ {
		tok := toks[i]
		neg := false
		t := tok.text
		if !tok.quoted && !tok.negQuoted {
			// FTS5's operators, upper case as it spells them: AND is
			// what every query does anyway, NOT excludes what follows.
			switch t {
			case "AND":
				continue
			case "OR":
				p.Or = true
				continue
			case "NOT":
				if i+1 < len(toks) {
					i++
					if next := toks[i]; next.quoted || next.negQuoted {
						if ph := strings.TrimSpace(next.text); ph != "" {
							p.Exclude = append(p.Exclude, ph)
						}
					} else if hasWordChar(next.text) {
						p.Exclude = append(p.Exclude, strings.TrimPrefix(next.text, "-"))
					}
				}
				continue
			}
		}
		if !tok.quoted && strings.HasPrefix(t, "-") && len(t) > 1 {
			neg, t = true, t[1:]
		}
		switch {
		case tok.quoted || tok.negQuoted:
			if t = strings.TrimSpace(t); t == "" {
				continue
			}
			if tok.negQuoted {
				p.Exclude = append(p.Exclude, t)
			} else {
				p.Phrases = append(p.Phrases, t)
			}
		case neg:
			p.Exclude = append(p.Exclude, t)
		default:
			if k, v, ok := strings.Cut(t, ":"); ok && v != "" {
				f, known := filterFields[strings.ToLower(k)]
				switch {
				case known && f == "ref":
					p.Refs = append(p.Refs, strings.ToUpper(v))
				case known && f == "title":
					p.InTitle = append(p.InTitle, v)
				case known:
					p.Filters[f] = append(p.Filters[f], v)
				case filterLike(k, v):
					if p.Unknown == "" {
						p.Unknown = k + ":"
					}
				}
				if known || filterLike(k, v) {
					continue
				}
			}
			if r, ok := model.ParseItemRef(t); ok {
				p.Refs = append(p.Refs, r.String())
				continue
			}
			if strings.HasSuffix(t, "*") && len(strings.TrimRight(t, "*")) > 0 {
				p.Prefixes = append(p.Prefixes, strings.ToLower(strings.TrimRight(t, "*")))
				continue
			}
			if hasWordChar(t) {
				p.Words = append(p.Words, t)
			}
		}
	}
	return p
}

// filterLike says name:value looks like a filter (a short name of
// letters), not text with a colon in it (10:30, https://...).
func filterLike(name, value string) bool {
	if name == "" || len(name) > 20 || strings.HasPrefix(value, "/") {
		return false
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r == '_') {
			return false
		}
	}
	return true
}

type token struct {
	text              string
	quoted, negQuoted bool
}

// tokenize splits on spaces, keeping "quoted phrases" (and -"phrases")
// whole; an unclosed quote runs to the end.
func tokenize(q string) []token {
	var out []token
	rs := []rune(q)
	for i := 0; i < len(rs); {
		if unicode.IsSpace(rs[i]) {
			i++
			continue
		}
		neg := false
		if rs[i] == '-' && i+1 < len(rs) && rs[i+1] == '"' {
			neg = true
			i++
		}
		if rs[i] == '"' {
			j := i + 1
			for j < len(rs) && rs[j] != '"' {
				j++
			}
			out = append(out, token{text: string(rs[i+1 : j]), quoted: !neg, negQuoted: neg})
			i = j + 1
			continue
		}
		j := i
		for j < len(rs) && !unicode.IsSpace(rs[j]) {
			if rs[j] == ':' && j+1 < len(rs) && rs[j+1] == '"' && j > i {
				// name:"a phrase": the phrase is the value, whole.
				k := j + 2
				for k < len(rs) && rs[k] != '"' {
					k++
				}
				out = append(out, token{text: string(rs[i:j+1]) + string(rs[j+2:min(k, len(rs))])})
				j = -1
				i = k + 1
				break
			}
			j++
		}
		if j < 0 {
			continue
		}
		out = append(out, token{text: string(rs[i:j])})
		i = j
	}
	return out
}

func hasWordChar(s string) bool {
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return true
		}
	}
	return false
}
