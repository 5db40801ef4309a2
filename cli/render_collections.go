package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/padd/padd/api"
	"github.com/padd/padd/model"
)

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// collectionsView is a collection list.
type collectionsView struct{ list []api.Collection }

func (v collectionsView) table() *table {
	t := &table{cols: []column{{header: "SLUG"}, {header: "NAME", flex: true, min: 10}, {header: "PREFIX"},
		{header: "OPEN"}, {header: "TOTAL"}, {header: "WORK"}}}
	for _, c := range v.list {
		name := strings.TrimSpace(c.Icon + " " + c.Name)
		if c.IsDefault {
			name += " (default)"
		}
		t.add(cell{text: clean(c.Slug), color: ansiBold}, plain(name), plain(c.Prefix),
			plain(strconv.Itoa(c.ActiveItemCount)), plain(strconv.Itoa(c.ItemCount)), plain(yesNo(c.TracksWork)))
	}
	return t
}

func (v collectionsView) writeTable(w io.Writer, st Style) error {
	if len(v.list) == 0 {
		_, err := fmt.Fprintln(w, "No collections. `padctl collection create <name>` makes one.")
		return err
	}
	return v.table().write(w, st)
}

func (v collectionsView) writeMarkdown(w io.Writer) error { return v.table().writeMarkdown(w) }

// archivedView is the archived-collections list.
type archivedView struct{ list []api.ArchivedCollection }

func (v archivedView) table() *table {
	t := &table{cols: []column{{header: "SLUG"}, {header: "NAME", flex: true, min: 10}, {header: "PREFIX"},
		{header: "ITEMS"}, {header: "ARCHIVED"}}}
	for _, c := range v.list {
		at := ""
		if c.ArchivedAt != nil {
			at = stamp(*c.ArchivedAt)
		}
		t.add(cell{text: clean(c.Slug), color: ansiBold}, plain(strings.TrimSpace(c.Icon+" "+c.Name)),
			plain(c.Prefix), plain(strconv.Itoa(c.ItemCount)), plain(at))
	}
	return t
}

func (v archivedView) writeTable(w io.Writer, st Style) error {
	if len(v.list) == 0 {
		_, err := fmt.Fprintln(w, "No archived collections.")
		return err
	}
	return v.table().write(w, st)
}

func (v archivedView) writeMarkdown(w io.Writer) error { return v.table().writeMarkdown(w) }

// collectionDetail is one collection with its schema.
type collectionDetail struct{ c *api.Collection }

func (d collectionDetail) pairs() *keyValues {
	c := d.c
	kv := &keyValues{}
	kv.add("slug", plain(c.Slug))
	kv.add("name", plain(strings.TrimSpace(c.Icon+" "+c.Name)))
	kv.add("prefix", plain(c.Prefix))
	kv.add("description", plain(c.Description))
	kv.add("items", plain(fmt.Sprintf("%d open of %d", c.ActiveItemCount, c.ItemCount)))
	kv.add("tracks work", plain(yesNo(c.TracksWork)))
	if c.IsDefault {
		kv.add("default", plain("yes"))
	}
	if c.IsSystem {
		kv.add("system", plain("yes"))
	}
	if c.ArchivedAt != nil {
		kv.add("archived", cell{text: stamp(*c.ArchivedAt), color: ansiRed})
	}
	return kv
}

// fields lays the schema out, one row per field; a schema that does not
// decode shows as its raw text rather than failing the command.
func (d collectionDetail) fields() (t *table, raw string, terminal bool) {
	var s model.Schema
	if err := json.Unmarshal([]byte(d.c.Schema), &s); err != nil {
		return nil, d.c.Schema, false
	}
	t = &table{cols: []column{{header: "FIELD"}, {header: "TYPE"}, {header: "OPTIONS", flex: true, min: 10},
		{header: "DEFAULT"}, {header: "FLAGS"}}}
	for _, f := range s.Fields {
		opts := make([]string, 0, len(f.Options))
		for _, o := range f.Options {
			if slices.Contains(f.TerminalOptions, o) {
				o += "*" // a terminal state: done, cancelled ...
				terminal = true
			}
			opts = append(opts, o)
		}
		var flags []string
		for _, fl := range []struct {
			on   bool
			name string
		}{{f.Required, "required"}, {f.Computed, "computed"}, {f.UniqueScope != "", "unique"}} {
			if fl.on {
				flags = append(flags, fl.name)
			}
		}
		typ := f.Type
		if f.Collection != "" {
			typ += "→" + f.Collection
		}
		t.add(cell{text: clean(f.Key), color: ansiBold}, plain(typ), plain(strings.Join(opts, ", ")),
			plain(fieldText(f.Default)), plain(strings.Join(flags, ",")))
	}
	return t, "", terminal
}

const terminalNote = "* terminal option: an item there is closed"

func (d collectionDetail) writeTable(w io.Writer, st Style) error {
	d.pairs().write(w, st, "")
	t, raw, terminal := d.fields()
	fmt.Fprintln(w)
	if t == nil {
		_, err := fmt.Fprintf(w, "schema (undecodable): %s\n", clean(raw))
		return err
	}
	if err := t.write(w, st); err != nil || !terminal {
		return err
	}
	_, err := fmt.Fprintln(w, st.paint(ansiDim, terminalNote))
	return err
}

func (d collectionDetail) writeMarkdown(w io.Writer) error {
	fmt.Fprintf(w, "# %s\n\n", mdCell(strings.TrimSpace(d.c.Icon+" "+d.c.Name)))
	if err := d.pairs().writeMarkdown(w); err != nil {
		return err
	}
	t, raw, terminal := d.fields()
	fmt.Fprint(w, "\n## Fields\n\n")
	if t == nil {
		_, err := fmt.Fprintf(w, "```json\n%s\n```\n", raw)
		return err
	}
	if err := t.writeMarkdown(w); err != nil || !terminal {
		return err
	}
	_, err := fmt.Fprintf(w, "\n\\%s\n", terminalNote)
	return err
}
