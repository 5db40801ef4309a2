// Package bench generates realistic workspaces for benchmarks, load runs
// and relevance tests: plans, tasks with fields and dependencies, ideas,
// docs with long bodies, comments. Deterministic for a seed. It imports
// nothing of padd's, so every package's tests can use it.
package bench

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// Item is one generated item.
type Item struct {
	Collection string
	Title      string
	Content    string
	Fields     map[string]any
	Tags       []string
	// Parent is the index (in the generated slice) of this item's plan,
	// or -1.
	Parent int
	// BlockedBy lists indexes of items that block this one.
	BlockedBy []int
	Comments  []string
}

// Vocab is the everyday project vocabulary generated text is drawn from;
// Topics are subject words, drawn rarely, as in real notes.
var (
	Vocab = strings.Fields(`the a we it this that when after before with for from into about should could
	would need needs make makes made check update add remove change fix fixed move keep use used using see
	seen show shows run runs ran work works working team week day today tomorrow later next first last new
	old small large quick slow still again also only just more less some every other each both same different
	page screen button form field list table view item items project sprint review note notes idea ideas plan
	plans task tasks doc docs issue issues bug bugs feature features release releases customer customers user
	users people meeting call question answer reply thread follow up owner status priority estimate scope
	goal goals risk risks decision decisions design draft final version copy text link links file files folder
	setting settings option options default value values number count total report reports summary detail
	details step steps flow process guide rule rules case cases example examples edge input output result
	results data model service server client app web site home account profile better worse easier harder
	clear unclear open closed done pending blocked waiting ready started finished ship shipped`)
	Topics = strings.Fields(`token session login cache database query index migration deploy build test
	flaky runner upload export import email notification mobile offline sync queue worker billing pricing
	contrast dark theme keyboard shortcut memory leak websocket reconnect heap api header deprecation runbook
	rotate key encryption kubernetes autoscaling onboarding checklist laptop rate limiter retry quota csv
	emoji spam reset password network conflict latency timeout`)
)

// Words returns n words of generated prose.
func Words(r *rand.Rand, n int) string {
	w := make([]string, n)
	for i := range w {
		if r.IntN(12) == 0 {
			w[i] = Topics[r.IntN(len(Topics))]
		} else {
			w[i] = Vocab[r.IntN(len(Vocab))]
		}
	}
	return strings.Join(w, " ")
}

func title(r *rand.Rand) string {
	s := Words(r, 3+r.IntN(5))
	return strings.ToUpper(s[:1]) + s[1:]
}

// Workspace generates n items: about 2% plans, 63% tasks (status,
// priority, effort; a third under a plan; some blocked by earlier tasks;
// some tagged), 15% ideas, 20% docs with long bodies; one item in five
// has comments. Plans come first so parents precede children.
func Workspace(seed uint64, n int) []Item {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	statuses := []string{"open", "open", "open", "in-progress", "done", "done", "cancelled"}
	prios := []string{"low", "medium", "medium", "high", "critical"}
	efforts := []string{"xs", "s", "m", "l", "xl"}
	plans := max(1, n/50)
	out := make([]Item, 0, n)
	var tasks []int
	for i := range n {
		it := Item{Parent: -1}
		switch k := r.IntN(100); {
		case i < plans:
			it.Collection = "plans"
			it.Title = fmt.Sprintf("Plan: %s", title(r))
			it.Fields = map[string]any{"status": []string{"planned", "active", "active", "completed"}[r.IntN(4)]}
			it.Content = "## Goals\n" + Words(r, 60) + "\n\n## Acceptance criteria\n- " + Words(r, 8) + "\n- " + Words(r, 8)
		case k < 65:
			it.Collection = "tasks"
			it.Title = title(r)
			it.Fields = map[string]any{"status": statuses[r.IntN(len(statuses))], "priority": prios[r.IntN(len(prios))],
				"effort": efforts[r.IntN(len(efforts))]}
			it.Content = Words(r, 20+r.IntN(80))
			if r.IntN(3) == 0 {
				it.Parent = r.IntN(plans)
			}
			if len(tasks) > 0 && r.IntN(10) == 0 {
				it.BlockedBy = []int{tasks[r.IntN(len(tasks))]}
			}
			if r.IntN(4) == 0 {
				it.Tags = []string{Topics[r.IntN(12)]}
			}
			tasks = append(tasks, i)
		case k < 80:
			it.Collection = "ideas"
			it.Title = title(r)
			it.Content = Words(r, 30+r.IntN(60))
		default:
			it.Collection = "docs"
			it.Title = title(r)
			it.Content = "# " + it.Title + "\n\n" + Words(r, 200+r.IntN(400))
		}
		if r.IntN(5) == 0 {
			for range 1 + r.IntN(3) {
				it.Comments = append(it.Comments, Words(r, 8+r.IntN(20)))
			}
		}
		out = append(out, it)
	}
	return out
}
