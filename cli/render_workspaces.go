package cli

import (
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/padd/padd/api"
)

// workspacesView is a workspace list; current marks the workspace this
// directory resolves to ("" when none does).
type workspacesView struct {
	list    []api.Workspace
	current string
	now     time.Time
	deleted bool // the restore-window list: show when each was deleted
}

func (v workspacesView) table(markdown bool) *table {
	last := "UPDATED"
	if v.deleted {
		last = "DELETED"
	}
	t := &table{cols: []column{{header: " "}, {header: "SLUG"}, {header: "NAME", flex: true, min: 12}, {header: last}}}
	for _, w := range v.list {
		mark := ""
		if w.Slug == v.current && !v.deleted {
			mark = "*"
		}
		when := w.UpdatedAt
		if v.deleted && w.DeletedAt != nil {
			when = *w.DeletedAt
		}
		whenText := ago(when, v.now)
		if markdown {
			whenText = stamp(when)
		}
		t.add(cell{text: mark, color: ansiGreen}, cell{text: clean(w.Slug), color: ansiBold}, plain(w.Name), cell{text: whenText, color: ansiDim})
	}
	return t
}

func (v workspacesView) writeTable(w io.Writer, st Style) error {
	if len(v.list) == 0 {
		return emptyLine(w, v.deleted, false)
	}
	return v.table(false).write(w, st)
}

func (v workspacesView) writeMarkdown(w io.Writer) error {
	if len(v.list) == 0 {
		return emptyLine(w, v.deleted, true)
	}
	return v.table(true).writeMarkdown(w)
}

func emptyLine(w io.Writer, deleted, markdown bool) error {
	msg := "No workspaces yet. `padctl init` creates one for this directory."
	if deleted {
		msg = "No deleted workspaces within the 30-day restore window."
	}
	if markdown {
		msg = "_" + msg + "_"
	}
	_, err := fmt.Fprintln(w, msg)
	return err
}

// workspaceDetail is one workspace shown in full.
type workspaceDetail struct {
	ws  *api.Workspace
	now time.Time
}

func (d workspaceDetail) pairs() *keyValues {
	kv := &keyValues{}
	kv.add("slug", plain(d.ws.Slug))
	kv.add("name", plain(d.ws.Name))
	kv.add("description", plain(d.ws.Description))
	kv.add("template", plain(d.ws.Template))
	kv.add("created", plain(stamp(d.ws.CreatedAt)))
	kv.add("updated", plain(stamp(d.ws.UpdatedAt)))
	if d.ws.DeletedAt != nil {
		kv.add("deleted", cell{text: stamp(*d.ws.DeletedAt), color: ansiRed})
	}
	kv.add("seq", plain(strconv.FormatInt(d.ws.Seq, 10)))
	kv.add("id", cell{text: d.ws.ID, color: ansiDim})
	return kv
}

func (d workspaceDetail) writeTable(w io.Writer, st Style) error {
	d.pairs().write(w, st, "")
	return nil
}

func (d workspaceDetail) writeMarkdown(w io.Writer) error {
	fmt.Fprintf(w, "# %s\n\n", mdCell(d.ws.Name))
	return d.pairs().writeMarkdown(w)
}
