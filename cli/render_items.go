package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/padd/padd/api"
)

// itemRef is how an item is named to people: its ref (TASK-5), else
// prefix and number, else its slug.
func itemRef(it *api.Item) string {
	switch {
	case it.Ref != "":
		return it.Ref
	case it.CollectionPrefix != "" && it.ItemNumber != nil:
		return it.CollectionPrefix + "-" + strconv.FormatInt(*it.ItemNumber, 10)
	}
	return it.Slug
}

// itemFields decodes an item's fields; a malformed blob shows as no
// fields rather than failing the whole listing.
func itemFields(it *api.Item) map[string]any {
	m, err := it.FieldMap()
	if err != nil {
		return map[string]any{}
	}
	return m
}

// fieldText renders one field value for people.
func fieldText(v any) string {
	switch t := v.(type) {
	case nil:
		return ""
	case string:
		return t
	case json.Number:
		return t.String()
	case bool:
		return strconv.FormatBool(t)
	case []any:
		parts := make([]string, 0, len(t))
		for _, e := range t {
			parts = append(parts, fieldText(e))
		}
		return strings.Join(parts, ", ")
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// itemsView is an item list as printed: the items, the clock for "5m
// ago", and whether the list spans collections (else the collection
// column is left out).
type itemsView struct {
	items          []api.Item
	now            time.Time
	showCollection bool
}

func (v itemsView) table(markdown bool) *table {
	// Each item's fields are decoded once, for both the column choice and
	// the row.
	fields := make([]map[string]any, len(v.items))
	hasPriority := false
	for i := range v.items {
		fields[i] = itemFields(&v.items[i])
		_, p := fields[i]["priority"]
		hasPriority = hasPriority || p
	}
	cols := []column{{header: "REF"}, {header: "TITLE", flex: true, min: 16}, {header: "STATUS"}}
	if hasPriority {
		cols = append(cols, column{header: "PRIORITY"})
	}
	if v.showCollection {
		cols = append(cols, column{header: "COLLECTION"})
	}
	cols = append(cols, column{header: "UPDATED"})
	t := &table{cols: cols}
	for i := range v.items {
		it, f := &v.items[i], fields[i]
		status, priority := fieldText(f["status"]), fieldText(f["priority"])
		title := it.Title
		if it.DeletedAt != nil {
			title += " (archived)"
		}
		row := []cell{{text: clean(itemRef(it)), color: ansiBold}, plain(title), {text: clean(status), color: statusColor(status)}}
		if hasPriority {
			row = append(row, cell{text: clean(priority), color: priorityColor(priority)})
		}
		if v.showCollection {
			row = append(row, plain(it.CollectionSlug))
		}
		if markdown {
			row = append(row, plain(stamp(it.UpdatedAt)))
		} else {
			row = append(row, cell{text: ago(it.UpdatedAt, v.now), color: ansiDim})
		}
		t.add(row...)
	}
	return t
}

func (v itemsView) writeTable(w io.Writer, st Style) error {
	if len(v.items) == 0 {
		_, err := fmt.Fprintln(w, "No items found.")
		return err
	}
	return v.table(false).write(w, st)
}

func (v itemsView) writeMarkdown(w io.Writer) error {
	if len(v.items) == 0 {
		_, err := fmt.Fprintln(w, "_No items found._")
		return err
	}
	return v.table(true).writeMarkdown(w)
}

// itemDetail is one item shown in full.
type itemDetail struct {
	it  *api.Item
	now time.Time
	// syncMark says the item has open sync conflicts ("": none).
	syncMark string
}

func (d itemDetail) pairs(markdown bool) *keyValues {
	it := d.it
	kv := &keyValues{}
	kv.add("sync", cell{text: clean(d.syncMark), color: ansiRed + ansiBold})
	f := itemFields(it)
	if s := fieldText(f["status"]); s != "" {
		kv.add("status", cell{text: clean(s), color: statusColor(s)})
	}
	if p := fieldText(f["priority"]); p != "" {
		kv.add("priority", cell{text: clean(p), color: priorityColor(p)})
	}
	keys := make([]string, 0, len(f))
	for k := range f {
		if k != "status" && k != "priority" {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		kv.add(k, plain(fieldText(f[k])))
	}
	coll := it.CollectionName
	if it.CollectionSlug != "" {
		coll = strings.TrimSpace(it.CollectionIcon+" "+it.CollectionName) + " (" + it.CollectionSlug + ")"
	}
	kv.add("collection", plain(coll))
	if it.ParentRef != "" || it.ParentTitle != "" {
		kv.add("parent", plain(strings.TrimSpace(it.ParentRef+"  "+it.ParentTitle)))
	}
	if it.AgentRoleSlug != "" || it.AgentRoleName != "" {
		kv.add("role", plain(firstNonEmpty(it.AgentRoleName, it.AgentRoleSlug)))
	}
	kv.add("tags", plain(strings.Join(it.TagList(), ", ")))
	if it.Pinned {
		kv.add("pinned", plain("yes"))
	}
	if it.Lease != nil {
		kv.add("claimed by", plain(fmt.Sprintf("%s until %s", it.Lease.Holder, stamp(it.Lease.ExpiresAt))))
	}
	kv.add("seq", plain(strconv.FormatInt(it.Seq, 10)))
	when := func(t time.Time) string {
		if markdown {
			return stamp(t)
		}
		return stamp(t) + " (" + ago(t, d.now) + ")"
	}
	by := it.CreatedBy
	if it.CreatedByName != "" {
		by += " " + it.CreatedByName
	}
	kv.add("created", plain(strings.TrimSpace(when(it.CreatedAt)+" by "+by+viaSource(it.Source))))
	kv.add("updated", plain(strings.TrimSpace(when(it.UpdatedAt)+" by "+it.LastModifiedBy)))
	if it.DeletedAt != nil {
		kv.add("archived", cell{text: when(*it.DeletedAt), color: ansiRed})
	}
	kv.add("id", cell{text: it.ID, color: ansiDim})
	return kv
}

func viaSource(s string) string {
	if s == "" {
		return ""
	}
	return " via " + s
}

func (d itemDetail) writeTable(w io.Writer, st Style) error {
	fmt.Fprintf(w, "%s  %s\n", st.paint(ansiBold+ansiCyan, clean(itemRef(d.it))), st.paint(ansiBold, clean(d.it.Title)))
	d.pairs(false).write(w, st, "  ")
	if c := strings.TrimRight(d.it.Content, "\n"); c != "" {
		fmt.Fprintf(w, "\n%s\n", sanitizeBlock(c))
	}
	return nil
}

func (d itemDetail) writeMarkdown(w io.Writer) error {
	fmt.Fprintf(w, "# %s · %s\n\n", mdCell(itemRef(d.it)), mdCell(d.it.Title))
	if err := d.pairs(true).writeMarkdown(w); err != nil {
		return err
	}
	if c := strings.TrimRight(d.it.Content, "\n"); c != "" {
		// Content is Markdown already: it goes out as written.
		fmt.Fprintf(w, "\n%s\n", sanitizeBlock(c))
	}
	return nil
}

// itemDone is the one-line confirmation of a write: `Created TASK-5
// "Title"` and the state it is in.
func itemDone(w io.Writer, st Style, verb string, it *api.Item) error {
	f := itemFields(it)
	var facts []string
	if s := fieldText(f["status"]); s != "" {
		facts = append(facts, st.paint(statusColor(s), clean(s)))
	}
	if p := fieldText(f["priority"]); p != "" {
		facts = append(facts, "priority "+st.paint(priorityColor(p), clean(p)))
	}
	if it.CollectionSlug != "" {
		facts = append(facts, "in "+clean(it.CollectionSlug))
	}
	line := fmt.Sprintf("%s %s %q", verb, st.paint(ansiBold, clean(itemRef(it))), clean(it.Title))
	if len(facts) > 0 {
		line += "  (" + strings.Join(facts, ", ") + ")"
	}
	if verb == "Created" && it.ItemNumber != nil && *it.ItemNumber < 0 {
		// A synced workspace's new item: its ref is padd's until the
		// server numbers it (docs/SYNC.md, provisional refs).
		ref := clean(itemRef(it))
		line += "\n" + st.paint(ansiDim, ref+" is a local ref until the next sync gives the item the server's number; it keeps finding the item after")
	}
	_, err := fmt.Fprintln(w, line)
	return err
}

func firstNonEmpty(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}
