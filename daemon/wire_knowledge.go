package daemon

import (
	"github.com/padd/padd/api"
	"github.com/padd/padd/model"
)

// Model -> wire conversions for the built-in library and a playbook's
// arguments: model holds the library and binds the arguments, and their
// JSON shapes are api's. A type with only plain members converts with a
// type conversion (api.X(v)), which stops compiling the day the two
// types' members differ; a type that holds others is built member by
// member. Lists keep their nil or empty (null or [] on the wire).

func wireConventionCategory(c model.ConventionCategory) api.ConventionCategory {
	return api.ConventionCategory{Name: c.Name, Description: c.Description,
		Conventions: wireList(c.Conventions, wireConvention)}
}

func wireConvention(c model.LibraryConvention) api.LibraryConvention { return api.LibraryConvention(c) }

// wirePlaybookCategory converts a category with each playbook's body, or
// with its summary instead of the body for a summary listing.
func wirePlaybookCategory(c model.PlaybookCategory, summary bool) api.PlaybookCategory {
	playbook := wireLibraryPlaybook
	if summary {
		playbook = wirePlaybookSummary
	}
	return api.PlaybookCategory{Name: c.Name, Description: c.Description,
		Playbooks: wireList(c.Playbooks, playbook)}
}

func wireLibraryPlaybook(p model.LibraryPlaybook) api.LibraryPlaybook {
	return api.LibraryPlaybook{Key: p.Key, Title: p.Title, Content: p.Content, Category: p.Category,
		Trigger: p.Trigger, Scope: p.Scope, InvocationSlug: p.InvocationSlug, Arguments: wireArgSpecs(p.Arguments)}
}

// wirePlaybookSummary is a playbook as a summary listing sends it: the
// body's summary instead of the body.
func wirePlaybookSummary(p model.LibraryPlaybook) api.LibraryPlaybook {
	out := wireLibraryPlaybook(p)
	out.Summary, out.Content = model.PlaybookSummary(p.Content), ""
	return out
}

// wireLibraryEntry is one entry as {type, convention | playbook}. It is a
// map, so its members go out in key order, as they always have.
func wireLibraryEntry(e model.LibraryEntry) map[string]any {
	out := map[string]any{"type": e.Kind}
	if e.Convention != nil {
		out["convention"] = wireConvention(*e.Convention)
	} else {
		out["playbook"] = wireLibraryPlaybook(*e.Playbook)
	}
	return out
}

func wireArgSpecs(specs []model.ArgSpec) []api.ArgSpec {
	return wireList(specs, func(s model.ArgSpec) api.ArgSpec { return api.ArgSpec(s) })
}

func wireUnbound(unbound []model.UnboundArg) []api.UnboundArg {
	return wireList(unbound, func(u model.UnboundArg) api.UnboundArg {
		return api.UnboundArg{Name: u.Name, Spec: api.ArgSpec(u.Spec)}
	})
}
