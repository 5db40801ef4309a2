//go:build unix

package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/padd/padd/api"
	"github.com/padd/padd/internal/launch"
)

// TestStopFallsBackToSIGTERM stands a `sleep` in for a padd that will
// not go: once when the stop request cannot be delivered, once when it
// is accepted but the process stays. Both times stop sends SIGTERM,
// waits for the exit and removes the stale daemon.json.
func TestStopFallsBackToSIGTERM(t *testing.T) {
	oldWait := stopWait
	stopWait = 200 * time.Millisecond
	defer func() { stopWait = oldWait }()

	accepting := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/api/v1/padd/shutdown" && r.Method == "POST" {
			w.WriteHeader(http.StatusAccepted)
			w.Write([]byte(`{"status":"stopping"}`))
			return
		}
		http.NotFound(w, r)
	}))
	defer accepting.Close()
	refusing := func() int { // a port nothing listens on
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		return ln.Addr().(*net.TCPAddr).Port
	}()

	for _, c := range []struct {
		name string
		port int
		note string
	}{
		{"stop request undeliverable", refusing, "did not take the stop request"},
		{"stop request ignored", accepting.Listener.Addr().(*net.TCPAddr).Port, "still running"},
	} {
		t.Run(c.name, func(t *testing.T) {
			home := t.TempDir()
			t.Setenv("PAD_HOME", home)
			stubborn := exec.Command("sleep", "60")
			if err := stubborn.Start(); err != nil {
				t.Skip("no sleep binary:", err)
			}
			defer stubborn.Process.Kill()
			info, _ := json.Marshal(launch.Info{PID: stubborn.Process.Pid, Port: c.port, Token: "t", Version: api.Version})
			if err := os.WriteFile(filepath.Join(home, launch.InfoFile), info, 0o600); err != nil {
				t.Fatal(err)
			}
			var out, errb bytes.Buffer
			code := Run(context.Background(), []string{"daemon", "stop"}, Env{Stdin: strings.NewReader(""),
				Stdout: &out, Stderr: &errb, LookupEnv: env(nil), Now: time.Now, Style: &Style{Width: 100}})
			if code != 0 || !strings.Contains(out.String(), "Stopped padd") {
				t.Fatalf("stop exited %d: %s %s", code, out.String(), errb.String())
			}
			if !strings.Contains(errb.String(), c.note) || !strings.Contains(errb.String(), "SIGTERM") {
				t.Errorf("stderr does not explain the fallback: %q", errb.String())
			}
			err := stubborn.Wait()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGTERM {
				t.Errorf("the process ended with %v, want SIGTERM", err)
			}
			if _, err := os.Stat(filepath.Join(home, launch.InfoFile)); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("stale daemon.json left behind: %v", err)
			}
		})
	}
}
