package daemon

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/padd/padd/api"
	"github.com/padd/padd/config"
	"github.com/padd/padd/internal/launch"
)

// runOnce starts Run on dir with the given pinned port, returns the port
// it served on (or Run's error), and stops it.
func runOnce(t *testing.T, dir string, pinned int) (int, error) {
	t.Helper()
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	ready := make(chan *launch.Info, 1)
	ran := make(chan error, 1)
	go func() {
		ran <- Run(ctx, Config{DataDir: dir, Port: pinned, Log: slog.New(slog.DiscardHandler), Ready: func(i *launch.Info) { ready <- i }})
	}()
	select {
	case info := <-ready:
		stop()
		if err := <-ran; err != nil {
			t.Fatalf("Run: %v", err)
		}
		return info.Port, nil
	case err := <-ran:
		return 0, err
	}
}

// busyPort holds a loopback port for the test.
func busyPort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	return ln.Addr().(*net.TCPAddr).Port
}

// A padd that could not have its default port keeps the one it got
// across restarts, so PAD_URL stays right; a pinned port is that port or
// a refusal that names it.
func TestPortIsKeptAcrossRestarts(t *testing.T) {
	dir := t.TempDir()
	// The port of "last time" is taken now: padd falls back, then keeps
	// what it got.
	taken := busyPort(t)
	// And so is the default port (by us, or by whoever has it).
	if ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(DefaultPort))); err == nil {
		defer ln.Close()
	}
	if err := os.WriteFile(filepath.Join(dir, PortFile), []byte(strconv.Itoa(taken)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	first, err := runOnce(t, dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		again, err := runOnce(t, dir, 0)
		if err != nil {
			t.Fatal(err)
		}
		if again != first {
			t.Fatalf("restart %d listened on %d, the first start on %d", i+1, again, first)
		}
	}

	// Pinned: exactly that port, whatever was kept.
	if got, err := runOnce(t, dir, taken); err == nil {
		t.Fatalf("a pinned port that is taken served on %d", got)
	} else if !strings.Contains(err.Error(), "pinned") || !strings.Contains(err.Error(), strconv.Itoa(taken)) {
		t.Fatalf("the refusal does not say the port is pinned: %v", err)
	}
	if got, err := runOnce(t, t.TempDir(), first); err != nil || got != first {
		t.Fatalf("pinned to %d, served on %d (%v)", first, got, err)
	}

	// Pinned by padd.toml: the same, and --port (Config.Port) wins.
	tomlDir := t.TempDir()
	if err := os.WriteFile(config.Path(tomlDir), []byte(fmt.Sprintf("port = %d\n", taken)), 0o600); err != nil {
		t.Fatal(err)
	}
	if got, err := runOnce(t, tomlDir, 0); err == nil || !strings.Contains(err.Error(), "pinned") {
		t.Fatalf("padd.toml pins a taken port: served on %d (%v)", got, err)
	}
	if got, err := runOnce(t, tomlDir, first); err != nil || got != first {
		t.Fatalf("--port %d over padd.toml's: served on %d (%v)", first, got, err)
	}
	if err := os.WriteFile(config.Path(tomlDir), []byte(fmt.Sprintf("port = %d\n", first)), 0o600); err != nil {
		t.Fatal(err)
	}
	if got, err := runOnce(t, tomlDir, 0); err != nil || got != first {
		t.Fatalf("padd.toml pins %d, served on %d (%v)", first, got, err)
	}
}

// `padctl daemon config` shows the port padd serves on, not padd.toml's
// unset 0: the settings it reports are those in force.
func TestConfigShowsThePortServedOn(t *testing.T) {
	dir := t.TempDir()
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	ready := make(chan *launch.Info, 1)
	ran := make(chan error, 1)
	go func() {
		ran <- Run(ctx, Config{DataDir: dir, Log: slog.New(slog.DiscardHandler), Ready: func(i *launch.Info) { ready <- i }})
	}()
	var info *launch.Info
	select {
	case info = <-ready:
	case err := <-ran:
		t.Fatalf("Run ended before serving: %v", err)
	}
	defer func() {
		stop()
		if err := <-ran; err != nil {
			t.Errorf("Run: %v", err)
		}
	}()
	st, err := api.NewClient(fmt.Sprintf("http://127.0.0.1:%d", info.Port), info.Token).ConfigStatus(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(st.Settings["port"]); got != strconv.Itoa(info.Port) {
		t.Fatalf("daemon config says port %s; padd serves on %d", got, info.Port)
	}
}
