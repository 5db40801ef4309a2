package model

import (
	"strings"
	"unicode/utf8"
)

// Exact-text body patches (Pad's PAT-01..03). A patch names the text to
// change rather than a position, so it can be applied to a body the
// caller has not re-read: the anchors are the precondition, not a seq.

// Patch error codes.
const (
	CodePatchAnchorMissing   = "patch_anchor_missing"
	CodePatchAnchorAmbiguous = "patch_anchor_ambiguous"
	CodePatchNotFound        = "patch_not_found"
)

// Patch limits.
const (
	// MaxPatchEdits bounds one patch.
	MaxPatchEdits = 100
	// PatchContextChars is how much text each side of an applied edit is
	// kept for its undo.
	PatchContextChars = 40
)

// PatchEdit replaces the one occurrence of Old with New. LineHint
// (1-based) only chooses among several exact occurrences; it never
// makes an inexact match.
type PatchEdit struct {
	Old      string `json:"old"`
	New      string `json:"new"`
	LineHint int    `json:"line_hint,omitempty"`
}

// AppliedEdit is an edit as it landed, with the text around its
// replacement right after it applied: enough to find it again later and
// invert it, and never reaching past a line end unless the edit left
// nothing on its line to anchor on.
type AppliedEdit struct {
	Old       string `json:"old"`
	New       string `json:"new"`
	CtxBefore string `json:"ctx_before"`
	CtxAfter  string `json:"ctx_after"`
}

// ApplyPatch applies edits to body in order, each against the body as
// the previous one left it. It is all or nothing: the first refusal
// returns it and no text. The refusals are Pad's: bad_request for no
// edits, too many, an empty old or old == new (details.edit is the
// 0-based index), and for edits that together change nothing
// (details.ref, the item's ref); patch_anchor_missing and
// patch_anchor_ambiguous (details.lines, the 1-based lines where the
// occurrences start) for an old that does not occur exactly once.
func ApplyPatch(ref, body string, edits []PatchEdit) (string, []AppliedEdit, error) {
	if len(edits) == 0 {
		return "", nil, BadRequest("a patch needs at least one edit {old, new}")
	}
	if len(edits) > MaxPatchEdits {
		return "", nil, BadRequest("a patch takes at most %d edits, got %d; split it", MaxPatchEdits, len(edits)).
			With("limit", MaxPatchEdits)
	}
	for i, e := range edits {
		if e.Old == "" {
			return "", nil, BadRequest("edits[%d].old is empty: name the exact text to replace (to add text, include a neighbouring line in old and new)", i).With("edit", i)
		}
		if e.Old == e.New {
			return "", nil, BadRequest("edits[%d] replaces its text with the same text; drop it", i).With("edit", i)
		}
	}
	cur := body
	applied := make([]AppliedEdit, 0, len(edits))
	for i, e := range edits {
		at, err := locate(cur, e, i)
		if err != nil {
			return "", nil, err
		}
		cur = cur[:at] + e.New + cur[at+len(e.Old):]
		before, after := editContext(cur, at, at+len(e.New))
		applied = append(applied, AppliedEdit{Old: e.Old, New: e.New, CtxBefore: before, CtxAfter: after})
	}
	if cur == body {
		return "", nil, BadRequest("the edits together leave the body of %s as it was; nothing to patch", ref).With("ref", ref)
	}
	return cur, applied, nil
}

// locate finds the single byte offset edit i applies at.
func locate(body string, e PatchEdit, i int) (int, error) {
	hits := occurrences(body, e.Old)
	switch len(hits) {
	case 0:
		return 0, Errorf(CodePatchAnchorMissing,
			"edits[%d].old does not occur in the body as it stands; re-read the item (get with lines) and anchor on text that is there", i).With("edit", i)
	case 1:
		return hits[0], nil
	}
	lines := make([]int, len(hits))
	for j, h := range hits {
		lines[j] = 1 + strings.Count(body[:h], "\n")
	}
	if e.LineHint > 0 {
		pick := -1
		for j, l := range lines {
			if l == e.LineHint {
				if pick >= 0 { // two occurrences start on the hinted line
					pick = -2
					break
				}
				pick = j
			}
		}
		if pick >= 0 {
			return hits[pick], nil
		}
	}
	return 0, Errorf(CodePatchAnchorAmbiguous,
		"edits[%d].old occurs %d times (starting on lines %v); include more surrounding text, or give line_hint naming one of those lines", i, len(hits), lines).
		With("edit", i).With("lines", lines)
}

// occurrences lists every start of sub in s, overlapping ones included
// ("aa" occurs twice in "aaa"): an anchor that overlaps itself is as
// ambiguous as one that repeats. Stepping one byte is safe because a
// valid UTF-8 needle cannot match at a continuation byte.
func occurrences(s, sub string) []int {
	var out []int
	for from := 0; from <= len(s)-len(sub); {
		i := strings.Index(s[from:], sub)
		if i < 0 {
			break
		}
		out = append(out, from+i)
		from += i + 1
	}
	return out
}

// editContext takes up to PatchContextChars characters each side of the
// replacement s[start:end], stopping at line ends so an undo anchors on
// the edit's own line. When that leaves no anchor at all (the edit
// emptied its line), it reaches across the line breaks instead.
func editContext(s string, start, end int) (before, after string) {
	before = lastChars(s[:start], PatchContextChars)
	after = firstChars(s[end:], PatchContextChars)
	clippedBefore := before[strings.LastIndexByte(before, '\n')+1:]
	clippedAfter := after
	if i := strings.IndexByte(after, '\n'); i >= 0 {
		clippedAfter = after[:i]
	}
	if clippedBefore+s[start:end]+clippedAfter == "" {
		return before, after
	}
	return clippedBefore, clippedAfter
}

func lastChars(s string, n int) string {
	i := len(s)
	for k := 0; k < n && i > 0; k++ {
		_, size := utf8.DecodeLastRuneInString(s[:i])
		i -= size
	}
	return s[i:]
}

func firstChars(s string, n int) string {
	i := 0
	for k := 0; k < n && i < len(s); k++ {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return s[:i]
}

// InverseEdits turns a patch's applied edits into the patch that undoes
// it: each edit inverted and anchored on its recorded context, in
// reverse order, so every inverse meets the text exactly as its edit
// left it. The inverses go through ApplyPatch like any patch, so an
// undo refuses (anchor missing or ambiguous) when someone has changed
// that text since, instead of reverting their edit.
func InverseEdits(applied []AppliedEdit) []PatchEdit {
	out := make([]PatchEdit, 0, len(applied))
	for i := len(applied) - 1; i >= 0; i-- {
		a := applied[i]
		out = append(out, PatchEdit{Old: a.CtxBefore + a.New + a.CtxAfter, New: a.CtxBefore + a.Old + a.CtxAfter})
	}
	return out
}

// MaxIntervening bounds the changes a rebased patch lists.
const MaxIntervening = 50

// PatchReply is a patch's answer.
type PatchReply struct {
	Ref         string       `json:"ref"`
	Seq         int64        `json:"seq"`
	PatchID     string       `json:"patch_id"`
	VersionID   string       `json:"version_id"`
	Rebased     bool         `json:"rebased"`
	Intervening *Intervening `json:"intervening,omitempty"`
	// Diff is a unified diff of the body before -> after.
	Diff   string `json:"diff"`
	UndoOf string `json:"undo_of,omitempty"`
}

// Intervening lists the item's changes between the seq a patch expected
// and the seq it found: what the patch was rebased over.
type Intervening struct {
	FromSeq int64               `json:"from_seq"`
	ToSeq   int64               `json:"to_seq"`
	Changes []InterveningChange `json:"changes"`
	// Complete says the chain of the item's changes was followed from
	// to_seq back to from_seq without a gap, so Changes (with Truncated)
	// accounts for every change between.
	Complete  bool `json:"complete"`
	Truncated bool `json:"truncated,omitempty"`
}

// InterveningChange is one of those changes, from the activity feed.
type InterveningChange struct {
	ActivityID string `json:"activity_id"`
	Seq        int64  `json:"seq"`
	PrevSeq    int64  `json:"prev_seq"`
	Action     string `json:"action"`
	Actor      string `json:"actor"`
	Agent      string `json:"agent,omitempty"`
	Source     string `json:"source,omitempty"`
	At         string `json:"at"`
	VersionID  string `json:"version_id,omitempty"`
}
