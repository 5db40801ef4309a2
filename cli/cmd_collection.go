package cli

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/padd/padd/api"
)

// CollectionCmd groups the collection commands.
type CollectionCmd struct {
	List     CollectionListCmd     `cmd:"" aliases:"ls" help:"List collections with their item counts."`
	Show     CollectionShowCmd     `cmd:"" help:"Show a collection and its fields."`
	Create   CollectionCreateCmd   `cmd:"" help:"Create a collection."`
	Update   CollectionUpdateCmd   `cmd:"" help:"Change a collection's name, prefix, fields or settings."`
	Archive  CollectionArchiveCmd  `cmd:"" help:"Archive a collection (its items are hidden with it)."`
	Archived CollectionArchivedCmd `cmd:"" help:"List archived collections."`
	Restore  CollectionRestoreCmd  `cmd:"" help:"Restore an archived collection and its items."`
}

// inWorkspace is the client and resolved workspace most commands need.
func (a *App) inWorkspace(ctx context.Context) (*api.Client, string, error) {
	cl, err := a.Client(ctx)
	if err != nil {
		return nil, "", err
	}
	ws, err := a.Workspace(ctx)
	return cl, ws, err
}

// CollectionListCmd is `collection list`.
type CollectionListCmd struct{}

// Run lists the collections.
func (c *CollectionListCmd) Run(ctx context.Context, a *App) error {
	cl, ws, err := a.inWorkspace(ctx)
	if err != nil {
		return err
	}
	list, err := cl.ListCollections(ctx, ws)
	if err != nil {
		return err
	}
	v := collectionsView{list: list}
	return a.emit(outCollections(list), func(w io.Writer) error { return v.writeTable(w, a.style) }, v.writeMarkdown)
}

// CollectionShowCmd is `collection show <slug>`.
type CollectionShowCmd struct {
	Slug string `arg:"" predictor:"collection" help:"Collection slug (or alias: task, idea, ...)."`
}

// Run shows one collection.
func (c *CollectionShowCmd) Run(ctx context.Context, a *App) error {
	cl, ws, err := a.inWorkspace(ctx)
	if err != nil {
		return err
	}
	coll, err := cl.GetCollection(ctx, ws, c.Slug)
	if err != nil {
		return err
	}
	return a.emitCollection(coll, "")
}

// emitCollection prints a collection: in full for show (verb ""), as a
// one-line confirmation after a write.
func (a *App) emitCollection(coll *api.Collection, verb string) error {
	a.emitWarnings(coll.Warnings)
	js := outCollection(coll)
	d := collectionDetail{c: coll}
	if verb == "" {
		return a.emit(js, func(w io.Writer) error { return d.writeTable(w, a.style) }, d.writeMarkdown)
	}
	return a.emit(js, func(w io.Writer) error {
		_, err := fmt.Fprintf(w, "%s collection %s (%s, prefix %s)\n", verb, a.style.paint(ansiBold, clean(coll.Slug)),
			clean(strings.TrimSpace(coll.Icon+" "+coll.Name)), clean(coll.Prefix))
		return err
	}, nil)
}

// collectionSchemaFlags are the schema and settings flags create and
// update share.
type collectionSchemaFlags struct {
	Fields     *string `placeholder:"DSL" help:"Fields in Pad's DSL: \"key:type[:opt1,opt2]; ...\" (e.g. \"status:select:open,done; due:date\")."`
	Schema     *string `placeholder:"JSON" help:"Full schema as JSON: {\"fields\":[...]} (for terminal_options, defaults, ...)."`
	Settings   *string `placeholder:"JSON" help:"Collection settings as a JSON object."`
	TracksWork *bool   `name:"tracks-work" negatable:"" help:"Items are work to do (count as open, block closing their parent). --no-tracks-work marks a reference collection."`
}

func (f collectionSchemaFlags) check() error {
	if f.Fields != nil && f.Schema != nil {
		return usagef(codeConflictingFlags, "give the fields either as --fields DSL or as --schema JSON", "--fields and --schema both set the schema")
	}
	for name, v := range map[string]*string{"--schema": f.Schema, "--settings": f.Settings} {
		if v != nil && !jsonValid(*v) {
			return usagef(codeBadJson, fmt.Sprintf("give %s valid JSON (quote it for the shell)", name), "%s is not valid JSON", name)
		}
	}
	return nil
}

func (f collectionSchemaFlags) flex() (schema, settings, tracks api.Flex) {
	if f.Schema != nil {
		schema = api.Flex(*f.Schema)
	}
	if f.Settings != nil {
		settings = api.Flex(*f.Settings)
	}
	if f.TracksWork != nil {
		tracks = api.FlexOf(*f.TracksWork)
	}
	return schema, settings, tracks
}

// CollectionCreateCmd is `collection create <name>`.
type CollectionCreateCmd struct {
	Name        string `arg:"" help:"Display name (e.g. Bugs)."`
	Slug        string `help:"Slug (default: derived from the name)."`
	Prefix      string `help:"Ref prefix, e.g. BUG for BUG-1 (default: derived from the name)."`
	Icon        string `help:"Icon (an emoji)."`
	Description string `help:"Description."`
	collectionSchemaFlags
}

// Run creates the collection.
func (c *CollectionCreateCmd) Run(ctx context.Context, a *App) error {
	if err := c.check(); err != nil {
		return err
	}
	cl, ws, err := a.inWorkspace(ctx)
	if err != nil {
		return err
	}
	in := api.CollectionCreate{Name: c.Name, Slug: c.Slug, Prefix: c.Prefix, Icon: c.Icon, Description: c.Description}
	if c.Fields != nil {
		in.Fields = *c.Fields
	}
	in.Schema, in.Settings, in.TracksWork = c.flex()
	coll, err := cl.CreateCollection(ctx, ws, in)
	if err != nil {
		return err
	}
	return a.emitCollection(coll, "Created")
}

// CollectionUpdateCmd is `collection update <slug>`.
type CollectionUpdateCmd struct {
	Slug        string  `arg:"" predictor:"collection" help:"Collection slug."`
	Name        *string `help:"New display name."`
	Prefix      *string `help:"New ref prefix (old refs keep resolving)."`
	Icon        *string `help:"New icon (\"\" clears it)."`
	Description *string `help:"New description (\"\" clears it)."`
	SortOrder   *int    `help:"Position in the collection list (lower first)."`
	collectionSchemaFlags
}

// Run updates the collection.
func (c *CollectionUpdateCmd) Run(ctx context.Context, a *App) error {
	if err := c.check(); err != nil {
		return err
	}
	if c.Name == nil && c.Prefix == nil && c.Icon == nil && c.Description == nil && c.SortOrder == nil &&
		c.Fields == nil && c.Schema == nil && c.Settings == nil && c.TracksWork == nil {
		return usagef(codeNothingToUpdate, "`padctl collection update --help` lists what can change", "nothing to update")
	}
	cl, ws, err := a.inWorkspace(ctx)
	if err != nil {
		return err
	}
	in := api.CollectionUpdate{Name: c.Name, Prefix: c.Prefix, Icon: c.Icon, Description: c.Description,
		SortOrder: c.SortOrder, Fields: c.Fields}
	in.Schema, in.Settings, in.TracksWork = c.flex()
	coll, err := cl.UpdateCollection(ctx, ws, c.Slug, in)
	if err != nil {
		return err
	}
	return a.emitCollection(coll, "Updated")
}

// CollectionArchiveCmd is `collection archive <slug>`.
type CollectionArchiveCmd struct {
	Slug string `arg:"" predictor:"collection" help:"Collection slug."`
}

// Run archives the collection.
func (c *CollectionArchiveCmd) Run(ctx context.Context, a *App) error {
	cl, ws, err := a.inWorkspace(ctx)
	if err != nil {
		return err
	}
	if err := cl.ArchiveCollection(ctx, ws, c.Slug); err != nil {
		return err
	}
	return a.emit(map[string]any{"slug": c.Slug, "archived": true}, func(w io.Writer) error {
		_, err := fmt.Fprintf(w, "Archived collection %s; `padctl collection restore %s` brings it back\n", clean(c.Slug), clean(c.Slug))
		return err
	}, nil)
}

// CollectionArchivedCmd is `collection archived`.
type CollectionArchivedCmd struct{}

// Run lists archived collections.
func (c *CollectionArchivedCmd) Run(ctx context.Context, a *App) error {
	cl, ws, err := a.inWorkspace(ctx)
	if err != nil {
		return err
	}
	list, err := cl.ListArchivedCollections(ctx, ws)
	if err != nil {
		return err
	}
	if list == nil {
		list = []api.ArchivedCollection{}
	}
	v := archivedView{list: list}
	return a.emit(list, func(w io.Writer) error { return v.writeTable(w, a.style) }, v.writeMarkdown)
}

// CollectionRestoreCmd is `collection restore <slug>`.
type CollectionRestoreCmd struct {
	Slug string `arg:"" help:"Slug (or id) of the archived collection."`
}

// Run restores the collection.
func (c *CollectionRestoreCmd) Run(ctx context.Context, a *App) error {
	cl, ws, err := a.inWorkspace(ctx)
	if err != nil {
		return err
	}
	coll, err := cl.RestoreCollection(ctx, ws, c.Slug)
	if err != nil {
		return err
	}
	return a.emitCollection(coll, "Restored")
}
