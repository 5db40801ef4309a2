package model_test

import (
	"reflect"
	"testing"

	"github.com/padd/padd/model"
)

func collectionSlugs(t model.Template) []string {
	var out []string
	for _, c := range t.Collections {
		out = append(out, c.Slug)
	}
	return out
}

func TestStartupTemplate(t *testing.T) {
	tpl, ok := model.TemplateByName(model.DefaultTemplate)
	if !ok || tpl.Name != "startup" {
		t.Fatalf("default template = %q, %v", tpl.Name, ok)
	}
	want := []string{"tasks", "ideas", "plans", "docs", "conventions", "playbooks"}
	if got := collectionSlugs(tpl); !reflect.DeepEqual(got, want) {
		t.Fatalf("startup collections = %q, want %q", got, want)
	}
	type flags struct{ system, work bool }
	wantFlags := map[string]flags{
		"tasks": {false, true}, "ideas": {false, true}, "plans": {false, true},
		"docs": {false, false}, "conventions": {true, false}, "playbooks": {true, false},
	}
	for _, c := range tpl.Collections {
		f := wantFlags[c.Slug]
		if c.IsSystem != f.system {
			t.Errorf("%s: IsSystem = %v, want %v", c.Slug, c.IsSystem, f.system)
		}
		if c.Settings.TracksWork == nil {
			t.Errorf("%s: tracks_work not set explicitly", c.Slug)
		} else if *c.Settings.TracksWork != f.work {
			t.Errorf("%s: tracks_work = %v, want %v", c.Slug, *c.Settings.TracksWork, f.work)
		}
		if c.Settings.IsWork() != f.work {
			t.Errorf("%s: IsWork = %v", c.Slug, c.Settings.IsWork())
		}
	}
}

func TestBlankTemplate(t *testing.T) {
	tpl, ok := model.TemplateByName("blank")
	if !ok {
		t.Fatal("no blank template")
	}
	if got := collectionSlugs(tpl); !reflect.DeepEqual(got, []string{"conventions", "playbooks"}) {
		t.Fatalf("blank collections = %q", got)
	}
	// WS-10: one trigger option and one scope option.
	for _, c := range tpl.Collections {
		for _, key := range []string{"trigger", "scope"} {
			f, ok := c.Schema.Field(key)
			if !ok || len(f.Options) != 1 {
				t.Errorf("%s.%s options = %q, want exactly one", c.Slug, key, f.Options)
			}
		}
		if !c.IsSystem || c.Settings.IsWork() {
			t.Errorf("%s: system %v, work %v", c.Slug, c.IsSystem, c.Settings.IsWork())
		}
	}
}

func TestEveryTemplateIsValid(t *testing.T) {
	if len(model.Templates()) == 0 {
		t.Fatal("no templates")
	}
	for _, tpl := range model.Templates() {
		seen := map[string]bool{}
		prefixes := map[string]bool{}
		for _, c := range tpl.Collections {
			name := tpl.Name + "/" + c.Slug
			if err := model.ValidateSchema(c.Schema); err != nil {
				t.Errorf("%s: schema invalid: %v", name, err)
			}
			if seen[c.Slug] {
				t.Errorf("%s: slug repeated", name)
			}
			seen[c.Slug] = true
			if c.Slug != model.CanonicalSlug(c.Name) {
				t.Errorf("%s: slug is not CanonicalSlug(%q)", name, c.Name)
			}
			if !model.ValidPrefix(c.Prefix) || prefixes[c.Prefix] {
				t.Errorf("%s: prefix %q invalid or repeated", name, c.Prefix)
			}
			prefixes[c.Prefix] = true
			if got := model.DerivePrefix(c.Name); got != c.Prefix {
				t.Errorf("%s: prefix %q, DerivePrefix(%q) = %q", name, c.Prefix, c.Name, got)
			}
			// Every default is a valid value of its field, and the status
			// select is required with a default.
			for _, f := range c.Schema.Fields {
				if f.Default != nil {
					if is := model.ValidateValue(f, f.Default); is != nil {
						t.Errorf("%s.%s: default %v invalid: %s", name, f.Key, f.Default, is.Message)
					}
				}
				if f.Label == "" {
					t.Errorf("%s.%s: no label", name, f.Key)
				}
			}
			st, ok := c.Schema.Field("status")
			if !ok || st.Type != model.TypeSelect || !st.Required || st.Default == nil {
				t.Errorf("%s: status field %+v", name, st)
			}
			if len(st.TerminalOptions) == 0 {
				t.Errorf("%s: status declares no terminal options", name)
			}
			// A create of an empty item succeeds with the template's defaults.
			out, warn, err := model.FieldWrite{Schema: c.Schema, Create: true}.Apply()
			if err != nil || len(warn.DroppedFields) != 0 {
				t.Errorf("%s: empty create: %v, %+v", name, err, warn)
			}
			if out["status"] != st.Default {
				t.Errorf("%s: empty create status %v, want %v", name, out["status"], st.Default)
			}
			// A default-valued item is open; the non-system work collections finish.
			if got := model.StateOf(c.Schema, c.Settings, out); got != model.StateOpen {
				t.Errorf("%s: new item state %q", name, got)
			}
			if !c.IsSystem && *c.Settings.TracksWork != model.DefaultTracksWork(c.IsSystem, c.Schema, c.Settings) && c.Slug != "docs" {
				t.Errorf("%s: tracks_work disagrees with DefaultTracksWork", name)
			}
		}
	}
}

func TestTemplateStates(t *testing.T) {
	tpl, _ := model.TemplateByName("startup")
	byslug := map[string]model.CollectionTemplate{}
	for _, c := range tpl.Collections {
		byslug[c.Slug] = c
	}
	tests := []struct {
		coll, status string
		want         model.State
	}{
		{"tasks", "in-progress", model.StateOpen},
		{"tasks", "done", model.StateDone},
		{"tasks", "cancelled", model.StateAbandoned},
		{"ideas", "implemented", model.StateDone},
		{"ideas", "rejected", model.StateAbandoned},
		{"ideas", "planned", model.StateOpen},
		{"plans", "completed", model.StateDone},
		{"plans", "paused", model.StateOpen},
		{"conventions", "disabled", model.StateAbandoned},
		{"playbooks", "deprecated", model.StateDone},
	}
	for _, tt := range tests {
		c := byslug[tt.coll]
		if got := model.StateOf(c.Schema, c.Settings, map[string]any{"status": tt.status}); got != tt.want {
			t.Errorf("%s status=%s: %q, want %q", tt.coll, tt.status, got, tt.want)
		}
	}
	// The plans' progress is computed; playbook invocation slugs are unique kebab-case.
	if f, _ := byslug["plans"].Schema.Field("progress"); !f.Computed {
		t.Error("plans.progress is not computed")
	}
	inv, _ := byslug["playbooks"].Schema.Field("invocation_slug")
	if inv.UniqueScope != model.UniqueScopeCollection || inv.Pattern != model.InvocationSlugPattern {
		t.Errorf("playbooks.invocation_slug = %+v", inv)
	}
}

func TestTemplateByName(t *testing.T) {
	for _, n := range []string{"", "default", "DEFAULT", " Startup ", "startup"} {
		if tpl, ok := model.TemplateByName(n); !ok || tpl.Name != "startup" {
			t.Errorf("TemplateByName(%q) = %q, %v", n, tpl.Name, ok)
		}
	}
	if _, ok := model.TemplateByName("nope"); ok {
		t.Error("TemplateByName(nope) found something")
	}
	if got := model.TemplateNames(); !reflect.DeepEqual(got, []string{"startup", "blank"}) {
		t.Errorf("TemplateNames() = %q", got)
	}
}

func TestTemplatesAreFreshCopies(t *testing.T) {
	a := model.Templates()
	a[0].Collections[0].Schema.Fields[0].Options[0] = "mutated"
	trig, _ := a[0].Collections[4].Schema.Field("trigger")
	trig.Options[0] = "mutated"
	b := model.Templates()
	if b[0].Collections[0].Schema.Fields[0].Options[0] == "mutated" {
		t.Fatal("Templates() shares option slices between calls")
	}
	if model.ConventionTriggers[0] == "mutated" {
		t.Fatal("template options alias ConventionTriggers")
	}
}

func TestCanonicalLink(t *testing.T) {
	s, d, typ, ok := model.CanonicalLink("A", "B", model.LinkBlockedBy)
	if !ok || s != "B" || d != "A" || typ != model.LinkBlocks {
		t.Fatalf("blocked-by = %s %s %s %v", s, d, typ, ok)
	}
	for _, lt := range []string{model.LinkBlocks, model.LinkSupersedes, model.LinkImplements, model.LinkSplitFrom} {
		s, d, typ, ok := model.CanonicalLink("A", "B", lt)
		if !ok || s != "A" || d != "B" || typ != lt {
			t.Errorf("%s = %s %s %s %v", lt, s, d, typ, ok)
		}
	}
	if _, _, _, ok := model.CanonicalLink("A", "B", "relates"); ok {
		t.Error("unknown link type accepted")
	}
}
