package mcpstdio

import "strings"

// pending is an action declared in the catalog (so the names and params
// are Pad's from day one) whose backend padd does not have. A call
// answers not_implemented with the hint: what to use meanwhile.
type pending struct {
	// Missing names the backend that is not there yet.
	Missing string
	// Hint is what to do instead.
	Hint string
	// Never marks actions that a single-user local padd will not have:
	// they belong to a Pad server with accounts.
	Never bool
}

// notWired is the one table of catalog actions that are not carried out.
// TestEveryActionWiredOrDeclared holds every catalog action to exactly
// one of this table and the handlers map; wiring an action means adding
// its handler and deleting its row here.
var notWired = map[string]pending{
	"pad_workspace.invite": {Missing: "members and invitations", Never: true, Hint: "padd keeps one person's workspaces on this machine; invite people on a Pad server"},
	"pad_workspace.claim":  {Missing: "workspace claims", Never: true, Hint: "claims belong to a Pad server account; padd's workspaces are already yours"},
}

// refusal is the tool error a not-wired action answers with.
func (p pending) refusal(key string) *toolError {
	tool, action, _ := strings.Cut(key, ".")
	when := "in this padd yet"
	if p.Never {
		when = "in padd, which is single-user and local"
	}
	return refuse(codeNotImplemented, p.Hint, "%s %s is not available %s (%s)", tool, action, when, p.Missing).
		with("tool", tool).with("action", action)
}
