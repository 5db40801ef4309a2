package cli

import (
	"context"
	"errors"
	"strings"

	"github.com/padd/padd/api"
)

// Item watches (Pad's `pad watch <ref>`, `pad watch list`, `pad watch
// remove`): padd tells the all-workspaces stream's "notification" events
// of a watched item's status changes, assignments and comments.

// ItemWatchCmd is `item watch <ref> [--until field=value]`.
type ItemWatchCmd struct {
	Ref   string `arg:"" help:"Item ref (TASK-5), slug or id."`
	Until string `placeholder:"FIELD=VALUE" help:"Only when this field becomes this value, e.g. --until status=done (default: every status change, assignment and comment)."`
}

// Run watches the item (again: replaces its --until).
func (c *ItemWatchCmd) Run(ctx context.Context, a *App) error {
	if c.Until != "" {
		if k, _, ok := strings.Cut(c.Until, "="); !ok || strings.TrimSpace(k) == "" {
			return usagef(codeBadField, "write --until field=value, e.g. --until status=done", "--until %q is not field=value", c.Until)
		}
	}
	cl, ws, err := a.inWorkspace(ctx)
	if err != nil {
		return err
	}
	w, err := cl.Watch(ctx, ws, c.Ref, c.Until)
	if err != nil {
		return err
	}
	return a.emitLine(lineView{w, func(st Style) string {
		line := "Watching " + bold(st, firstNonEmpty(w.ItemRef, c.Ref))
		if w.Predicate != "" {
			line += " until " + clean(w.Predicate)
		}
		return line
	}})
}

// ItemUnwatchCmd is `item unwatch <ref>`.
type ItemUnwatchCmd struct {
	Ref string `arg:"" help:"Item ref (TASK-5), slug or id."`
}

// Run removes the item's watch.
func (c *ItemUnwatchCmd) Run(ctx context.Context, a *App) error {
	cl, ws, err := a.inWorkspace(ctx)
	if err != nil {
		return err
	}
	u, err := cl.Unwatch(ctx, ws, c.Ref)
	var ae *api.Error
	if errors.As(err, &ae) && ae.Code == api.CodeNotFound && ae.Details["ref"] != nil {
		// not_found with the item's ref: the item is there, its watch not.
		return &Error{Code: ae.Code, Message: ae.Message, Exit: ExitError, Err: err,
			Hint: "`padctl watch list` lists the watched items"}
	}
	if err != nil {
		return err
	}
	return a.emitLine(lineView{u, func(st Style) string {
		return "Stopped watching " + bold(st, firstNonEmpty(u.Ref, c.Ref))
	}})
}

// WatchListCmd is `watch list`.
type WatchListCmd struct{}

// Run lists every watch, newest first.
func (c *WatchListCmd) Run(ctx context.Context, a *App) error {
	cl, err := a.Client(ctx)
	if err != nil {
		return err
	}
	list, err := cl.Watches(ctx)
	if err != nil {
		return err
	}
	return a.emitDoc(watchesView{list: list})
}

// watchesView is the watched items, newest watch first.
type watchesView struct{ list []api.Watch }

func (v watchesView) jsonValue() any {
	if v.list == nil {
		return []api.Watch{}
	}
	return v.list
}

func (v watchesView) doc(markdown bool) doc {
	t := &table{cols: []column{{header: "REF"}, {header: "WORKSPACE"}, {header: "TITLE", flex: true, min: 12}, {header: "UNTIL"}}}
	for _, w := range v.list {
		t.add(keyCell(w.ItemRef), plain(w.WorkspaceSlug), plain(w.ItemTitle), plain(firstNonEmpty(w.Predicate, "-")))
	}
	d := doc{}
	d.add(section{t: t, empty: "No watched items: `padctl item watch REF` adds one."})
	return d
}
