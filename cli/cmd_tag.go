package cli

import (
	"context"
	"strconv"

	"github.com/padd/padd/api"
)

// TagCmd is `tag`: tags span collections, so one tag groups items of any
// kind.
type TagCmd struct {
	List TagListCmd `cmd:"" aliases:"ls" help:"List the tags of the workspace's live items, each with how many items carry it."`
}

// TagListCmd is `tag list`.
type TagListCmd struct{}

// Run lists the tags.
func (c *TagListCmd) Run(ctx context.Context, a *App) error {
	cl, ws, err := a.inWorkspace(ctx)
	if err != nil {
		return err
	}
	list, err := cl.Tags(ctx, ws)
	if err != nil {
		return err
	}
	return a.emitDoc(tagsView{list: list})
}

// tagsView is the workspace's tags, the most used first.
type tagsView struct{ list []api.TagCount }

func (v tagsView) jsonValue() any {
	if v.list == nil {
		return []api.TagCount{}
	}
	return v.list
}

func (v tagsView) doc(markdown bool) doc {
	t := &table{cols: []column{{header: "TAG", flex: true, min: 10}, {header: "ITEMS"}}}
	for _, tc := range v.list {
		t.add(keyCell(tc.Tag), plain(strconv.Itoa(tc.Count)))
	}
	d := doc{}
	d.add(section{t: t, empty: "No tags yet: `padctl item update REF --tags a,b` adds some."})
	return d
}
