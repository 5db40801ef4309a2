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

// textToJSONOmit is textToJSON for a member the wire leaves out when
// empty: nil, so an omitempty member stays out.
func textToJSONOmit(s string) json.RawMessage {
	if strings.TrimSpace(s) == "" {
		return nil
	}
	return textToJSON(s)
}

// searchOut is a search answer as printed: each hit's item decoded.
type searchOut struct {
	*api.SearchResponse
	Results []searchResultOut `json:"results"`
}

type searchResultOut struct {
	*api.SearchResult
	Item itemOut `json:"item"`
}

func outSearch(r *api.SearchResponse) searchOut {
	out := searchOut{SearchResponse: r, Results: make([]searchResultOut, len(r.Results))}
	for i := range r.Results {
		out.Results[i] = searchResultOut{SearchResult: &r.Results[i], Item: outItem(&r.Results[i].Item)}
	}
	return out
}

// activityOut is an activity entry as printed: metadata an object.
type activityOut struct {
	*api.Activity
	Metadata json.RawMessage `json:"metadata,omitempty"`
}

func outActivity(list []api.Activity) []activityOut {
	out := make([]activityOut, len(list))
	for i := range list {
		out[i] = activityOut{Activity: &list[i], Metadata: textToJSONOmit(list[i].Metadata)}
	}
	return out
}

// dashboardOut is a dashboard as printed: the recent activity's
// metadata objects.
type dashboardOut struct {
	*api.Dashboard
	RecentActivity []recentOut `json:"recent_activity"`
}

type recentOut struct {
	api.DashboardRecent
	Metadata json.RawMessage `json:"metadata,omitempty"`
}

func outRecent(list []api.DashboardRecent) []recentOut {
	out := make([]recentOut, len(list))
	for i, r := range list {
		out[i] = recentOut{DashboardRecent: r, Metadata: textToJSONOmit(r.Metadata)}
	}
	return out
}

func outDashboard(d *api.Dashboard) dashboardOut {
	return dashboardOut{Dashboard: d, RecentActivity: outRecent(d.RecentActivity)}
}

// bootstrapOut is the agent bootstrap as printed: its dashboard's
// recent activity decoded as in dashboardOut.
type bootstrapOut struct {
	*api.Bootstrap
	Dashboard *bootstrapDashboardOut `json:"dashboard,omitempty"`
}

type bootstrapDashboardOut struct {
	*api.BootstrapDashboard
	RecentActivity []recentOut `json:"recent_activity"`
}

func outBootstrap(b *api.Bootstrap) bootstrapOut {
	out := bootstrapOut{Bootstrap: b}
	if b.Dashboard != nil && b.Dashboard.Dashboard != nil {
		out.Dashboard = &bootstrapDashboardOut{BootstrapDashboard: b.Dashboard, RecentActivity: outRecent(b.Dashboard.RecentActivity)}
	}
	return out
}

// playbookOut is a playbook as printed: the item, then its status.
type playbookOut struct {
	itemOut
	Status string `json:"status"`
}

// activationOut is an activated library entry as printed: the item,
// its warnings (with the options added) and the entry it came from.
type activationOut struct {
	itemOut
	Warnings *api.ActivationWarnings `json:"warnings,omitempty"`
	Library  api.LibraryOrigin       `json:"library"`
}
