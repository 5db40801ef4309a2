package api

// The built-in library's entries and a playbook's declared arguments, in
// Pad's JSON shapes. model holds the library and parses the arguments;
// daemon converts its types to these at the edge
// (daemon/wire_knowledge.go).

// LibraryConvention is a rule ready to activate.
type LibraryConvention struct {
	Key         string   `json:"key"`
	Title       string   `json:"title"`
	Content     string   `json:"content"`
	Category    string   `json:"category"`
	Trigger     string   `json:"trigger"`
	Surfaces    []string `json:"surfaces"`
	Enforcement string   `json:"enforcement"`
	Commands    []string `json:"commands,omitempty"`
}

// LibraryPlaybook is a workflow ready to activate.
type LibraryPlaybook struct {
	Key            string    `json:"key"`
	Title          string    `json:"title"`
	Content        string    `json:"content,omitempty"`
	Summary        string    `json:"summary,omitempty"` // set instead of content in summary listings
	Category       string    `json:"category"`
	Trigger        string    `json:"trigger"`
	Scope          string    `json:"scope"`
	InvocationSlug string    `json:"invocation_slug,omitempty"`
	Arguments      []ArgSpec `json:"arguments,omitempty"`
}

// ConventionCategory groups conventions for browsing.
type ConventionCategory struct {
	Name        string              `json:"name"`
	Description string              `json:"description"`
	Conventions []LibraryConvention `json:"conventions"`
}

// PlaybookCategory groups playbooks for browsing.
type PlaybookCategory struct {
	Name        string            `json:"name"`
	Description string            `json:"description"`
	Playbooks   []LibraryPlaybook `json:"playbooks"`
}

// ArgSpec declares one playbook argument.
type ArgSpec struct {
	Name        string   `json:"name"`
	Type        string   `json:"type"`
	Required    bool     `json:"required,omitempty"`
	Default     any      `json:"default,omitempty"`
	Description string   `json:"description,omitempty"`
	Enum        []string `json:"enum,omitempty"`
}

// UnboundArg is a required argument the caller did not supply, with its
// declaration so the agent can ask for it rather than fail.
type UnboundArg struct {
	Name string  `json:"name"`
	Spec ArgSpec `json:"spec"`
}
