package model

// ReportLayout is how the user keeps a workspace's report page (Pad's
// Insights layout): the cards hidden, the window and the collections it
// opens with. Pad keeps one per user and workspace; padd has one user,
// so one per workspace, on the workspace's record (its JSON tags are
// that record's format).
type ReportLayout struct {
	HiddenCards        []string `json:"hidden_cards,omitempty"`
	DefaultWindow      string   `json:"default_window,omitempty"`
	DefaultCollections []string `json:"default_collections,omitempty"`
}

// ReportCards are the report's cards a layout may hide (Pad's set).
var ReportCards = []string{"throughput", "cycle_time", "wip", "completed_by_collection", "status_distribution"}

// ReportWindows are the windows a layout may open with ("" is the
// page's default).
var ReportWindows = []string{"", "day", "week", "2wk", "month"}

// MaxReportCollections bounds a layout's default collections.
const MaxReportCollections = 500

// CleanReportLayout is l as Pad stores it: a window it does not know
// dropped, hidden cards kept only if known, once each, in the order
// given. Collections it keeps as given (Pad does not check them); more
// than MaxReportCollections, or a name longer than a slug may be, is
// refused.
func CleanReportLayout(l ReportLayout) (ReportLayout, error) {
	out := ReportLayout{DefaultWindow: l.DefaultWindow, HiddenCards: []string{}, DefaultCollections: []string{}}
	if !contains(ReportWindows, l.DefaultWindow) {
		out.DefaultWindow = ""
	}
	for _, c := range l.HiddenCards {
		if contains(ReportCards, c) && !contains(out.HiddenCards, c) {
			out.HiddenCards = append(out.HiddenCards, c)
		}
	}
	if len(l.DefaultCollections) > MaxReportCollections {
		return out, Invalid("default_collections holds %d collections, at most %d", len(l.DefaultCollections), MaxReportCollections).
			With("field", "default_collections")
	}
	for _, c := range l.DefaultCollections {
		if len(c) > 200 {
			return out, Invalid("default_collections holds a name of %d bytes, at most 200", len(c)).With("field", "default_collections")
		}
	}
	out.DefaultCollections = append(out.DefaultCollections, l.DefaultCollections...)
	return out, nil
}
