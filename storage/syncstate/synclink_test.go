package syncstate

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/padd/padd/model"
	"github.com/padd/padd/storage"
	"github.com/padd/padd/storage/internal/records"
	"github.com/padd/padd/storage/views"
)

// testLink is a link to a remote the tests never reach.
var testLink = storage.RemoteLink{BaseURL: "http://127.0.0.1:1", RemoteWorkspaceID: "remote-ws", RemoteSlug: "team", TokenName: "team"}

// syncActor is the sync engine writing what it pulled.
var syncActor = model.Actor{Kind: model.ActorUser, Name: "Remote User", Source: model.SourceSync}

func mustSyncLink(t testing.TB, s *storage.Store, ws string) {
	t.Helper()
	if err := Of(s).LinkSync(ws, testLink); err != nil {
		t.Fatalf("link %s: %v", ws, err)
	}
}

func TestLinkRecordRefusals(t *testing.T) {
	s, _ := openTest(t)
	ws := mustWorkspace(t, s, "Refusals").Slug
	with := func(f func(*storage.RemoteLink)) storage.RemoteLink { l := testLink; f(&l); return l }
	for _, tc := range []struct {
		name string
		link storage.RemoteLink
	}{
		{"no base URL", with(func(l *storage.RemoteLink) { l.BaseURL = " " })},
		{"no remote workspace", with(func(l *storage.RemoteLink) { l.RemoteWorkspaceID, l.RemoteSlug = "", "" })},
		{"a token where its name goes", with(func(l *storage.RemoteLink) { l.TokenName = "pad_0123456789abcdef" })},
		{"a path where the token's name goes", with(func(l *storage.RemoteLink) { l.TokenName = "../token" })},
		{"an unknown state", with(func(l *storage.RemoteLink) { l.State = "syncing" })},
		{"a probe that is not JSON", with(func(l *storage.RemoteLink) { l.LastProbe = json.RawMessage("{") })},
		{"a probe over the bound", with(func(l *storage.RemoteLink) {
			l.LastProbe = json.RawMessage(`"` + strings.Repeat("x", storage.MaxProbeBytes) + `"`)
		})},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wantCode(t, Of(s).LinkSync(ws, tc.link), model.CodeValidation)
			if l, err := Of(s).SyncLink(ws); err != nil || l != nil {
				t.Fatalf("a refused link was stored: %+v %v", l, err)
			}
		})
	}
}

func TestLinkRecordLifecycle(t *testing.T) {
	s, clk := openTest(t)
	ws := mustWorkspace(t, s, "Linked")
	other := mustWorkspace(t, s, "Island")
	if l, err := Of(s).SyncLink(ws.Slug); err != nil || l != nil {
		t.Fatalf("unlinked workspace has a link: %+v %v", l, err)
	}
	mustSyncLink(t, s, ws.Slug)
	l, err := Of(s).SyncLink(ws.Slug)
	if err != nil || l == nil {
		t.Fatalf("SyncLink: %+v %v", l, err)
	}
	if l.State != storage.LinkActive || !l.LinkedAt.Equal(clk.now().UTC()) || l.BaseURL != testLink.BaseURL ||
		l.RemoteWorkspaceID != "remote-ws" || l.RemoteSlug != "team" || l.TokenName != "team" {
		t.Fatalf("stored link = %+v", l)
	}
	wantCode(t, Of(s).LinkSync(ws.Slug, testLink), model.CodeConflict)

	probe := json.RawMessage(`{"version":"2026.08","capabilities":{"idempotency_keys":false}}`)
	at := clk.now().Add(5e9)
	if err := Of(s).UpdateSyncLink(ws.Slug, func(l *storage.RemoteLink) error {
		l.State, l.LastProbe, l.LastExchange, l.NextTry = storage.LinkTokenRefused, probe, clk.now(), at
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	l, _ = Of(s).SyncLink(ws.Slug)
	if l.State != storage.LinkTokenRefused || string(l.LastProbe) != string(probe) || !l.NextTry.Equal(at) || l.LastExchange.IsZero() {
		t.Fatalf("updated link = %+v", l)
	}
	// An update that would store a bad record changes nothing.
	wantCode(t, Of(s).UpdateSyncLink(ws.Slug, func(l *storage.RemoteLink) error { l.State = "bogus"; return nil }), model.CodeValidation)
	if l, _ := Of(s).SyncLink(ws.Slug); l.State != storage.LinkTokenRefused {
		t.Fatalf("refused update stored state %q", l.State)
	}
	wantCode(t, Of(s).UpdateSyncLink(other.Slug, func(*storage.RemoteLink) error { return nil }), model.CodeConflict)

	linked, err := Of(s).LinkedWorkspaces()
	if err != nil || len(linked) != 1 || linked[0].WorkspaceID != ws.ID || linked[0].Slug != ws.Slug || linked[0].Link.RemoteSlug != "team" {
		t.Fatalf("LinkedWorkspaces = %+v %v", linked, err)
	}
}

// Unlinking keeps the local data and every ref, and drops the outbox and
// all of sync's state.
func TestUnlinkKeepsLocalDataAndDropsSyncState(t *testing.T) {
	s, _ := openTest(t)
	ws := mustWorkspace(t, s, "Unlink").Slug
	mustSyncLink(t, s, ws)
	a := mustCreate(t, s, ws, "tasks", "made while linked", nil)
	if err := s.SyncApply(ws, syncActor, func(tx *storage.SyncTx) error {
		return records.FirstErr(tx.MapID(storage.SyncItem, a.ID, "r-a"), tx.MapRemoteRef("TASK-9", a.ID),
			tx.SetBase(storage.SyncBase{ItemID: a.ID, Title: a.Title, CollectionID: a.CollectionID}),
			tx.SetCursors(storage.SyncCursors{ItemsChangesSeq: 4}), tx.SetInFlight(storage.SyncInFlight{OutboxSeq: 1, OpKey: "k", LocalID: "x"}),
			ignoreID(tx.AddConflict(storage.SyncConflict{Kind: storage.EntrySetAside, Reason: "refused", OutboxSeq: 1})))
	}); err != nil {
		t.Fatal(err)
	}
	if err := Of(s).UnlinkSync(ws); err != nil {
		t.Fatal(err)
	}
	if l, _ := Of(s).SyncLink(ws); l != nil {
		t.Fatalf("link after unlink: %+v", l)
	}
	if got, _ := Of(s).Outbox(ws, 0, 10); len(got) != 0 {
		t.Fatalf("outbox after unlink: %+v", got)
	}
	if _, ok, _ := Of(s).SyncRemoteID(ws, storage.SyncItem, a.ID); ok {
		t.Fatal("id map after unlink")
	}
	if b, _ := Of(s).SyncBase(ws, a.ID); b != nil {
		t.Fatal("base after unlink")
	}
	if n, _ := openSyncConflicts(s, ws); n != 0 {
		t.Fatalf("%d open conflicts after unlink", n)
	}
	if v, err := views.Of(s).GetItem(ws, a.Ref); err != nil || v.ID != a.ID || v.Ref != a.Ref {
		t.Fatalf("item after unlink: %+v %v", v, err)
	}
	if linked, _ := Of(s).LinkedWorkspaces(); len(linked) != 0 {
		t.Fatalf("still listed as linked: %+v", linked)
	}
	// Writes to an unlinked workspace's sync state are refused.
	wantCode(t, s.SyncApply(ws, syncActor, func(*storage.SyncTx) error { return nil }), model.CodeConflict)
	wantCode(t, Of(s).SetSyncInFlight(ws, storage.SyncInFlight{OutboxSeq: 1, OpKey: "k", LocalID: "x"}), model.CodeConflict)
}

func ignoreID(_ int64, err error) error { return err }
