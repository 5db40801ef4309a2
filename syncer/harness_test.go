package syncer_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/padd/padd/api"
	"github.com/padd/padd/daemon"
	"github.com/padd/padd/internal/launch"
	"github.com/padd/padd/internal/testwait"
	"github.com/padd/padd/remote"
	"github.com/padd/padd/storage"
	"github.com/padd/padd/syncer"
)

// A test remote: a second padd on its own data directory, which speaks
// Pad's API as far as the engine knows.
type testRemote struct {
	URL, Token string
	API        *api.Client
}

func startRemote(t *testing.T) *testRemote {
	t.Helper()
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan *launch.Info, 1)
	var wg sync.WaitGroup
	wg.Go(func() {
		err := daemon.Run(ctx, daemon.Config{DataDir: dir, Log: quiet(), Port: freePort(t), Ready: func(i *launch.Info) { ready <- i }})
		if err != nil && ctx.Err() == nil {
			t.Errorf("remote padd: %v", err)
		}
	})
	t.Cleanup(func() { cancel(); wg.Wait() })
	info := testwait.Recv(t, "the remote padd to serve", ready)
	r := &testRemote{URL: fmt.Sprintf("http://127.0.0.1:%d", info.Port), Token: info.Token}
	r.API = api.NewClient(r.URL, r.Token)
	return r
}

func freePort(t *testing.T) int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// quiet discards logs; PADD_TEST_LOG=1 shows them.
func quiet() *slog.Logger {
	if os.Getenv("PADD_TEST_LOG") != "" {
		return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	return slog.New(slog.NewTextHandler(io.Discard, nil))
}

// local is the padd under test: a store and the engine over it.
type local struct {
	Store *storage.Store
	M     *syncer.Manager
	Dir   string

	client remote.Options
	settle time.Duration // the engine's Settle (0: 200 ms)
	stop   func()        // ends the engine running
}

func startLocal(t *testing.T) *local {
	t.Helper()
	return startLocalWith(t, remote.Options{Limits: remote.Limits{General: 1000, GeneralBurst: 1000, Search: 100, SearchBurst: 100}})
}

// startLocalWith is startLocal with the engine's client options (zero:
// the daemon's, whose pacing adapts to the server, as against Pad).
func startLocalWith(t *testing.T, client remote.Options) *local {
	t.Helper()
	dir := t.TempDir()
	st, err := storage.Open(filepath.Join(dir, "padd.db"), storage.Options{Logger: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	l := &local{Store: st, Dir: dir, client: client}
	l.run(t)
	t.Cleanup(func() { l.stop(); st.Close() })
	return l
}

// run starts an engine over l's store.
func (l *local) run(t *testing.T) {
	t.Helper()
	settle := l.settle
	if settle == 0 {
		settle = 200 * time.Millisecond
	}
	m := syncer.New(syncer.Config{Store: l.Store, DataDir: l.Dir, Log: quiet(), Settle: settle, Client: l.client})
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { _ = m.Run(ctx) })
	l.M, l.stop = m, func() { cancel(); wg.Wait() }
	testwait.Until(t, "the engine to run", func() bool { _, err := m.Status(""); return err == nil })
}

// synced waits until the workspace's sync is idle: nothing pending,
// state synced.
func (l *local) synced(t *testing.T, ws string) api.SyncStatus {
	t.Helper()
	var st api.SyncStatus
	testwait.UntilOK(t, func() error {
		s, err := l.M.Status(ws)
		if err != nil {
			return err
		}
		st = s[0]
		if st.State != api.SyncSynced || st.Pending > 0 || st.Cloning {
			return fmt.Errorf("sync of %s is %s (pending %d, cloning %v, last error %q)", ws, st.State, st.Pending, st.Cloning, st.LastError)
		}
		return nil
	})
	return st
}
