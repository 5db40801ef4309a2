package model

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
)

// WorkspaceContext is what Pad's `pad workspace context set` keeps on a
// workspace for agents: its repositories, paths, commands, stack,
// deployment and assumptions. The shape is Pad's (its workspace
// settings' "context"); every member may be absent.
type WorkspaceContext struct {
	Repositories []WorkspaceRepository `json:"repositories,omitempty"`
	Paths        *WorkspacePaths       `json:"paths,omitempty"`
	Commands     *WorkspaceCommands    `json:"commands,omitempty"`
	Stack        *WorkspaceStack       `json:"stack,omitempty"`
	Deployment   *WorkspaceDeployment  `json:"deployment,omitempty"`
	Assumptions  []string              `json:"assumptions,omitempty"`
}

// WorkspaceRepository is one repository the workspace's work is in.
type WorkspaceRepository struct {
	Name string `json:"name,omitempty"`
	Role string `json:"role,omitempty"`
	Path string `json:"path,omitempty"`
	Repo string `json:"repo,omitempty"`
}

// WorkspacePaths are the places on disk an agent is told about.
type WorkspacePaths struct {
	Root        string `json:"root,omitempty"`
	DocsRepo    string `json:"docs_repo,omitempty"`
	Web         string `json:"web,omitempty"`
	Server      string `json:"server,omitempty"`
	Skills      string `json:"skills,omitempty"`
	Config      string `json:"config,omitempty"`
	InstallRoot string `json:"install_root,omitempty"`
}

// WorkspaceCommands are the commands that set up, build, test and run
// the workspace's code.
type WorkspaceCommands struct {
	Setup  string `json:"setup,omitempty"`
	Build  string `json:"build,omitempty"`
	Test   string `json:"test,omitempty"`
	Lint   string `json:"lint,omitempty"`
	Format string `json:"format,omitempty"`
	Dev    string `json:"dev,omitempty"`
	Start  string `json:"start,omitempty"`
	Web    string `json:"web,omitempty"`
}

// WorkspaceStack names the languages, frameworks and package managers.
type WorkspaceStack struct {
	Languages       []string `json:"languages,omitempty"`
	Frameworks      []string `json:"frameworks,omitempty"`
	PackageManagers []string `json:"package_managers,omitempty"`
}

// WorkspaceDeployment says where the workspace's code runs.
type WorkspaceDeployment struct {
	Mode    string `json:"mode,omitempty"`
	BaseURL string `json:"base_url,omitempty"`
	Host    string `json:"host,omitempty"`
}

// WorkspaceContextMembers are a context's members, as Pad names them.
var WorkspaceContextMembers = []string{"repositories", "paths", "commands", "stack", "deployment", "assumptions"}

// MaxContextList bounds each list of a workspace context (repositories,
// assumptions, each of the stack's lists).
const MaxContextList = 100

// ParseWorkspaceContext reads a workspace context from its JSON object.
// Unlike Pad, which drops a member it does not know, padd refuses one
// (bad_request naming it), so nothing sent is lost in silence; a list
// longer than MaxContextList or a string over LimitContextText is a
// validation_error.
func ParseWorkspaceContext(raw json.RawMessage) (*WorkspaceContext, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		return nil, BadRequest("context must be a JSON object (repositories, paths, commands, stack, deployment, assumptions)").
			With("field", "context")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	var c WorkspaceContext
	if err := dec.Decode(&c); err != nil {
		return nil, BadRequest("context: %s", contextDecodeMessage(err)).With("field", "context")
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, BadRequest("context: data after the object").With("field", "context")
	}
	return &c, c.Check()
}

// contextDecodeMessage words a decode error without Go's type names.
func contextDecodeMessage(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return "member " + te.Field + " must be a JSON " + jsonKind(te.Type.Kind().String()) + ", not " + te.Value
	}
	msg := strings.TrimPrefix(err.Error(), "json: ")
	return strings.Replace(msg, "unknown field", "unknown member", 1)
}

func jsonKind(goKind string) string {
	switch goKind {
	case "slice":
		return "array"
	case "struct", "ptr":
		return "object"
	}
	return goKind
}

// Check holds c to its bounds.
func (c *WorkspaceContext) Check() error {
	if c == nil {
		return nil
	}
	lists := map[string][]string{"assumptions": c.Assumptions}
	if s := c.Stack; s != nil {
		lists["stack.languages"], lists["stack.frameworks"], lists["stack.package_managers"] = s.Languages, s.Frameworks, s.PackageManagers
	}
	if len(c.Repositories) > MaxContextList {
		return contextListTooLong("repositories", len(c.Repositories))
	}
	for _, name := range []string{"assumptions", "stack.languages", "stack.frameworks", "stack.package_managers"} {
		if len(lists[name]) > MaxContextList {
			return contextListTooLong(name, len(lists[name]))
		}
	}
	var all []string
	for _, r := range c.Repositories {
		all = append(all, r.Name, r.Role, r.Path, r.Repo)
	}
	if p := c.Paths; p != nil {
		all = append(all, p.Root, p.DocsRepo, p.Web, p.Server, p.Skills, p.Config, p.InstallRoot)
	}
	if m := c.Commands; m != nil {
		all = append(all, m.Setup, m.Build, m.Test, m.Lint, m.Format, m.Dev, m.Start, m.Web)
	}
	if d := c.Deployment; d != nil {
		all = append(all, d.Mode, d.BaseURL, d.Host)
	}
	for _, name := range []string{"assumptions", "stack.languages", "stack.frameworks", "stack.package_managers"} {
		all = append(all, lists[name]...)
	}
	return LimitContextText.CheckEach(all)
}

func contextListTooLong(name string, n int) error {
	return Invalid("context.%s lists %d entries; the most it may is %d", name, n, MaxContextList).
		With("field", "context."+name).With("limit", MaxContextList).With("length", n)
}
