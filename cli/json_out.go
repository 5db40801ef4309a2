package cli

import (
	"encoding/json"
	"strings"

	"github.com/padd/padd/api"
)

// padctl's JSON output is the wire objects with every member that Pad
// carries as JSON text (an item's fields arrive as the string
// "{\"status\":\"open\"}") decoded, so scripts get native JSON.
//
// Each wrapper embeds the wire object and shadows its text members with
// decoded ones (encoding/json lets the shallower field win). The order is
// stable: the wire's members in the wire's order, then the decoded ones.
// A member added to the wire appears by itself.

// itemOut is an item as printed: fields an object, tags an array.
type itemOut struct {
	*api.Item
	Fields json.RawMessage `json:"fields"`
	Tags   json.RawMessage `json:"tags"`
}

func outItem(it *api.Item) itemOut {
	return itemOut{Item: it, Fields: textToJSON(it.Fields), Tags: textToJSON(it.Tags)}
}

func outItems(items []api.Item) []itemOut {
	out := make([]itemOut, len(items))
	for i := range items {
		out[i] = outItem(&items[i])
	}
	return out
}

// collectionOut is a collection as printed: schema, settings and traits
// objects.
type collectionOut struct {
	*api.Collection
	Schema   json.RawMessage `json:"schema"`
	Settings json.RawMessage `json:"settings"`
	Traits   json.RawMessage `json:"traits"`
}

func outCollection(c *api.Collection) collectionOut {
	return collectionOut{Collection: c, Schema: textToJSON(c.Schema), Settings: textToJSON(c.Settings), Traits: textToJSON(c.Traits)}
}

func outCollections(cs []api.Collection) []collectionOut {
	out := make([]collectionOut, len(cs))
	for i := range cs {
		out[i] = outCollection(&cs[i])
	}
	return out
}

// workspaceOut is a workspace as printed: settings an object.
type workspaceOut struct {
	*api.Workspace
	Settings json.RawMessage `json:"settings"`
}

func outWorkspace(w *api.Workspace) workspaceOut {
	return workspaceOut{Workspace: w, Settings: textToJSON(w.Settings)}
}

func outWorkspaces(ws []api.Workspace) []workspaceOut {
	out := make([]workspaceOut, len(ws))
	for i := range ws {
		out[i] = outWorkspace(&ws[i])
	}
	return out
}

// textToJSON is the JSON a text member holds. Empty text is null; text
// that is not JSON stays a string, so one stray value cannot make the
// whole output fail. Numbers keep their exact text (1.50 stays 1.50).
func textToJSON(s string) json.RawMessage {
	if strings.TrimSpace(s) == "" {
		return json.RawMessage("null")
	}
	if !json.Valid([]byte(s)) {
		b, _ := json.Marshal(s)
		return b
	}
	return json.RawMessage(s)
}
