package cli

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/padd/padd/api"
	"github.com/padd/padd/model"
)

// Links in Pad's words: "TASK-1 blocks TASK-2". padd stores the inverse
// types canonically ("A blocked-by B" is kept as "B blocks A") and names
// types with underscores on the wire (split_from).

// ItemLinkCmd is `item link <ref> <type> <target>`.
type ItemLinkCmd struct {
	Ref    string `arg:"" help:"Source item (ref, slug or id)."`
	Type   string `arg:"" predictor:"linktype" help:"Link type: ${link_types}."`
	Target string `arg:"" help:"Target item (ref, slug or id)."`
}

// Run creates the link.
func (c *ItemLinkCmd) Run(ctx context.Context, a *App) error {
	cl, ws, err := a.inWorkspace(ctx)
	if err != nil {
		return err
	}
	l, err := cl.AddLink(ctx, ws, c.Ref, api.ItemLinkCreate{TargetID: c.Target, LinkType: model.NormalizeLinkType(c.Type)})
	if err != nil {
		return err
	}
	return a.emit(l, func(w io.Writer) error {
		_, err := fmt.Fprintf(w, "Linked %s\n", describeLink(a.style, l))
		return err
	}, nil)
}

// describeLink is "TASK-1 blocks TASK-2" in the link's stored direction.
func describeLink(st Style, l *api.ItemLink) string {
	return fmt.Sprintf("%s %s %s", st.paint(ansiBold, clean(firstNonEmpty(l.SourceRef, l.SourceSlug, l.SourceID))),
		clean(strings.ReplaceAll(l.LinkType, "_", "-")), st.paint(ansiBold, clean(firstNonEmpty(l.TargetRef, l.TargetSlug, l.TargetID))))
}

// ItemUnlinkCmd is `item unlink <ref> <type> <target>`.
type ItemUnlinkCmd struct {
	Ref    string `arg:"" help:"Source item (ref, slug or id)."`
	Type   string `arg:"" predictor:"linktype" help:"Link type: ${link_types}."`
	Target string `arg:"" help:"Target item (ref, slug or id)."`
}

// Run finds the link among the source's links and deletes it. Both
// items are read first so that any of their names (an old ref after a
// move, a slug) matches by id.
func (c *ItemUnlinkCmd) Run(ctx context.Context, a *App) error {
	cl, ws, err := a.inWorkspace(ctx)
	if err != nil {
		return err
	}
	src, err := cl.GetItem(ctx, ws, c.Ref)
	if err != nil {
		return err
	}
	dst, err := cl.GetItem(ctx, ws, c.Target)
	if err != nil {
		return err
	}
	typ := model.NormalizeLinkType(c.Type)
	from, to := src.ID, dst.ID
	if typ == model.LinkBlockedBy {
		typ, from, to = model.LinkBlocks, to, from
	}
	links, err := cl.ListLinks(ctx, ws, c.Ref)
	if err != nil {
		return err
	}
	for i := range links {
		l := &links[i]
		if l.SourceID == from && l.TargetID == to && model.NormalizeLinkType(l.LinkType) == typ {
			if err := cl.DeleteLink(ctx, ws, l.ID); err != nil {
				return err
			}
			return a.emit(map[string]any{"status": "removed", "link_id": l.ID}, func(w io.Writer) error {
				_, err := fmt.Fprintf(w, "Unlinked %s\n", describeLink(a.style, l))
				return err
			}, nil)
		}
	}
	return failf(api.CodeNotFound, fmt.Sprintf("`padctl item links %s` lists its links", c.Ref),
		"%s has no %s link to %s", itemRef(src), model.NormalizeLinkType(c.Type), itemRef(dst))
}

// ItemLinksCmd is `item links <ref>`.
type ItemLinksCmd struct {
	Ref string `arg:"" help:"Item ref (TASK-5), slug or id."`
}

// Run lists the item's links, both directions.
func (c *ItemLinksCmd) Run(ctx context.Context, a *App) error {
	cl, ws, err := a.inWorkspace(ctx)
	if err != nil {
		return err
	}
	it, err := cl.GetItem(ctx, ws, c.Ref)
	if err != nil {
		return err
	}
	links, err := cl.ListLinks(ctx, ws, c.Ref)
	if err != nil {
		return err
	}
	if links == nil {
		links = []api.ItemLink{}
	}
	v := linksView{self: it.ID, list: links}
	return a.emit(links, func(w io.Writer) error { return v.writeTable(w, a.style) }, v.writeMarkdown)
}

// linksView lays an item's links out from its side: "blocks TASK-2",
// "blocked by PLAN-1".
type linksView struct {
	self string
	list []api.ItemLink
}

func (v linksView) table() *table {
	t := &table{cols: []column{{header: "LINK"}, {header: "REF"}, {header: "TITLE", flex: true, min: 12}, {header: "STATUS"}}}
	for i := range v.list {
		l := &v.list[i]
		typ := model.NormalizeLinkType(l.LinkType)
		ref, title, status := l.TargetRef, l.TargetTitle, l.TargetStatus
		if l.TargetID == v.self { // an incoming link: say it from this side
			typ = model.InverseLinkType(typ)
			ref, title, status = l.SourceRef, l.SourceTitle, l.SourceStatus
		}
		t.add(plain(typ), cell{text: clean(ref), color: ansiBold}, plain(title), cell{text: clean(status), color: statusColor(status)})
	}
	return t
}

func (v linksView) writeTable(w io.Writer, st Style) error {
	if len(v.list) == 0 {
		_, err := fmt.Fprintln(w, "No links.")
		return err
	}
	return v.table().write(w, st)
}

func (v linksView) writeMarkdown(w io.Writer) error {
	if len(v.list) == 0 {
		_, err := fmt.Fprintln(w, "_No links._")
		return err
	}
	return v.table().writeMarkdown(w)
}
