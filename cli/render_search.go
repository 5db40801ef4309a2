package cli

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/padd/padd/api"
)

// searchView is a search answer: one row per hit with its snippet under
// it (a column of its own in Markdown), then a footer with the count and
// the facets. wsNames (workspace id -> slug) is set when the search
// spanned workspaces, and adds their column.
type searchView struct {
	res     *api.SearchResponse
	wsNames map[string]string
}

func (v searchView) jsonValue() any { return outSearch(v.res) }

func (v searchView) doc(markdown bool) doc {
	cols := []column{{header: "REF"}, {header: "TITLE", flex: true, min: 16}, {header: "STATUS"}, {header: "COLLECTION"}}
	if v.wsNames != nil {
		cols = append(cols, column{header: "WORKSPACE"})
	}
	if markdown {
		cols = append(cols, column{header: "SNIPPET"})
	}
	t := &table{cols: cols}
	for i := range v.res.Results {
		r := &v.res.Results[i]
		it := &r.Item
		status := fieldText(itemFields(it)["status"])
		title := it.Title
		if it.DeletedAt != nil {
			title += " (archived)"
		}
		row := []cell{keyCell(itemRef(it)), plain(title), statusCell(status),
			plain(it.CollectionSlug)}
		if v.wsNames != nil {
			row = append(row, plain(firstNonEmpty(v.wsNames[it.WorkspaceID], it.WorkspaceID)))
		}
		snippet := splitMarks(r.Snippet)
		if markdown {
			row = append(row, cell{text: clean(spansText(snippet)), md: spansMarkdown(snippet)})
		}
		t.add(row...)
		if !markdown && strings.TrimSpace(spansText(snippet)) != "" {
			t.addBelow(snippet)
		}
	}
	d := doc{}
	d.add(section{t: t, empty: "No results."})
	if len(v.res.Results) > 0 {
		d.add(section{lines: []cell{{text: v.footer(), color: ansiDim}}})
	}
	return d
}

// footer is "2 results · collections: tasks 1, ideas 1 · statuses: ...",
// saying which page when the results do not all fit.
func (v searchView) footer() string {
	r := v.res
	n := plural(r.Total, "result")
	if shown := len(r.Results); shown < r.Total {
		n = fmt.Sprintf("%d–%d of %d results", r.Offset+1, r.Offset+shown, r.Total)
	}
	parts := []string{n}
	if r.Facets != nil {
		if f := facetText(r.Facets.Collections); f != "" {
			parts = append(parts, "collections: "+f)
		}
		if f := facetText(r.Facets.Statuses); f != "" {
			parts = append(parts, "statuses: "+f)
		}
	}
	return clean(strings.Join(parts, " · "))
}

// facetText lists a facet's values, most frequent first.
func facetText(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if m[keys[i]] != m[keys[j]] {
			return m[keys[i]] > m[keys[j]]
		}
		return keys[i] < keys[j]
	})
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + " " + strconv.Itoa(m[k])
	}
	return strings.Join(parts, ", ")
}

// indexView is the search index status; names maps workspace ids to
// slugs for the watermarks, and headline says what just happened.
type indexView struct {
	st       *api.IndexStatus
	names    map[string]string
	headline string
}

var indexStateColors = map[string]string{api.IndexReady: ansiGreen, api.IndexRebuilding: ansiYellow, api.IndexFailed: ansiRed}

func (v indexView) jsonValue() any { return v.st }

func (v indexView) doc(markdown bool) doc {
	st := v.st
	kv := &keyValues{}
	kv.add("state", cell{text: clean(st.State), color: indexStateColors[st.State]})
	kv.add("reason", plain(st.Reason))
	if st.State == api.IndexRebuilding {
		kv.add("progress", plain(progressText(st.Done, st.Total)))
	}
	kv.add("documents", plain(strconv.FormatUint(st.Docs, 10)))
	kv.add("size", plain(humanBytes(st.SizeBytes)))
	kv.add("error", cell{text: clean(st.Error), color: ansiRed})
	t := &table{cols: []column{{header: "WORKSPACE"}, {header: "INDEXED UP TO SEQ"}}}
	ids := make([]string, 0, len(st.Watermarks))
	for id := range st.Watermarks {
		ids = append(ids, id)
	}
	name := func(id string) string { return firstNonEmpty(v.names[id], id) }
	sort.Slice(ids, func(i, j int) bool { return name(ids[i]) < name(ids[j]) })
	for _, id := range ids {
		t.add(plain(name(id)), plain(strconv.FormatInt(st.Watermarks[id], 10)))
	}
	d := doc{}
	if v.headline != "" {
		d.add(section{lines: []cell{plain(v.headline)}})
	}
	d.add(section{kv: kv})
	d.add(section{heading: "Watermarks", t: t})
	return d
}
