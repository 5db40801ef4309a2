package model

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"slices"
	"strings"
	"time"
)

// SavedView is a named way of looking at one collection (Pad's saved
// view): a view type and a config the client that made it reads back
// (its filters, sort, columns, grouping...). padd keeps the config as the
// JSON object it was given and reads nothing in it; what bounds it is
// its size and depth.
type SavedView struct {
	ID           string          `json:"id"`
	WorkspaceID  string          `json:"workspace_id"`
	CollectionID string          `json:"collection_id"`
	Name         string          `json:"name"`
	Slug         string          `json:"slug"`
	ViewType     string          `json:"view_type"`
	Config       json.RawMessage `json:"config"`
	SortOrder    int             `json:"sort_order"`
	IsDefault    bool            `json:"is_default"`
	CreatedAt    time.Time       `json:"created_at"`
	UpdatedAt    time.Time       `json:"updated_at"`
	Seq          int64           `json:"seq"`
}

// ViewTypes are the view types a saved view may have: the ones Pad's web
// client draws. The first is what a view without one gets.
var ViewTypes = []string{"list", "board", "table"}

// MaxSavedViews bounds the saved views of one collection: far more than
// one person names, few enough that a collection's list is one small
// read.
const MaxSavedViews = 100

// MaxViewConfigDepth bounds how deep a saved view's config nests.
const MaxViewConfigDepth = 32

// ErrViewConfigShape is the refusal of a config that is neither a JSON
// object nor a string holding one (Pad's message).
var ErrViewConfigShape = errors.New(`"config" must be a JSON object or a JSON-encoded string`)

// CheckViewType is the view type t names: "" is the first of ViewTypes,
// one not in ViewTypes is refused naming them.
func CheckViewType(t string) (string, error) {
	t = strings.TrimSpace(t)
	if t == "" {
		return ViewTypes[0], nil
	}
	if !slices.Contains(ViewTypes, t) {
		return "", Invalid("view_type %q is not one padd knows; use one of %s", Excerpt(t), strings.Join(ViewTypes, ", ")).
			With("field", "view_type").With("allowed", ViewTypes)
	}
	return t, nil
}

// ParseViewConfig is a saved view's config as padd keeps it: the JSON
// object raw holds, compacted. raw may be the object itself or a string
// holding its JSON text, as Pad takes both; null, "" or nothing is the
// empty object. Anything else is refused with bad_request, a config over
// LimitViewConfig or MaxViewConfigDepth with validation_error.
func ParseViewConfig(raw json.RawMessage) (json.RawMessage, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return json.RawMessage("{}"), nil
	}
	if raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, BadRequest("%s", ErrViewConfigShape).With("field", "config")
		}
		if strings.TrimSpace(s) == "" {
			return json.RawMessage("{}"), nil
		}
		raw = bytes.TrimSpace([]byte(s))
	}
	if len(raw) == 0 || raw[0] != '{' || !json.Valid(raw) {
		return nil, BadRequest("%s", ErrViewConfigShape).With("field", "config")
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return nil, BadRequest("%s", ErrViewConfigShape).With("field", "config")
	}
	if err := LimitViewConfig.Check(buf.String()); err != nil {
		return nil, err
	}
	if d := jsonDepth(buf.Bytes()); d > MaxViewConfigDepth {
		return nil, Invalid("config nests %d deep; the most it may is %d", d, MaxViewConfigDepth).
			With("field", "config").With("limit", MaxViewConfigDepth)
	}
	return json.RawMessage(buf.Bytes()), nil
}

// jsonDepth is how deep valid JSON text b nests, read token by token
// (no recursion, whatever the depth).
func jsonDepth(b []byte) int {
	dec := json.NewDecoder(bytes.NewReader(b))
	depth, most := 0, 0
	for {
		t, err := dec.Token()
		if err == io.EOF || err != nil {
			return most
		}
		switch t {
		case json.Delim('{'), json.Delim('['):
			depth++
			most = max(most, depth)
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
	}
}
