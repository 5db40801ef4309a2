//go:build unix

package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/padd/padd/api"
	"github.com/padd/padd/daemon"
	"github.com/padd/padd/internal/launch"
)

// wantMode fails unless path exists with exactly mode perm.
func wantMode(t *testing.T, path string, perm os.FileMode) {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatalf("stat %s: %v", path, err)
	}
	if got := st.Mode().Perm(); got != perm {
		t.Errorf("%s has mode %04o, want %04o", filepath.Base(path), got, perm)
	}
}

// TestDaemonJSONLifecycle: daemon.json is written 0600 with pid, port,
// token and version, the port answers with that token, the data files are
// 0600, and a clean SIGTERM exit removes daemon.json and exits 0.
func TestDaemonJSONLifecycle(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	d := startPadd(t, home)

	infoPath := filepath.Join(home, launch.InfoFile)
	wantMode(t, infoPath, 0o600)
	b, err := os.ReadFile(infoPath)
	if err != nil {
		t.Fatal(err)
	}
	var raw map[string]any
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatalf("daemon.json is not JSON: %v\n%s", err, b)
	}
	for _, k := range []string{"pid", "port", "token", "version"} {
		if _, ok := raw[k]; !ok {
			t.Errorf("daemon.json has no %q: %s", k, b)
		}
	}
	if d.info.PID != d.pid() {
		t.Errorf("daemon.json pid %d, want the process's %d", d.info.PID, d.pid())
	}
	if d.info.Port != d.port {
		t.Errorf("daemon.json port %d, want the --port %d padd was given", d.info.Port, d.port)
	}
	if len(d.info.Token) < 32 {
		t.Errorf("daemon.json token %q is too short to be a secret", d.info.Token)
	}
	if d.info.Version != api.Version {
		t.Errorf("daemon.json version %q, want %q", d.info.Version, api.Version)
	}

	// The token file holds the same token; data files and dir are private.
	wantMode(t, filepath.Join(home, daemon.DBFile), 0o600)
	wantMode(t, filepath.Join(home, daemon.WALFile), 0o600)
	wantMode(t, filepath.Join(home, daemon.TokenFile), 0o600)
	if st, err := os.Stat(home); err != nil || st.Mode().Perm() != 0o700 {
		t.Errorf("data directory mode %v (err %v), want 0700", st.Mode().Perm(), err)
	}
	tok, err := os.ReadFile(filepath.Join(home, daemon.TokenFile))
	if err != nil || strings.TrimSpace(string(tok)) != d.info.Token {
		t.Errorf("token file holds %q (err %v), daemon.json says %q", tok, err, d.info.Token)
	}

	// The port answers, with the version header, and the token works.
	r := d.do(t, "GET", "/api/v1/health", nil)
	wantStatus(t, r, 200)
	if v := r.Header.Get(api.VersionHeader); v != d.info.Version {
		t.Errorf("%s: %q, want %q", api.VersionHeader, v, d.info.Version)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, info, err := launch.Connect(ctx, launch.ConnectOptions{DataDir: home, Start: false})
	if err != nil {
		t.Fatalf("launch.Connect to a running padd: %v", err)
	}
	if info.PID != d.pid() || info.Port != d.port {
		t.Errorf("launch.Connect found pid %d port %d, want %d %d", info.PID, info.Port, d.pid(), d.port)
	}
	var me map[string]any
	if _, err := c.Do(ctx, "GET", "/auth/me", nil, nil, &me); err != nil {
		t.Fatalf("GET /auth/me with the daemon.json token: %v", err)
	}

	d.stop()
	if _, err := os.Stat(infoPath); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("daemon.json still there after a clean exit (stat err %v)", err)
	}
	for _, f := range []string{daemon.DBFile, daemon.TokenFile} {
		if _, err := os.Stat(filepath.Join(home, f)); err != nil {
			t.Errorf("%s gone after a clean exit: %v", f, err)
		}
	}
	if _, _, err := launch.Connect(ctx, launch.ConnectOptions{DataDir: home}); err == nil {
		t.Errorf("launch.Connect found a padd after it stopped")
	}
}

// TestSecondPaddRefused: a second padd on the same data directory exits 3
// within 5 s, naming the running padd's pid and port, and leaves the
// first one serving.
func TestSecondPaddRefused(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	d := startPadd(t, home)

	start := time.Now()
	second := spawn(t, home, "--port", strconv.Itoa(freePort(t)))
	code, ok := second.waitExit(5 * time.Second)
	if !ok {
		t.Fatalf("second padd still running 5s after start; stderr:\n%s", second.stderr.String())
	}
	took := time.Since(start)
	if code != 3 {
		t.Errorf("second padd exited %d, want 3; stderr:\n%s", code, second.stderr.String())
	}
	msg := second.stderr.String()
	if !strings.Contains(msg, "pid "+strconv.Itoa(d.pid())) || !strings.Contains(msg, "port "+strconv.Itoa(d.port)) {
		t.Errorf("second padd's stderr does not name pid %d and port %d:\n%s", d.pid(), d.port, msg)
	}
	t.Logf("second padd refused in %s: %s", took.Round(time.Millisecond), strings.TrimSpace(msg))

	// The first is untouched: it serves and daemon.json still names it.
	wantStatus(t, d.do(t, "GET", "/api/v1/workspaces", nil), 200)
	info, err := launch.ReadInfo(home)
	if err != nil || info.PID != d.pid() {
		t.Errorf("daemon.json after the refused start: %+v, %v; want pid %d", info, err, d.pid())
	}
}

// TestKill9ThenRestart: after kill -9, daemon.json stays naming a dead
// pid, launch.Connect without Start says padd is not running, and a new padd
// starts on the same directory (the bbolt lock died with the process),
// replaces daemon.json and has every write.
func TestKill9ThenRestart(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	d := startPadd(t, home)
	ws := d.mkWorkspace(t, "Kill Nine")
	want := map[string]string{}
	for i := range 25 {
		it := d.createItem(t, ws, "tasks", api.ItemCreate{Title: "survivor " + strconv.Itoa(i), Content: "c" + strconv.Itoa(i)})
		want[it.ID] = it.Title
	}
	first := d.createItem(t, ws, "ideas", api.ItemCreate{Title: "to be edited"})
	edited := "edited before the crash"
	var up api.Item
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := d.client.Do(ctx, "PATCH", "/workspaces/"+ws+"/items/"+first.ID, nil, api.ItemUpdate{Title: &edited, ExpectedSeq: &first.Seq}, &up); err != nil {
		t.Fatalf("update: %v", err)
	}
	want[first.ID] = edited

	oldPID, oldToken := d.pid(), d.info.Token
	d.kill9()

	info, err := launch.ReadInfo(home)
	if err != nil {
		t.Fatalf("daemon.json after kill -9: %v (it should stay behind)", err)
	}
	if info.PID != oldPID {
		t.Errorf("daemon.json names pid %d after kill -9, want the dead %d", info.PID, oldPID)
	}
	if launch.ProcessAlive(oldPID) {
		t.Fatalf("pid %d still alive after kill -9 and reaping", oldPID)
	}
	cctx, ccancel := context.WithTimeout(ctx, 10*time.Second)
	c, _, err := launch.Connect(cctx, launch.ConnectOptions{DataDir: home, Start: false})
	ccancel()
	if err == nil || c != nil {
		t.Fatalf("launch.Connect(Start:false) found a padd after kill -9")
	}
	if !strings.Contains(err.Error(), "not running") {
		t.Errorf("launch.Connect error does not say padd is not running: %v", err)
	}

	start := time.Now()
	d2 := startPadd(t, home)
	t.Logf("restart after kill -9 served in %s", time.Since(start).Round(time.Millisecond))
	if d2.info.PID == oldPID || d2.info.PID != d2.pid() {
		t.Errorf("daemon.json after restart names pid %d, want the new %d", d2.info.PID, d2.pid())
	}
	if d2.info.Token != oldToken {
		t.Errorf("token changed across restart: PAD_TOKEN setups would break")
	}
	for id, title := range want {
		it, err := d2.getItem(t, ws, id)
		if err != nil {
			t.Errorf("item %s (%q) after restart: %v", id, title, err)
			continue
		}
		if it.Title != title {
			t.Errorf("item %s title %q after restart, want %q", id, it.Title, title)
		}
	}
	c, info, err = launch.Connect(ctx, launch.ConnectOptions{DataDir: home, Start: false})
	if err != nil || info.PID != d2.pid() {
		t.Fatalf("launch.Connect after restart: %+v, %v", info, err)
	}
	_ = c
}

// TestShutdownOverAPI: POST /api/v1/padd/shutdown (with the token) stops
// padd gracefully: 202, exit 0, daemon.json removed, data kept.
func TestShutdownOverAPI(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	d := startPadd(t, home)
	ws := d.mkWorkspace(t, "Stop Me")
	it := d.createItem(t, ws, "tasks", api.ItemCreate{Title: "kept"})

	req := d.request(context.Background(), "POST", "/api/v1/padd/shutdown", nil)
	req.Header.Del("Authorization")
	r, err := d.send(req)
	if err != nil {
		t.Fatal(err)
	}
	wantError(t, r, 401, "unauthorized")
	wantStatus(t, d.do(t, "GET", "/api/v1/health", nil), 200)

	wantStatus(t, d.do(t, "POST", "/api/v1/padd/shutdown", nil), 202)
	code, ok := d.waitExit(15 * time.Second)
	if !ok {
		t.Fatalf("padd still running 15s after POST /padd/shutdown")
	}
	if code != 0 {
		t.Errorf("padd exited %d after POST /padd/shutdown, want 0", code)
	}
	if _, err := os.Stat(filepath.Join(home, launch.InfoFile)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("daemon.json still there after shutdown over the API (stat err %v)", err)
	}
	d2 := startPadd(t, home)
	if got, err := d2.getItem(t, ws, it.ID); err != nil || got.Title != "kept" {
		t.Errorf("item after restart: %+v, %v", got, err)
	}
}
