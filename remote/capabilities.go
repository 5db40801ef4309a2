package remote

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
)

// Capabilities is what a Pad server said about itself: its health
// answer and the features it advertises at /server/capabilities. A
// feature it does not name is taken as missing, so the zero value (a
// Client not probed yet) is the most careful client.
type Capabilities struct {
	Version   string
	Commit    string
	CloudMode bool
	// OpKeys: idempotency_keys. Creates and comment writes carry an
	// Idempotency-Key (and op_key) and a retry with the same key is
	// answered from the first write.
	OpKeys bool
	// ExpectedSeq: PATCH honours expected_seq. Advertised as expected_seq,
	// or implied by item_patch (the route that needs seq tokens). The Pad
	// of August 2026 ignores the key silently, so a false positive would
	// lose updates: only these names turn it on.
	ExpectedSeq bool
	// ChangesPaged: /changes takes limit and cursor and says has_more
	// (advertised as changes_paged). A page's has_more is read in any case.
	ChangesPaged bool
	// Names is every feature the server named, sorted.
	Names []string
	// Health and Raw are the two answers as they came, for sync status.
	Health json.RawMessage
	Raw    json.RawMessage
}

// Has reports whether the server named a feature.
func (c *Capabilities) Has(name string) bool {
	_, ok := slices.BinarySearch(c.Names, name)
	return ok
}

// maxCapabilityNames bounds what a capabilities answer can make us keep.
const maxCapabilityNames = 512

// capabilityNames reads the names a capabilities answer advertises:
// padd's (and newer Pad's) list under "capabilities", and every other
// top-level key whose value is true or an object, which is how the Pad
// of August 2026 answers ({"image":{...},"collection_resolution":true}).
func capabilityNames(raw []byte) ([]string, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(raw, &top); err != nil {
		return nil, err
	}
	var names []string
	for k, v := range top {
		v = bytes.TrimSpace(v)
		switch {
		case k == "capabilities":
			var list []string
			if json.Unmarshal(v, &list) == nil {
				names = append(names, list...)
			}
		case string(v) == "true", len(v) > 0 && v[0] == '{':
			names = append(names, k)
		}
	}
	slices.Sort(names)
	names = slices.Compact(names)
	if len(names) > maxCapabilityNames {
		names = names[:maxCapabilityNames]
	}
	return names, nil
}

// Probe asks the server's health and capabilities (neither needs the
// token, so neither gets it) and keeps the answer for the calls that
// depend on it. A server without /server/capabilities advertises
// nothing.
func (c *Client) Probe(ctx context.Context) (*Capabilities, error) {
	var health json.RawMessage
	if _, err := c.send(ctx, &request{method: "GET", path: "/health", out: &health, limit: maxProbeBytes, noAuth: true}); err != nil {
		return nil, err
	}
	var h struct {
		Version   string `json:"version"`
		Commit    string `json:"commit"`
		CloudMode bool   `json:"cloud_mode"`
	}
	if err := json.Unmarshal(health, &h); err != nil {
		return nil, &Error{Kind: KindBadAnswer, Method: "GET", Path: "/health", Status: 200, Err: err}
	}
	caps := &Capabilities{Version: h.Version, Commit: h.Commit, CloudMode: h.CloudMode, Health: health}
	var raw json.RawMessage
	_, err := c.send(ctx, &request{method: "GET", path: "/server/capabilities", out: &raw, limit: maxProbeBytes, noAuth: true})
	switch {
	case IsNotFound(err):
	case err != nil:
		return nil, err
	default:
		names, err := capabilityNames(raw)
		if err != nil {
			return nil, &Error{Kind: KindBadAnswer, Method: "GET", Path: "/server/capabilities", Status: 200, Err: err}
		}
		caps.Raw, caps.Names = raw, names
	}
	caps.OpKeys = caps.Has("idempotency_keys")
	caps.ExpectedSeq = caps.Has("expected_seq") || caps.Has("item_patch")
	caps.ChangesPaged = caps.Has("changes_paged")
	c.caps.Store(caps)
	return caps, nil
}

// Capabilities is what the last Probe found (nothing before the first).
func (c *Client) Capabilities() *Capabilities { return c.caps.Load() }

// SetCapabilities makes the client act on capabilities found earlier
// (the sync engine keeps the last probe's, so a restart need not probe
// before its first call).
func (c *Client) SetCapabilities(caps *Capabilities) { c.caps.Store(caps) }
