package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/padd/padd/api"
)

// ItemCmd groups the item commands, in Pad's CLI vocabulary.
type ItemCmd struct {
	Create     ItemCreateCmd     `cmd:"" aliases:"save" help:"Create an item in a collection."`
	List       ItemListCmd       `cmd:"" aliases:"ls" help:"List items (open ones unless --status or --all)."`
	Show       ItemShowCmd       `cmd:"" aliases:"read" help:"Show an item."`
	Update     ItemUpdateCmd     `cmd:"" help:"Change an item's title, content, fields, parent, role or tags."`
	Delete     ItemDeleteCmd     `cmd:"" aliases:"rm" help:"Archive an item (restorable)."`
	Restore    ItemRestoreCmd    `cmd:"" help:"Restore an archived item."`
	Move       ItemMoveCmd       `cmd:"" help:"Move an item to another collection (its ref changes; the old one keeps resolving)."`
	Copy       ItemCopyCmd       `cmd:"" help:"Copy an item into another workspace (--archive-source moves it); --dry-run says what would carry."`
	BulkUpdate ItemBulkUpdateCmd `cmd:"" name:"bulk-update" help:"Set the status and/or priority of several items at once."`
	Comment    ItemCommentCmd    `cmd:"" help:"Comment on an item (or reply to a comment)."`
	Comments   ItemCommentsCmd   `cmd:"" help:"List an item's comments."`
	React      ItemReactCmd      `cmd:"" help:"React to a comment with an emoji (--remove takes it back)."`
	Link       ItemLinkCmd       `cmd:"" help:"Link two items: padctl item link TASK-1 blocks TASK-2."`
	Unlink     ItemUnlinkCmd     `cmd:"" help:"Remove a link between two items."`
	Links      ItemLinksCmd      `cmd:"" help:"List an item's links, both directions."`
	Search     SearchCmd         `cmd:"" help:"Search items by their words (the same as padctl search)."`

	Claim       ItemClaimCmd       `cmd:"" help:"Claim an item for a while, so other workers leave it to you."`
	Release     ItemReleaseCmd     `cmd:"" help:"Release your claim on an item."`
	Remind      ItemRemindCmd      `cmd:"" help:"Set a reminder on an item (or re-arm one with --rearm)."`
	Reminders   ItemRemindersCmd   `cmd:"" help:"List an item's reminders."`
	Unremind    ItemUnremindCmd    `cmd:"" help:"Remove a reminder."`
	AckReminder ItemAckReminderCmd `cmd:"" name:"ack-reminder" help:"Acknowledge a fired reminder."`
	Note        ItemNoteCmd        `cmd:"" help:"Add an implementation note to an item: what was done."`
	Decide      ItemDecideCmd      `cmd:"" help:"Record a decision on an item, and why."`
	Patch       ItemPatchCmd       `cmd:"" help:"Replace exact text in an item's body (or undo a patch); prints the diff."`
	Context     ItemContextCmd     `cmd:"" help:"An item's work brief: parents, conventions, playbooks, blockers, decisions, links."`
	History     ItemHistoryCmd     `cmd:"" help:"List an item's versions, newest first."`
	Backlinks   ItemBacklinksCmd   `cmd:"" help:"List the items whose text mentions this one."`
	Deps        ItemDepsCmd        `cmd:"" help:"Show what an item blocks and what blocks it."`
	Children    ItemChildrenCmd    `cmd:"" help:"List an item's children."`
	Progress    ItemProgressCmd    `cmd:"" help:"Show how much of an item's work children is done."`
	Star        ItemStarCmd        `cmd:"" help:"Star an item."`
	Unstar      ItemUnstarCmd      `cmd:"" help:"Unstar an item."`
	Starred     ItemStarredCmd     `cmd:"" help:"List starred items (open ones unless --all)."`
	Watch       ItemWatchCmd       `cmd:"" help:"Watch an item: padd's stream tells its status changes, assignments and comments (padctl watch list)."`
	Unwatch     ItemUnwatchCmd     `cmd:"" help:"Stop watching an item."`
	Push        ItemPushCmd        `cmd:"" help:"Send an instruction about an item to your armed agent sessions (pad watch --stream --for-session)."`
	Export      ItemExportCmd      `cmd:"" help:"Write a playbook or convention as a portable artifact (Markdown with front matter)."`
	Import      ItemImportCmd      `cmd:"" help:"Make an item from an artifact file (as a draft, in its kind's collection)."`
}

// DefaultListLimit and MaxListLimit are Pad's CLI list bounds.
const (
	DefaultListLimit = 200
	MaxListLimit     = 1000
)

// parseEntries checks key=value flags: the key must be there, the value
// may be empty (a clear).
func parseEntries(flag string, entries []string) ([][2]string, error) {
	out := make([][2]string, 0, len(entries))
	for _, e := range entries {
		k, v, ok := strings.Cut(e, "=")
		if !ok || strings.TrimSpace(k) == "" {
			return nil, usagef(codeBadField, fmt.Sprintf("write %s key=value, e.g. %s due_date=2026-01-31", flag, flag), "%s %q is not key=value", flag, e)
		}
		out = append(out, [2]string{strings.TrimSpace(k), v})
	}
	return out, nil
}

// parseTags reads --tags: "a,b" or a JSON array (Pad's CLI takes the
// JSON form). An empty value is no tags.
func parseTags(s string) ([]string, error) {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "[") {
		var tags []string
		if err := json.Unmarshal([]byte(s), &tags); err != nil {
			return nil, usagef(codeBadTags, "give --tags as a,b or as a JSON array of strings", "--tags is not a JSON array of strings: %v", err)
		}
		return tags, nil
	}
	tags := []string{}
	for _, t := range strings.Split(s, ",") {
		if t = strings.TrimSpace(t); t != "" {
			tags = append(tags, t)
		}
	}
	return tags, nil
}

func jsonValid(s string) bool { return json.Valid([]byte(s)) }

// contentFlags are --content and --stdin, shared by create and update.
type contentFlags struct {
	Content *string `xor:"content" help:"Content (Markdown)."`
	Stdin   bool    `xor:"content" help:"Read the content from stdin."`
}

// content returns the content given, nil when none was.
func (f contentFlags) content(a *App) (*string, error) {
	if f.Stdin {
		b, err := io.ReadAll(a.env.Stdin)
		if err != nil {
			return nil, fmt.Errorf("read content from stdin: %w", err)
		}
		s := string(b)
		return &s, nil
	}
	return f.Content, nil
}

// ItemCreateCmd is `item create <collection> <title>`.
type ItemCreateCmd struct {
	Collection string `arg:"" predictor:"collection" help:"Collection slug (or alias: task, idea, ...)."`
	Title      string `arg:"" help:"Title."`
	contentFlags
	Status     string   `help:"Status (default: the collection's)."`
	Priority   string   `help:"Priority."`
	Parent     string   `placeholder:"REF" help:"Parent item (ref, slug or id)."`
	Role       string   `placeholder:"SLUG" help:"Agent role."`
	Tags       string   `help:"Tags: a,b (or a JSON array)."`
	Field      []string `short:"f" sep:"none" placeholder:"KEY=VALUE" help:"Set a field (repeatable); padd types the value by the schema."`
	FieldsJSON string   `name:"fields-json" placeholder:"JSON" help:"Fields as a JSON object (typed values: numbers, arrays)."`
}

// Run creates the item.
func (c *ItemCreateCmd) Run(ctx context.Context, a *App) error {
	in := api.ItemCreate{Title: c.Title}
	fields := map[string]any{}
	if c.FieldsJSON != "" {
		dec := json.NewDecoder(strings.NewReader(c.FieldsJSON))
		dec.UseNumber()
		if err := dec.Decode(&fields); err != nil || fields == nil {
			return usagef(codeBadJson, `give --fields-json a JSON object, e.g. '{"estimate": 3}'`, "--fields-json is not a JSON object")
		}
	}
	for k, v := range map[string]string{"status": c.Status, "priority": c.Priority} {
		if v != "" {
			fields[k] = v
		}
	}
	if len(fields) > 0 {
		in.Fields = api.FlexOf(fields)
	}
	entries, err := parseEntries("--field", c.Field)
	if err != nil {
		return err
	}
	for _, e := range entries {
		in.Field = append(in.Field, e[0]+"="+e[1])
	}
	content, err := c.content(a)
	if err != nil {
		return err
	}
	if content != nil {
		in.Content = *content
	}
	if c.Tags != "" {
		tags, err := parseTags(c.Tags)
		if err != nil {
			return err
		}
		in.Tags = api.FlexOf(tags)
	}
	if c.Parent != "" {
		in.Parent = &c.Parent
	}
	if c.Role != "" {
		in.Role = &c.Role
	}
	cl, ws, err := a.inWorkspace(ctx)
	if err != nil {
		return err
	}
	it, err := cl.CreateItem(ctx, ws, c.Collection, in)
	if err != nil {
		return err
	}
	return a.emitItemDone(it, "Created")
}

// emitItemDone prints an item after a write: its JSON, or a one-line
// confirmation; write warnings go to stderr either way.
func (a *App) emitItemDone(it *api.Item, verb string) error {
	a.emitWarnings(it.Warnings)
	return a.emit(outItem(it), func(w io.Writer) error { return itemDone(w, a.style, verb, it) }, nil)
}

// ItemListCmd is `item list [collection]`.
type ItemListCmd struct {
	Collection      string   `arg:"" optional:"" predictor:"collection" help:"Collection slug (default: all collections)."`
	Status          string   `help:"Only these statuses (comma-separated: open,in-progress)."`
	Priority        string   `help:"Only this priority."`
	Parent          string   `placeholder:"REF" help:"Only children of this item."`
	Role            string   `placeholder:"SLUG" help:"Only items for this agent role."`
	Tag             string   `help:"Only items with this tag."`
	Unparented      bool     `help:"Only items without a parent."`
	All             bool     `help:"Include closed items (done, cancelled, ...)."`
	IncludeArchived bool     `help:"Include archived (deleted) items."`
	Field           []string `short:"f" sep:"none" placeholder:"KEY=VALUE" help:"Only items whose field has this value (repeatable; a,b means either)."`
	Sort            string   `placeholder:"KEY[:asc|desc],..." help:"Sort order, e.g. priority:desc,created_at:asc."`
	Limit           int      `default:"200" help:"At most this many items (up to 1000)."`
	Offset          int      `help:"Skip this many items (the next page)."`
}

// Run lists items. Without --status or --all only open items are asked
// for (non_terminal=true), as Pad's CLI does.
func (c *ItemListCmd) Run(ctx context.Context, a *App) error {
	if c.Limit < 1 || c.Limit > MaxListLimit {
		return usagef(codeBadLimit, fmt.Sprintf("give --limit between 1 and %d, and page with --offset", MaxListLimit), "--limit %d is out of range", c.Limit)
	}
	if c.Offset < 0 {
		return usagef(codeBadOffset, "give --offset 0 or more", "--offset %d is negative", c.Offset)
	}
	if c.Unparented && c.Parent != "" {
		return usagef(codeConflictingFlags, "give either --parent or --unparented", "--parent and --unparented contradict each other")
	}
	q := api.ItemQuery{Priority: c.Priority, Parent: c.Parent, Role: c.Role, Tag: c.Tag, Unparented: c.Unparented,
		IncludeArchived: c.IncludeArchived, Sort: c.Sort, Limit: c.Limit, Offset: c.Offset}
	if c.Status != "" {
		q.Status = strings.Split(c.Status, ",")
	}
	q.NonTerminal = c.Status == "" && !c.All
	entries, err := parseEntries("--field", c.Field)
	if err != nil {
		return err
	}
	if len(entries) > 0 {
		q.Fields = map[string][]string{}
		for _, e := range entries {
			q.Fields[e[0]] = append(q.Fields[e[0]], e[1])
		}
	}
	cl, ws, err := a.inWorkspace(ctx)
	if err != nil {
		return err
	}
	items, page, err := cl.ListItems(ctx, ws, c.Collection, q)
	if err != nil {
		return err
	}
	if items == nil {
		items = []api.Item{}
	}
	v := itemsView{items: items, now: a.now(), showCollection: c.Collection == ""}
	if err := a.emit(outItems(items), func(w io.Writer) error { return v.writeTable(w, a.style) }, v.writeMarkdown); err != nil {
		return err
	}
	if page.HasMore {
		next := page.NextOffset
		if next == 0 {
			next = c.Offset + len(items)
		}
		a.notef("more items match than the %d shown; add --offset %d for the next page (--limit goes up to %d)", len(items), next, MaxListLimit)
	}
	return nil
}

// ItemShowCmd is `item show <ref>`.
type ItemShowCmd struct {
	Ref string `arg:"" help:"Item ref (TASK-5), slug or id."`
}

// Run shows the item.
func (c *ItemShowCmd) Run(ctx context.Context, a *App) error {
	cl, ws, err := a.inWorkspace(ctx)
	if err != nil {
		return err
	}
	it, err := cl.GetItem(ctx, ws, c.Ref)
	if err != nil {
		return err
	}
	d := itemDetail{it: it, now: a.now()}
	out := itemShowOut{itemOut: outItem(it)}
	out.SyncConflicts, d.syncMark = itemConflictMark(ctx, cl, ws, it)
	return a.emit(out, func(w io.Writer) error { return d.writeTable(w, a.style) }, d.writeMarkdown)
}

// itemShowOut is `item show --format json`: the item, and its open sync
// conflicts when it has any.
type itemShowOut struct {
	itemOut
	SyncConflicts []api.SyncConflict `json:"sync_conflicts,omitempty"`
}

// ItemUpdateCmd is `item update <ref>`.
type ItemUpdateCmd struct {
	Ref   string  `arg:"" help:"Item ref (TASK-5), slug or id."`
	Title *string `help:"New title."`
	contentFlags
	Status         *string  `help:"New status."`
	Priority       *string  `help:"New priority."`
	Field          []string `short:"f" sep:"none" placeholder:"KEY=VALUE" help:"Set a field (repeatable; key= clears it)."`
	Parent         *string  `xor:"parent" placeholder:"REF" help:"New parent item."`
	ClearParent    bool     `xor:"parent" help:"Detach the item from its parent."`
	Role           *string  `xor:"role" placeholder:"SLUG" help:"New agent role."`
	ClearAgentRole bool     `xor:"role" name:"clear-agent-role" help:"Clear the agent role."`
	Tags           *string  `help:"Replace the tags: a,b (or a JSON array; \"\" clears them)."`
	ExpectedSeq    *int64   `placeholder:"N" help:"Refuse the update if the item changed since you read seq N (see item show)."`
	Force          bool     `help:"Close the item even if it has open children."`
	Comment        *string  `help:"Why: kept with the change in the item's history."`
}

// Run updates the item.
func (c *ItemUpdateCmd) Run(ctx context.Context, a *App) error {
	in := api.ItemUpdate{Title: c.Title, ClearParent: c.ClearParent, ClearAgentRole: c.ClearAgentRole,
		ExpectedSeq: c.ExpectedSeq, Force: c.Force, Comment: c.Comment, Parent: c.Parent, Role: c.Role}
	if c.Parent != nil && strings.TrimSpace(*c.Parent) == "" {
		return usagef(codeBadParent, "use --clear-parent to detach the item", "--parent needs a ref")
	}
	patch := map[string]any{}
	if c.Status != nil {
		patch["status"] = *c.Status
	}
	if c.Priority != nil {
		patch["priority"] = *c.Priority
	}
	if len(patch) > 0 {
		in.FieldsPatch = api.FlexOf(patch)
	}
	entries, err := parseEntries("--field", c.Field)
	if err != nil {
		return err
	}
	for _, e := range entries {
		in.Field = append(in.Field, e[0]+"="+e[1])
	}
	if in.Content, err = c.content(a); err != nil {
		return err
	}
	if c.Tags != nil {
		tags, err := parseTags(*c.Tags)
		if err != nil {
			return err
		}
		in.Tags = api.FlexOf(tags)
	}
	if onlySeq(in) {
		return usagef(codeNothingToUpdate, "`padctl item update --help` lists what can change", "nothing to update")
	}
	cl, ws, err := a.inWorkspace(ctx)
	if err != nil {
		return err
	}
	it, err := cl.UpdateItem(ctx, ws, c.Ref, in)
	if err != nil {
		return err
	}
	return a.emitItemDone(it, "Updated")
}

// onlySeq reports an update that carries nothing but its guards
// (--expected-seq, --force): nothing to change.
func onlySeq(in api.ItemUpdate) bool {
	in.ExpectedSeq, in.Force = nil, false
	b, _ := json.Marshal(in)
	return string(b) == "{}"
}

// ItemDeleteCmd is `item delete <ref>`.
type ItemDeleteCmd struct {
	Ref string `arg:"" help:"Item ref (TASK-5), slug or id."`
}

// Run archives the item. It reads it first to name it in the answer
// (Pad's delete answers 204, with no body).
func (c *ItemDeleteCmd) Run(ctx context.Context, a *App) error {
	cl, ws, err := a.inWorkspace(ctx)
	if err != nil {
		return err
	}
	it, err := cl.GetItem(ctx, ws, c.Ref)
	if err != nil {
		return err
	}
	if err := cl.DeleteItem(ctx, ws, c.Ref); err != nil {
		return err
	}
	ref := itemRef(it)
	out := struct {
		Ref      string `json:"ref"`
		ID       string `json:"id"`
		Title    string `json:"title"`
		Archived bool   `json:"archived"`
	}{ref, it.ID, it.Title, true}
	return a.emit(out, func(w io.Writer) error {
		_, err := fmt.Fprintf(w, "Archived %s %q; `padctl item restore %s` brings it back\n", a.style.paint(ansiBold, clean(ref)), clean(it.Title), clean(ref))
		return err
	}, nil)
}

// ItemRestoreCmd is `item restore <ref>`.
type ItemRestoreCmd struct {
	Ref string `arg:"" help:"Item ref (TASK-5), slug or id."`
}

// Run restores the item.
func (c *ItemRestoreCmd) Run(ctx context.Context, a *App) error {
	cl, ws, err := a.inWorkspace(ctx)
	if err != nil {
		return err
	}
	it, err := cl.RestoreItem(ctx, ws, c.Ref)
	if err != nil {
		return err
	}
	return a.emitItemDone(it, "Restored")
}

// ItemMoveCmd is `item move <ref> <collection>`.
type ItemMoveCmd struct {
	Ref        string   `arg:"" help:"Item ref (TASK-5), slug or id."`
	Collection string   `arg:"" predictor:"collection" help:"Target collection slug."`
	Field      []string `short:"f" sep:"none" placeholder:"KEY=VALUE" help:"Set a field in the target collection (repeatable)."`
	Force      bool     `help:"Move even if the new status would close an item with open children."`
}

// Run moves the item.
func (c *ItemMoveCmd) Run(ctx context.Context, a *App) error {
	entries, err := parseEntries("--field", c.Field)
	if err != nil {
		return err
	}
	in := api.ItemMove{TargetCollection: c.Collection, Force: c.Force}
	for _, e := range entries {
		in.Field = append(in.Field, e[0]+"="+e[1])
	}
	cl, ws, err := a.inWorkspace(ctx)
	if err != nil {
		return err
	}
	it, err := cl.MoveItem(ctx, ws, c.Ref, in)
	if err != nil {
		return err
	}
	return a.emitItemDone(it, "Moved to "+clean(it.CollectionSlug)+":")
}

// ItemBulkUpdateCmd is `item bulk-update <ref>...`.
type ItemBulkUpdateCmd struct {
	Refs     []string `arg:"" name:"ref" help:"Item refs (TASK-5), slugs or ids."`
	Status   string   `help:"Status to set on every item."`
	Priority string   `help:"Priority to set on every item."`
}

// Run applies one change to many items in one request; items that are
// refused are listed and make the exit code 1.
func (c *ItemBulkUpdateCmd) Run(ctx context.Context, a *App) error {
	fields := map[string]any{}
	for k, v := range map[string]string{"status": c.Status, "priority": c.Priority} {
		if v != "" {
			fields[k] = v
		}
	}
	if len(fields) == 0 {
		return usagef(codeNothingToUpdate, "give --status and/or --priority", "nothing to update")
	}
	if len(c.Refs) > MaxListLimit {
		return usagef(codeTooMany, fmt.Sprintf("split the refs into batches of %d", MaxListLimit), "%d refs in one bulk update", len(c.Refs))
	}
	cl, ws, err := a.inWorkspace(ctx)
	if err != nil {
		return err
	}
	res, err := cl.BulkItems(ctx, ws, api.BulkRequest{IDs: c.Refs, Op: "update", Fields: fields})
	if err != nil {
		return err
	}
	err = a.emit(res, func(w io.Writer) error {
		for _, r := range res.Updated {
			fmt.Fprintf(w, "%s %s\n", a.style.paint(ansiGreen, "✓"), clean(r.Ref))
		}
		for _, r := range res.Failed {
			fmt.Fprintf(w, "%s %s  %s (%s)\n", a.style.paint(ansiRed, "✗"), clean(r.Ref), clean(firstNonEmpty(r.Message, r.Error)), r.Code)
		}
		_, err := fmt.Fprintf(w, "Updated %d of %d items\n", len(res.Updated), res.Total)
		return err
	}, nil)
	if err != nil {
		return err
	}
	if len(res.Failed) > 0 {
		return failf(codePartialFailure, "the refused items are listed above with the reason; fix them and rerun for those refs",
			"%d of %s not updated", len(res.Failed), plural(res.Total, "item"))
	}
	return nil
}
