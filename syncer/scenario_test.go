package syncer_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/padd/padd/api"
	"github.com/padd/padd/internal/testremote"
	"github.com/padd/padd/internal/testwait"
	"github.com/padd/padd/model"
	"github.com/padd/padd/remote"
	"github.com/padd/padd/storage"
	"github.com/padd/padd/storage/views"
)

// The scenario table of docs/SYNC.md: each scenario edits one item (or
// makes one) on both sides while they do not exchange, then lets them
// sync and checks that both sides hold the expected item and that the
// expected conflicts were recorded. Each runs both ways round: side A is
// padd and B the remote, then A the remote and B padd.

// state is an item as a test compares it on either side.
type state struct {
	Title, Content, Coll string
	Fields               map[string]any
	Tags                 []string
	Archived             bool
	Comments             []string
	Reactions            []string // "comment body:emoji", sorted
	Links                []string // "type:title of the other end", outgoing
	Starred              bool
	Parent               string // the parent's title: a parent, never an item it implements
}

// side is one end of the sync, driven as a user (or agent) would.
type side interface {
	name() string
	create(t *testing.T, coll, title, content string) string
	update(t *testing.T, ref string, title, content *string, fields map[string]any)
	comment(t *testing.T, ref, body string)
	move(t *testing.T, ref, coll string)
	archive(t *testing.T, ref string)
	link(t *testing.T, from, to string)
	// implement makes from implement to (by ref or id); setParent makes
	// parent (by ref or id) child's parent.
	implement(t *testing.T, from, to string)
	setParent(t *testing.T, child, parent string)
	editComment(t *testing.T, ref, from, to string)
	react(t *testing.T, ref, comment, emoji string, on bool)
	star(t *testing.T, ref string, on bool)
	note(t *testing.T, ref, summary string)
	decide(t *testing.T, ref, decision string)
	get(t *testing.T, ref string) (state, error)
	find(t *testing.T, title string) string // the ref of the item with that title
}

func strp(s string) *string { return &s }

// --- padd's side ---------------------------------------------------------

type localSide struct {
	s  *storage.Store
	ws string
}

func (l *localSide) name() string { return "padd" }

func (l *localSide) create(t *testing.T, coll, title, content string) string {
	res, err := l.s.CreateItem(l.ws, storage.ItemCreate{Collection: coll, Title: title, Content: content}, user)
	if err != nil {
		t.Fatal(err)
	}
	return res.Item.Ref
}

func (l *localSide) update(t *testing.T, ref string, title, content *string, fields map[string]any) {
	if _, err := l.s.UpdateItem(l.ws, ref, storage.ItemUpdate{Title: title, Content: content, FieldsPatch: fields}, user); err != nil {
		t.Fatal(err)
	}
}

func (l *localSide) comment(t *testing.T, ref, body string) {
	if _, err := l.s.AddComment(l.ws, ref, storage.CommentCreate{Body: body}, user); err != nil {
		t.Fatal(err)
	}
}

func (l *localSide) move(t *testing.T, ref, coll string) {
	if _, err := l.s.MoveItem(l.ws, ref, storage.MoveInput{Target: coll}, user); err != nil {
		t.Fatal(err)
	}
}

func (l *localSide) archive(t *testing.T, ref string) {
	if _, err := l.s.DeleteItem(l.ws, ref, user); err != nil {
		t.Fatal(err)
	}
}

func (l *localSide) link(t *testing.T, from, to string) {
	if _, err := l.s.AddLink(l.ws, from, to, model.LinkBlocks, user); err != nil {
		t.Fatal(err)
	}
}

func (l *localSide) implement(t *testing.T, from, to string) {
	if _, err := l.s.AddLink(l.ws, from, to, model.LinkImplements, user); err != nil {
		t.Fatal(err)
	}
}

func (l *localSide) setParent(t *testing.T, child, parent string) {
	if _, err := l.s.UpdateItem(l.ws, child, storage.ItemUpdate{Parent: &parent}, user); err != nil {
		t.Fatal(err)
	}
}

func (l *localSide) editComment(t *testing.T, ref, from, to string) {
	cs, err := views.Of(l.s).ListComments(l.ws, ref)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cs {
		if c.Body == from {
			if _, err := l.s.EditComment(l.ws, ref, c.ID, to, user); err != nil {
				t.Fatal(err)
			}
			return
		}
	}
	t.Fatalf("padd has no comment %q on %s", from, ref)
}

func (l *localSide) react(t *testing.T, ref, comment, emoji string, on bool) {
	cs, err := views.Of(l.s).ListComments(l.ws, ref)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cs {
		if c.Body == comment {
			if on {
				_, err = l.s.AddReaction(l.ws, c.ID, emoji, user)
			} else {
				_, err = l.s.RemoveReaction(l.ws, c.ID, emoji, user)
			}
			if err != nil {
				t.Fatal(err)
			}
			return
		}
	}
	t.Fatalf("padd has no comment %q on %s", comment, ref)
}

func (l *localSide) star(t *testing.T, ref string, on bool) {
	set := l.s.Star
	if !on {
		set = l.s.Unstar
	}
	if _, err := set(l.ws, ref, user); err != nil {
		t.Fatal(err)
	}
}

func (l *localSide) note(t *testing.T, ref, summary string) {
	if _, err := l.s.UpdateItem(l.ws, ref, storage.ItemUpdate{AppendNote: &storage.Note{Summary: summary}}, user); err != nil {
		t.Fatal(err)
	}
}

func (l *localSide) decide(t *testing.T, ref, decision string) {
	if _, err := l.s.UpdateItem(l.ws, ref, storage.ItemUpdate{AppendDecision: &storage.Decision{Decision: decision}}, user); err != nil {
		t.Fatal(err)
	}
}

func (l *localSide) get(t *testing.T, ref string) (state, error) {
	v, err := views.Of(l.s).GetItem(l.ws, ref)
	if err != nil {
		return state{}, err
	}
	st := state{Title: v.Title, Content: v.Content, Coll: v.Collection.Slug, Fields: roundTrip(v.Fields), Tags: sorted(v.Tags), Archived: v.DeletedAt != nil}
	if v.ParentID != "" {
		p, err := views.Of(l.s).GetItem(l.ws, v.ParentID)
		if err != nil {
			return st, err
		}
		st.Parent = p.Title
	}
	if st.Starred, err = views.Of(l.s).IsStarred(l.ws, v.ID); err != nil {
		return st, err
	}
	cs, err := views.Of(l.s).ListComments(l.ws, v.ID)
	if err != nil {
		return st, err
	}
	for _, c := range cs {
		if c.DeletedAt == nil {
			st.Comments = append(st.Comments, c.Body)
			for _, r := range c.Reactions {
				st.Reactions = append(st.Reactions, c.Body+":"+r.Emoji)
			}
		}
	}
	ls, err := views.Of(l.s).ListLinks(l.ws, v.ID)
	if err != nil {
		return st, err
	}
	for _, lv := range ls {
		if lv.Link.SourceID == v.ID {
			st.Links = append(st.Links, lv.Link.Type+":"+lv.Other.Title)
		}
	}
	slices.Sort(st.Links)
	st.Reactions = sorted(st.Reactions)
	return st, nil
}

func (l *localSide) find(t *testing.T, title string) string {
	idx, err := views.Of(l.s).ItemsIndex(t.Context(), l.ws, "", true)
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range idx.Items {
		if it.Title == title {
			return it.ID
		}
	}
	return ""
}

// --- the remote's side ---------------------------------------------------

type remoteSide struct {
	c  *api.Client
	ws string
	// ids are the items made here, by the ref they had: Pad resolves a
	// ref no more once its item moved, its id always.
	ids map[string]string
	// archivedHidesLinks: the server lists no link of an archived item
	// (Pad does), so an archived item's links are not compared.
	archivedHidesLinks bool
	// appends: the server takes append_implementation_note and
	// append_decision (item_field_append); without, a note or decision
	// is written as Pad's own clients write one.
	appends bool
}

// key names the item that had ref as this side can still find it.
func (r *remoteSide) key(ref string) string {
	if id, ok := r.ids[ref]; ok {
		return id
	}
	return ref
}

func (r *remoteSide) name() string { return "remote" }

func (r *remoteSide) create(t *testing.T, coll, title, content string) string {
	it, err := r.c.CreateItem(context.Background(), r.ws, coll, api.ItemCreate{Title: title, Content: content})
	if err != nil {
		t.Fatal(err)
	}
	if r.ids == nil {
		r.ids = map[string]string{}
	}
	r.ids[it.Ref] = it.ID
	return it.Ref
}

func (r *remoteSide) update(t *testing.T, ref string, title, content *string, fields map[string]any) {
	u := api.ItemUpdate{Title: title, Content: content}
	if fields != nil {
		b, _ := json.Marshal(fields)
		u.FieldsPatch = api.Flex(b)
	}
	if _, err := r.c.UpdateItem(context.Background(), r.ws, r.key(ref), u); err != nil {
		t.Fatal(err)
	}
}

func (r *remoteSide) comment(t *testing.T, ref, body string) {
	if _, err := r.c.AddComment(context.Background(), r.ws, r.key(ref), api.CommentCreate{Body: body}); err != nil {
		t.Fatal(err)
	}
}

func (r *remoteSide) move(t *testing.T, ref, coll string) {
	if _, err := r.c.MoveItem(context.Background(), r.ws, r.key(ref), api.ItemMove{TargetCollection: coll}); err != nil {
		t.Fatal(err)
	}
}

func (r *remoteSide) archive(t *testing.T, ref string) {
	if err := r.c.DeleteItem(context.Background(), r.ws, r.key(ref)); err != nil {
		t.Fatal(err)
	}
}

func (r *remoteSide) link(t *testing.T, from, to string) {
	target, err := r.c.GetItem(context.Background(), r.ws, r.key(to))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.c.AddLink(context.Background(), r.ws, r.key(from), api.ItemLinkCreate{TargetID: target.ID, LinkType: model.LinkBlocks}); err != nil {
		t.Fatal(err)
	}
}

func (r *remoteSide) implement(t *testing.T, from, to string) {
	target, err := r.c.GetItem(context.Background(), r.ws, r.key(to))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.c.AddLink(context.Background(), r.ws, r.key(from), api.ItemLinkCreate{TargetID: target.ID, LinkType: model.LinkImplements}); err != nil {
		t.Fatal(err)
	}
}

// setParent writes the parent as Pad's clients do: fields_patch.parent.
func (r *remoteSide) setParent(t *testing.T, child, parent string) {
	p, err := r.c.GetItem(context.Background(), r.ws, r.key(parent))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(map[string]any{"parent": p.ID})
	if _, err := r.c.UpdateItem(context.Background(), r.ws, r.key(child), api.ItemUpdate{FieldsPatch: api.Flex(b)}); err != nil {
		t.Fatal(err)
	}
}

func (r *remoteSide) editComment(t *testing.T, ref, from, to string) {
	cs, err := r.c.ListComments(context.Background(), r.ws, r.key(ref))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cs {
		if c.Body == from {
			if _, err := r.c.Do(context.Background(), "PATCH", "/workspaces/"+r.ws+"/comments/"+c.ID, nil, api.CommentEdit{Body: &to}, nil); err != nil {
				t.Fatal(err)
			}
			return
		}
	}
	t.Fatalf("the remote has no comment %q on %s", from, ref)
}

func (r *remoteSide) react(t *testing.T, ref, comment, emoji string, on bool) {
	ctx := context.Background()
	cs, err := r.c.ListComments(ctx, r.ws, r.key(ref))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cs {
		if c.Body == comment {
			if on {
				_, err = r.c.AddReaction(ctx, r.ws, c.ID, emoji)
			} else {
				err = r.c.RemoveReaction(ctx, r.ws, c.ID, emoji)
			}
			if err != nil {
				t.Fatal(err)
			}
			return
		}
	}
	t.Fatalf("the remote has no comment %q on %s", comment, ref)
}

func (r *remoteSide) star(t *testing.T, ref string, on bool) {
	set := r.c.Star
	if !on {
		set = r.c.Unstar
	}
	if _, err := set(context.Background(), r.ws, r.key(ref)); err != nil {
		t.Fatal(err)
	}
}

func (r *remoteSide) note(t *testing.T, ref, summary string) {
	r.appendEntry(t, ref, model.FieldImplementationNotes, api.ItemUpdate{AppendImplementationNote: &api.NoteEntry{Summary: summary}},
		map[string]any{"summary": summary})
}

func (r *remoteSide) decide(t *testing.T, ref, decision string) {
	r.appendEntry(t, ref, model.FieldDecisionLog, api.ItemUpdate{AppendDecision: &api.DecisionEntry{Decision: decision}},
		map[string]any{"decision": decision})
}

// appendEntry appends an entry as a client of the server would: the
// append where it takes one, else (Pad's `pad item note`) the item read
// and its whole fields written back with the entry added.
func (r *remoteSide) appendEntry(t *testing.T, ref, key string, appendReq api.ItemUpdate, entry map[string]any) {
	ctx := context.Background()
	if r.appends {
		if _, err := r.c.UpdateItem(ctx, r.ws, r.key(ref), appendReq); err != nil {
			t.Fatal(err)
		}
		return
	}
	it, err := r.c.GetItem(ctx, r.ws, r.key(ref))
	if err != nil {
		t.Fatal(err)
	}
	fields, err := api.DecodeObject(it.Fields)
	if err != nil {
		t.Fatal(err)
	}
	list, _ := fields[key].([]any)
	entry["id"] = fmt.Sprintf("entry-%d", time.Now().UnixNano())
	entry["created_at"] = time.Now().UTC().Format(time.RFC3339)
	entry["created_by"] = model.ActorUser
	fields[key] = slices.Concat(list, []any{entry})
	if _, err := r.c.UpdateItem(ctx, r.ws, r.key(ref), api.ItemUpdate{Fields: api.FlexOf(fields),
		ExpectedUpdatedAt: it.UpdatedAt.UTC().Format(time.RFC3339)}); err != nil {
		t.Fatal(err)
	}
}

func (r *remoteSide) get(t *testing.T, ref string) (state, error) {
	ctx := context.Background()
	it, err := r.c.GetItem(ctx, r.ws, r.key(ref))
	if err != nil {
		return state{}, err
	}
	fields, err := api.DecodeObject(it.Fields)
	if err != nil {
		return state{}, err
	}
	var tags []string
	_ = json.Unmarshal([]byte(it.Tags), &tags)
	st := state{Title: it.Title, Content: it.Content, Coll: it.CollectionSlug, Fields: roundTrip(fields), Tags: sorted(tags), Archived: it.DeletedAt != nil}
	var star api.StarState
	if _, err := r.c.Do(ctx, "GET", "/workspaces/"+r.ws+"/items/"+it.ID+"/star", nil, nil, &star); err != nil {
		return st, err
	}
	st.Starred = star.Starred
	cs, err := r.c.ListComments(ctx, r.ws, it.ID)
	if err != nil {
		return st, err
	}
	for _, c := range cs {
		if !c.Deleted {
			st.Comments = append(st.Comments, c.Body)
			for _, r := range c.Reactions {
				st.Reactions = append(st.Reactions, c.Body+":"+r.Emoji)
			}
		}
	}
	ls, err := r.c.ListLinks(ctx, r.ws, it.ID)
	if err != nil {
		return st, err
	}
	// The parent as the server holds it, not as its item answer names
	// it (Pad names an item the item implements there too): Pad's
	// parent link, else padd's parent_id.
	for _, l := range ls {
		switch {
		case l.SourceID != it.ID:
		case l.LinkType == model.LinkParent:
			st.Parent = l.TargetTitle
		default:
			st.Links = append(st.Links, l.LinkType+":"+l.TargetTitle)
		}
	}
	if it.ParentID != nil && *it.ParentID != "" && st.Parent == "" {
		st.Parent = it.ParentTitle
	}
	slices.Sort(st.Links)
	st.Reactions = sorted(st.Reactions)
	return st, nil
}

// comparable is st as both sides can be compared: without the links of
// an archived item where the server does not list them.
func (r *remoteSide) comparable(st state) state {
	if r.archivedHidesLinks && st.Archived {
		st.Links = nil
	}
	return st
}

func (r *remoteSide) find(t *testing.T, title string) string {
	items, _, err := r.c.ListItems(context.Background(), r.ws, "", api.ItemQuery{})
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range items {
		if it.Title == title {
			return it.ID
		}
	}
	return ""
}

// entryTexts are the member text of the entries of list key.
func entryTexts(st state, key, text string) []string {
	list, _ := st.Fields[key].([]any)
	var out []string
	for _, e := range list {
		m, _ := e.(map[string]any)
		s, _ := m[text].(string)
		out = append(out, s)
	}
	return out
}

func roundTrip(m map[string]any) map[string]any {
	b, _ := json.Marshal(m)
	var out map[string]any
	_ = json.Unmarshal(b, &out)
	return out
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	if len(s) == 0 {
		return nil
	}
	return s
}

// --- the table ------------------------------------------------------------

type scenario struct {
	name string
	// a and b edit the item ref (made on the remote and synced before);
	// either may be nil.
	a, b func(t *testing.T, s side, ref string)
	// setup, when set, is done on the remote before the sides part
	// (and has reached padd when they do).
	setup func(t *testing.T, s side, ref string)
	// check looks at the synced item (the same on both sides); remoteIsB
	// says which side won a conflict.
	check func(t *testing.T, got state, remoteIsB bool)
	// conflicts is how many conflicts padd must record; conflictsIf,
	// when set, says it for the case (remoteIsB: B is the remote).
	conflicts   int
	conflictsIf func(remoteIsB bool) int
	// made, when set, names the title of an item a side created: the
	// check then compares that one.
	made string
}

const body = "one\ntwo\nthree\nfour\nfive\n"

func wantEq[T any](t *testing.T, what string, got, want T) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s = %#v, want %#v", what, got, want)
	}
}

var scenarios = []scenario{
	{name: "offline create", made: "Made offline",
		a: func(t *testing.T, s side, _ string) { s.create(t, "tasks", "Made offline", "body\n") },
		check: func(t *testing.T, got state, _ bool) {
			wantEq(t, "content", got.Content, "body\n")
		}},
	{name: "offline update",
		a: func(t *testing.T, s side, ref string) {
			s.update(t, ref, strp("Renamed"), nil, map[string]any{"priority": "high"})
		},
		check: func(t *testing.T, got state, _ bool) {
			wantEq(t, "title", got.Title, "Renamed")
			wantEq(t, "priority", got.Fields["priority"], any("high"))
		}},
	{name: "offline comment",
		a: func(t *testing.T, s side, ref string) { s.comment(t, ref, "said while offline") },
		check: func(t *testing.T, got state, _ bool) {
			wantEq(t, "comments", got.Comments, []string{"said while offline"})
		}},
	{name: "offline move",
		a:     func(t *testing.T, s side, ref string) { s.move(t, ref, "ideas") },
		check: func(t *testing.T, got state, _ bool) { wantEq(t, "collection", got.Coll, "ideas") }},
	{name: "offline archive",
		a:     func(t *testing.T, s side, ref string) { s.archive(t, ref) },
		check: func(t *testing.T, got state, _ bool) { wantEq(t, "archived", got.Archived, true) }},
	{name: "offline link",
		a:     func(t *testing.T, s side, ref string) { s.link(t, ref, "TASK-1") },
		check: func(t *testing.T, got state, _ bool) { wantEq(t, "links", got.Links, []string{"blocks:Anchor"}) }},
	{name: "disjoint field edits",
		a: func(t *testing.T, s side, ref string) { s.update(t, ref, nil, nil, map[string]any{"priority": "low"}) },
		b: func(t *testing.T, s side, ref string) {
			s.update(t, ref, nil, nil, map[string]any{"status": "in-progress"})
		},
		check: func(t *testing.T, got state, _ bool) {
			wantEq(t, "priority", got.Fields["priority"], any("low"))
			wantEq(t, "status", got.Fields["status"], any("in-progress"))
		}},
	{name: "same field both sides", conflicts: 1,
		a: func(t *testing.T, s side, ref string) { s.update(t, ref, nil, nil, map[string]any{"priority": "low"}) },
		b: func(t *testing.T, s side, ref string) { s.update(t, ref, nil, nil, map[string]any{"priority": "high"}) },
		check: func(t *testing.T, got state, remoteIsB bool) {
			want := "low" // the remote's value wins
			if remoteIsB {
				want = "high"
			}
			wantEq(t, "priority", got.Fields["priority"], any(want))
		}},
	{name: "content, different lines",
		a: func(t *testing.T, s side, ref string) {
			s.update(t, ref, nil, strp("ONE\ntwo\nthree\nfour\nfive\n"), nil)
		},
		b: func(t *testing.T, s side, ref string) {
			s.update(t, ref, nil, strp("one\ntwo\nthree\nfour\nFIVE\n"), nil)
		},
		check: func(t *testing.T, got state, _ bool) {
			wantEq(t, "content", got.Content, "ONE\ntwo\nthree\nfour\nFIVE\n")
		}},
	{name: "content, same line", conflicts: 1,
		a: func(t *testing.T, s side, ref string) {
			s.update(t, ref, nil, strp("one\ntwo\nTHREE (a)\nfour\nfive\n"), nil)
		},
		b: func(t *testing.T, s side, ref string) {
			s.update(t, ref, nil, strp("one\ntwo\nTHREE (b)\nfour\nfive\n"), nil)
		},
		check: func(t *testing.T, got state, remoteIsB bool) {
			want := "(a)"
			if remoteIsB {
				want = "(b)"
			}
			if !strings.Contains(got.Content, "THREE "+want) {
				t.Errorf("content = %q, want the remote's line %s", got.Content, want)
			}
		}},
	{name: "archive against edit", conflicts: 1,
		a: func(t *testing.T, s side, ref string) { s.archive(t, ref) },
		b: func(t *testing.T, s side, ref string) { s.update(t, ref, strp("Edited meanwhile"), nil, nil) },
		check: func(t *testing.T, got state, _ bool) {
			wantEq(t, "archived", got.Archived, false)
			wantEq(t, "title", got.Title, "Edited meanwhile")
		}},
	// Pad takes no comment or link on an archived item, so padd's comment
	// or link on an item the remote archived keeps it alive there, as an
	// edit does; the remote's on an item archived here lands on the
	// archived item, and the archive is pushed.
	{name: "archive against comment", conflictsIf: padKeepsItAlive,
		a: func(t *testing.T, s side, ref string) { s.archive(t, ref) },
		b: func(t *testing.T, s side, ref string) { s.comment(t, ref, "said meanwhile") },
		check: func(t *testing.T, got state, remoteIsB bool) {
			wantEq(t, "archived", got.Archived, remoteIsB)
			wantEq(t, "comments", got.Comments, []string{"said meanwhile"})
		}},
	{name: "archive against link", conflictsIf: padKeepsItAlive,
		a: func(t *testing.T, s side, ref string) { s.archive(t, ref) },
		b: func(t *testing.T, s side, ref string) { s.link(t, ref, "TASK-1") },
		check: func(t *testing.T, got state, remoteIsB bool) {
			wantEq(t, "archived", got.Archived, remoteIsB)
			wantEq(t, "links", got.Links, []string{"blocks:Anchor"})
		}},
	{name: "comment edited on one side",
		setup: func(t *testing.T, s side, ref string) { s.comment(t, ref, "first words") },
		a:     func(t *testing.T, s side, ref string) { s.editComment(t, ref, "first words", "better words") },
		check: func(t *testing.T, got state, _ bool) { wantEq(t, "comments", got.Comments, []string{"better words"}) }},
	{name: "comment edited on both sides", conflicts: 1,
		setup: func(t *testing.T, s side, ref string) { s.comment(t, ref, "first words") },
		a:     func(t *testing.T, s side, ref string) { s.editComment(t, ref, "first words", "words of A") },
		b:     func(t *testing.T, s side, ref string) { s.editComment(t, ref, "first words", "words of B") },
		check: func(t *testing.T, got state, remoteIsB bool) {
			want := "words of A"
			if remoteIsB {
				want = "words of B"
			}
			wantEq(t, "comments", got.Comments, []string{want})
		}},
	{name: "offline reaction",
		setup: func(t *testing.T, s side, ref string) { s.comment(t, ref, "react to me") },
		a:     func(t *testing.T, s side, ref string) { s.react(t, ref, "react to me", "👍", true) },
		check: func(t *testing.T, got state, _ bool) {
			wantEq(t, "reactions", got.Reactions, []string{"react to me:👍"})
		}},
	{name: "reaction taken back",
		setup: func(t *testing.T, s side, ref string) {
			s.comment(t, ref, "react to me")
			s.react(t, ref, "react to me", "👍", true)
		},
		a:     func(t *testing.T, s side, ref string) { s.react(t, ref, "react to me", "👍", false) },
		check: func(t *testing.T, got state, _ bool) { wantEq(t, "reactions", got.Reactions, []string(nil)) }},
	{name: "reactions on both sides",
		setup: func(t *testing.T, s side, ref string) { s.comment(t, ref, "react to me") },
		a:     func(t *testing.T, s side, ref string) { s.react(t, ref, "react to me", "👍", true) },
		b: func(t *testing.T, s side, ref string) {
			s.react(t, ref, "react to me", "🎉", true)
			s.react(t, ref, "react to me", "👍", true) // the same one as A's: one stays
		},
		check: func(t *testing.T, got state, _ bool) {
			wantEq(t, "reactions", got.Reactions, []string{"react to me:🎉", "react to me:👍"})
		}},
	{name: "offline star",
		a: func(t *testing.T, s side, ref string) { s.star(t, ref, true) },
		check: func(t *testing.T, got state, _ bool) {
			wantEq(t, "starred", got.Starred, true)
		}},
	{name: "offline unstar",
		setup: func(t *testing.T, s side, ref string) { s.star(t, ref, true) },
		a:     func(t *testing.T, s side, ref string) { s.star(t, ref, false) },
		check: func(t *testing.T, got state, _ bool) {
			wantEq(t, "starred", got.Starred, false)
		}},
	// Pad takes no change to an archived item: padd's edits of an item
	// archived on both sides are made on it restored, and it is archived
	// again.
	{name: "archived on both sides, edited on one",
		a: func(t *testing.T, s side, ref string) {
			s.update(t, ref, strp("Edited, then archived"), strp("one\ntwo\nTHREE\nfour\nfive\n"), nil)
			s.move(t, ref, "ideas")
			s.archive(t, ref)
		},
		b: func(t *testing.T, s side, ref string) { s.archive(t, ref) },
		check: func(t *testing.T, got state, _ bool) {
			wantEq(t, "archived", got.Archived, true)
			wantEq(t, "title", got.Title, "Edited, then archived")
			wantEq(t, "content", got.Content, "one\ntwo\nTHREE\nfour\nfive\n")
			wantEq(t, "collection", got.Coll, "ideas")
		}},
	{name: "archived on both sides, commented on one",
		a: func(t *testing.T, s side, ref string) {
			s.comment(t, ref, "said before the archive")
			s.archive(t, ref)
		},
		b: func(t *testing.T, s side, ref string) { s.archive(t, ref) },
		check: func(t *testing.T, got state, _ bool) {
			wantEq(t, "archived", got.Archived, true)
			wantEq(t, "comments", got.Comments, []string{"said before the archive"})
		}},
	{name: "the same move on both sides",
		a: func(t *testing.T, s side, ref string) { s.move(t, ref, "ideas") },
		b: func(t *testing.T, s side, ref string) {
			s.move(t, ref, "ideas")
			s.update(t, ref, nil, strp("edited body\n"), nil)
		},
		check: func(t *testing.T, got state, _ bool) {
			wantEq(t, "collection", got.Coll, "ideas")
			wantEq(t, "content", got.Content, "edited body\n")
		}},
	// Notes and decisions only grow, and go to the remote as it takes
	// them (an append, or the whole fields written back with them added).
	{name: "offline note and decision",
		a: func(t *testing.T, s side, ref string) {
			s.note(t, ref, "noted offline")
			s.decide(t, ref, "decided offline")
		},
		check: func(t *testing.T, got state, _ bool) {
			wantEq(t, "notes", entryTexts(got, model.FieldImplementationNotes, "summary"), []string{"noted offline"})
			wantEq(t, "decisions", entryTexts(got, model.FieldDecisionLog, "decision"), []string{"decided offline"})
		}},
	{name: "a note on each side",
		a: func(t *testing.T, s side, ref string) { s.note(t, ref, "noted on "+s.name()) },
		b: func(t *testing.T, s side, ref string) { s.note(t, ref, "noted on "+s.name()) },
		check: func(t *testing.T, got state, _ bool) {
			// Both kept, the remote's first.
			wantEq(t, "notes", entryTexts(got, model.FieldImplementationNotes, "summary"), []string{"noted on remote", "noted on padd"})
		}},
	// Pad counts an implements link as a child relation and its item
	// answers name the implemented item as parent_link_id and
	// parent_ref (so does padd's): the implements link stays a link and
	// the parent a parent, on both sides. The implements link is made
	// before the parent, so that Pad's read names the implemented item.
	{name: "implements beside a parent",
		setup: func(t *testing.T, s side, ref string) {
			plan := s.create(t, "tasks", "Plan of "+ref, "")
			parent := s.create(t, "tasks", "Parent of "+ref, "")
			s.implement(t, ref, plan)
			s.setParent(t, ref, parent)
			child := s.create(t, "tasks", "Child of plan of "+ref, "")
			s.setParent(t, child, plan)
		},
		a: func(t *testing.T, s side, ref string) { s.update(t, ref, strp("Implementer, renamed"), nil, nil) },
		b: func(t *testing.T, s side, ref string) { s.update(t, ref, nil, strp("edited body\n"), nil) },
		check: func(t *testing.T, got state, _ bool) {
			wantEq(t, "title", got.Title, "Implementer, renamed")
			wantEq(t, "content", got.Content, "edited body\n")
			wantEq(t, "parent", strings.HasPrefix(got.Parent, "Parent of "), true)
			wantEq(t, "links", len(got.Links) == 1 && strings.HasPrefix(got.Links[0], "implements:Plan of "), true)
		}},
	{name: "implementer without a parent",
		setup: func(t *testing.T, s side, ref string) { s.implement(t, ref, s.create(t, "tasks", "Plan of "+ref, "")) },
		a:     func(t *testing.T, s side, ref string) { s.update(t, ref, strp("Implementer, renamed"), nil, nil) },
		b:     func(t *testing.T, s side, ref string) { s.update(t, ref, nil, nil, map[string]any{"priority": "high"}) },
		check: func(t *testing.T, got state, _ bool) {
			wantEq(t, "title", got.Title, "Implementer, renamed")
			wantEq(t, "priority", got.Fields["priority"], any("high"))
			wantEq(t, "parent", got.Parent, "")
			wantEq(t, "links", len(got.Links) == 1 && strings.HasPrefix(got.Links[0], "implements:Plan of "), true)
		}},
	// An implements link made on one side while apart travels as a
	// link: it becomes no parent either side.
	{name: "offline implements",
		setup: func(t *testing.T, s side, ref string) {
			s.create(t, "tasks", "Plan of "+ref, "")
			s.update(t, ref, strp("Implementer of the plan of "+ref), nil, nil) // padd has the plan once it has this
		},
		a: func(t *testing.T, s side, ref string) {
			s.implement(t, ref, s.find(t, "Plan of "+ref))
		},
		b: func(t *testing.T, s side, ref string) { s.update(t, ref, nil, strp("edited body\n"), nil) },
		check: func(t *testing.T, got state, _ bool) {
			wantEq(t, "content", got.Content, "edited body\n")
			wantEq(t, "parent", got.Parent, "")
			wantEq(t, "links", len(got.Links) == 1 && strings.HasPrefix(got.Links[0], "implements:Plan of "), true)
		}},
	{name: "move against edit",
		a: func(t *testing.T, s side, ref string) { s.move(t, ref, "ideas") },
		b: func(t *testing.T, s side, ref string) { s.update(t, ref, nil, strp("edited body\n"), nil) },
		check: func(t *testing.T, got state, _ bool) {
			wantEq(t, "collection", got.Coll, "ideas")
			wantEq(t, "content", got.Content, "edited body\n")
		}},
}

// TestScenarios runs the table against a remote with every capability
// padd offers (idempotency keys, expected_seq).
func TestScenarios(t *testing.T) {
	r := startRemote(t)
	runScenarios(t, r.URL, r.Token, r.API, "team", startLocal(t), false)
}

// TestScenariosAug2026 runs it against the Pad of August 2026: no
// idempotency keys, no expected_seq (updates guarded by whole-second
// updated_at), comments that do not bump seq.
func TestScenariosAug2026(t *testing.T) {
	r := testremote.Start(t, testremote.Options{Aug2026: true})
	runScenarios(t, r.URL(), r.Token(), r.API(), "team", startLocal(t), false)
}

// TestScenariosRealPad runs the table against a Pad server that a
// developer started by hand (docs/SYNC.md, "Tried against Pad's own
// server"): PADD_PAD_URL and PADD_PAD_TOKEN_FILE (an API token of a user
// who may create workspaces). It makes a new workspace there each run.
// Skipped without them: CI has no Pad server.
func TestScenariosRealPad(t *testing.T) {
	p := realPad(t, "scenarios")
	runScenarios(t, p.url, p.token, p.api, p.slug, startLocalWith(t, remote.Options{}), true)
}

// givenPad is a Pad server a developer started by hand, and the new
// workspace a test makes there.
type givenPad struct {
	url, token, slug string
	api              *api.Client // waits out Pad's 429s
}

// realPad reads the Pad server PADD_PAD_URL and PADD_PAD_TOKEN_FILE name
// and names a new workspace there (prefix and the time); the test is
// skipped without them: CI has no Pad server.
func realPad(t *testing.T, prefix string) givenPad {
	t.Helper()
	url, tokFile := os.Getenv("PADD_PAD_URL"), os.Getenv("PADD_PAD_TOKEN_FILE")
	if url == "" || tokFile == "" {
		t.Skip("no Pad server given (PADD_PAD_URL, PADD_PAD_TOKEN_FILE)")
	}
	tok, err := os.ReadFile(tokFile)
	if err != nil {
		t.Fatal(err)
	}
	p := givenPad{url: url, token: strings.TrimSpace(string(tok)), slug: fmt.Sprintf("%s-%d", prefix, time.Now().Unix())}
	t.Logf("Pad at %s, workspace %s", url, p.slug)
	p.api = api.NewClient(url, p.token)
	p.api.HTTP.Transport = waitOn429{http.DefaultTransport}
	return p
}

// waitOn429 sends a request again when Pad's limiter refused it (after
// its Retry-After): the test drives Pad as a person would, and Pad lets a
// user make 10 requests a second.
type waitOn429 struct{ next http.RoundTripper }

func (w waitOn429) RoundTrip(r *http.Request) (*http.Response, error) {
	for attempt := 0; ; attempt++ {
		if attempt > 0 && r.GetBody != nil {
			body, err := r.GetBody()
			if err != nil {
				return nil, err
			}
			r = r.Clone(r.Context())
			r.Body = body
		}
		resp, err := w.next.RoundTrip(r)
		if err != nil || resp.StatusCode != http.StatusTooManyRequests || attempt == 20 || (r.Body != nil && r.GetBody == nil) {
			return resp, err
		}
		wait := time.Second
		if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && s > 0 {
			wait = time.Duration(s) * time.Second
		}
		resp.Body.Close()
		select {
		case <-r.Context().Done():
			return nil, r.Context().Err()
		case <-time.After(wait):
		}
	}
}

func runScenarios(t *testing.T, url, token string, rapi *api.Client, remoteSlug string, l *local, realPad bool) {
	ctx := context.Background()
	if _, err := rapi.CreateWorkspace(ctx, api.WorkspaceCreate{Name: "Team", Slug: remoteSlug}); err != nil {
		t.Fatal(err)
	}
	var caps api.Capabilities
	if _, err := rapi.Do(ctx, "GET", "/server/capabilities", nil, nil, &caps); err != nil {
		t.Fatal(err)
	}
	rs := &remoteSide{c: rapi, ws: remoteSlug, archivedHidesLinks: realPad, appends: caps.Has("item_field_append")}
	rs.create(t, "tasks", "Anchor", "") // TASK-1: what links point to
	if _, err := l.M.Clone(ctx, api.SyncClone{URL: url, RemoteWorkspace: remoteSlug, As: "team", SyncToken: api.SyncToken{Token: token}}); err != nil {
		t.Fatal(err)
	}
	l.synced(t, "team")
	ls := &localSide{s: l.Store, ws: "team"}

	for _, sc := range scenarios {
		for _, remoteIsB := range []bool{true, false} {
			a, b := side(ls), side(rs)
			if !remoteIsB {
				a, b = rs, ls
			}
			t.Run(fmt.Sprintf("%s/%s first", sc.name, a.name()), func(t *testing.T) {
				title := fmt.Sprintf("%s (%s)", sc.name, a.name())
				ref := rs.create(t, "tasks", title, body)
				if sc.setup != nil {
					sc.setup(t, rs, ref)
					// Pad announces no link (an implements link only moves its
					// item's seq): a full read brings the setup's.
					if _, err := l.M.Now("team"); err != nil {
						t.Fatal(err)
					}
				}
				testwait.UntilOK(t, func() error {
					x, err := ls.get(t, ref)
					if err != nil {
						return err
					}
					y, err := rs.get(t, ref)
					if err != nil {
						return err
					}
					x, y = rs.comparable(x), rs.comparable(y)
					if !reflect.DeepEqual(x, y) {
						return fmt.Errorf("padd has not caught up with the remote:\npadd   %+v\nremote %+v", x, y)
					}
					return nil
				})
				before := l.conflicts(t)
				if _, err := l.M.Pause("team"); err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { _, _ = l.M.Resume("team") }) // a failed scenario leaves the next one a running sync
				made := sc.made
				if made != "" {
					made = fmt.Sprintf("%s (%s)", sc.made, a.name())
					sc := sc
					sc.a = func(t *testing.T, s side, _ string) { s.create(t, "tasks", made, "body\n") }
					sc.a(t, a, ref)
				} else {
					if sc.a != nil {
						sc.a(t, a, ref)
					}
					if sc.b != nil {
						sc.b(t, b, ref)
					}
				}
				if _, err := l.M.Resume("team"); err != nil {
					t.Fatal(err)
				}
				var lref, rref string = ref, ref
				if made != "" {
					testwait.Until(t, "the made item on both sides", func() bool {
						lref, rref = ls.find(t, made), rs.find(t, made)
						return lref != "" && rref != ""
					})
				}
				var got state
				testwait.UntilOK(t, func() error {
					x, err := ls.get(t, lref)
					if err != nil {
						return err
					}
					y, err := rs.get(t, rref)
					if err != nil {
						return err
					}
					local := x // the check reads padd's side whole
					x, y = rs.comparable(x), rs.comparable(y)
					if !reflect.DeepEqual(x, y) {
						return fmt.Errorf("the sides differ:\npadd   %+v\nremote %+v", x, y)
					}
					got = local
					return nil
				})
				l.synced(t, "team")
				sc.check(t, got, remoteIsB)
				want := sc.conflicts
				if sc.conflictsIf != nil {
					want = sc.conflictsIf(remoteIsB)
				}
				if n := l.conflicts(t) - before; n != want {
					t.Errorf("%d conflicts recorded, want %d", n, want)
				}
				l.equalNow(t) // the whole workspace, entity by entity
			})
		}
	}
}

// padKeepsItAlive: when padd (B) commented or linked an item the remote
// (A) archived, the item stays alive and the archive is a conflict.
func padKeepsItAlive(remoteIsB bool) int {
	if remoteIsB {
		return 0
	}
	return 1
}

func (l *local) conflicts(t *testing.T) int {
	cs, err := l.M.Conflicts("team", true)
	if err != nil {
		t.Fatal(err)
	}
	return len(cs)
}
