package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/google/uuid"

	"github.com/padd/padd/api"
)

// ItemCopyCmd is `item copy <ref> --to-workspace W --collection C`.
type ItemCopyCmd struct {
	Ref           string   `arg:"" help:"Item ref (TASK-5), slug or id."`
	ToWorkspace   string   `name:"to-workspace" required:"" placeholder:"SLUG" help:"Destination workspace."`
	Collection    string   `required:"" placeholder:"SLUG" help:"Destination collection in that workspace."`
	DryRun        bool     `name:"dry-run" help:"Say what the copy would carry, drop and need; change nothing."`
	ArchiveSource bool     `name:"archive-source" help:"Archive the source after the copy (a move between workspaces)."`
	Field         []string `short:"f" sep:"none" placeholder:"KEY=VALUE" help:"Set a destination field (repeatable)."`
	OpKey         string   `name:"op-key" placeholder:"KEY" help:"Idempotency key; re-running with the same key after a lost answer finishes that copy instead of making another (default: a fresh one)."`
}

// Run copies (or previews copying) the item.
func (c *ItemCopyCmd) Run(ctx context.Context, a *App) error {
	entries, err := parseEntries("--field", c.Field)
	if err != nil {
		return err
	}
	in := api.ItemCopyRequest{TargetWorkspace: c.ToWorkspace, TargetCollection: c.Collection, ArchiveSource: c.ArchiveSource}
	for _, e := range entries {
		in.Field = append(in.Field, e[0]+"="+e[1])
	}
	cl, ws, err := a.inWorkspace(ctx)
	if err != nil {
		return err
	}
	if c.DryRun {
		p, err := cl.CopyItemPreflight(ctx, ws, c.Ref, in)
		if err != nil {
			return err
		}
		return a.emit(p, func(w io.Writer) error { return copyPreview(w, a.style, p) }, nil)
	}
	in.OpKey = c.OpKey
	if in.OpKey == "" {
		in.OpKey = "padctl-copy-" + uuid.NewString()
	}
	res, err := cl.CopyItem(ctx, ws, c.Ref, in)
	if err != nil {
		e := explain(err)
		if e.Code != codeInterrupted && e.Exit == ExitError && !isRefusal(err) {
			e.Hint = fmt.Sprintf("the copy may have been made; run the same command with --op-key %s to finish it without a second copy", in.OpKey)
		}
		return e
	}
	a.emitCopyWarnings(res.Warnings)
	return a.emit(res, func(w io.Writer) error {
		verb := "Copied"
		if res.Source.Archived != nil && *res.Source.Archived {
			verb = "Moved"
		}
		_, err := fmt.Fprintf(w, "%s %s to %s in %s (%s)\n", verb, clean(res.Source.Ref),
			st(a.style, clean(res.Destination.Ref)), clean(res.Destination.WorkspaceSlug), clean(res.Destination.CollectionSlug))
		return err
	}, nil)
}

func st(s Style, text string) string { return s.paint(ansiBold, text) }

// isRefusal: padd answered with a coded 4xx, so nothing was written.
func isRefusal(err error) bool {
	var ae *api.Error
	return errors.As(err, &ae) && ae.Status >= 400 && ae.Status < 500
}

func (a *App) emitCopyWarnings(w api.CopyResultWarnings) {
	if len(w.DroppedFields) > 0 {
		a.warnf("fields dropped (not kept in the destination): %s", strings.Join(w.DroppedFields, ", "))
	}
	for _, n := range w.NotUnique {
		if msg, _ := n["message"].(string); msg != "" {
			a.warnf("%s", msg)
		}
	}
	if w.DroppedAssignee {
		a.warnf("the assignee is not a member of the destination workspace: dropped")
	}
	if w.DroppedAgentRole {
		a.warnf("the agent role stays behind (roles belong to their workspace)")
	}
	if w.UnresolvableRefCount > 0 {
		a.warnf("%d attachment reference(s) name no attachment and were left as they are", w.UnresolvableRefCount)
	}
}

// copyPreview prints a copy preflight.
func copyPreview(w io.Writer, s Style, p *api.ItemCopyPreflight) error {
	var b strings.Builder
	fmt.Fprintf(&b, "Dry run: copy %s %q from %s to %s in %s; nothing changed.\n", s.paint(ansiBold, clean(p.Source.Ref)), clean(p.Source.Title),
		clean(p.Source.WorkspaceSlug), clean(p.Destination.CollectionSlug), clean(p.Destination.WorkspaceSlug))
	fmt.Fprintf(&b, "Carried (%d)\n", len(p.Fields.Carried))
	for _, f := range p.Fields.Carried {
		fmt.Fprintf(&b, "  %-22s %s  [%s]\n", clean(f.Key), clean(truncate(fmt.Sprint(f.Value), 60)), clean(f.From))
	}
	fmt.Fprintf(&b, "Dropped (%d)\n", len(p.Fields.Dropped))
	for _, f := range p.Fields.Dropped {
		line := fmt.Sprintf("  %-22s %s", clean(f.Key), clean(f.Reason))
		if f.Detail != "" {
			line += ": " + clean(f.Detail)
		}
		fmt.Fprintln(&b, line)
	}
	fmt.Fprintf(&b, "Needs a value (%d)\n", len(p.Fields.NeedsValue))
	for _, f := range p.Fields.NeedsValue {
		fmt.Fprintf(&b, "  %-22s %s: %s\n", clean(f.Key), clean(f.Reason), clean(f.Message))
	}
	wn := p.Warnings
	var links []string
	for _, m := range []map[string]int{wn.OutgoingLinks, wn.IncomingLinks} {
		for _, k := range sortedIntKeys(m) {
			links = append(links, fmt.Sprintf("%s %d", k, m[k]))
		}
	}
	fmt.Fprintf(&b, "Left behind: %d children, parent %s, links [%s], assignee %s, agent role %s\n", wn.ChildCount,
		yesNoWord(wn.DroppedParent), clean(strings.Join(links, ", ")), yesNoWord(wn.DroppedAssignee), yesNoWord(wn.DroppedAgentRole))
	fmt.Fprintf(&b, "Attachments copied: %d (%d bytes); references to nothing: %d\n", wn.AttachmentCount, wn.AttachmentBytes, wn.UnresolvableRefCount)
	if p.Valid {
		fmt.Fprintln(&b, "Ready: run without --dry-run to copy.")
	} else {
		fmt.Fprintln(&b, "Not ready: give the fields above with --field key=value.")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func sortedIntKeys(m map[string]int) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func yesNoWord(b bool) string {
	if b {
		return "dropped"
	}
	return "none"
}
