package api

import "context"

// Template is one entry of GET /templates: a workspace template and the
// collections it seeds.
type Template struct {
	Name        string   `json:"name"`
	Description string   `json:"description"`
	Collections []string `json:"collections"`
}

// ListWorkspaces answers GET /workspaces.
func (c *Client) ListWorkspaces(ctx context.Context) ([]Workspace, error) {
	var out []Workspace
	_, err := c.Do(ctx, "GET", "/workspaces", nil, nil, &out)
	return out, err
}

// ListDeletedWorkspaces answers GET /workspaces/deleted: soft-deleted
// workspaces still inside their restore window.
func (c *Client) ListDeletedWorkspaces(ctx context.Context) ([]Workspace, error) {
	var out []Workspace
	_, err := c.Do(ctx, "GET", "/workspaces/deleted", nil, nil, &out)
	return out, err
}

// GetWorkspace answers GET /workspaces/{ws}.
func (c *Client) GetWorkspace(ctx context.Context, ws string) (*Workspace, error) {
	var out Workspace
	if _, err := c.Do(ctx, "GET", wsPath(ws), nil, nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// CreateWorkspace sends POST /workspaces. Use the slug of the answer: the
// server canonicalises and de-duplicates the one asked for.
func (c *Client) CreateWorkspace(ctx context.Context, in WorkspaceCreate) (*Workspace, error) {
	var out Workspace
	if _, err := c.Do(ctx, "POST", "/workspaces", nil, in, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// UpdateWorkspace sends PATCH /workspaces/{ws}.
func (c *Client) UpdateWorkspace(ctx context.Context, ws string, in WorkspaceUpdate) (*Workspace, error) {
	var out Workspace
	if _, err := c.Do(ctx, "PATCH", wsPath(ws), nil, in, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// DeleteWorkspace soft-deletes a workspace (DELETE /workspaces/{ws}); it
// can be restored for 30 days.
func (c *Client) DeleteWorkspace(ctx context.Context, ws string) error {
	_, err := c.Do(ctx, "DELETE", wsPath(ws), nil, nil, nil)
	return err
}

// RestoreWorkspace sends POST /workspaces/{ws}/restore.
func (c *Client) RestoreWorkspace(ctx context.Context, ws string) (*Workspace, error) {
	var out Workspace
	if _, err := c.Do(ctx, "POST", wsPath(ws)+"/restore", nil, nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// Templates answers GET /templates.
func (c *Client) Templates(ctx context.Context) ([]Template, error) {
	var out []Template
	_, err := c.Do(ctx, "GET", "/templates", nil, nil, &out)
	return out, err
}

// wsPath is the path of one workspace.
func wsPath(ws string) string { return "/workspaces/" + PathEscape(ws) }
