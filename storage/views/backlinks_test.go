package views

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/padd/padd/storage"
)

func TestWikiLinks(t *testing.T) {
	for _, tc := range []struct {
		name string
		body string
		want []string // key, or key|display
	}{
		{"plain", "see [[TASK-1]] and [[Login page|the page]]", []string{"TASK-1", "Login page|the page"}},
		{"escapes", `[[a\]b\|c|d\|e]] [[x\|y]]`, []string{"a]b|c|d|e", "x|y"}},
		{"empty display", "[[TASK-1|]]", []string{"TASK-1|"}},
		{"inline code", "`[[TASK-1]]` and ``x ` [[TASK-2]]`` but [[TASK-3]]", []string{"TASK-3"}},
		{"unclosed backticks are text", "a ` b [[TASK-1]]", []string{"TASK-1"}},
		{"code span stops at a blank line", "`a\n\n[[TASK-1]]`", []string{"TASK-1"}},
		{"fenced", "x\n```go\n[[TASK-1]]\n```\n[[TASK-2]]", []string{"TASK-2"}},
		{"tilde fence, longer closer", "~~~\n[[TASK-1]]\n~~~~\n[[TASK-2]]", []string{"TASK-2"}},
		{"a shorter line does not close", "````\n```\n[[TASK-1]]\n````\n[[TASK-2]]", []string{"TASK-2"}},
		{"unclosed fence runs to the end", "[[TASK-1]]\n```\n[[TASK-2]]", []string{"TASK-1"}},
		{"four spaces is no fence", "    ```\n[[TASK-1]]", []string{"TASK-1"}},
		{"backtick in the info string", "``` a`b\n[[TASK-1]]", []string{"TASK-1"}},
		{"nothing", "[[]] [ [TASK-1]]", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, l := range wikiLinks(tc.body) {
				k := l.key
				if l.hasDisplay {
					k += "|" + l.display
				}
				got = append(got, k)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestSnippetAt(t *testing.T) {
	long := strings.Repeat("é", 40) + "[[TASK-1]]" + strings.Repeat("x\n", 30)
	got := snippetAt(long, len(strings.Repeat("é", 40)))
	if !strings.HasPrefix(got, "…é") || !strings.HasSuffix(got, "…") || strings.Contains(got, "\n") || !strings.Contains(got, "[[TASK-1]]") {
		t.Fatalf("snippet %q", got)
	}
	if got := snippetAt("see [[TASK-1]]", 4); got != "see [[TASK-1]]" {
		t.Fatalf("short body %q", got)
	}
}

func TestBacklinks(t *testing.T) {
	s, clk := openTest(t)
	ws := mustWorkspace(t, s, "Wiki")
	body := func(title, content, parent string) *storage.ItemView {
		t.Helper()
		clk.advance(time.Second)
		r, err := s.CreateItem(ws.Slug, storage.ItemCreate{Collection: "tasks", Title: title, Content: content, Parent: parent}, user)
		if err != nil {
			t.Fatal(err)
		}
		return r.Item
	}
	target := body("Login page", "I mention myself: [[TASK-1]]", "")
	plan, err := s.CreateItem(ws.Slug, storage.ItemCreate{Collection: "plans", Title: "Plan", Content: "covers [[TASK-1]]"}, user)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.UpdateItem(ws.Slug, target.Ref, storage.ItemUpdate{Parent: &plan.Item.Ref}, user); err != nil {
		t.Fatal(err)
	}
	byRef := body("By ref", "first [[task-1]] then [[TASK-1|the login]]", "")
	byTitle := body("By title", "see [[login page]] and [[tasks/Login Page]] and [[ideas/Login page]]", "")
	body("In code", "`[[TASK-1]]`\n```\n[[TASK-1]]\n```", "")
	body("Child", "my parent is [[TASK-1]]", target.Ref)
	implementer := body("Implementer", "implements [[TASK-1]]", "")
	mustLink(t, s, ws.Slug, implementer.Ref, target.Ref, "implements")
	gone := body("Archived", "[[TASK-1]]", "")
	if _, err := s.DeleteItem(ws.Slug, gone.Ref, user); err != nil {
		t.Fatal(err)
	}
	qualified := body("Qualified", "[["+ws.Slug+"::TASK-1]] [[elsewhere::TASK-1]] [[TASK-99]]", "")
	body("Other", "[[TASK-2]] [[Nothing]]", "")

	page, err := Of(s).Backlinks(ws.Slug, target.Ref, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		Ref     string
		Display string
	}
	var got []row
	for _, bl := range page.Backlinks {
		d := "-"
		if bl.DisplayText != nil {
			d = *bl.DisplayText
		}
		got = append(got, row{bl.Source.Ref, d})
	}
	// Newest source first, then by position in the body.
	want := []row{{qualified.Ref, "-"}, {byTitle.Ref, "-"}, {byTitle.Ref, "-"}, {byRef.Ref, "-"}, {byRef.Ref, "the login"}}
	if !reflect.DeepEqual(got, want) || page.HasMore {
		t.Fatalf("backlinks %v (has_more %v), want %v", got, page.HasMore, want)
	}
	if sn := page.Backlinks[3].Snippet; sn != "first [[task-1]] then [[TASK-1|the login]]" {
		t.Fatalf("snippet %q", sn)
	}
	if src := page.Backlinks[0].Source; src.Title != "Qualified" || src.CollectionSlug != "tasks" || src.UpdatedAt == "" {
		t.Fatalf("source %+v", src)
	}

	page, err = Of(s).Backlinks(ws.Slug, target.ID, 2, 2)
	if err != nil || len(page.Backlinks) != 2 || !page.HasMore || page.NextOffset != 4 || page.Backlinks[0].Source.Ref != byTitle.Ref {
		t.Fatalf("paged %+v %v", page, err)
	}
	// A ref that names no item reads as a title.
	odd := body("TASK-77", "", "")
	page, _ = Of(s).Backlinks(ws.Slug, odd.Ref, 0, 0)
	if len(page.Backlinks) != 0 {
		t.Fatalf("nothing mentions %s yet: %+v", odd.Ref, page.Backlinks)
	}
	fallback := body("Fallback", "[[TASK-77]]", "")
	page, _ = Of(s).Backlinks(ws.Slug, odd.Ref, 0, 0)
	if len(page.Backlinks) != 1 || page.Backlinks[0].Source.ID != fallback.ID {
		t.Fatalf("title fallback %+v", page.Backlinks)
	}
}
