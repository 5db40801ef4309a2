package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/padd/padd/api"
)

// WatchCmd is `padctl watch`: padd's event stream, live (the default),
// and `padctl watch list`, the watched items.
type WatchCmd struct {
	Stream WatchStreamCmd `cmd:"" default:"withargs" help:"Print changes as they happen (padd's event stream) until Ctrl-C; the default: padctl watch [ref]."`
	List   WatchListCmd   `cmd:"" help:"List the watched items, across workspaces (padctl item watch adds one)."`
}

// WatchStreamCmd is `padctl watch [ref]`: padd's event stream, live.
type WatchStreamCmd struct {
	Ref   string   `arg:"" optional:"" help:"Only this item's events (ref, slug or id)."`
	All   bool     `name:"all-workspaces" help:"Every workspace's events, not just the current workspace's."`
	Armed bool     `help:"With --all-workspaces: also take your pushes (padctl item push, pad push), each printed once."`
	Since string   `placeholder:"EVENT-ID" help:"First replay the events after this id (ids are in --format json output)."`
	Type  []string `placeholder:"TYPE" help:"Only these event types, e.g. item_created,item_updated."`
}

// watchRetry is the wait before each reconnect after padd went away:
// quick at first (a restart), then every few seconds.
var watchRetry = []time.Duration{250 * time.Millisecond, time.Second, 2 * time.Second, 5 * time.Second}

// Run prints events as they happen, one per line, until Ctrl-C. A lost
// connection is resumed from the last event seen, so nothing is missed
// across a padd restart.
func (c *WatchStreamCmd) Run(ctx context.Context, a *App) error {
	if c.All && c.Ref != "" {
		return usagef(codeConflictingArgs, "watch one item in the current workspace, or everything with --all-workspaces", "an item and --all-workspaces together")
	}
	if c.Armed && !c.All {
		return usagef(codeConflictingArgs, "pushes come on the all-workspaces stream: padctl watch --all-workspaces --armed", "--armed without --all-workspaces")
	}
	cl, err := a.Client(ctx)
	if err != nil {
		return err
	}
	ws := ""
	if !c.All {
		if ws, err = a.Workspace(ctx); err != nil {
			return err
		}
	}
	itemID := ""
	if c.Ref != "" {
		it, err := cl.GetItem(ctx, ws, c.Ref)
		if err != nil {
			return err
		}
		itemID = it.ID
	}
	types := map[string]bool{}
	for _, t := range c.Type {
		for _, s := range strings.Split(t, ",") {
			if s = strings.TrimSpace(s); s != "" {
				types[s] = true
			}
		}
	}
	ev := eventPrinter{w: a.out, st: a.style, loc: time.Local, format: a.format, showWorkspace: c.All}
	last, failures := c.Since, 0
	var seen pushSeen
	for {
		follow := func(fn func(api.SSEFrame) error) error { return cl.StreamEvents(ctx, ws, last, fn) }
		if c.Armed {
			follow = func(fn func(api.SSEFrame) error) error { return cl.StreamArmed(ctx, last, fn) }
		}
		err := follow(func(f api.SSEFrame) error {
			failures = 0
			if f.HasID {
				last = f.ID
			}
			switch f.Event {
			case "connected":
				return nil
			case "sync_required":
				a.notef("padd cannot replay from event %q; showing events from now on", c.Since)
				return nil
			case "workspace_deleted":
				return errWorkspaceGone
			case "shutdown":
				return io.ErrUnexpectedEOF // padd is stopping: wait for it like for a dropped stream
			case "notification": // a watched item's, on the all-workspaces stream
				if len(types) > 0 && !types[f.Event] {
					return nil
				}
				var n api.WatchNotification
				if err := json.Unmarshal(f.Data, &n); err != nil {
					return fmt.Errorf("padd sent a notification that does not decode (%v): %s", err, f.Data)
				}
				if n.Kind == api.PushKind && n.PushID != "" && !seen.first(n.PushID, time.Now()) {
					return nil
				}
				return ev.printNotification(&n, f.Data)
			}
			var e api.Event
			if err := json.Unmarshal(f.Data, &e); err != nil {
				return fmt.Errorf("padd sent an event that does not decode (%v): %s", err, f.Data)
			}
			if e.Type == "" {
				e.Type = f.Event
			}
			if (itemID != "" && e.ItemID != itemID) || (len(types) > 0 && !types[e.Type]) {
				return nil
			}
			return ev.print(&e, f.Data)
		})
		switch {
		case ctx.Err() != nil:
			return nil // Ctrl-C is how watch ends
		case errors.Is(err, errWorkspaceGone):
			a.notef("workspace %s was deleted; nothing more to watch", ws)
			return nil
		case err != nil && !api.IsTransport(err) && !errors.Is(err, io.ErrUnexpectedEOF):
			return err
		}
		if errors.Is(err, io.ErrUnexpectedEOF) {
			err = errors.New("padd ended the stream")
		}
		// The stream ended (padd stopped or restarted): resume from the
		// last event once padd answers again. watch does not start padd
		// itself: someone stopped it on purpose.
		if failures++; failures == 1 {
			a.notef("lost padd (%v); waiting for it to come back", err)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(watchRetry[min(failures-1, len(watchRetry)-1)]):
		}
		if fresh, _, cerr := a.connect(ctx, false); cerr == nil {
			cl = fresh
		}
	}
}

var errWorkspaceGone = errors.New("workspace deleted")

// eventPrinter writes one event per line: for people "time type ref
// title  by actor", as JSON the wire event (one object per line), or a
// Markdown list item.
type eventPrinter struct {
	w             io.Writer
	st            Style
	loc           *time.Location
	format        Format
	showWorkspace bool
}

// printNotification writes a watched item's notification as print
// writes an event: "time notification ws/REF  kind: summary  by actor".
func (p eventPrinter) printNotification(n *api.WatchNotification, raw []byte) error {
	if p.format == FormatJSON {
		_, err := fmt.Fprintf(p.w, "%s\n", raw)
		return err
	}
	at := time.UnixMilli(n.Ts).In(p.loc).Format("15:04:05")
	name, what, who := clean(n.Workspace+"/"+n.ItemRef), clean(n.Kind+": "+n.Summary), clean(n.Actor)
	if p.format == FormatMarkdown {
		_, err := fmt.Fprintf(p.w, "- `%s` **notification** %s — %s\n", at, mdCell(name+"  "+what), mdCell(who))
		return err
	}
	what = truncate(what, max(12, p.st.Width-29-textWidth(name)-2-2-textWidth(who))) + "  "
	_, err := fmt.Fprintf(p.w, "%s  %-18s %s  %s%s\n", p.st.paint(ansiDim, at), "notification", p.st.paint(ansiBold, name), what, p.st.paint(ansiDim, who))
	return err
}

func (p eventPrinter) print(e *api.Event, raw []byte) error {
	if p.format == FormatJSON {
		_, err := fmt.Fprintf(p.w, "%s\n", raw)
		return err
	}
	at := time.UnixMilli(e.Timestamp).In(p.loc).Format("15:04:05")
	// What changed: its ref (or collection, or entity id), never cut,
	// then its title, cut to fit.
	name := firstNonEmpty(e.Ref, e.Collection, e.EntityID)
	if p.showWorkspace && e.Workspace != "" {
		name = strings.TrimSpace(e.Workspace + "  " + name)
	}
	title := e.Title
	who := e.Actor
	if e.ActorName != "" {
		who += " " + e.ActorName
	}
	if e.Source != "" {
		who += " via " + e.Source
	}
	if p.format == FormatMarkdown {
		_, err := fmt.Fprintf(p.w, "- `%s` **%s** %s — %s\n", at, mdCell(e.Type), mdCell(strings.TrimSpace(name+"  "+title)), mdCell(who))
		return err
	}
	// time (8) + 2 + type (18: collection_updated) + 1 + name + 2, then
	// the title, cut so that the actor still fits (down to a floor).
	name, title, who = clean(name), clean(title), clean(who)
	if title != "" {
		title = truncate(title, max(12, p.st.Width-29-textWidth(name)-2-2-textWidth(who))) + "  "
	}
	_, err := fmt.Fprintf(p.w, "%s  %-18s %s  %s%s\n", p.st.paint(ansiDim, at), clean(e.Type), p.st.paint(ansiBold, name), title, p.st.paint(ansiDim, who))
	return err
}
