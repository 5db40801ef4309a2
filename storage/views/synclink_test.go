package views

import (
	"testing"

	"github.com/padd/padd/model"
	"github.com/padd/padd/storage"
	"github.com/padd/padd/storage/syncstate"
)

// testLink is a link to a remote the tests never reach.
var testLink = storage.RemoteLink{BaseURL: "http://127.0.0.1:1", RemoteWorkspaceID: "remote-ws", RemoteSlug: "team", TokenName: "team"}

// syncActor is the sync engine writing what it pulled.
var syncActor = model.Actor{Kind: model.ActorUser, Name: "Remote User", Source: model.SourceSync}

func mustSyncLink(t testing.TB, s *storage.Store, ws string) {
	t.Helper()
	if err := syncstate.Of(s).LinkSync(ws, testLink); err != nil {
		t.Fatalf("link %s: %v", ws, err)
	}
}
