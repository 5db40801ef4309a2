package mcpstdio

import (
	"context"
	"fmt"
	"net/url"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/padd/padd/api"
)

// rootsState caches the client's roots (the file:// ones, as
// directories), until the client reports its roots changed. Which
// workspace they link to is looked up on each call, so that a .pad.toml
// written in a root while the agent runs counts from its next call.
type rootsState struct {
	dirs []rootDir
}

type rootDir struct {
	dir, uri string
}

// rootsTimeout bounds the wait for a client's roots/list answer: a client
// that declares roots but never answers must not stall every call.
const rootsTimeout = 2 * time.Second

// resolveWorkspace picks the workspace of a call, first match wins:
//
//  1. the call's own workspace param;
//  2. the session default set by pad_set_workspace;
//  3. PAD_WORKSPACE (padctl's -w on `padctl mcp serve`): a choice made for
//     this server beats a file found, as it does for padctl;
//  4. the client's roots: the nearest .pad.toml from a file:// root upward;
//  5. the nearest .pad.toml from the server's working directory upward;
//  6. the only workspace there is.
//
// Otherwise it refuses with no_workspace and the workspaces to choose from.
func (s *Server) resolveWorkspace(ctx context.Context, p *paddConn, explicit string) (ws, from string, err error) {
	if explicit != "" {
		return explicit, "", nil
	}
	s.mu.Lock()
	ws = s.sessionWS
	s.mu.Unlock()
	if ws != "" {
		return ws, "pad_set_workspace", nil
	}
	if env := strings.TrimSpace(s.opts.Getenv("PAD_WORKSPACE")); env != "" {
		return env, "PAD_WORKSPACE", nil
	}
	if ws, from, err = s.rootsWorkspace(ctx); err != nil || ws != "" {
		return ws, from, err
	}
	pt, err := s.opts.FindPadToml(s.opts.Dir)
	if err != nil {
		return "", "", refuse(codeValidationFailed, "fix or remove that .pad.toml, or pass workspace", "%v", err).with("reason", "bad_pad_toml")
	}
	if pt != nil {
		return pt.Workspace, pt.Path, nil
	}
	wss, err := listWorkspaces(ctx, p)
	if err != nil {
		return "", "", err
	}
	if len(wss) == 1 {
		return wss[0].Slug, "", nil
	}
	slugs := make([]string, 0, len(wss))
	for _, w := range wss {
		slugs = append(slugs, w.Slug)
	}
	sort.Strings(slugs)
	if len(slugs) == 0 {
		return "", "", refuse(codeNoWorkspace, "create one with pad_workspace create (name), then choose it with pad_set_workspace",
			"there is no workspace yet").with("available_workspaces", slugs)
	}
	return "", "", refuse(codeNoWorkspace, "call pad_set_workspace with one of details.available_workspaces, or pass workspace on the call",
		"no workspace chosen and %d exist", len(slugs)).with("available_workspaces", slugs)
}

// explainWorkspace adds to a "workspace not found" where the workspace
// was named, so the agent (or its user) can fix the source.
func explainWorkspace(e *toolError, ws, from string) *toolError {
	if from != "" && e.Code == api.CodeNotFound && e.Details["scope"] == "workspace" {
		e.Hint = fmt.Sprintf("workspace %q comes from %s; pass workspace, or choose one with pad_set_workspace (pad_workspace list shows them)", ws, from)
	}
	return e
}

// rootsWorkspace asks the client for its roots (once per roots list) and
// returns the workspace the first linked root names.
func (s *Server) rootsWorkspace(ctx context.Context) (ws, from string, err error) {
	st := s.rootDirs(ctx)
	if st == nil {
		return "", "", nil
	}
	for _, r := range st.dirs {
		pt, err := s.opts.FindPadToml(r.dir)
		if err != nil {
			return "", "", refuse(codeValidationFailed, "fix or remove that .pad.toml, or pass workspace", "%v", err).with("reason", "bad_pad_toml")
		}
		if pt != nil {
			return pt.Workspace, fmt.Sprintf("%s (client root %s)", pt.Path, r.uri), nil
		}
	}
	return "", "", nil
}

// rootDirs returns the client's roots, asking it once per roots list; nil
// when it declared none or did not answer.
func (s *Server) rootDirs(ctx context.Context) *rootsState {
	s.mu.Lock()
	cached := s.roots
	s.mu.Unlock()
	if cached != nil {
		return cached
	}
	if !clientHasRoots(ctx) {
		return nil
	}
	rctx, cancel := context.WithTimeout(ctx, rootsTimeout)
	defer cancel()
	res, rerr := s.mcp.RequestRoots(rctx, mcpgo.ListRootsRequest{})
	if rerr != nil {
		// Not cached: the next call asks again.
		s.log.Debug("roots/list failed", "err", rerr)
		return nil
	}
	st := &rootsState{}
	for _, r := range res.Roots {
		if dir, ok := fileURIPath(r.URI); ok {
			st.dirs = append(st.dirs, rootDir{dir, r.URI})
		}
	}
	s.mu.Lock()
	s.roots = st
	s.mu.Unlock()
	return st
}

func (s *Server) forgetRoots() {
	s.mu.Lock()
	s.roots = nil
	s.mu.Unlock()
}

// clientHasRoots reports whether the client declared the roots capability
// (per request under 2026-07-28, at initialize before).
func clientHasRoots(ctx context.Context) bool {
	if info := server.RequestProtocolInfoFromContext(ctx); info != nil && info.Modern {
		return info.ClientCapabilities != nil && info.ClientCapabilities.Roots != nil
	}
	if sess, ok := server.ClientSessionFromContext(ctx).(server.SessionWithClientInfo); ok {
		return sess.GetClientCapabilities().Roots != nil
	}
	return false
}

// fileURIPath turns a file:// URI into a local path.
func fileURIPath(uri string) (string, bool) {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" {
		return "", false
	}
	p := u.Path
	if runtime.GOOS == "windows" {
		// file:///C:/work -> C:/work
		p = strings.TrimPrefix(p, "/")
	}
	if p == "" {
		return "", false
	}
	return filepath.FromSlash(p), true
}

func listWorkspaces(ctx context.Context, p *paddConn) ([]api.Workspace, error) {
	var wss []api.Workspace
	_, err := p.do(ctx, "GET", "/workspaces", nil, nil, &wss)
	return wss, err
}

// workspaceOut is a workspace as agents see it: no ids or settings text.
type workspaceOut struct {
	Slug        string     `json:"slug"`
	Name        string     `json:"name"`
	Description string     `json:"description,omitempty"`
	Template    string     `json:"template,omitempty"`
	CreatedAt   time.Time  `json:"created_at"`
	UpdatedAt   time.Time  `json:"updated_at"`
	DeletedAt   *time.Time `json:"deleted_at,omitempty"`
}

func shapeWorkspace(w api.Workspace) workspaceOut {
	return workspaceOut{Slug: w.Slug, Name: w.Name, Description: w.Description, Template: w.Template,
		CreatedAt: w.CreatedAt, UpdatedAt: w.UpdatedAt, DeletedAt: w.DeletedAt}
}

func shapeWorkspaces(wss []api.Workspace) []workspaceOut {
	out := make([]workspaceOut, 0, len(wss))
	for _, w := range wss {
		out = append(out, shapeWorkspace(w))
	}
	return out
}

func wsPath(ws string) string { return "/workspaces/" + api.PathEscape(ws) }

func init() {
	register(map[string]handler{
		"pad_set_workspace":       setWorkspace,
		"pad_workspace.list":      workspaceList,
		"pad_workspace.create":    workspaceCreate,
		"pad_workspace.deleted":   workspaceDeleted,
		"pad_workspace.restore":   workspaceRestore,
		"pad_workspace.members":   workspaceMembers,
		"pad_workspace.storage":   workspaceStorage,
		"pad_workspace.audit-log": workspaceAuditLog,
	})
}

// setWorkspace pins the session default and answers with the bootstrap,
// so an agent loads its context in the same round trip.
func setWorkspace(c *call) (*result, error) {
	boot, slug, err := bootstrap(c.ctx, c.p, c.a.str("workspace"))
	if err != nil {
		return nil, err
	}
	c.s.mu.Lock()
	c.s.sessionWS = slug
	c.s.mu.Unlock()
	return &result{value: map[string]any{
		"workspace": slug,
		"message":   fmt.Sprintf("%s is this session's workspace; calls without workspace use it", slug),
		"bootstrap": boot,
	}}, nil
}

func workspaceList(c *call) (*result, error) {
	wss, err := listWorkspaces(c.ctx, c.p)
	if err != nil {
		return nil, err
	}
	out := map[string]any{"workspaces": shapeWorkspaces(wss)}
	c.s.mu.Lock()
	if c.s.sessionWS != "" {
		out["session_workspace"] = c.s.sessionWS
	}
	c.s.mu.Unlock()
	return &result{value: out}, nil
}

func workspaceCreate(c *call) (*result, error) {
	in := api.WorkspaceCreate{Name: c.a.str("name"), Slug: c.a.str("slug"), Template: c.a.str("template")}
	var w api.Workspace
	if _, err := c.p.do(c.ctx, "POST", "/workspaces", nil, in, &w); err != nil {
		return nil, err
	}
	return &result{value: shapeWorkspace(w),
		notes: []string{fmt.Sprintf("Created %s. pad_set_workspace workspace=%s makes it this session's workspace.", w.Slug, w.Slug)}}, nil
}

func workspaceDeleted(c *call) (*result, error) {
	var wss []api.Workspace
	if _, err := c.p.do(c.ctx, "GET", "/workspaces/deleted", nil, nil, &wss); err != nil {
		return nil, err
	}
	return &result{value: map[string]any{"workspaces": shapeWorkspaces(wss)}}, nil
}

func workspaceRestore(c *call) (*result, error) {
	var w api.Workspace
	if _, err := c.p.do(c.ctx, "POST", wsPath(c.a.str("slug"))+"/restore", nil, nil, &w); err != nil {
		return nil, err
	}
	return &result{value: shapeWorkspace(w)}, nil
}

func workspaceMembers(c *call) (*result, error) {
	var out any
	if _, err := c.p.do(c.ctx, "GET", wsPath(c.ws)+"/members", nil, nil, &out); err != nil {
		return nil, err
	}
	return &result{value: out}, nil
}

// workspaceStorage answers what the workspace's attachments take (WS-07).
func workspaceStorage(c *call) (*result, error) {
	return passThrough(c, "GET", wsPath(c.ws)+"/storage/usage", nil, nil, nil)
}

// auditMax is padd's audit-log cap (REST's), as audit-log's limit says.
const auditMax = 200

// workspaceAuditLog answers the audit log (WS-08): every workspace's
// activity, newest first, as Pad's audit-log reads the whole server; a
// workspace given on the call narrows it to that one.
func workspaceAuditLog(c *call) (*result, error) {
	limit := c.limitOf(listDefault, auditMax)
	q := url.Values{"limit": {strconv.Itoa(limit)}}
	for param, key := range map[string]string{"action_filter": "action", "actor": "actor", "workspace": "workspace"} {
		if v := c.a.str(param); v != "" {
			q.Set(key, v)
		}
	}
	if d, ok := c.a.int("days"); ok {
		q.Set("days", strconv.FormatInt(d, 10))
	}
	var rows []any
	resp, err := c.p.do(c.ctx, "GET", "/audit-log", q, nil, &rows)
	if err != nil {
		return nil, err
	}
	if rows == nil {
		rows = []any{}
	}
	return listResult("entries", capped{rows: rows, limit: limit, hasMore: resp.Header.Get("X-Pad-Has-More") == "true"},
		"Narrow it with days, action_filter, actor or workspace, or read one workspace's pad_project activity.", nil), nil
}
