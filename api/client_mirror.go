package api

import "context"

// Mirrors lists every mirror with its state.
func (c *Client) Mirrors(ctx context.Context) ([]Mirror, error) {
	var out Mirrors
	if _, err := c.Do(ctx, "GET", "/padd/mirrors", nil, nil, &out); err != nil {
		return nil, err
	}
	return out.Mirrors, nil
}

// AddMirror mirrors a workspace into an absolute directory.
func (c *Client) AddMirror(ctx context.Context, in MirrorSpec) (*Mirror, error) {
	var out Mirror
	if _, err := c.Do(ctx, "POST", "/padd/mirrors", nil, in, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// RemoveMirror stops a mirror; its files stay.
func (c *Client) RemoveMirror(ctx context.Context, in MirrorSpec) error {
	_, err := c.Do(ctx, "POST", "/padd/mirrors/remove", nil, in, nil)
	return err
}

// ConfigStatus reads padd.toml's state.
func (c *Client) ConfigStatus(ctx context.Context) (*ConfigStatus, error) {
	var out ConfigStatus
	if _, err := c.Do(ctx, "GET", "/padd/config", nil, nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}
