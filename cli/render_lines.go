package cli

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/padd/padd/api"
)

// lineView is the result of a write: padd's answer for --format json,
// one sentence for people (in Markdown too: a sentence reads as a
// paragraph).
type lineView struct {
	value any
	line  func(st Style) string
}

// emitLine prints a line view in the chosen format.
func (a *App) emitLine(v lineView) error {
	return a.emit(v.value, func(w io.Writer) error {
		_, err := fmt.Fprintln(w, v.line(a.style))
		return err
	}, nil)
}

func bold(st Style, s string) string { return st.paint(ansiBold, clean(s)) }

func claimLine(ans *api.ClaimAnswer) lineView {
	return lineView{ans, func(st Style) string {
		verb := "Claimed"
		if ans.Renewed {
			verb = "Renewed the claim on"
		}
		return fmt.Sprintf("%s %s until %s (%s), held by %s as worker %s", verb, bold(st, ans.Ref), stamp(ans.ExpiresAt),
			durationText(ans.ExpiresAt.Sub(ans.AcquiredAt)), clean(ans.Holder), clean(ans.Worker))
	}}
}

// durationText is a duration for people: 30m, 1h30m, 45s.
func durationText(d time.Duration) string {
	s := d.Round(time.Second).String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

func releaseLine(ans *api.ReleaseAnswer) lineView {
	return lineView{ans, func(st Style) string {
		if !ans.Released {
			return clean(ans.Ref) + " was not claimed: nothing to release"
		}
		return "Released " + bold(st, ans.Ref)
	}}
}

// reminderLine confirms a reminder written (verb: set, re-armed); ref
// names the item when padd's answer does not.
func reminderLine(r *api.ReminderView, verb, ref string) lineView {
	return lineView{r, func(st Style) string {
		return fmt.Sprintf("Reminder %s on %s %s for %s", clean(r.ID), bold(st, firstNonEmpty(r.ItemRef, ref)), verb, stamp(parseTime(r.RemindAt)))
	}}
}

func ackLine(r *api.ReminderView) lineView {
	return lineView{r, func(st Style) string {
		return fmt.Sprintf("Acknowledged reminder %s on %s", clean(r.ID), bold(st, firstNonEmpty(r.ItemRef, r.ItemID)))
	}}
}

func unremindLine(id string) lineView {
	out := struct {
		ReminderID string `json:"reminder_id"`
		Removed    bool   `json:"removed"`
	}{id, true}
	return lineView{out, func(Style) string { return "Removed reminder " + clean(id) }}
}

func starLine(s *api.StarState, ref string) lineView {
	return lineView{s, func(st Style) string {
		verb := "Unstarred "
		if s.Starred {
			verb = "Starred "
		}
		return verb + bold(st, firstNonEmpty(s.Ref, ref))
	}}
}

// roleLine confirms a role written (verb: Created, Updated).
func roleLine(verb string, r *api.AgentRole) lineView {
	return lineView{r, func(st Style) string {
		return fmt.Sprintf("%s role %s (%s)", verb, bold(st, r.Slug), clean(strings.TrimSpace(r.Icon+" "+r.Name)))
	}}
}

func roleDeletedLine(slug string) lineView {
	out := struct {
		Slug    string `json:"slug"`
		Deleted bool   `json:"deleted"`
	}{slug, true}
	return lineView{out, func(st Style) string {
		return fmt.Sprintf("Deleted role %s; items that had it have no role now", bold(st, slug))
	}}
}

func seenLine(ws string, s *api.Seen) lineView {
	return lineView{s, func(Style) string {
		return fmt.Sprintf("Marked %s seen at %s; the next catch-up starts there", clean(ws), stamp(s.SeenAt))
	}}
}
