package storage

import (
	"bytes"
	"context"
	"reflect"
	"testing"

	"github.com/padd/padd/model"
	"github.com/padd/padd/storage/internal/records"
)

func mustRole(t testing.TB, s *Store, ws string, in RoleCreate) *model.Role {
	t.Helper()
	r, err := s.CreateRole(ws, in, user)
	if err != nil {
		t.Fatalf("create role %+v: %v", in, err)
	}
	return r
}

func roleSlugs(t testing.TB, s *Store, ws string) []string {
	t.Helper()
	list, err := rd(s).ListRoles(ws)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range list {
		out = append(out, r.Slug)
	}
	return out
}

func TestRoleCRUD(t *testing.T) {
	s, _ := openTest(t)
	ws := mustWorkspace(t, s, "Roles").Slug
	head := wsSeq(t, s, ws)
	impl := mustRole(t, s, ws, RoleCreate{Name: "Implementer", Icon: "🔨", Tools: "go,git", SortOrder: 2})
	if impl.Slug != "implementer" || impl.Seq != head+1 || impl.Tools != "go,git" {
		t.Fatalf("created %+v", impl)
	}
	if ch, act := lastLog(t, s, ws); ch.Entity != model.EntityRole || ch.Op != model.OpCreated || ch.ID != impl.ID || act.Action != "role_created" {
		t.Fatalf("logged %+v / %+v", ch, act)
	}
	mustRole(t, s, ws, RoleCreate{Name: "Planner", Slug: "The Planner!", SortOrder: 1})
	mustRole(t, s, ws, RoleCreate{Name: "Reviewer", SortOrder: 2})
	mustRole(t, s, ws, RoleCreate{Name: "Auditor", SortOrder: 2})
	second := mustRole(t, s, ws, RoleCreate{Name: "implementer"})
	if second.Slug != "implementer-2" {
		t.Fatalf("a derived slug takes a suffix: %q", second.Slug)
	}
	want := []string{"implementer-2", "the-planner", "auditor", "implementer", "reviewer"}
	if got := roleSlugs(t, s, ws); !reflect.DeepEqual(got, want) {
		t.Fatalf("order %v, want %v", got, want)
	}

	for _, ref := range []string{"implementer", impl.ID, " Implementer "} {
		r, err := rd(s).GetRole(ws, ref)
		if err != nil || r.ID != impl.ID {
			t.Fatalf("get %q: %+v %v", ref, r, err)
		}
	}

	up, err := s.UpdateRole(ws, "implementer", RoleUpdate{Slug: rolesPtr("Builder"), Name: rolesPtr("Builder"), SortOrder: rolesPtr(0)}, user)
	if err != nil || up.Slug != "builder" || up.Name != "Builder" || up.Icon != "🔨" || up.Seq != wsSeq(t, s, ws) {
		t.Fatalf("update %+v %v", up, err)
	}
	if _, act := lastLog(t, s, ws); act.Action != "role_updated" || act.Metadata["slug_from"] != "implementer" {
		t.Fatalf("update activity %+v", act)
	}
	if _, err := rd(s).GetRole(ws, "implementer"); !model.IsNotFound(err) {
		t.Fatalf("the old slug is free: %v", err)
	}
	if got := roleSlugs(t, s, ws)[0]; got != "builder" {
		t.Fatalf("re-sorted %v", got)
	}
	// The freed slug can be taken again, and an update that changes
	// nothing writes nothing.
	mustRole(t, s, ws, RoleCreate{Name: "New", Slug: "implementer"})
	head = wsSeq(t, s, ws)
	if r, err := s.UpdateRole(ws, "builder", RoleUpdate{Name: rolesPtr("Builder"), Icon: rolesPtr("🔨")}, user); err != nil || r.Seq != up.Seq || wsSeq(t, s, ws) != head {
		t.Fatalf("no-op update: %+v %v", r, err)
	}

	for _, tc := range []struct {
		name   string
		code   string
		detail string
		want   any
		write  func() error
	}{
		{"create without name", model.CodeBadRequest, "field", "name", func() error {
			_, err := s.CreateRole(ws, RoleCreate{Name: "  "}, user)
			return err
		}},
		{"create with taken slug", model.CodeConflict, "slug", "reviewer", func() error {
			_, err := s.CreateRole(ws, RoleCreate{Name: "Other", Slug: "Reviewer"}, user)
			return err
		}},
		{"create with an empty canonical slug", model.CodeBadRequest, "field", "slug", func() error {
			_, err := s.CreateRole(ws, RoleCreate{Name: "Other", Slug: "!!"}, user)
			return err
		}},
		{"update to a taken slug", model.CodeConflict, "slug", "reviewer", func() error {
			_, err := s.UpdateRole(ws, "builder", RoleUpdate{Slug: rolesPtr("reviewer")}, user)
			return err
		}},
		{"update to an empty name", model.CodeBadRequest, "field", "name", func() error {
			_, err := s.UpdateRole(ws, "builder", RoleUpdate{Name: rolesPtr("")}, user)
			return err
		}},
		{"update unknown", model.CodeNotFound, "role", "nobody", func() error {
			_, err := s.UpdateRole(ws, "nobody", RoleUpdate{Name: rolesPtr("x")}, user)
			return err
		}},
		{"delete unknown", model.CodeNotFound, "role", "nobody", func() error {
			_, err := s.DeleteRole(ws, "nobody", user)
			return err
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := refused(t, s, ws, tc.code, tc.write)
			if e.Details[tc.detail] != tc.want {
				t.Fatalf("details %v, want %s=%v", e.Details, tc.detail, tc.want)
			}
		})
	}
}

func TestDeleteRoleClearsAssignments(t *testing.T) {
	s, _ := openTest(t)
	ws := mustWorkspace(t, s, "Assign").Slug
	planner := mustRole(t, s, ws, RoleCreate{Name: "Planner"})
	mustRole(t, s, ws, RoleCreate{Name: "Reviewer"})
	create := func(title, role string) *ItemView {
		t.Helper()
		r, err := s.CreateItem(ws, ItemCreate{Collection: "tasks", Title: title, Role: role, Content: "body of " + title}, user)
		if err != nil {
			t.Fatal(err)
		}
		return r.Item
	}
	a := create("A", "planner")
	b := create("B", "planner")
	c := create("C", "reviewer")
	if _, err := s.DeleteItem(ws, b.Ref, user); err != nil {
		t.Fatal(err)
	}
	byRole := func(role string, archived bool) []string {
		t.Helper()
		res, err := rd(s).ListItems(context.Background(), ws, ListParams{Role: role, IncludeArchived: archived})
		if err != nil {
			t.Fatal(err)
		}
		return refs(res.Items)
	}
	if got := byRole("planner", true); len(got) != 2 {
		t.Fatalf("planner items %v", got)
	}
	if ri, _ := rd(s).GetRole(ws, "planner"); ri.ItemCount != 1 {
		t.Fatalf("live item count %d", ri.ItemCount)
	}

	head := wsSeq(t, s, ws)
	d, err := s.DeleteRole(ws, "planner", user)
	if err != nil || len(d.Cleared) != 2 || d.Role.ID != planner.ID {
		t.Fatalf("delete: %+v %v", d, err)
	}
	// One stamp for the role, one per cleared item, so change-log
	// followers see each item change.
	if got := wsSeq(t, s, ws); got != head+3 {
		t.Fatalf("role + 2 items: head %d -> %d", head, got)
	}
	changes, _, err := rd(s).ChangesSince(context.Background(), ws, head, 10)
	if err != nil || len(changes) != 3 || changes[0].Entity != model.EntityRole || changes[0].Op != model.OpDeleted {
		t.Fatalf("logged %+v %v", changes, err)
	}
	itemSeqs := map[string]int64{changes[1].ItemID: changes[1].Seq, changes[2].ItemID: changes[2].Seq}
	for _, it := range []*ItemView{a, b} {
		got, err := rd(s).GetItem(ws, it.ID)
		if err != nil || got.AgentRoleID != "" || got.Seq != itemSeqs[it.ID] || !got.UpdatedAt.Equal(it.UpdatedAt) || got.Content != "body of "+it.Title {
			t.Fatalf("%s after delete: %+v %v", it.Ref, got, err)
		}
	}
	// No index entry or count is left under the deleted role.
	err = s.base.Read(ws, func(r *records.Rtx) error {
		for _, life := range []byte{records.LifeLive, records.LifeArchived} {
			p := records.RoleStream(planner.ID, life)
			if k, _ := r.WS.Index().Cursor().Seek(p); k != nil && bytes.HasPrefix(k, p) {
				t.Errorf("index entry left: %q", k)
			}
			if n := records.CountOf(r.WS, p); n != 0 {
				t.Errorf("count left: %d", n)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rd(s).ListItems(context.Background(), ws, ListParams{Role: "planner"}); !model.IsCode(err, model.CodeValidation) {
		t.Fatalf("the role is gone: %v", err)
	}
	if got := byRole("reviewer", true); !reflect.DeepEqual(got, []string{c.Ref}) {
		t.Fatalf("other roles keep their items: %v", got)
	}
	// The slug is free again, and a new role of that name has no items.
	again := mustRole(t, s, ws, RoleCreate{Name: "Planner"})
	if again.Slug != "planner" || len(byRole("planner", true)) != 0 {
		t.Fatalf("recreated %+v with %v", again, byRole("planner", true))
	}
}

func rolesPtr[T any](v T) *T { return &v }
