package mcpstdio

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/padd/padd/api"
)

func init() {
	register(map[string]handler{
		"pad_collection.list":          collectionList,
		"pad_collection.create":        collectionCreate,
		"pad_collection.update":        collectionUpdate,
		"pad_collection.delete":        collectionDelete,
		"pad_collection.list-archived": collectionListArchived,
		"pad_collection.restore":       collectionRestore,
	})
}

// collectionOut is a collection as agents see it: its schema and settings
// as JSON objects (padd's REST shape carries them as JSON text), no ids.
// The bootstrap drops settings and timestamps (Pad's BootstrapCollection).
type collectionOut struct {
	Slug            string          `json:"slug"`
	Name            string          `json:"name"`
	Prefix          string          `json:"prefix"`
	Icon            string          `json:"icon,omitempty"`
	Description     string          `json:"description,omitempty"`
	TracksWork      bool            `json:"tracks_work"`
	IsSystem        bool            `json:"is_system,omitempty"`
	ItemCount       int             `json:"item_count"`
	ActiveItemCount int             `json:"active_item_count"`
	Schema          json.RawMessage `json:"schema"`
	Settings        json.RawMessage `json:"settings,omitempty"`
	Seq             int64           `json:"seq,omitempty"`
	UpdatedAt       *time.Time      `json:"updated_at,omitempty"`
	ArchivedAt      *time.Time      `json:"archived_at,omitempty"`
	Warnings        *api.Warnings   `json:"warnings,omitempty"`
}

func shapeCollection(c api.Collection) collectionOut {
	updated := c.UpdatedAt
	return collectionOut{Slug: c.Slug, Name: c.Name, Prefix: c.Prefix, Icon: c.Icon, Description: c.Description,
		TracksWork: c.TracksWork, IsSystem: c.IsSystem, ItemCount: c.ItemCount, ActiveItemCount: c.ActiveItemCount,
		Schema: rawJSON(c.Schema, "{}"), Settings: rawJSON(c.Settings, "{}"), Seq: c.Seq, UpdatedAt: &updated,
		ArchivedAt: c.ArchivedAt, Warnings: c.Warnings}
}

// bootstrapCollection is the slim projection: what an agent needs to write
// items into the collection, and no more (the bootstrap rides on every
// pad_set_workspace).
func bootstrapCollection(c api.Collection) collectionOut {
	out := shapeCollection(c)
	out.Settings, out.Seq, out.UpdatedAt, out.ArchivedAt, out.Warnings = nil, 0, nil, nil, nil
	out.Schema = slimSchema(out.Schema)
	return out
}

// slimSchema drops each field label that only repeats its key
// ("due_date" labelled "Due Date"), as Pad's bootstrap does. Numbers in
// the schema (defaults, bounds) keep their digits.
func slimSchema(raw json.RawMessage) json.RawMessage {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var schema map[string]any
	if dec.Decode(&schema) != nil {
		return raw
	}
	fields, _ := schema["fields"].([]any)
	for _, f := range fields {
		if m, ok := f.(map[string]any); ok {
			if key, _ := m["key"].(string); key != "" && m["label"] == titleCase(key) {
				delete(m, "label")
			}
		}
	}
	b, err := json.Marshal(schema)
	if err != nil {
		return raw
	}
	return b
}

// titleCase is the label a key gets by default: words split at _ and -,
// each capitalised.
func titleCase(key string) string {
	words := strings.FieldsFunc(key, func(r rune) bool { return r == '_' || r == '-' })
	for i, w := range words {
		words[i] = strings.ToUpper(w[:1]) + w[1:]
	}
	return strings.Join(words, " ")
}

func shapeCollections(cs []api.Collection, shape func(api.Collection) collectionOut) []collectionOut {
	out := make([]collectionOut, 0, len(cs))
	for _, c := range cs {
		out = append(out, shape(c))
	}
	return out
}

func listCollections(ctx context.Context, p *paddConn, ws string) ([]api.Collection, error) {
	var cs []api.Collection
	_, err := p.do(ctx, "GET", wsPath(ws)+"/collections", nil, nil, &cs)
	return cs, err
}

func collPath(ws, slug string) string { return wsPath(ws) + "/collections/" + api.PathEscape(slug) }

func collectionList(c *call) (*result, error) {
	cs, err := listCollections(c.ctx, c.p, c.ws)
	if err != nil {
		return nil, err
	}
	return &result{value: map[string]any{"workspace": c.ws, "collections": shapeCollections(cs, shapeCollection)}}, nil
}

// settingsParams are the collection params that live in its settings.
var settingsParams = []string{"layout", "default_view", "board_group_by"}

// settings overlays the settings params on base. padd writes settings
// wholesale, so an update must send the keys it does not change too.
func (c *call) settings(base map[string]any) (api.Flex, bool) {
	changed := false
	for _, k := range settingsParams {
		if v := c.a.str(k); v != "" {
			base[k] = v
			changed = true
		}
	}
	if !changed {
		return nil, false
	}
	return api.FlexOf(base), true
}

func (c *call) tracksWork() api.Flex {
	if !c.a.has("tracks_work") {
		return nil
	}
	return api.FlexOf(c.a.boolean("tracks_work"))
}

func (c *call) schemaFlex() api.Flex {
	if !c.a.has("schema") {
		return nil
	}
	return api.FlexOf(c.a.obj("schema"))
}

func (c *call) sortOrder() *int {
	n, ok := c.a.int("sort_order")
	if !ok {
		return nil
	}
	v := int(n)
	return &v
}

func collectionCreate(c *call) (*result, error) {
	in := api.CollectionCreate{Name: c.a.str("name"), Slug: c.a.str("slug"), Prefix: c.a.str("prefix"),
		Icon: c.a.str("icon"), Description: c.a.str("description"), Schema: c.schemaFlex(), Fields: c.a.str("fields"),
		TracksWork: c.tracksWork(), SortOrder: c.sortOrder()}
	in.Settings, _ = c.settings(map[string]any{})
	var out api.Collection
	if _, err := c.p.do(c.ctx, "POST", wsPath(c.ws)+"/collections", nil, in, &out); err != nil {
		return nil, err
	}
	return &result{value: shapeCollection(out)}, nil
}

func collectionUpdate(c *call) (*result, error) {
	path := collPath(c.ws, c.a.str("slug"))
	in := api.CollectionUpdate{Name: c.a.strp("name"), Prefix: c.a.strp("prefix"), Icon: c.a.strp("icon"),
		Description: c.a.strp("description"), Schema: c.schemaFlex(), Fields: c.a.strp("fields"),
		TracksWork: c.tracksWork(), SortOrder: c.sortOrder()}
	if _, touches := c.settings(map[string]any{}); touches {
		var cur api.Collection
		if _, err := c.p.do(c.ctx, "GET", path, nil, nil, &cur); err != nil {
			return nil, err
		}
		base, err := api.DecodeObject(cur.Settings)
		if err != nil {
			return nil, err
		}
		in.Settings, _ = c.settings(base)
		// The settings were read at this instant: refuse if they move
		// before the write lands rather than overwrite the other change.
		in.ExpectedUpdatedAt = cur.UpdatedAt.Format(time.RFC3339Nano)
	}
	var out api.Collection
	if _, err := c.p.do(c.ctx, "PATCH", path, nil, in, &out); err != nil {
		return nil, err
	}
	return &result{value: shapeCollection(out)}, nil
}

func collectionDelete(c *call) (*result, error) {
	if _, err := c.p.do(c.ctx, "DELETE", collPath(c.ws, c.a.str("slug")), nil, nil, nil); err != nil {
		return nil, err
	}
	return &result{value: map[string]any{"slug": c.a.str("slug"), "archived": true},
		notes: []string{"Archived with its items: pad_collection restore brings it back."}}, nil
}

func collectionListArchived(c *call) (*result, error) {
	var cs []api.Collection
	if _, err := c.p.do(c.ctx, "GET", wsPath(c.ws)+"/archived-collections", nil, nil, &cs); err != nil {
		return nil, err
	}
	return &result{value: map[string]any{"collections": shapeCollections(cs, shapeCollection)}}, nil
}

func collectionRestore(c *call) (*result, error) {
	var out api.Collection
	if _, err := c.p.do(c.ctx, "POST", wsPath(c.ws)+"/archived-collections/"+api.PathEscape(c.a.str("slug"))+"/restore", nil, nil, &out); err != nil {
		return nil, err
	}
	return &result{value: shapeCollection(out)}, nil
}
