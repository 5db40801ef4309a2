package api

import (
	"context"
	"net/url"

	"github.com/padd/padd/model"
)

// What agents read before and while they work: playbooks, the built-in
// library of conventions and playbooks, and agent roles.

// ListPlaybooks answers GET /workspaces/{ws}/playbooks: each playbook
// without its body.
func (c *Client) ListPlaybooks(ctx context.Context, ws string) ([]model.PlaybookMeta, error) {
	var out []model.PlaybookMeta
	_, err := c.Do(ctx, "GET", wsPath(ws)+"/playbooks", nil, nil, &out)
	return out, err
}

// Playbook answers GET /workspaces/{ws}/playbooks/{ref}: the playbook
// item, its status lifted out of its fields.
type Playbook struct {
	Item
	Status string `json:"status"`
}

// GetPlaybook answers GET /workspaces/{ws}/playbooks/{ref}; ref is an
// invocation slug, an item slug or a ref.
func (c *Client) GetPlaybook(ctx context.Context, ws, ref string) (*Playbook, error) {
	return call[Playbook](ctx, c, "GET", wsPath(ws)+"/playbooks/"+PathEscape(ref), nil, nil)
}

// PlaybookRunRequest is the body of POST .../playbooks/{ref}/run. RawArgs
// are CLI-style tokens (positionals, bare flag names, key=value); Args
// wins over them on a conflict.
type PlaybookRunRequest struct {
	Args       map[string]any `json:"args,omitempty"`
	RawArgs    []string       `json:"raw_args,omitempty"`
	AllowDraft bool           `json:"allow_draft,omitempty"`
}

// PlaybookMatchRequest is the body of POST .../playbooks/match: the free
// text to find a playbook for (PB-03).
type PlaybookMatchRequest struct {
	Text string `json:"text"`
}

// PlaybookRun answers a run: the body to follow and the arguments bound
// to it. Nothing is executed or stored. Unbound lists required
// arguments nobody gave (ask for them); IgnoredArgs names args members
// the playbook does not declare.
type PlaybookRun struct {
	Ref         string         `json:"ref"`
	Slug        string         `json:"slug"`
	Title       string         `json:"title"`
	Status      string         `json:"status"`
	Body        string         `json:"body"`
	Arguments   []ArgSpec      `json:"arguments"`
	BoundArgs   map[string]any `json:"bound_args"`
	Unbound     []UnboundArg   `json:"unbound,omitempty"`
	IgnoredArgs []string       `json:"ignored_args,omitempty"`
}

// RunPlaybook sends POST /workspaces/{ws}/playbooks/{ref}/run.
func (c *Client) RunPlaybook(ctx context.Context, ws, ref string, in PlaybookRunRequest) (*PlaybookRun, error) {
	return call[PlaybookRun](ctx, c, "POST", wsPath(ws)+"/playbooks/"+PathEscape(ref)+"/run", nil, in)
}

// ConventionLibrary is GET /convention-library's answer.
type ConventionLibrary struct {
	Categories []ConventionCategory `json:"categories"`
}

// PlaybookLibrary is GET /playbook-library's answer.
type PlaybookLibrary struct {
	Categories []PlaybookCategory `json:"categories"`
}

// ConventionLibrary answers GET /convention-library, one category when
// category is not empty.
func (c *Client) ConventionLibrary(ctx context.Context, category string) ([]ConventionCategory, error) {
	v := url.Values{}
	setStr(v, "category", category)
	out, err := call[ConventionLibrary](ctx, c, "GET", "/convention-library", v, nil)
	if err != nil {
		return nil, err
	}
	return out.Categories, nil
}

// PlaybookLibrary answers GET /playbook-library; with summary each
// playbook carries a summary instead of its body.
func (c *Client) PlaybookLibrary(ctx context.Context, category string, summary bool) ([]PlaybookCategory, error) {
	v := url.Values{}
	setStr(v, "category", category)
	if summary {
		v.Set("summary", "true")
	}
	out, err := call[PlaybookLibrary](ctx, c, "GET", "/playbook-library", v, nil)
	if err != nil {
		return nil, err
	}
	return out.Categories, nil
}

// LibraryRef names a library entry by its key (convention/<slug>,
// playbook/<slug>) or by its exact title.
type LibraryRef struct {
	Key   string `json:"key,omitempty"`
	Title string `json:"title,omitempty"`
	// OpKey is Pad's idempotency key in the body (Idempotency-Key in a
	// header does the same).
	OpKey string `json:"op_key,omitempty"`
}

// LibraryEntry answers GET /library/entry: one entry, of either kind.
type LibraryEntry struct {
	Type       string             `json:"type"` // convention or playbook
	Convention *LibraryConvention `json:"convention,omitempty"`
	Playbook   *LibraryPlaybook   `json:"playbook,omitempty"`
}

// GetLibraryEntry answers GET /library/entry?key=|title=.
func (c *Client) GetLibraryEntry(ctx context.Context, ref LibraryRef) (*LibraryEntry, error) {
	v := url.Values{}
	setStr(v, "key", ref.Key)
	setStr(v, "title", ref.Title)
	return call[LibraryEntry](ctx, c, "GET", "/library/entry", v, nil)
}

// Activation answers POST .../library/activate: the item created from
// the entry, and where it came from.
type Activation struct {
	Item
	Warnings *ActivationWarnings `json:"warnings,omitempty"`
	Library  LibraryOrigin       `json:"library"`
}

// ActivationWarnings adds to the write warnings the select options the
// destination collection gained (field -> options) to hold the entry.
type ActivationWarnings struct {
	Warnings
	OptionsAdded map[string][]string `json:"options_added,omitempty"`
}

// LibraryOrigin is the entry an activated item was copied from.
type LibraryOrigin struct {
	Key        string `json:"key"`
	Kind       string `json:"kind"`
	SeedHash   string `json:"seed_hash"`
	Collection string `json:"collection"`
}

// ActivateLibrary sends POST /workspaces/{ws}/library/activate: the
// entry is copied into the collection that holds its kind.
func (c *Client) ActivateLibrary(ctx context.Context, ws string, ref LibraryRef) (*Activation, error) {
	return call[Activation](ctx, c, "POST", wsPath(ws)+"/library/activate", nil, ref)
}

// ListRoles answers GET /workspaces/{ws}/agent-roles.
func (c *Client) ListRoles(ctx context.Context, ws string) ([]AgentRole, error) {
	var out []AgentRole
	_, err := c.Do(ctx, "GET", wsPath(ws)+"/agent-roles", nil, nil, &out)
	return out, err
}

// CreateRole sends POST /workspaces/{ws}/agent-roles.
func (c *Client) CreateRole(ctx context.Context, ws string, in AgentRoleCreate) (*AgentRole, error) {
	return call[AgentRole](ctx, c, "POST", wsPath(ws)+"/agent-roles", nil, in)
}

// UpdateRole sends PATCH /workspaces/{ws}/agent-roles/{role}; role is a
// slug or id.
func (c *Client) UpdateRole(ctx context.Context, ws, role string, in AgentRoleUpdate) (*AgentRole, error) {
	return call[AgentRole](ctx, c, "PATCH", wsPath(ws)+"/agent-roles/"+PathEscape(role), nil, in)
}

// DeleteRole sends DELETE /workspaces/{ws}/agent-roles/{role}; items
// that had the role lose it.
func (c *Client) DeleteRole(ctx context.Context, ws, role string) error {
	_, err := c.Do(ctx, "DELETE", wsPath(ws)+"/agent-roles/"+PathEscape(role), nil, nil, nil)
	return err
}
