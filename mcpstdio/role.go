package mcpstdio

import (
	"github.com/padd/padd/api"
)

func init() {
	register(map[string]handler{
		"pad_role.list":   roleList,
		"pad_role.create": roleCreate,
		"pad_role.update": roleUpdate,
		"pad_role.delete": roleDelete,
	})
}

func rolePath(ws, slug string) string { return wsPath(ws) + "/agent-roles/" + api.PathEscape(slug) }

func roleList(c *call) (*result, error) {
	var roles []any
	if _, err := c.p.do(c.ctx, "GET", wsPath(c.ws)+"/agent-roles", nil, nil, &roles); err != nil {
		return nil, err
	}
	if roles == nil {
		roles = []any{}
	}
	return &result{value: map[string]any{"roles": roles}}, nil
}

func roleCreate(c *call) (*result, error) {
	in := api.AgentRoleCreate{Name: c.a.str("name"), Slug: c.a.str("slug"), Description: c.a.str("description"),
		Icon: c.a.str("icon"), Tools: c.a.str("tools")}
	if n := c.sortOrder(); n != nil {
		in.SortOrder = *n
	}
	return passThrough(c, "POST", wsPath(c.ws)+"/agent-roles", nil, nil, in)
}

func roleUpdate(c *call) (*result, error) {
	in := api.AgentRoleUpdate{Name: c.a.strp("name"), Slug: c.a.strp("new_slug"), Description: c.a.strp("description"),
		Icon: c.a.strp("icon"), Tools: c.a.strp("tools"), SortOrder: c.sortOrder()}
	return passThrough(c, "PATCH", rolePath(c.ws, c.a.str("slug")), nil, nil, in)
}

func roleDelete(c *call) (*result, error) {
	if _, err := c.p.do(c.ctx, "DELETE", rolePath(c.ws, c.a.str("slug")), nil, nil, nil); err != nil {
		return nil, err
	}
	return &result{value: map[string]any{"slug": c.a.str("slug"), "deleted": true},
		notes: []string{"Items that had this role no longer have one."}}, nil
}
