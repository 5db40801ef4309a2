package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/padd/padd/api"
	"github.com/padd/padd/model"
)

// Working an item, in Pad's words: claim and release it, set reminders,
// note what was done and decided, patch its body, read its work brief.

// ItemClaimCmd is `item claim <ref>`.
type ItemClaimCmd struct {
	Ref string `arg:"" help:"Item ref (TASK-5), slug or id."`
	TTL string `name:"ttl" placeholder:"DURATION" help:"How long the claim lasts: 30m, 2h, or seconds (default: padd's 15m; at most 24h). Claim again to extend it."`
	workerFlag
}

// Run claims the item for padctl's worker.
func (c *ItemClaimCmd) Run(ctx context.Context, a *App) error {
	ttl, err := parseTTL(c.TTL)
	if err != nil {
		return err
	}
	cl, ws, err := a.inWorkspace(ctx)
	if err != nil {
		return err
	}
	if _, err := a.useWorker(cl, c.workerFlag, true); err != nil {
		return err
	}
	ans, err := cl.ClaimItem(ctx, ws, c.Ref, api.Claim{TTLSeconds: api.Seconds(ttl)})
	if err != nil {
		return err
	}
	return a.emitLine(claimLine(ans))
}

// parseTTL reads --ttl: a Go duration, or a bare number of seconds as
// Pad's ttl_seconds. 0 when not given (padd's default).
func parseTTL(s string) (int64, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(s)
	if n, nerr := strconv.ParseInt(s, 10, 64); nerr == nil {
		// Bounded before it becomes a Duration, which could overflow.
		d, err = time.Duration(min(max(n, -1), model.MaxLeaseTTL+1))*time.Second, nil
	}
	bad := func(why string) error {
		return usagef(codeBadTtl, fmt.Sprintf("give --ttl as a duration such as 30m or 2h, or as seconds, up to %s", durationText(model.MaxLeaseTTL*time.Second)),
			"--ttl %q %s", s, why)
	}
	switch {
	case err != nil:
		return 0, bad("is not a duration")
	case d%time.Second != 0:
		return 0, bad("is not a whole number of seconds")
	case d < time.Second || d > model.MaxLeaseTTL*time.Second:
		return 0, bad("is out of range")
	}
	return int64(d / time.Second), nil
}

// ItemReleaseCmd is `item release <ref>`.
type ItemReleaseCmd struct {
	Ref string `arg:"" help:"Item ref (TASK-5), slug or id."`
	workerFlag
}

// Run releases padctl's claim on the item.
func (c *ItemReleaseCmd) Run(ctx context.Context, a *App) error {
	cl, ws, err := a.inWorkspace(ctx)
	if err != nil {
		return err
	}
	if _, err := a.useWorker(cl, c.workerFlag, false); err != nil {
		return err
	}
	ans, err := cl.ReleaseItem(ctx, ws, c.Ref, api.Claim{})
	if err != nil {
		return err
	}
	return a.emitLine(releaseLine(ans))
}

// ItemRemindCmd is `item remind <ref> <when> [--rearm ID]`.
type ItemRemindCmd struct {
	Ref   string `arg:"" help:"Item ref (TASK-5), slug or id."`
	When  string `arg:"" optional:"" placeholder:"RFC3339" help:"When: an RFC 3339 instant, e.g. 2026-03-01T09:00:00Z (optional with --rearm: keep the time)."`
	Rearm string `placeholder:"REMINDER-ID" help:"Re-arm this reminder of the item (clearing its fired and acknowledged marks) instead of adding one."`
}

// Run arms a reminder, or re-arms one.
func (c *ItemRemindCmd) Run(ctx context.Context, a *App) error {
	var at *string
	if c.When != "" {
		// Checked here so a typo is a usage error (exit 2) with padd's
		// own wording, before anything is sent.
		if _, err := model.ParseRemindAt(c.When); err != nil {
			return usagef(codeBadTime, "give the time as an RFC 3339 instant with its zone, e.g. 2026-03-01T09:00:00Z or 2026-03-01T10:00:00+01:00", "%s", err.Error())
		}
		at = &c.When
	} else if c.Rearm == "" {
		return usagef(codeMissingTime, "give the time, e.g. padctl item remind TASK-5 2026-03-01T09:00:00Z", "when should the reminder fire?")
	}
	cl, ws, err := a.inWorkspace(ctx)
	if err != nil {
		return err
	}
	var r *api.ReminderView
	verb := "set"
	if c.Rearm != "" {
		// The reminder is named by id alone on the wire; checking that it
		// is this item's keeps a mistyped id from moving another one.
		list, err := cl.ListReminders(ctx, ws, c.Ref)
		if err != nil {
			return err
		}
		if !hasReminder(list, c.Rearm) {
			return failf(api.CodeNotFound, fmt.Sprintf("`padctl item reminders %s` lists its reminders and their ids", c.Ref),
				"%s has no reminder %s", c.Ref, c.Rearm)
		}
		verb = "re-armed"
		r, err = cl.RearmReminder(ctx, ws, c.Rearm, at)
	} else {
		r, err = cl.AddReminder(ctx, ws, c.Ref, *at)
	}
	if err != nil {
		return err
	}
	return a.emitLine(reminderLine(r, verb, c.Ref))
}

func hasReminder(list []api.ReminderView, id string) bool {
	for _, r := range list {
		if r.ID == id {
			return true
		}
	}
	return false
}

// ItemRemindersCmd is `item reminders <ref>`.
type ItemRemindersCmd struct {
	Ref string `arg:"" help:"Item ref (TASK-5), slug or id."`
}

// Run lists the item's reminders, every state.
func (c *ItemRemindersCmd) Run(ctx context.Context, a *App) error {
	cl, ws, err := a.inWorkspace(ctx)
	if err != nil {
		return err
	}
	list, err := cl.ListReminders(ctx, ws, c.Ref)
	if err != nil {
		return err
	}
	if list == nil {
		list = []api.ReminderView{}
	}
	return a.emitDoc(remindersView{list: list})
}

// ItemUnremindCmd is `item unremind <reminder-id>`.
type ItemUnremindCmd struct {
	ID string `arg:"" name:"reminder-id" help:"The reminder's id (see item reminders)."`
}

// Run disarms and deletes the reminder.
func (c *ItemUnremindCmd) Run(ctx context.Context, a *App) error {
	cl, ws, err := a.inWorkspace(ctx)
	if err != nil {
		return err
	}
	if err := cl.RemoveReminder(ctx, ws, c.ID); err != nil {
		return err
	}
	return a.emitLine(unremindLine(c.ID))
}

// ItemAckReminderCmd is `item ack-reminder <reminder-id>`.
type ItemAckReminderCmd struct {
	ID string `arg:"" name:"reminder-id" help:"The reminder's id (see item reminders, project next)."`
}

// Run acknowledges a fired reminder, so it stops being shown as due.
func (c *ItemAckReminderCmd) Run(ctx context.Context, a *App) error {
	cl, ws, err := a.inWorkspace(ctx)
	if err != nil {
		return err
	}
	r, err := cl.AckReminder(ctx, ws, c.ID)
	if err != nil {
		return err
	}
	return a.emitLine(ackLine(r))
}

// ItemNoteCmd is `item note <ref> <summary>`.
type ItemNoteCmd struct {
	Ref     string `arg:"" help:"Item ref (TASK-5), slug or id."`
	Summary string `arg:"" help:"What was done, in a line."`
	Details string `help:"More about it (Markdown)."`
}

// Run appends an implementation note to the item.
func (c *ItemNoteCmd) Run(ctx context.Context, a *App) error {
	if strings.TrimSpace(c.Summary) == "" {
		return usagef(codeEmptyNote, "say what was done, e.g. padctl item note TASK-5 \"fixed the cookie refresh\"", "the note is empty")
	}
	return a.appendToItem(ctx, c.Ref, api.ItemUpdate{AppendImplementationNote: &api.NoteEntry{Summary: c.Summary, Details: c.Details}}, "Note added to")
}

// ItemDecideCmd is `item decide <ref> <decision>`.
type ItemDecideCmd struct {
	Ref       string `arg:"" help:"Item ref (TASK-5), slug or id."`
	Decision  string `arg:"" help:"What was decided."`
	Rationale string `help:"Why."`
}

// Run appends a decision to the item's decision log.
func (c *ItemDecideCmd) Run(ctx context.Context, a *App) error {
	if strings.TrimSpace(c.Decision) == "" {
		return usagef(codeEmptyDecision, "say what was decided, e.g. padctl item decide TASK-5 \"use JWT\" --rationale \"...\"", "the decision is empty")
	}
	return a.appendToItem(ctx, c.Ref, api.ItemUpdate{AppendDecision: &api.DecisionEntry{Decision: c.Decision, Rationale: c.Rationale}}, "Decision recorded on")
}

func (a *App) appendToItem(ctx context.Context, ref string, in api.ItemUpdate, verb string) error {
	cl, ws, err := a.inWorkspace(ctx)
	if err != nil {
		return err
	}
	it, err := cl.UpdateItem(ctx, ws, ref, in)
	if err != nil {
		return err
	}
	return a.emitItemDone(it, verb)
}

// ItemPatchCmd is `item patch <ref> --old X --new Y | --undo PATCH-ID`.
type ItemPatchCmd struct {
	Ref         string   `arg:"" help:"Item ref (TASK-5), slug or id."`
	Old         []string `sep:"none" placeholder:"TEXT" help:"Exact text of the body to replace (repeat with --new for several edits)."`
	New         []string `sep:"none" placeholder:"TEXT" help:"What replaces the --old of the same position (may be empty: a deletion)."`
	LineHint    []int    `name:"line-hint" sep:"none" placeholder:"N" help:"The line the --old of the same position is near, when it occurs more than once."`
	ExpectedSeq *int64   `placeholder:"N" help:"The seq you read the body at: padd rebases the edits over later changes, or refuses."`
	Undo        string   `placeholder:"PATCH-ID" help:"Undo an earlier patch (its patch_id) instead."`
}

// Run patches the body and prints the diff.
func (c *ItemPatchCmd) Run(ctx context.Context, a *App) error {
	in := api.Patch{Undo: strings.TrimSpace(c.Undo), ExpectedSeq: c.ExpectedSeq}
	switch {
	case in.Undo != "" && (len(c.Old) > 0 || len(c.New) > 0 || len(c.LineHint) > 0):
		return usagef(codeConflictingFlags, "give either --undo PATCH-ID or --old/--new edits", "--undo cannot be combined with edits")
	case in.Undo == "" && len(c.Old) == 0:
		return usagef(codeNothingToPatch, "give --old TEXT --new TEXT (repeatable), or --undo PATCH-ID", "no edit given")
	case len(c.New) != len(c.Old):
		return usagef(codeUnpairedEdit, "give one --new for each --old, in the same order (--new \"\" deletes)", "%d --old but %d --new", len(c.Old), len(c.New))
	case len(c.LineHint) > 0 && len(c.LineHint) != len(c.Old):
		return usagef(codeUnpairedEdit, "give one --line-hint for each --old, or none", "%d --old but %d --line-hint", len(c.Old), len(c.LineHint))
	}
	for i := range c.Old {
		e := model.PatchEdit{Old: c.Old[i], New: c.New[i]}
		if len(c.LineHint) > 0 {
			e.LineHint = c.LineHint[i]
		}
		in.Edits = append(in.Edits, e)
	}
	cl, ws, err := a.inWorkspace(ctx)
	if err != nil {
		return err
	}
	r, err := cl.PatchItem(ctx, ws, c.Ref, in)
	if err != nil {
		return err
	}
	return a.emitDoc(patchView{r: r})
}

// ItemContextCmd is `item context <ref>`.
type ItemContextCmd struct {
	Ref    string `arg:"" help:"Item ref (TASK-5), slug or id."`
	Intent string `help:"What you are about to do (commit, review, ...): the conventions for it come along."`
	Role   string `placeholder:"SLUG" help:"Your agent role: its conventions come along."`
	Budget int    `help:"Size budget in characters (default: padd's); parts that do not fit are listed as omitted."`
}

// Run shows the item's work brief.
func (c *ItemContextCmd) Run(ctx context.Context, a *App) error {
	if c.Budget < 0 {
		return usagef(codeBadBudget, "give --budget as a positive number of characters", "--budget %d is negative", c.Budget)
	}
	cl, ws, err := a.inWorkspace(ctx)
	if err != nil {
		return err
	}
	b, err := cl.ItemContext(ctx, ws, c.Ref, api.ContextQuery{Intent: c.Intent, Role: c.Role, Budget: c.Budget})
	if err != nil {
		return err
	}
	return a.emitDoc(contextView{b: b})
}

// ItemHistoryCmd is `item history <ref>`.
type ItemHistoryCmd struct {
	Ref   string `arg:"" help:"Item ref (TASK-5), slug or id."`
	Limit int    `default:"50" help:"The newest this many versions (up to 500)."`
	Full  bool   `help:"Include each version's body (in --format json)."`
}

// Run lists the item's versions, newest first.
func (c *ItemHistoryCmd) Run(ctx context.Context, a *App) error {
	if c.Limit < 1 || c.Limit > 500 {
		return usagef(codeBadLimit, "give --limit between 1 and 500", "--limit %d is out of range", c.Limit)
	}
	cl, ws, err := a.inWorkspace(ctx)
	if err != nil {
		return err
	}
	list, err := cl.ListVersions(ctx, ws, c.Ref, c.Limit, !c.Full)
	if err != nil {
		return err
	}
	if list == nil {
		list = []api.ItemVersion{}
	}
	return a.emitDoc(historyView{list: list, now: a.now()})
}

// ItemBacklinksCmd is `item backlinks <ref>`.
type ItemBacklinksCmd struct {
	Ref    string `arg:"" help:"Item ref (TASK-5), slug or id."`
	Limit  int    `default:"50" help:"At most this many (up to 300)."`
	Offset int    `help:"Skip this many (the next page)."`
}

// Run lists the items whose text mentions this one.
func (c *ItemBacklinksCmd) Run(ctx context.Context, a *App) error {
	if c.Limit < 1 || c.Limit > 300 || c.Offset < 0 {
		return usagef(codeBadLimit, "give --limit between 1 and 300 and --offset 0 or more", "--limit %d / --offset %d is out of range", c.Limit, c.Offset)
	}
	cl, ws, err := a.inWorkspace(ctx)
	if err != nil {
		return err
	}
	list, page, err := cl.Backlinks(ctx, ws, c.Ref, c.Limit, c.Offset)
	if err != nil {
		return err
	}
	if list == nil {
		list = []api.Backlink{}
	}
	if err := a.emitDoc(backlinksView{list: list, now: a.now()}); err != nil {
		return err
	}
	a.pageNote(page, c.Offset, len(list), "backlinks")
	return nil
}

// pageNote says on stderr that a list has another page.
func (a *App) pageNote(p api.Page, offset, n int, what string) {
	if !p.HasMore {
		return
	}
	next := p.NextOffset
	if next == 0 {
		next = offset + n
	}
	a.notef("there are more %s than the %d shown; add --offset %d for the next page", what, n, next)
}

// ItemDepsCmd is `item deps <ref>`.
type ItemDepsCmd struct {
	Ref string `arg:"" help:"Item ref (TASK-5), slug or id."`
}

// Run shows what the item blocks and what blocks it, transitively.
func (c *ItemDepsCmd) Run(ctx context.Context, a *App) error {
	cl, ws, err := a.inWorkspace(ctx)
	if err != nil {
		return err
	}
	d, err := cl.Deps(ctx, ws, c.Ref)
	if err != nil {
		return err
	}
	return a.emitDoc(depsView{d: d})
}

// ItemChildrenCmd is `item children <ref>`.
type ItemChildrenCmd struct {
	Ref    string `arg:"" help:"Item ref (PLAN-3), slug or id."`
	Limit  int    `default:"200" help:"At most this many (up to 1000)."`
	Offset int    `help:"Skip this many (the next page)."`
}

// Run lists the item's children in their manual order.
func (c *ItemChildrenCmd) Run(ctx context.Context, a *App) error {
	if c.Limit < 1 || c.Limit > MaxListLimit || c.Offset < 0 {
		return usagef(codeBadLimit, fmt.Sprintf("give --limit between 1 and %d and --offset 0 or more", MaxListLimit), "--limit %d / --offset %d is out of range", c.Limit, c.Offset)
	}
	cl, ws, err := a.inWorkspace(ctx)
	if err != nil {
		return err
	}
	items, page, err := cl.Children(ctx, ws, c.Ref, c.Limit, c.Offset)
	if err != nil {
		return err
	}
	if err := a.emitItems(items, "No children."); err != nil {
		return err
	}
	a.pageNote(page, c.Offset, len(items), "children")
	return nil
}

// emitItems prints a list of items as item list does; the collection
// column shows when they span collections.
func (a *App) emitItems(items []api.Item, empty string) error {
	if items == nil {
		items = []api.Item{}
	}
	v := itemsView{items: items, now: a.now()}
	for i := range items {
		v.showCollection = v.showCollection || items[i].CollectionSlug != items[0].CollectionSlug
	}
	return a.emit(outItems(items), func(w io.Writer) error {
		if len(items) == 0 {
			_, err := fmt.Fprintln(w, empty)
			return err
		}
		return v.writeTable(w, a.style)
	}, func(w io.Writer) error {
		if len(items) == 0 {
			_, err := fmt.Fprintln(w, "_"+empty+"_")
			return err
		}
		return v.writeMarkdown(w)
	})
}

// ItemProgressCmd is `item progress <ref>`.
type ItemProgressCmd struct {
	Ref string `arg:"" help:"Item ref (PLAN-3), slug or id."`
}

// Run shows how much of the item's work children is done.
func (c *ItemProgressCmd) Run(ctx context.Context, a *App) error {
	cl, ws, err := a.inWorkspace(ctx)
	if err != nil {
		return err
	}
	p, err := cl.Progress(ctx, ws, c.Ref)
	if err != nil {
		return err
	}
	return a.emitDoc(progressView{ref: c.Ref, p: p})
}

// ItemStarCmd is `item star <ref>`.
type ItemStarCmd struct {
	Ref string `arg:"" help:"Item ref (TASK-5), slug or id."`
}

// Run stars the item.
func (c *ItemStarCmd) Run(ctx context.Context, a *App) error {
	cl, ws, err := a.inWorkspace(ctx)
	if err != nil {
		return err
	}
	s, err := cl.Star(ctx, ws, c.Ref)
	if err != nil {
		return err
	}
	return a.emitLine(starLine(s, c.Ref))
}

// ItemUnstarCmd is `item unstar <ref>`.
type ItemUnstarCmd struct {
	Ref string `arg:"" help:"Item ref (TASK-5), slug or id."`
}

// Run unstars the item.
func (c *ItemUnstarCmd) Run(ctx context.Context, a *App) error {
	cl, ws, err := a.inWorkspace(ctx)
	if err != nil {
		return err
	}
	s, err := cl.Unstar(ctx, ws, c.Ref)
	var ae *api.Error
	if errors.As(err, &ae) && ae.Code == api.CodeNotFound && ae.Details["scope"] == nil {
		// not_found names either the item or its star. When the item
		// answers, it was the star, and the generic "no such item" hint
		// would mislead.
		if _, gerr := cl.GetItem(ctx, ws, c.Ref); gerr == nil {
			return &Error{Code: ae.Code, Message: ae.Message, Exit: ExitError, Err: err,
				Hint: "`padctl item starred --all` lists the starred items"}
		}
	}
	if err != nil {
		return err
	}
	return a.emitLine(starLine(s, c.Ref))
}

// ItemStarredCmd is `item starred`.
type ItemStarredCmd struct {
	All   bool `help:"Include closed items (done, cancelled, ...)."`
	Limit int  `help:"At most this many (default: all of them)."`
}

// Run lists the starred items, newest star first. Without --limit every
// page is read, as Pad's CLI does.
func (c *ItemStarredCmd) Run(ctx context.Context, a *App) error {
	if c.Limit < 0 {
		return usagef(codeBadLimit, "give --limit 1 or more", "--limit %d is negative", c.Limit)
	}
	cl, ws, err := a.inWorkspace(ctx)
	if err != nil {
		return err
	}
	var items []api.Item
	for offset := 0; ; {
		size := MaxListLimit
		if c.Limit > 0 {
			size = min(size, c.Limit-len(items))
		}
		page, p, err := cl.Starred(ctx, ws, c.All, size, offset)
		if err != nil {
			return err
		}
		items = append(items, page...)
		if !p.HasMore || len(page) == 0 || (c.Limit > 0 && len(items) >= c.Limit) {
			break
		}
		offset += len(page)
	}
	return a.emitItems(items, "No starred items.")
}
