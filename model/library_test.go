package model_test

import (
	"reflect"
	"regexp"
	"testing"

	"github.com/padd/padd/model"
)

func TestSyncConventionCopy(t *testing.T) {
	copyOf := func(m map[string]any) map[string]any {
		return map[string]any{"trigger": "on-commit", "scope": "all", "priority": "should", model.FieldConvention: m}
	}
	stored := map[string]any{"category": "git", "trigger": "on-commit", "surfaces": []any{"all", "docs"}, "enforcement": "should",
		"commands": []any{"git commit"}}
	with := func(base map[string]any, kv ...any) map[string]any {
		out := map[string]any{}
		for k, v := range base {
			out[k] = v
		}
		for i := 0; i+1 < len(kv); i += 2 {
			if kv[i+1] == nil {
				delete(out, kv[i].(string))
			} else {
				out[kv[i].(string)] = kv[i+1]
			}
		}
		return out
	}
	tests := []struct {
		name     string
		before   map[string]any
		after    map[string]any
		wantCopy map[string]any // nil: fields returned untouched
		invalid  bool
	}{
		{name: "no copy: left as it was", before: map[string]any{"trigger": "always"}, after: map[string]any{"trigger": "on-commit"}},
		{name: "unrelated change keeps the copy", before: copyOf(stored), after: with(copyOf(stored), "status", "draft")},
		{name: "trigger change rebuilds trigger only", before: copyOf(stored), after: with(copyOf(stored), "trigger", "always"),
			wantCopy: with(stored, "trigger", "always")},
		{name: "scope change: surfaces becomes [scope]", before: copyOf(stored), after: with(copyOf(stored), "scope", "backend"),
			wantCopy: with(stored, "surfaces", []any{"backend"})},
		{name: "surfaces wins over scope", before: copyOf(stored),
			after:    with(copyOf(stored), "scope", "backend", "surfaces", []any{"frontend", "mobile"}),
			wantCopy: with(stored, "surfaces", []any{"frontend", "mobile"})},
		{name: "priority change: enforcement follows", before: copyOf(stored), after: with(copyOf(stored), "priority", "must"),
			wantCopy: with(stored, "enforcement", "must")},
		{name: "enforcement wins over priority", before: copyOf(stored),
			after:    with(copyOf(stored), "priority", "must", "enforcement", "nice-to-have"),
			wantCopy: with(stored, "enforcement", "nice-to-have")},
		{name: "cleared priority drops enforcement", before: copyOf(stored), after: with(copyOf(stored), "priority", nil),
			wantCopy: with(stored, "enforcement", nil)},
		{name: "a rebuild leaving the copy empty is refused",
			before:  map[string]any{"trigger": "always", model.FieldConvention: map[string]any{"trigger": "always"}},
			after:   map[string]any{model.FieldConvention: map[string]any{"trigger": "always"}},
			invalid: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			was := with(tc.after)
			got, err := model.SyncConventionCopy(tc.before, tc.after)
			if !reflect.DeepEqual(was, tc.after) {
				t.Fatal("SyncConventionCopy changed the caller's map")
			}
			if tc.invalid {
				wantInvalid(t, err, map[string]any{"field": model.FieldConvention})
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tc.wantCopy == nil {
				if !reflect.DeepEqual(got, tc.after) {
					t.Fatalf("fields changed: %v", got)
				}
				return
			}
			if !reflect.DeepEqual(got[model.FieldConvention], tc.wantCopy) {
				t.Fatalf("copy = %#v\nwant   %#v", got[model.FieldConvention], tc.wantCopy)
			}
		})
	}
}

// TestLibrary holds the built-in library to what activation needs: at
// least 8 conventions and 5 playbooks, unique keys and titles, trigger
// and scope words the startup template's collections declare, valid
// invocation slugs and argument declarations.
func TestLibrary(t *testing.T) {
	tmpl, _ := model.TemplateByName("startup")
	var conv, pb model.CollectionTemplate
	for _, c := range tmpl.Collections {
		switch c.Slug {
		case "conventions":
			conv = c
		case "playbooks":
			pb = c
		}
	}
	option := func(ct model.CollectionTemplate, key, v string) bool {
		f, ok := ct.Schema.Field(key)
		return ok && f.HasOption(v)
	}
	keys, titles := map[string]bool{}, map[string]bool{}
	unique := func(key, title string) {
		if keys[key] || titles[title] {
			t.Errorf("duplicate key or title: %s / %s", key, title)
		}
		keys[key], titles[title] = true, true
	}
	n := 0
	for _, cat := range model.ConventionLibrary() {
		for _, c := range cat.Conventions {
			n++
			unique(c.Key, c.Title)
			if c.Key != "convention/"+model.ItemSlug(c.Title) && !regexp.MustCompile(`^convention/[a-z0-9-]+$`).MatchString(c.Key) {
				t.Errorf("%s: key shape", c.Key)
			}
			if c.Category != cat.Name || c.Content == "" || len(c.Surfaces) == 0 {
				t.Errorf("%s: category/content/surfaces", c.Key)
			}
			if !option(conv, "trigger", c.Trigger) || !option(conv, "scope", c.Surfaces[0]) || !option(conv, "priority", c.Enforcement) {
				t.Errorf("%s: trigger %q / scope %q / enforcement %q not in the conventions schema", c.Key, c.Trigger, c.Surfaces[0], c.Enforcement)
			}
		}
	}
	if n < 8 {
		t.Errorf("%d conventions, want at least 8", n)
	}
	n = 0
	slug := regexp.MustCompile(model.InvocationSlugPattern)
	for _, cat := range model.PlaybookLibrary() {
		for _, p := range cat.Playbooks {
			n++
			unique(p.Key, p.Title)
			if p.Key != "playbook/"+p.InvocationSlug || !slug.MatchString(p.InvocationSlug) {
				t.Errorf("%s: invocation slug %q", p.Key, p.InvocationSlug)
			}
			if !option(pb, "trigger", p.Trigger) || !option(pb, "scope", p.Scope) {
				t.Errorf("%s: trigger %q / scope %q not in the playbooks schema", p.Key, p.Trigger, p.Scope)
			}
			e, _ := model.FindLibraryEntry(p.Key, "")
			specs, err := model.ParseArgSpecs(e.Fields()["arguments"])
			if err != nil || len(specs) != len(p.Arguments) {
				t.Errorf("%s: arguments do not round-trip: %v", p.Key, err)
			}
			if model.PlaybookSummary(p.Content) == "" {
				t.Errorf("%s: no summary paragraph", p.Key)
			}
		}
	}
	if n < 5 {
		t.Errorf("%d playbooks, want at least 5", n)
	}
}

func TestFindLibraryEntry(t *testing.T) {
	byTitle, ok := model.FindLibraryEntry("", "Ask before destructive operations")
	if !ok || byTitle.Kind != model.KindConvention || byTitle.ConventionCopy()["enforcement"] != "must" {
		t.Fatalf("by title: %+v %v", byTitle, ok)
	}
	byKey, ok := model.FindLibraryEntry("playbook/ship", "")
	if !ok || byKey.Kind != model.KindPlaybook || byKey.Fields()["invocation_slug"] != "ship" || byKey.ConventionCopy() != nil {
		t.Fatalf("by key: %+v %v", byKey, ok)
	}
	if _, ok := model.FindLibraryEntry("", "No such thing"); ok {
		t.Fatal("found a missing title")
	}
	wantErr(t, model.LibraryNotFound("", "No such thing"), model.CodeNotFound, 404, map[string]any{"title": "No such thing"})
	if byKey.Hash() != byKey.Hash() || byKey.Hash() == byTitle.Hash() || len(byKey.Hash()) != 64 {
		t.Fatal("hash is not a stable per-entry sha256")
	}
}

func TestCollectionKind(t *testing.T) {
	for _, tmpl := range model.Templates() {
		for _, ct := range tmpl.Collections {
			c := &model.Collection{Slug: ct.Slug, Schema: ct.Schema}
			want := map[string]string{"conventions": model.KindConvention, "playbooks": model.KindPlaybook}[ct.Slug]
			if got := model.CollectionKind(c); got != want {
				t.Errorf("%s/%s: kind %q, want %q", tmpl.Name, ct.Slug, got, want)
			}
		}
	}
}
