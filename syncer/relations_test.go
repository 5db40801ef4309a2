package syncer_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/padd/padd/api"
	"github.com/padd/padd/internal/testremote"
	"github.com/padd/padd/internal/testwait"
	"github.com/padd/padd/remote"
	"github.com/padd/padd/storage"
	"github.com/padd/padd/storage/syncstate"
	"github.com/padd/padd/storage/views"
)

// Relation fields name items by id, and each side has its own ids: the
// engine maps them both ways (syncer/relations.go).

// relSchema is the schema of "specs", whose items name each other: see
// (a relation) and also (a multi_relation). It goes as JSON text, as Pad
// reads a schema.
func relSchema(t *testing.T) api.Flex {
	t.Helper()
	schema, _ := json.Marshal(map[string]any{"fields": []any{
		map[string]any{"key": "see", "label": "See", "type": "relation", "collection": "specs"},
		map[string]any{"key": "also", "label": "Also", "type": "multi_relation", "collection": "specs"},
	}})
	text, _ := json.Marshal(string(schema))
	return api.Flex(text)
}

// relRemote is a remote workspace "team" with the specs collection.
type relRemote struct {
	t   *testing.T
	c   *api.Client
	ws  string
	ids map[string]string // title -> remote id
}

func newRelRemote(t *testing.T, c *api.Client, ws string) *relRemote {
	t.Helper()
	ctx := context.Background()
	if _, err := c.CreateWorkspace(ctx, api.WorkspaceCreate{Name: "Team", Slug: ws}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.CreateCollection(ctx, ws, api.CollectionCreate{Name: "Specs", Slug: "specs", Prefix: "SPEC", Schema: relSchema(t)}); err != nil {
		t.Fatal(err)
	}
	return &relRemote{t: t, c: c, ws: ws, ids: map[string]string{}}
}

func fieldsFlex(fields map[string]any) api.Flex {
	b, _ := json.Marshal(fields)
	return api.Flex(b)
}

// make creates an item of specs titled title, its relations naming
// items by title.
func (r *relRemote) make(title string, rel map[string]any) {
	r.t.Helper()
	it, err := r.c.CreateItem(context.Background(), r.ws, "specs", api.ItemCreate{Title: title, Fields: fieldsFlex(r.byID(rel))})
	if err != nil {
		r.t.Fatal(err)
	}
	r.ids[title] = it.ID
}

// set patches the relations of the item titled title.
func (r *relRemote) set(title string, rel map[string]any) {
	r.t.Helper()
	if _, err := r.c.UpdateItem(context.Background(), r.ws, r.ids[title], api.ItemUpdate{FieldsPatch: fieldsFlex(r.byID(rel))}); err != nil {
		r.t.Fatal(err)
	}
}

// byID is rel with each title the remote id of its item.
func (r *relRemote) byID(rel map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range rel {
		switch x := v.(type) {
		case string:
			out[k] = r.ids[x]
		case []string:
			ids := []any{}
			for _, s := range x {
				ids = append(ids, r.ids[s])
			}
			out[k] = ids
		default:
			out[k] = v
		}
	}
	return out
}

// relations is the relation values of the item titled title on the
// remote, each item named by its title ("?" and the value for one it
// does not know).
func (r *relRemote) relations(title string) (map[string]any, error) {
	ctx := context.Background()
	it, err := r.c.GetItem(ctx, r.ws, r.ids[title])
	if err != nil {
		return nil, err
	}
	fields, err := api.DecodeObject(it.Fields)
	if err != nil {
		return nil, err
	}
	return titled(fields, func(id string) string {
		x, err := r.c.GetItem(ctx, r.ws, id)
		if err != nil {
			return "?" + id
		}
		return x.Title
	}), nil
}

// localRelations is relRemote.relations on padd's side: the item titled
// title in workspace ws.
func localRelations(l *local, ws, title string) (map[string]any, error) {
	id := (&localSide{s: l.Store, ws: ws}).findT(title)
	if id == "" {
		return nil, fmt.Errorf("padd has no item %q", title)
	}
	v, err := views.Of(l.Store).GetItem(ws, id)
	if err != nil {
		return nil, err
	}
	return titled(v.Fields, func(id string) string {
		x, err := views.Of(l.Store).GetItem(ws, id)
		if err != nil {
			return "?" + id
		}
		return x.Title
	}), nil
}

func (l *localSide) findT(title string) string {
	idx, err := views.Of(l.s).ItemsIndex(context.Background(), l.ws, "", true)
	if err != nil {
		return ""
	}
	for _, it := range idx.Items {
		if it.Title == title {
			return it.ID
		}
	}
	return ""
}

// titled is the see and also of fields with each id replaced by name.
func titled(fields map[string]any, name func(string) string) map[string]any {
	out := map[string]any{}
	if s, ok := fields["see"].(string); ok {
		out["see"] = name(s)
	}
	if list, ok := fields["also"].([]any); ok {
		names := []string{}
		for _, e := range list {
			s, _ := e.(string)
			names = append(names, name(s))
		}
		out["also"] = names
	}
	return out
}

// sameRelations waits until the item titled title has want on both
// sides.
func sameRelations(t *testing.T, l *local, ws string, r *relRemote, title string, want map[string]any) {
	t.Helper()
	testwait.UntilOK(t, func() error {
		here, err := localRelations(l, ws, title)
		if err != nil {
			return err
		}
		there, err := r.relations(title)
		if err != nil {
			return err
		}
		if !reflect.DeepEqual(here, want) || !reflect.DeepEqual(there, want) {
			return fmt.Errorf("%s: here %v, there %v, want %v", title, here, there, want)
		}
		return nil
	})
}

// noneSetAside fails the test on any conflict or set-aside record.
func noneSetAside(t *testing.T, l *local, ws string) {
	t.Helper()
	cs, err := l.M.Conflicts(ws, true)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cs {
		t.Errorf("recorded: %s %s %s: %s", c.Kind, c.Ref, c.Part, c.Reason)
	}
}

var relServers = []struct {
	name string
	opts testremote.Options
}{{"padd", testremote.Options{}}, {"Aug2026", testremote.Options{Aug2026: true}}}

// A clone maps relation values to padd's ids: one naming an item of a
// later page of the clone (the transaction after its own), a cycle (two
// items naming each other), an item naming itself, and a list.
func TestCloneMapsRelations(t *testing.T) {
	for _, srv := range relServers {
		t.Run(srv.name, func(t *testing.T) {
			r := testremote.Start(t, srv.opts)
			rr := newRelRemote(t, r.API(), "team")
			rr.make("One", nil)
			for i := range 205 { // a clone writes 200 items a transaction
				rr.make(fmt.Sprintf("filler %d", i), nil)
			}
			rr.make("Two", map[string]any{"see": "One", "also": []string{"One"}})
			rr.set("One", map[string]any{"see": "Two"}) // a page later, and a cycle
			rr.make("Self", nil)
			rr.set("Self", map[string]any{"see": "Self", "also": []string{"Two", "Self", "One"}})

			l := startLocal(t)
			if _, err := l.M.Clone(context.Background(), api.SyncClone{URL: r.URL(), RemoteWorkspace: "team", SyncToken: api.SyncToken{Token: r.Token()}}); err != nil {
				t.Fatal(err)
			}
			l.synced(t, "team")
			sameRelations(t, l, "team", rr, "One", map[string]any{"see": "Two"})
			sameRelations(t, l, "team", rr, "Two", map[string]any{"see": "One", "also": []string{"One"}})
			sameRelations(t, l, "team", rr, "Self", map[string]any{"see": "Self", "also": []string{"Two", "Self", "One"}})
			noneSetAside(t, l, "team")
			l.equalNow(t)
		})
	}
}

// Items a teammate makes naming each other reach padd with their
// relations, while padd is online: the first pulled waits for the other.
func TestRelationsPulledLive(t *testing.T) {
	for _, srv := range relServers {
		t.Run(srv.name, func(t *testing.T) {
			r := testremote.Start(t, srv.opts)
			rr := newRelRemote(t, r.API(), "team")
			l := startLocal(t)
			if _, err := l.M.Clone(context.Background(), api.SyncClone{URL: r.URL(), RemoteWorkspace: "team", SyncToken: api.SyncToken{Token: r.Token()}}); err != nil {
				t.Fatal(err)
			}
			l.synced(t, "team")
			rr.make("Alpha", nil)
			rr.make("Beta", map[string]any{"see": "Alpha"})
			rr.set("Alpha", map[string]any{"see": "Beta", "also": []string{"Beta", "Alpha"}})
			sameRelations(t, l, "team", rr, "Alpha", map[string]any{"see": "Beta", "also": []string{"Beta", "Alpha"}})
			sameRelations(t, l, "team", rr, "Beta", map[string]any{"see": "Alpha"})
			l.synced(t, "team")
			noneSetAside(t, l, "team")
			l.equalNow(t)
		})
	}
}

// A relation value pulled before its item waits in the item's base,
// written with it: padd stopped before the wait is resolved (the pull's
// next read failed) takes the value after its restart, though the feed
// has nothing more to say of the item.
func TestRelationWaitSurvivesARestart(t *testing.T) {
	r := testremote.Start(t, testremote.Options{})
	rr := newRelRemote(t, r.API(), "team")
	l := startLocal(t)
	if _, err := l.M.Clone(context.Background(), api.SyncClone{URL: r.URL(), RemoteWorkspace: "team", SyncToken: api.SyncToken{Token: r.Token()}}); err != nil {
		t.Fatal(err)
	}
	l.synced(t, "team")
	if _, err := l.M.Pause("team"); err != nil {
		t.Fatal(err)
	}
	rr.make("Target", nil)
	rr.make("Pointer", map[string]any{"see": "Target"})
	rr.set("Target", map[string]any{"see": "Pointer"}) // Target is read for Pointer, and waits for it
	// The comments of the items the pull makes are read after the items
	// are written: failing, they end the cycle there.
	r.SetFault(func(q *http.Request) testremote.Fault {
		if strings.HasSuffix(q.URL.Path, "/comments") {
			return testremote.Fault{Kind: testremote.Answer, Status: http.StatusInternalServerError}
		}
		return testremote.Fault{}
	})
	if _, err := l.M.Resume("team"); err != nil {
		t.Fatal(err)
	}
	ls := &localSide{s: l.Store, ws: "team"}
	testwait.UntilOK(t, func() error {
		waits, err := syncstate.Of(l.Store).SyncRelationWaits("team")
		if err != nil {
			return err
		}
		if ls.findT("Pointer") == "" || ls.findT("Target") == "" || len(waits) == 0 {
			return fmt.Errorf("padd has Pointer %v, Target %v, waits %v", ls.findT("Pointer") != "", ls.findT("Target") != "", waits)
		}
		return nil
	})
	l.stop() // as a kill: every write so far is committed, nothing after it
	r.SetFault(nil)
	l.run(t)
	sameRelations(t, l, "team", rr, "Target", map[string]any{"see": "Pointer"})
	sameRelations(t, l, "team", rr, "Pointer", map[string]any{"see": "Target"})
	l.synced(t, "team")
	if waits, err := syncstate.Of(l.Store).SyncRelationWaits("team"); err != nil || len(waits) != 0 {
		t.Errorf("items still waiting: %v (%v)", waits, err)
	}
	noneSetAside(t, l, "team")
	l.equalNow(t)
}

// Relations made here reach the remote in its ids: items made offline
// naming each other, a list, and an edit of a pulled item naming an item
// made here.
func TestRelationsPushed(t *testing.T) {
	for _, srv := range relServers {
		t.Run(srv.name, func(t *testing.T) {
			ctx := context.Background()
			r := testremote.Start(t, srv.opts)
			rr := newRelRemote(t, r.API(), "team")
			rr.make("There", nil)
			l := startLocal(t)
			if _, err := l.M.Clone(ctx, api.SyncClone{URL: r.URL(), RemoteWorkspace: "team", SyncToken: api.SyncToken{Token: r.Token()}}); err != nil {
				t.Fatal(err)
			}
			l.synced(t, "team")
			if _, err := l.M.Pause("team"); err != nil {
				t.Fatal(err)
			}
			mk := func(title string, fields map[string]any) string {
				res, err := l.Store.CreateItem("team", storage.ItemCreate{Collection: "specs", Title: title, Fields: fields}, user)
				if err != nil {
					t.Fatal(err)
				}
				return res.Item.ID
			}
			set := func(id string, fields map[string]any) {
				if _, err := l.Store.UpdateItem("team", id, storage.ItemUpdate{FieldsPatch: fields}, user); err != nil {
					t.Fatal(err)
				}
			}
			ls := &localSide{s: l.Store, ws: "team"}
			there := ls.findT("There")
			a := mk("Here A", nil)
			b := mk("Here B", map[string]any{"see": a, "also": []any{there, a}})
			set(a, map[string]any{"see": b})
			set(there, map[string]any{"see": b})
			if _, err := l.M.Resume("team"); err != nil {
				t.Fatal(err)
			}
			l.synced(t, "team")
			for _, title := range []string{"Here A", "Here B"} {
				it, err := views.Of(l.Store).GetItem("team", ls.findT(title))
				if err != nil {
					t.Fatal(err)
				}
				rid, ok, err := syncstate.Of(l.Store).SyncRemoteID("team", storage.SyncItem, it.ID)
				if err != nil || !ok {
					t.Fatalf("%s has no remote id (%v)", title, err)
				}
				rr.ids[title] = rid
			}
			sameRelations(t, l, "team", rr, "Here A", map[string]any{"see": "Here B"})
			sameRelations(t, l, "team", rr, "Here B", map[string]any{"see": "Here A", "also": []string{"There", "Here A"}})
			sameRelations(t, l, "team", rr, "There", map[string]any{"see": "Here B"})
			// A restore's answer names the relations in the remote's ids:
			// they are what padd has, not an edit of the remote's.
			if _, err := l.Store.DeleteItem("team", a, user); err != nil {
				t.Fatal(err)
			}
			l.synced(t, "team")
			if _, err := l.Store.RestoreItem("team", a, user); err != nil {
				t.Fatal(err)
			}
			l.synced(t, "team")
			sameRelations(t, l, "team", rr, "Here A", map[string]any{"see": "Here B"})
			// Archived on both sides and edited here: restored there for
			// the edit, whose answer names the relations in its ids too.
			if _, err := l.M.Pause("team"); err != nil {
				t.Fatal(err)
			}
			if err := r.API().DeleteItem(ctx, "team", rr.ids["Here A"]); err != nil {
				t.Fatal(err)
			}
			title := "Here A, edited"
			if _, err := l.Store.UpdateItem("team", a, storage.ItemUpdate{Title: &title}, user); err != nil {
				t.Fatal(err)
			}
			if _, err := l.Store.DeleteItem("team", a, user); err != nil {
				t.Fatal(err)
			}
			if _, err := l.M.Resume("team"); err != nil {
				t.Fatal(err)
			}
			l.synced(t, "team")
			testwait.UntilOK(t, func() error {
				it, err := r.API().GetItem(ctx, "team", rr.ids["Here A"])
				if err != nil || it.Title != title || it.DeletedAt == nil {
					return fmt.Errorf("the remote's item: %+v (%v)", it, err)
				}
				return nil
			})
			noneSetAside(t, l, "team")
			l.equalNow(t)
		})
	}
}

// A relation made here naming an item the remote has not got yet is not
// sent until that item is there (a local id never reaches the remote),
// and then it is, after a restart too: `sync link` pushes Alpha, which
// names Beta, and the remote turns Beta's create away until padd is
// stopped.
func TestRelationPushWaitsForItsItem(t *testing.T) {
	for _, srv := range relServers {
		t.Run(srv.name, func(t *testing.T) {
			ctx := context.Background()
			r := testremote.Start(t, srv.opts)
			if _, err := r.API().CreateWorkspace(ctx, api.WorkspaceCreate{Name: "Empty", Slug: "empty"}); err != nil {
				t.Fatal(err)
			}
			l := startLocal(t)
			if _, err := l.Store.CreateWorkspace(storage.WorkspaceCreate{Name: "Team", Slug: "team"}, user); err != nil {
				t.Fatal(err)
			}
			if _, err := l.Store.CreateCollection("team", storage.CollectionCreate{Name: "Specs", Slug: "specs", Prefix: "SPEC",
				FieldsDSL: "see:relation:specs; also:multi_relation:specs"}, user); err != nil {
				t.Fatal(err)
			}
			mk := func(title string) string {
				res, err := l.Store.CreateItem("team", storage.ItemCreate{Collection: "specs", Title: title}, user)
				if err != nil {
					t.Fatal(err)
				}
				return res.Item.ID
			}
			a, b := mk("Alpha"), mk("Beta")
			for id, fields := range map[string]map[string]any{a: {"see": b, "also": []any{b, a}}, b: {"see": a}} {
				if _, err := l.Store.UpdateItem("team", id, storage.ItemUpdate{FieldsPatch: fields}, user); err != nil {
					t.Fatal(err)
				}
			}
			// A relation default naming Beta: it goes once Beta is there.
			lc, err := views.Of(l.Store).GetCollection("team", "specs")
			if err != nil {
				t.Fatal(err)
			}
			schema := lc.Schema
			schema.Fields = slices.Clone(schema.Fields)
			schema.Fields[0].Default = b
			if _, _, err := l.Store.UpdateCollection("team", "specs", storage.CollectionUpdate{Schema: &schema}, user); err != nil {
				t.Fatal(err)
			}
			var creates atomic.Int32
			r.SetFault(func(q *http.Request) testremote.Fault {
				if q.Method == http.MethodPost && strings.HasSuffix(q.URL.Path, "/collections/specs/items") && creates.Add(1) > 1 {
					return testremote.Fault{Kind: testremote.Answer, Status: http.StatusServiceUnavailable}
				}
				return testremote.Fault{}
			})
			if _, err := l.M.Link(ctx, api.SyncLink{Workspace: "team", URL: r.URL(), RemoteWorkspace: "empty", SyncToken: api.SyncToken{Token: r.Token()}}); err != nil {
				t.Fatal(err)
			}
			var ra string
			testwait.UntilOK(t, func() error {
				id, ok, err := syncstate.Of(l.Store).SyncRemoteID("team", storage.SyncItem, a)
				if err != nil || !ok || creates.Load() < 2 {
					return fmt.Errorf("Alpha pushed %v, creates %d (%v)", ok, creates.Load(), err)
				}
				ra = id
				return nil
			})
			it, err := r.API().GetItem(ctx, "empty", ra)
			if err != nil {
				t.Fatal(err)
			}
			if fields, _ := api.DecodeObject(it.Fields); fields["see"] != nil || fields["also"] != nil {
				t.Errorf("the remote's Alpha holds %v before Beta is there", fields)
			}
			l.stop()
			r.SetFault(nil)
			l.run(t)
			l.synced(t, "team")
			rr := &relRemote{t: t, c: r.API(), ws: "empty", ids: map[string]string{"Alpha": ra}}
			rb, ok, err := syncstate.Of(l.Store).SyncRemoteID("team", storage.SyncItem, b)
			if err != nil || !ok {
				t.Fatalf("Beta has no remote id (%v)", err)
			}
			rr.ids["Beta"] = rb
			sameRelations(t, l, "team", rr, "Alpha", map[string]any{"see": "Beta", "also": []string{"Beta", "Alpha"}})
			sameRelations(t, l, "team", rr, "Beta", map[string]any{"see": "Alpha"})
			testwait.UntilOK(t, func() error {
				rc, err := r.API().GetCollection(ctx, "empty", "specs")
				if err != nil {
					return err
				}
				if !strings.Contains(string(rc.Schema), `"default":"`+rb+`"`) {
					return fmt.Errorf("the remote's schema %s has no default naming Beta (%s)", rc.Schema, rb)
				}
				return nil
			})
			noneSetAside(t, l, "team")
			l.equalNow(t)
		})
	}
}

// A relation value naming an item the remote no longer has (deleted for
// good there) is dropped with a record saying so; the item keeps the rest
// of its values and is not set aside.
func TestRelationToAnItemGoneFromTheRemote(t *testing.T) {
	ctx := context.Background()
	r, proxyURL := startPurging(t)
	rr := newRelRemote(t, r.API, "team")
	l := startLocal(t)
	if _, err := l.M.Clone(ctx, api.SyncClone{URL: proxyURL, RemoteWorkspace: "team", SyncToken: api.SyncToken{Token: r.Token}}); err != nil {
		t.Fatal(err)
	}
	l.synced(t, "team")
	if _, err := l.M.Pause("team"); err != nil {
		t.Fatal(err)
	}
	rr.make("Gone", nil)
	rr.make("Kept", nil)
	rr.make("Pointer", map[string]any{"see": "Gone", "also": []string{"Gone", "Kept"}})
	gone, err := r.API.GetItem(ctx, "team", rr.ids["Gone"])
	if err != nil {
		t.Fatal(err)
	}
	r.purge(gone)
	if _, err := l.M.Resume("team"); err != nil {
		t.Fatal(err)
	}
	l.synced(t, "team")
	testwait.UntilOK(t, func() error {
		here, err := localRelations(l, "team", "Pointer")
		if err != nil {
			return err
		}
		if want := map[string]any{"also": []string{"Kept"}}; !reflect.DeepEqual(here, want) {
			return fmt.Errorf("Pointer here: %v, want %v", here, want)
		}
		return nil
	})
	cs, err := l.M.Conflicts("team", true)
	if err != nil {
		t.Fatal(err)
	}
	var recorded []string
	for _, c := range cs {
		if c.Kind != string(storage.EntrySetAside) || !strings.Contains(c.Reason, gone.ID) || !strings.Contains(c.Reason, "names no item the remote has") {
			t.Errorf("recorded: %s %s %s: %s", c.Kind, c.Ref, c.Part, c.Reason)
		}
		recorded = append(recorded, c.Part)
	}
	slices.Sort(recorded)
	if want := []string{"fields.also", "fields.see"}; !slices.Equal(recorded, want) {
		t.Errorf("recorded parts %v, want %v", recorded, want)
	}
	if ls := (&localSide{s: l.Store, ws: "team"}); ls.findT("Gone") != "" {
		t.Error("padd has the item the remote no longer has")
	}
	// The purge's stand-in still lists the item; Pointer's values differ,
	// as the records explain.
	v := l.verified(t)
	if got, want := parts(v.Differences), []string{"item SPEC-1 only_there"}; !slices.Equal(got, want) {
		t.Errorf("differences %v, want %v", got, want)
	}
	if got, want := parts(v.Conflicts), []string{"item SPEC-3 fields.also", "item SPEC-3 fields.see"}; !slices.Equal(got, want) {
		t.Errorf("differences explained %v, want %v", got, want)
	}
}

// Pad keeps a relation value as it was written (an id, a ref, a title,
// an id of nothing) and answers it so; the test remote's Aug2026 proxy
// does too, but for an id of nothing, which padd refuses. padd maps a
// ref as an id (by the map of remote refs, or reading the item by it),
// drops what names no item with a record, and sends back only what it
// changed, in ids.
func TestRelationsAsPadKeepsThem(t *testing.T) {
	r := testremote.Start(t, testremote.Options{Aug2026: true})
	runRelationsAsWritten(t, r.URL(), r.Token(), r.Teammate(), "team", startLocal(t), false)
}

// TestRelationsAsPadKeepsThemRealPad is that against a Pad server
// started by hand (PADD_PAD_URL, PADD_PAD_TOKEN_FILE, as
// TestScenariosRealPad).
func TestRelationsAsPadKeepsThemRealPad(t *testing.T) {
	p := realPad(t, "relations")
	runRelationsAsWritten(t, p.url, p.token, p.api, p.slug, startLocalWith(t, remote.Options{}), true)
}

func runRelationsAsWritten(t *testing.T, url, token string, writer *api.Client, slug string, l *local, realPad bool) {
	ctx := context.Background()
	rr := newRelRemote(t, writer, slug)
	rr.make("One", nil)
	rr.make("Two", nil)
	refOf := func(title string) string {
		it, err := writer.GetItem(ctx, slug, rr.ids[title])
		if err != nil {
			t.Fatal(err)
		}
		return it.Ref
	}
	one := refOf("One")
	if _, err := l.M.Clone(ctx, api.SyncClone{URL: url, RemoteWorkspace: slug, As: "team", SyncToken: api.SyncToken{Token: token}}); err != nil {
		t.Fatal(err)
	}
	l.synced(t, "team")
	if _, err := l.M.Pause("team"); err != nil {
		t.Fatal(err)
	}
	// As written there: a ref padd knows, a title; a ref of an item padd
	// has not got yet (Four, whose feed row comes after Five's).
	raw := func(title string, fields map[string]any) {
		it, err := writer.CreateItem(ctx, slug, "specs", api.ItemCreate{Title: title, Fields: fieldsFlex(fields)})
		if err != nil {
			t.Fatal(err)
		}
		rr.ids[title] = it.ID
	}
	raw("Three", map[string]any{"see": one, "also": []any{one, "Two"}})
	rr.make("Four", nil)
	raw("Five", map[string]any{"see": refOf("Four")})
	rr.set("Four", map[string]any{"also": []string{"One"}})
	if realPad { // Pad keeps an id of nothing too
		raw("Six", map[string]any{"see": "00000000-0000-4000-8000-000000000000"})
	}
	if _, err := l.M.Resume("team"); err != nil {
		t.Fatal(err)
	}
	l.synced(t, "team")
	for title, want := range map[string]map[string]any{
		"Three": {"see": "One", "also": []string{"One"}},
		"Five":  {"see": "Four"},
		"Four":  {"also": []string{"One"}},
	} {
		testwait.UntilOK(t, func() error {
			here, err := localRelations(l, "team", title)
			if err != nil {
				return err
			}
			if !reflect.DeepEqual(here, want) {
				return fmt.Errorf("%s here: %v, want %v", title, here, want)
			}
			return nil
		})
	}
	if realPad {
		testwait.UntilOK(t, func() error {
			if here, err := localRelations(l, "team", "Six"); err != nil || len(here) != 0 {
				return fmt.Errorf("Six here: %v (%v), want no relation", here, err)
			}
			return nil
		})
	}
	cs, err := l.M.Conflicts("team", true)
	if err != nil {
		t.Fatal(err)
	}
	var recorded []string
	for _, c := range cs {
		recorded = append(recorded, c.Ref+" "+c.Part)
		if !strings.Contains(c.Reason, "names no item the remote has") {
			t.Errorf("recorded: %s %s %s: %s", c.Kind, c.Ref, c.Part, c.Reason)
		}
	}
	slices.Sort(recorded)
	want := []string{refOf("Three") + " fields.also"}
	if realPad {
		want = append(want, refOf("Six")+" fields.see")
		slices.Sort(want)
	}
	if !slices.Equal(recorded, want) {
		t.Errorf("recorded %v, want %v", recorded, want)
	}
	// The values stay there as written: padd sends none of them back.
	there := func(title string) map[string]any {
		it, err := writer.GetItem(ctx, slug, rr.ids[title])
		if err != nil {
			t.Fatal(err)
		}
		f, _ := api.DecodeObject(it.Fields)
		return f
	}
	if f := there("Three"); !reflect.DeepEqual(f["see"], one) || !reflect.DeepEqual(f["also"], []any{one, "Two"}) {
		t.Errorf("Three there: %v, want as written", f)
	}
	// An edit here goes there in the remote's ids.
	three := (&localSide{s: l.Store, ws: "team"}).findT("Three")
	two := (&localSide{s: l.Store, ws: "team"}).findT("Two")
	if _, err := l.Store.UpdateItem("team", three, storage.ItemUpdate{FieldsPatch: map[string]any{"see": two}}, user); err != nil {
		t.Fatal(err)
	}
	l.synced(t, "team")
	testwait.UntilOK(t, func() error {
		if f := there("Three"); f["see"] != rr.ids["Two"] || !reflect.DeepEqual(f["also"], []any{one, "Two"}) {
			return fmt.Errorf("Three there: %v, want see %s and also as written", f, rr.ids["Two"])
		}
		return nil
	})
	l.equalNow(t) // what differs is what the records explain
}
