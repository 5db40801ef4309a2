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
}

// filterFields are the field:value names the language knows.
var filterFields = map[string]string{
	"status": "status", "collection": "collection", "coll": "collection", "in": "collection",
	"tag": "tag", "tags": "tag", "priority": "priority", "ref": "ref", "is": "state", "state": "state",
}

// Empty reports whether the query says nothing at all.
func (p *Parsed) Empty() bool {
	return len(p.Words)+len(p.Phrases)+len(p.Prefixes)+len(p.Refs)+len(p.Exclude)+len(p.Filters) == 0
}

// Parse reads a query string. It never fails: anything it does not
// recognise is searched as words.
func Parse(q string) *Parsed {
	p := &Parsed{Filters: map[string][]string{}}
	for _, tok := range tokenize(q) {
		neg := false
		t := tok.text
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
				if f, known := filterFields[strings.ToLower(k)]; known {
					if f == "ref" {
						p.Refs = append(p.Refs, strings.ToUpper(v))
					} else {
						p.Filters[f] = append(p.Filters[f], v)
					}
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
			j++
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
