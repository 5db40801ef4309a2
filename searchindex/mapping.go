// Package searchindex is padd's full-text search: one Bleve index in the
// data directory, derived from storage and rebuildable. It is the only
// package that imports Bleve.
//
// An indexer follows each workspace's change log from a watermark kept
// inside the index itself (written in the same batch as the documents,
// so after a crash the index and its watermark agree), in batches, and
// catches up at start. A missing, corrupt or older-format index is
// rebuilt in the background while search says so.
package searchindex

import (
	"sort"
	"strings"
	"time"
	"unicode"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/keyword"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/padd/padd/model"
	"github.com/padd/padd/storage"
)

// FormatVersion changes whenever the mapping or the document shape does;
// an index of another version is rebuilt.
const FormatVersion = "padd-search-9"

// doc is one item as indexed.
type doc struct {
	Workspace    string    `json:"workspace"`
	Collection   string    `json:"collection"`
	CollectionID string    `json:"collection_id"`
	Ref          string    `json:"ref"`
	Title        string    `json:"title"`
	Body         string    `json:"body"` // content, comments, other text fields, tags
	Tags         []string  `json:"tag"`
	Status       string    `json:"status"`
	Priority     string    `json:"priority"`
	State        string    `json:"state"`
	Archived     bool      `json:"archived"`
	Created      time.Time `json:"created"`
	Updated      time.Time `json:"updated"`
	TitleSort    string    `json:"title_sort"`
	// Facet is collection and status in one keyword (facetSep between):
	// counting both facets then reads one field's doc values per match,
	// not two, and reading doc values is most of a faceted search.
	Facet string `json:"facet"`
}

const facetSep = "\x1f"

// Field boosts: a word in the title outranks the same word in the body.
// Everything but the title is one body field, so a word is two posting
// lists to walk, not one per part of the item: queries stay fast at
// 100k items.
const (
	boostTitle = 3.0
	boostBody  = 1.0
	boostRef   = 30.0
)

var textFields = []struct {
	name  string
	boost float64
}{{"title", boostTitle}, {"body", boostBody}}

func buildMapping() mapping.IndexMapping {
	// Text is not stored: snippets are cut from the item at answer time
	// (snippet.go). Term vectors (positions) stay: phrases need them.
	text := func() *mapping.FieldMapping {
		f := bleve.NewTextFieldMapping()
		f.Analyzer = indexAnalyzer
		f.Store = false
		f.IncludeTermVectors = true
		f.IncludeInAll = false
		f.DocValues = false
		return f
	}
	kw := func(docValues bool) *mapping.FieldMapping {
		f := bleve.NewKeywordFieldMapping()
		f.Analyzer = keyword.Name
		f.Store = false
		f.IncludeTermVectors = false
		f.IncludeInAll = false
		f.DocValues = docValues
		return f
	}
	date := bleve.NewDateTimeFieldMapping()
	date.Store = false
	date.IncludeInAll = false
	boolean := bleve.NewBooleanFieldMapping()
	boolean.Store = false
	boolean.IncludeInAll = false

	dm := bleve.NewDocumentStaticMapping()
	dm.AddFieldMappingsAt("title", text())
	dm.AddFieldMappingsAt("body", text())
	ws := kw(false)
	ws.Store = true // a hit names its workspace without a storage lookup
	dm.AddFieldMappingsAt("workspace", ws)
	dm.AddFieldMappingsAt("collection", kw(false))
	dm.AddFieldMappingsAt("collection_id", kw(false))
	dm.AddFieldMappingsAt("ref", kw(false))
	dm.AddFieldMappingsAt("tag", kw(false))
	dm.AddFieldMappingsAt("status", kw(false))
	dm.AddFieldMappingsAt("facet", kw(true))
	dm.AddFieldMappingsAt("priority", kw(false))
	dm.AddFieldMappingsAt("state", kw(false))
	dm.AddFieldMappingsAt("title_sort", kw(true))
	dm.AddFieldMappingsAt("archived", boolean)
	dm.AddFieldMappingsAt("created", date)
	dm.AddFieldMappingsAt("updated", date)

	im := bleve.NewIndexMapping()
	im.DefaultMapping = dm
	im.DefaultAnalyzer = indexAnalyzer
	im.ScoringModel = "bm25"
	im.StoreDynamic = false
	im.IndexDynamic = false
	im.DocValuesDynamic = false
	return im
}

func toDoc(d storage.IndexDoc) doc {
	v := d.Item
	out := doc{Workspace: v.WorkspaceID, Collection: v.Collection.Slug, CollectionID: v.CollectionID,
		Ref: v.Ref, Title: v.Title, Tags: v.Tags, State: string(v.State()), Archived: v.DeletedAt != nil,
		Created: v.CreatedAt, Updated: v.UpdatedAt, TitleSort: strings.ToLower(v.Title)}
	out.Status, _ = v.Fields["status"].(string)
	out.Priority, _ = v.Fields["priority"].(string)
	out.Facet = out.Collection + facetSep + out.Status
	var text []string
	for _, k := range sortedKeys(v.Fields) {
		if k == "status" || k == "priority" || model.IsReservedField(k) {
			continue
		}
		switch val := v.Fields[k].(type) {
		case string:
			if _, isID := v.RelationTargets[k]; !isID {
				text = append(text, val)
			}
		case []any:
			for _, e := range val {
				if s, ok := e.(string); ok {
					text = append(text, s)
				}
			}
		}
	}
	for _, k := range []string{model.FieldImplementationNotes, model.FieldDecisionLog} {
		if list, ok := v.Fields[k].([]any); ok {
			for _, e := range list {
				if m, ok := e.(map[string]any); ok {
					for _, f := range []string{"summary", "details", "decision", "rationale"} {
						if s, ok := m[f].(string); ok && s != "" {
							text = append(text, s)
						}
					}
				}
			}
		}
	}
	// The body holds the title too: a word is one posting list to walk
	// (body), and the title's weight comes from an optional title clause.
	body := append([]string{v.Title, v.Content}, d.Comments...)
	for _, name := range d.Filenames {
		body = append(body, filenameWords(name))
	}
	body = append(body, text...)
	body = append(body, v.Tags...)
	out.Body = cutBody(strings.Join(body, "\n\n"))
	return out
}

// filenameWords is a file name as searchable text: the name as written,
// and its words apart. The text analyzer keeps "scan.png" and
// "snake_case" as one word each (a dot between letters, an underscore),
// so "receipt-scan.png" found receipt but not scan.
func filenameWords(name string) string {
	words := strings.FieldsFunc(name, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && !unicode.IsMark(r) })
	if split := strings.Join(words, " "); split != name {
		return name + "\n" + split
	}
	return name
}

func sortedKeys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// durableConfig is scorchConfig whose batches return once on disk.
func durableConfig() map[string]any {
	c := scorchConfig()
	delete(c, "unsafe_batch")
	return c
}

// scorchConfig: never wait long on another process's lock; and let a
// batch return once it is searchable rather than once it is on disk. The
// watermark rides in the same batch, so after a crash the index and its
// watermark come back together from the last persisted snapshot and the
// indexer replays the rest from the change log.
func scorchConfig() map[string]any {
	// The persister naps between flushes so a burst of small batches
	// becomes one segment file on disk, not one each.
	return map[string]any{"bolt_timeout": "1s", "unsafe_batch": true,
		"scorchPersisterOptions": map[string]any{"persisterNapTimeMSec": 500}}
}
