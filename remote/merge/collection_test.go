package merge

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/padd/padd/model"
)

// baseTasks is the collection every collection scenario starts from.
func baseTasks() *Collection {
	return &Collection{
		Icon: "✓", Description: "Work",
		Schema: model.Schema{Fields: []model.FieldDef{
			{Key: "status", Label: "Status", Type: "select", Options: []string{"open", "in-progress", "done"},
				TerminalOptions: []string{"done"}, Default: "open", Required: true},
			{Key: "priority", Label: "Priority", Type: "select", Options: []string{"low", "high"}},
			{Key: "due", Label: "Due", Type: "date"},
		}},
		Settings: model.Settings{Layout: "fields-primary", DefaultView: "list"},
	}
}

// editTasks is a copy of baseTasks changed by f.
func editTasks(f func(c *Collection)) *Collection {
	c := clone(baseTasks())
	f(&c)
	return &c
}

// field is c's field key, for editing; the test fails on none.
func field(t *testing.T, c *Collection, key string) *model.FieldDef {
	t.Helper()
	for i := range c.Schema.Fields {
		if c.Schema.Fields[i].Key == key {
			return &c.Schema.Fields[i]
		}
	}
	t.Fatalf("no field %s", key)
	return nil
}

func TestMergeCollection(t *testing.T) {
	for _, tc := range []struct {
		name                string
		base, local, remote func(t *testing.T) *Collection
		// check reads the merged collection.
		check            func(t *testing.T, m *Collection)
		conflicts        []string // What/Key of each conflict
		writeLocal, push bool
	}{
		{name: "an option added here only is sent as it is, in its place",
			local: func(t *testing.T) *Collection {
				return editTasks(func(c *Collection) {
					field(t, c, "status").Options = []string{"open", "blocked", "in-progress", "done"}
				})
			},
			check: func(t *testing.T, m *Collection) {
				wantList(t, "status options", field(t, m, "status").Options, "open", "blocked", "in-progress", "done")
			},
			push: true},
		{name: "an option added on each side: both survive",
			local: func(t *testing.T) *Collection {
				return editTasks(func(c *Collection) {
					f := field(t, c, "status")
					f.Options = append(f.Options, "blocked")
				})
			},
			remote: func(t *testing.T) *Collection {
				return editTasks(func(c *Collection) {
					f := field(t, c, "status")
					f.Options = append(f.Options, "review")
				})
			},
			check: func(t *testing.T, m *Collection) {
				wantList(t, "status options", field(t, m, "status").Options, "open", "in-progress", "done", "review", "blocked")
			},
			writeLocal: true, push: true},
		{name: "a removal here applies where the remote kept the option; its addition survives",
			local: func(t *testing.T) *Collection {
				return editTasks(func(c *Collection) { field(t, c, "priority").Options = []string{"high"} })
			},
			remote: func(t *testing.T) *Collection {
				return editTasks(func(c *Collection) { field(t, c, "priority").Options = []string{"low", "high", "urgent"} })
			},
			check: func(t *testing.T, m *Collection) {
				wantList(t, "priority options", field(t, m, "priority").Options, "high", "urgent")
			},
			writeLocal: true, push: true},
		{name: "an option removed here that the remote made the default stays",
			local: func(t *testing.T) *Collection {
				return editTasks(func(c *Collection) {
					f := field(t, c, "priority")
					f.Options = []string{"high"}
					f.Label = "Urgency"
				})
			},
			remote: func(t *testing.T) *Collection {
				return editTasks(func(c *Collection) { field(t, c, "priority").Default = "low" })
			},
			check: func(t *testing.T, m *Collection) {
				f := field(t, m, "priority")
				wantList(t, "priority options", f.Options, "high", "low")
				if f.Default != "low" || f.Label != "Urgency" {
					t.Errorf("priority = %+v, want the remote's default and the local label", f)
				}
			},
			writeLocal: true, push: true},
		{name: "a field removed here that the remote changed stays as the remote has it",
			local: func(t *testing.T) *Collection {
				return editTasks(func(c *Collection) {
					c.Schema.Fields = slices.DeleteFunc(c.Schema.Fields, func(f model.FieldDef) bool { return f.Key == "due" })
					c.Description = "Work items"
				})
			},
			remote: func(t *testing.T) *Collection {
				return editTasks(func(c *Collection) { field(t, c, "due").Label = "Due date" })
			},
			check: func(t *testing.T, m *Collection) {
				if field(t, m, "due").Label != "Due date" || m.Description != "Work items" {
					t.Errorf("merged %+v", m)
				}
			},
			writeLocal: true, push: true},
		{name: "a field removed here that the remote left alone is removed",
			local: func(t *testing.T) *Collection {
				return editTasks(func(c *Collection) {
					c.Schema.Fields = slices.DeleteFunc(c.Schema.Fields, func(f model.FieldDef) bool { return f.Key == "due" })
				})
			},
			remote: func(t *testing.T) *Collection {
				return editTasks(func(c *Collection) { c.Settings.Layout = "balanced" })
			},
			check: func(t *testing.T, m *Collection) {
				if m.Schema.Declares("due") || m.Settings.Layout != "balanced" {
					t.Errorf("merged %+v", m)
				}
			},
			writeLocal: true, push: true},
		{name: "the same field added on both sides with different labels: the remote's, a conflict",
			local: func(t *testing.T) *Collection {
				return editTasks(func(c *Collection) {
					c.Schema.Fields = append(c.Schema.Fields, model.FieldDef{Key: "area", Label: "Area", Type: "select", Options: []string{"ui"}})
				})
			},
			remote: func(t *testing.T) *Collection {
				return editTasks(func(c *Collection) {
					c.Schema.Fields = append(c.Schema.Fields, model.FieldDef{Key: "area", Label: "Team area", Type: "select", Options: []string{"api"}})
				})
			},
			check: func(t *testing.T, m *Collection) {
				f := field(t, m, "area")
				if f.Label != "Team area" {
					t.Errorf("area label %q, want the remote's", f.Label)
				}
				wantList(t, "area options", f.Options, "api", "ui")
			},
			conflicts:  []string{"schema/area.label"},
			writeLocal: true, push: true},
		{name: "description and a setting changed differently on both sides: the remote's, conflicts",
			local: func(t *testing.T) *Collection {
				return editTasks(func(c *Collection) { c.Description, c.Settings.DefaultView = "Mine", "board" })
			},
			remote: func(t *testing.T) *Collection {
				return editTasks(func(c *Collection) { c.Description, c.Settings.DefaultView = "Theirs", "table" })
			},
			check: func(t *testing.T, m *Collection) {
				if m.Description != "Theirs" || m.Settings.DefaultView != "table" {
					t.Errorf("merged %+v", m)
				}
			},
			conflicts:  []string{"description/", "settings/default_view"},
			writeLocal: true},
		{name: "no base: nothing is removed, the local value wins a difference",
			base: func(t *testing.T) *Collection { return nil },
			local: func(t *testing.T) *Collection {
				return editTasks(func(c *Collection) {
					f := field(t, c, "status")
					f.Options = []string{"open", "blocked", "done"}
					f.Label = "State"
				})
			},
			remote: func(t *testing.T) *Collection {
				return editTasks(func(c *Collection) {
					f := field(t, c, "status")
					f.Options = append(f.Options, "review")
					c.Schema.Fields = append(c.Schema.Fields, model.FieldDef{Key: "area", Label: "Area", Type: "text"})
				})
			},
			check: func(t *testing.T, m *Collection) {
				f := field(t, m, "status")
				wantList(t, "status options", f.Options, "open", "in-progress", "done", "review", "blocked")
				if f.Label != "State" || !m.Schema.Declares("area") || !m.Schema.Declares("due") {
					t.Errorf("merged %+v", m)
				}
			},
			writeLocal: true, push: true},
		{name: "the remote changed alone: taken whole",
			remote: func(t *testing.T) *Collection {
				return editTasks(func(c *Collection) { field(t, c, "status").Options = []string{"done", "open"} })
			},
			check: func(t *testing.T, m *Collection) {
				wantList(t, "status options", field(t, m, "status").Options, "done", "open")
			},
			writeLocal: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			side := func(f func(*testing.T) *Collection) *Collection {
				if f == nil {
					return baseTasks()
				}
				return f(t)
			}
			base, local, remote := side(tc.base), side(tc.local), side(tc.remote)
			before := mustJSON(t, []any{base, local, remote})
			res := MergeCollection(base, local, remote)
			if after := mustJSON(t, []any{base, local, remote}); after != before {
				t.Errorf("the merge changed its inputs:\n%s\n%s", before, after)
			}
			tc.check(t, &res.Merged)
			var got []string
			for _, c := range res.Conflicts {
				got = append(got, c.What+"/"+c.Key)
			}
			if !slices.Equal(got, tc.conflicts) {
				t.Errorf("conflicts %v, want %v", got, tc.conflicts)
			}
			if res.WriteLocal != tc.writeLocal || res.Push != tc.push {
				t.Errorf("write local %v, push %v; want %v, %v", res.WriteLocal, res.Push, tc.writeLocal, tc.push)
			}
			if !res.WriteLocal && mustJSON(t, res.Merged) != mustJSON(t, local) {
				t.Errorf("nothing to write locally, but the merged one differs from the local")
			}
		})
	}
}

func wantList(t *testing.T, what string, got []string, want ...string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("%s = %q, want %q", what, got, want)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
