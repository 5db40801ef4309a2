package model

import (
	"encoding/json"
	"regexp"
	"sort"
	"strings"
	"unicode/utf8"
)

// The item work brief (Pad's ITM-22): everything an agent needs to work
// one item, assembled in a fixed order within a size budget.
//
// Unlike the other views' answers (api's types, converted from storage's
// results at the edge), the brief's types keep their JSON shape here: the
// budget is counted in characters of each part's JSON (ContextSize), so
// that shape is part of the admission rule, and padd sends the brief as
// it was measured. PlaybookMeta is one of those parts, and is also the
// entry of the bootstrap's and the playbook list's answers.

// Context error codes.
const (
	CodeUnknownIntent = "unknown_intent"
	CodeUnknownRole   = "unknown_role"
)

// Context budget, in characters of serialized parts.
const (
	DefaultContextBudget = 40000
	MaxContextBudget     = 400000
)

// Context part names, in admission order.
const (
	PartParents     = "parents"
	PartConventions = "conventions"
	PartPlaybooks   = "playbooks"
	PartDeps        = "deps"
	PartDecisions   = "decisions"
	PartLinks       = "links"
)

// ContextParts is the fixed admission order: nearer, more binding
// material first, so a tight budget drops the least essential.
var ContextParts = []string{PartParents, PartConventions, PartPlaybooks, PartDeps, PartDecisions, PartLinks}

// ContextBrief is the reply of GET .../items/{ref}/context.
type ContextBrief struct {
	Item        ContextItem         `json:"item"`
	Intent      string              `json:"intent,omitempty"`
	Trigger     string              `json:"trigger"` // the trigger conventions were matched on
	Role        string              `json:"role,omitempty"`
	Budget      int                 `json:"budget"`
	Used        int                 `json:"used"` // characters of the parts that shipped, the item included
	Parents     []ContextParent     `json:"parents"`
	Conventions []ContextConvention `json:"conventions"`
	Playbooks   []PlaybookMeta      `json:"playbooks"`
	Deps        ContextDeps         `json:"deps"`
	Decisions   []ContextDecision   `json:"decisions"`
	// DecisionsBelowThreshold and DecisionsStaleQuestion count provider
	// answers left out; padd has no decision provider, so they are 0.
	DecisionsBelowThreshold int              `json:"decisions_below_threshold"`
	DecisionsStaleQuestion  int              `json:"decisions_stale_question"`
	Links                   []ContextLink    `json:"links"`
	Omitted                 []ContextOmitted `json:"omitted"`
	Conflicts               ContextConflicts `json:"conflicts"`
}

// ContextItem is the item itself, always shipped.
type ContextItem struct {
	Ref        string         `json:"ref"`
	Seq        int64          `json:"seq"`
	Title      string         `json:"title"`
	Collection string         `json:"collection"`
	Status     string         `json:"status,omitempty"`
	Fields     map[string]any `json:"fields"`
	Body       string         `json:"body"`
}

// ContextParent is one ancestor, nearest first.
type ContextParent struct {
	Ref                string                `json:"ref"`
	Seq                int64                 `json:"seq"`
	Title              string                `json:"title"`
	Status             string                `json:"status,omitempty"`
	AcceptanceCriteria []AcceptanceCriterion `json:"acceptance_criteria"`
	// Body is set on the nearest parent only.
	Body *string `json:"body,omitempty"`
}

// ContextConvention is a convention that applies, with its body.
type ContextConvention struct {
	Ref      string `json:"ref"`
	Seq      int64  `json:"seq"`
	Title    string `json:"title"`
	Trigger  string `json:"trigger,omitempty"`
	Priority string `json:"priority,omitempty"`
	Scope    string `json:"scope,omitempty"`
	Role     string `json:"role,omitempty"`
	Body     string `json:"body"`
}

// PlaybookMeta is a playbook without its body: the shape of bootstrap's
// and the playbook list's entries.
type PlaybookMeta struct {
	Ref            string `json:"ref"`
	Seq            int64  `json:"seq,omitempty"`
	Title          string `json:"title"`
	Slug           string `json:"slug"`
	InvocationSlug string `json:"invocation_slug,omitempty"`
	Trigger        string `json:"trigger,omitempty"`
	Scope          string `json:"scope,omitempty"`
	Status         string `json:"status,omitempty"`
	HasArguments   bool   `json:"has_arguments"`
	Summary        string `json:"summary,omitempty"`
}

// ContextDep is a direct blocking neighbour.
type ContextDep struct {
	Ref    string `json:"ref"`
	Seq    int64  `json:"seq"`
	Title  string `json:"title"`
	Status string `json:"status,omitempty"`
	State  State  `json:"state"`
}

// ContextDeps splits the blocking neighbours by direction.
type ContextDeps struct {
	Blocks    []ContextDep `json:"blocks"`
	BlockedBy []ContextDep `json:"blocked_by"`
}

// ContextDecision is one entry of the item's decision log.
type ContextDecision struct {
	Ref       string `json:"ref"`
	Seq       int64  `json:"seq"`
	ID        string `json:"id,omitempty"`
	Decision  string `json:"decision"`
	Rationale string `json:"rationale,omitempty"`
	CreatedAt string `json:"created_at,omitempty"`
	CreatedBy string `json:"created_by,omitempty"`
	Agent     string `json:"agent,omitempty"`
	// Current says the decision still applies. Pad marks a provider's
	// answer false once its item has moved on; a decision-log entry is the
	// item's own record and does not go stale, so padd answers true.
	Current bool `json:"current"`
}

// ContextLink is a non-blocking link to another item.
type ContextLink struct {
	Ref    string `json:"ref"`
	Seq    int64  `json:"seq"`
	Title  string `json:"title"`
	Status string `json:"status,omitempty"`
	Type   string `json:"type"` // as the item sees it: implements, implemented-by, ...
}

// ContextOmitted is a part the budget left out.
type ContextOmitted struct {
	Part   string `json:"part"`
	Ref    string `json:"ref"`
	Seq    int64  `json:"seq"`
	Size   int    `json:"size"`
	Reason string `json:"reason"`
}

// ContextConflicts are structural tensions worth an agent's attention.
type ContextConflicts struct {
	OpenBlocker             []ConflictRef     `json:"open_blocker,omitempty"`
	OpenUnderClosedParent   []ConflictRef     `json:"open_under_closed_parent,omitempty"`
	StaleDecision           []ConflictRef     `json:"stale_decision,omitempty"`
	RoleAndGlobalConvention []ConventionClash `json:"role_and_global_convention,omitempty"`
}

// ConflictRef names the item a conflict is about.
type ConflictRef struct {
	Ref    string `json:"ref"`
	Title  string `json:"title,omitempty"`
	Status string `json:"status,omitempty"`
}

// ConventionClash is a role-scoped and a global convention that match
// the same trigger under the same title.
type ConventionClash struct {
	Title  string `json:"title"`
	Role   string `json:"role"`
	Scoped string `json:"scoped_ref"`
	Global string `json:"global_ref"`
}

// AcceptanceCriterion is one list item of an "Acceptance criteria"
// section. Checked is set for task-list items ("- [ ]", "- [x]").
type AcceptanceCriterion struct {
	Text    string `json:"text"`
	Checked *bool  `json:"checked,omitempty"`
}

var acceptanceHeading = regexp.MustCompile(`^(#{1,6})\s+acceptance\s+criteria\s*:?\s*#*\s*$`)

// AcceptanceCriteria parses the list items of a body's "Acceptance
// criteria" section (any heading level, any case) up to the next heading
// of the same or a higher level. Nested items and continuation lines
// belong to the item above them; code fences are skipped.
func AcceptanceCriteria(body string) []AcceptanceCriterion {
	out := []AcceptanceCriterion{}
	level := 0
	inFence := false
	for _, line := range strings.Split(body, "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			inFence = !inFence
			continue
		}
		if inFence {
			continue
		}
		if strings.HasPrefix(t, "#") {
			hashes := len(t) - len(strings.TrimLeft(t, "#"))
			if level > 0 && hashes <= level {
				break
			}
			if level == 0 {
				if m := acceptanceHeading.FindStringSubmatch(strings.ToLower(t)); m != nil {
					level = len(m[1])
				}
			}
			continue
		}
		if level == 0 || t == "" {
			continue
		}
		indented := len(line) > len(strings.TrimLeft(line, " \t")) && len(out) > 0
		m := listMarker(t)
		if m == "" || indented {
			if len(out) > 0 {
				out[len(out)-1].Text += " " + strings.TrimSpace(strings.TrimPrefix(t, m))
			}
			continue
		}
		text := strings.TrimSpace(t[len(m):])
		c := AcceptanceCriterion{Text: text}
		if len(text) >= 3 && text[0] == '[' && text[2] == ']' && strings.ContainsRune(" xX", rune(text[1])) {
			checked := text[1] != ' '
			c.Checked = &checked
			c.Text = strings.TrimSpace(text[3:])
		}
		out = append(out, c)
	}
	return out
}

// ResolveIntent maps a context intent onto a convention trigger among
// the declared trigger options: "on-<intent>" if declared, else the
// intent itself. No intent means "always". With no declared options
// (no conventions collection), the intent is taken as on-<intent>
// unchecked. Neither declared: 400 unknown_intent listing the intents
// that would resolve.
func ResolveIntent(intent string, triggers []string) (string, error) {
	intent = strings.ToLower(strings.TrimSpace(intent))
	if intent == "" {
		return "always", nil
	}
	if len(triggers) == 0 {
		if strings.HasPrefix(intent, "on-") {
			return intent, nil
		}
		return "on-" + intent, nil
	}
	for _, t := range []string{"on-" + intent, intent} {
		if contains(triggers, t) {
			return t, nil
		}
	}
	var valid []string
	seen := map[string]bool{}
	for _, t := range triggers {
		v := strings.TrimPrefix(t, "on-")
		if t != "always" && !seen[v] {
			seen[v] = true
			valid = append(valid, v)
		}
	}
	return "", Errorf(CodeUnknownIntent,
		"unknown intent %q: this workspace's conventions trigger on %s", intent, strings.Join(valid, ", ")).
		With("intent", intent).With("valid_intents", valid)
}

// UnknownRole refuses a context role that is not a role slug.
func UnknownRole(role string, valid []string) *Error {
	return Errorf(CodeUnknownRole, "unknown role %q: give a role slug of this workspace (%s)", role, strings.Join(valid, ", ")).
		With("role", role).With("valid_roles", valid)
}

// ConventionRank orders convention priorities: must, should,
// nice-to-have, then anything else.
func ConventionRank(priority string) int {
	switch priority {
	case "must":
		return 0
	case "should":
		return 1
	case "nice-to-have":
		return 2
	}
	return 3
}

// RefLess orders refs by prefix, then number, so CONVE-9 comes before
// CONVE-10; anything that is not a ref sorts as text after refs.
func RefLess(a, b string) bool {
	ra, aok := ParseRef(a)
	rb, bok := ParseRef(b)
	switch {
	case aok && bok:
		if ra.Prefix != rb.Prefix {
			return ra.Prefix < rb.Prefix
		}
		return ra.Number < rb.Number
	case aok != bok:
		return aok
	}
	return a < b
}

// SortConventions puts conventions in the brief's order: must, should,
// nice-to-have, then by ref.
func SortConventions(cs []ContextConvention) {
	sort.SliceStable(cs, func(i, j int) bool {
		if ri, rj := ConventionRank(cs[i].Priority), ConventionRank(cs[j].Priority); ri != rj {
			return ri < rj
		}
		return RefLess(cs[i].Ref, cs[j].Ref)
	})
}

// ContextCandidate is one entry offered to the budget: its part, its
// identity and the value that ships if it is admitted.
type ContextCandidate struct {
	Part string
	// Side places an admitted deps entry: "blocks" or "blocked_by".
	Side  string
	Ref   string
	Seq   int64
	Value any
}

// ContextSize is the budget cost of a value: characters of its JSON.
func ContextSize(v any) int {
	b, err := json.Marshal(v)
	if err != nil {
		return 0
	}
	return utf8.RuneCount(b)
}

// AdmitContext admits candidates whole, in the order given, while they
// fit in what is left of budget after used. The first that does not fit
// and every one after it are omitted, so a small later part never slips
// in after a refused one and the brief never has holes in its order.
// It returns the admitted candidates, the omitted list and the
// characters used.
func AdmitContext(cands []ContextCandidate, budget, used int) ([]ContextCandidate, []ContextOmitted, int) {
	admitted := make([]ContextCandidate, 0, len(cands))
	omitted := []ContextOmitted{}
	full := false
	for _, c := range cands {
		size := ContextSize(c.Value)
		if !full && used+size <= budget {
			used += size
			admitted = append(admitted, c)
			continue
		}
		full = true
		omitted = append(omitted, ContextOmitted{Part: c.Part, Ref: c.Ref, Seq: c.Seq, Size: size, Reason: "budget"})
	}
	return admitted, omitted, used
}
