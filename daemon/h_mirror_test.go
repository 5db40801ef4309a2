package daemon

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/padd/padd/api"
	"github.com/padd/padd/config"
	"github.com/padd/padd/mirror"
)

// withMirrors runs a mirror manager and settings on the harness's store.
func (h *harness) withMirrors() string {
	h.t.Helper()
	home := h.t.TempDir()
	settings := config.New(config.Options{DataDir: home, Log: slog.New(slog.DiscardHandler)})
	hub := new(eventHub)
	m := mirror.New(mirror.Config{Store: h.store, Log: slog.New(slog.DiscardHandler), OnEvent: wireFilesEvents(hub, settings, 0)})
	h.srv.SetMirrors(m, settings, hub, 0)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = m.Run(ctx) }()
	h.t.Cleanup(func() { cancel(); <-done })
	return home
}

func TestMirrorRoutesRefuseBadInputInPadsEnvelope(t *testing.T) {
	h := newHarness(t)
	// Without mirrors: a coded 503.
	h.wantError("GET", "/api/v1/padd/mirrors", nil, 503, api.CodeUnavailable)
	home := h.withMirrors()
	dir := filepath.Join(t.TempDir(), "pad")

	h.wantError("POST", "/api/v1/padd/mirrors", map[string]any{"workspace": "w", "dir": "relative/dir"}, 400, "validation_error")
	h.wantError("POST", "/api/v1/padd/mirrors", map[string]any{"dir": dir}, 400, "validation_error")
	h.wantError("POST", "/api/v1/padd/mirrors", `{"workspace": 3}`, 400, "bad_request")
	h.wantError("POST", "/api/v1/padd/mirrors", map[string]any{"workspace": "nope", "dir": dir}, 404, "not_found")
	h.wantError("POST", "/api/v1/padd/mirrors/remove", map[string]any{"workspace": "w", "dir": dir}, 404, "not_found")

	var m api.Mirror
	h.mustJSON("POST", "/api/v1/padd/mirrors", map[string]any{"workspace": "w", "dir": dir}, 201, &m)
	if m.Workspace != "w" || m.Dir == "" {
		t.Fatalf("added %+v", m)
	}
	// A folder inside another mirror's is refused.
	h.wantError("POST", "/api/v1/padd/mirrors", map[string]any{"workspace": "w", "dir": filepath.Join(dir, "inner")}, 409, "conflict")
	var list api.Mirrors
	h.mustJSON("GET", "/api/v1/padd/mirrors", nil, 200, &list)
	if len(list.Mirrors) != 1 {
		t.Fatalf("list %+v", list)
	}
	h.mustJSON("POST", "/api/v1/padd/mirrors/remove", map[string]any{"workspace": "w", "dir": dir}, 204, nil)

	if err := os.WriteFile(filepath.Join(home, "padd.toml"), []byte("log_level = \"warn\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var cs api.ConfigStatus
	h.mustJSON("GET", "/api/v1/padd/config", nil, 200, &cs)
	if cs.Path != filepath.Join(home, "padd.toml") || cs.Error != "" {
		t.Fatalf("config %+v", cs)
	}
}
