// Package daemon is padd's process: it owns the data directory, serves
// Pad's API on loopback, and runs the background jobs.
package daemon

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/padd/padd/api"
	"github.com/padd/padd/config"
	"github.com/padd/padd/internal/atomicfile"
	"github.com/padd/padd/internal/launch"
	"github.com/padd/padd/mirror"
	"github.com/padd/padd/storage"
	"github.com/padd/padd/syncer"
	"gopkg.in/natefinch/lumberjack.v2"
)

// DefaultPort is padd's loopback port when free: clear of Pad's own 7777.
const DefaultPort = 7787

// Config is how padd runs.
type Config struct {
	DataDir string
	// Port pins the port to listen on (--port): that port or nothing.
	// 0 takes padd.toml's port (or PADD_PORT) as the pin when set, else
	// keeps the port padd got last time (PortFile), else tries
	// DefaultPort, else any free port.
	Port int
	// Log is where padd logs (nil: NewLogger(DataDir, nil, slog.LevelInfo)).
	Log *slog.Logger
	// Limits bound requests and event streams (zero fields: defaults).
	Limits Limits
	// Ready, when set, is called once padd is serving.
	Ready func(info *launch.Info)
	// MCP serves the MCP sessions `padd mcp-serve` relays (nil: padd
	// refuses them, and each relay serves its agent itself).
	MCP MCPServe
	// ToolSurface dumps the MCP catalog for GET /api/v1/mcp/tool-surface
	// (nil: that route is 404), set by padd's main like MCP.
	ToolSurface func() ([]byte, error)
	// LogLevel, when set, is the logger's level: padd.toml's log_level
	// sets it at start and on every reload, unless PinLogLevel (--debug).
	LogLevel    *slog.LevelVar
	PinLogLevel bool
}

// Files in the data directory.
const (
	DBFile    = "padd.db"
	WALFile   = DBFile + storage.WALSuffix // the write-ahead log beside it
	TokenFile = "token"
	// PortFile remembers the port padd last listened on, so that a
	// restart keeps the address Pad's CLI and scripts were given.
	PortFile = "port"
)

// AlreadyRunningError says another padd owns the data directory.
type AlreadyRunningError struct {
	DataDir string
	Info    *launch.Info // nil when daemon.json could not be read
}

func (e *AlreadyRunningError) Error() string {
	if e.Info != nil {
		return fmt.Sprintf("padd is already running for %s (pid %d, port %d); use it, or stop it with `padctl daemon stop`",
			e.DataDir, e.Info.PID, e.Info.Port)
	}
	return fmt.Sprintf("another padd holds the database in %s; stop it with `padctl daemon stop`", e.DataDir)
}

// IsAlreadyRunning reports whether err says another padd owns the data.
func IsAlreadyRunning(err error) bool {
	var e *AlreadyRunningError
	return errors.As(err, &e)
}

// Run runs padd until ctx is cancelled, then shuts down gracefully:
// in-flight requests finish, event streams are told, the database closes
// and daemon.json is removed.
func Run(ctx context.Context, cfg Config) error {
	if err := os.MkdirAll(cfg.DataDir, 0o700); err != nil {
		return fmt.Errorf("create data directory %s: %w", cfg.DataDir, err)
	}
	// Another OS user has no business in here, even if an older file or
	// a copy left looser modes behind.
	_ = os.Chmod(cfg.DataDir, 0o700)
	for _, f := range []string{DBFile, WALFile, TokenFile, launch.LogFile, launch.InfoFile} {
		_ = os.Chmod(filepath.Join(cfg.DataDir, f), 0o600)
	}
	log := cfg.Log
	if log == nil {
		log = NewLogger(cfg.DataDir, nil, slog.LevelInfo)
	}
	store, err := storage.Open(filepath.Join(cfg.DataDir, DBFile), storage.Options{Timeout: time.Second, Logger: log})
	if storage.IsLocked(err) {
		info, _ := launch.ReadInfo(cfg.DataDir)
		return &AlreadyRunningError{DataDir: cfg.DataDir, Info: info}
	}
	if err != nil {
		return err
	}
	defer store.Close()
	SweepOrphanBlobs(cfg.DataDir, store, log) // before serving: no upload is on its way

	// The search index opens while padd starts serving: health answers
	// once the store is open (every acknowledged write replayed), and a
	// request that needs the index waits for its open (run_index.go).
	index := openIndex(cfg.DataDir, store, log)
	defer index.close()

	token, err := loadToken(cfg.DataDir)
	if err != nil {
		return err
	}
	settings := config.New(config.Options{DataDir: cfg.DataDir, Log: log, Level: cfg.LogLevel, PinLevel: cfg.PinLogLevel})
	pinned := cfg.Port
	if pinned == 0 {
		pinned = settings.Started().Port // padd.toml's port, or PADD_PORT
	}
	ln, err := listen(pinned, lastPort(cfg.DataDir))
	if err != nil {
		return err
	}
	port := ln.Addr().(*net.TCPAddr).Port
	if port != lastPort(cfg.DataDir) {
		if err := atomicfile.Write(filepath.Join(cfg.DataDir, PortFile), []byte(strconv.Itoa(port)+"\n")); err != nil {
			log.Warn("cannot remember the port for the next start", "err", err)
		}
	}
	info := &launch.Info{PID: os.Getpid(), Port: port, Token: token, Version: api.Version, StartedAt: time.Now().UTC()}
	b, _ := json.MarshalIndent(info, "", "  ")
	infoPath := filepath.Join(cfg.DataDir, launch.InfoFile)
	if err := atomicfile.Write(infoPath, b); err != nil {
		ln.Close()
		if storage.IsNoSpace(err) {
			return fmt.Errorf("the disk holding %s is full, so padd cannot announce itself in %s: free some space and start it again (%w)",
				cfg.DataDir, launch.InfoFile, err)
		}
		return fmt.Errorf("write %s: %w", infoPath, err)
	}
	defer removeInfo(infoPath, info.PID)

	ctx, stopSelf := context.WithCancel(ctx)
	defer stopSelf()
	srv := NewServer(store, nil, token, log)
	srv.opening = index
	srv.stop = stopSelf
	srv.limits = cfg.Limits.orDefaults()
	srv.mcpServe = cfg.MCP
	srv.toolSurface = cfg.ToolSurface
	engine := syncer.New(syncConfig(store, cfg, log))
	srv.SetSync(engine)
	hub := new(eventHub)
	mirrors := mirror.New(mirror.Config{Store: store, Log: log, OnDelete: func() string { return settings.Settings().Mirror.OnDelete },
		OnEvent: wireFilesEvents(hub, settings, port)})
	srv.SetMirrors(mirrors, settings, hub, port)
	// Every goroutine started from here on is joined before the deferred
	// closes of the index and the store: nothing Run starts outlives it.
	var handlers sync.WaitGroup // requests being answered, relayed MCP sessions included
	// No ReadTimeout or WriteTimeout: they would cut event streams. A
	// slow header is bounded here, a slow body by the server (its
	// limits.BodyTimeout), an idle keep-alive connection by IdleTimeout, and a
	// stalled stream reader by the stream's own write deadline.
	hs := &http.Server{Handler: joined{srv, &handlers}, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute,
		MaxHeaderBytes: 1 << 20, ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn)}
	errc := make(chan error, 1)
	var serving sync.WaitGroup
	serving.Go(func() { errc <- hs.Serve(ln) })
	defer serving.Wait()
	log.Info("padd serving", "addr", ln.Addr().String(), "pid", info.PID, "version", api.Version, "data", cfg.DataDir)

	jobs, stopJobs := context.WithCancel(context.Background())
	var background sync.WaitGroup // the indexer, the jobs, the reminder loop and the sync engine
	background.Go(func() {
		if x, err := index.wait(jobs); err == nil {
			x.Run(jobs)
		}
	})
	background.Go(func() { runJobs(jobs, store, log) })
	background.Go(func() { runReminders(jobs, store, log) })
	background.Go(func() { _ = engine.Run(jobs) })
	background.Go(func() { watchNetwork(jobs, engine, log) })
	background.Go(func() { settings.Run(jobs) })
	background.Go(func() { _ = mirrors.Run(jobs) })
	defer func() {
		stopJobs()
		background.Wait()
	}()
	if cfg.Ready != nil {
		cfg.Ready(info)
	}

	var serveErr, openErr error
	select {
	case <-ctx.Done():
	case serveErr = <-errc:
		log.Error("the HTTP server stopped; padd stops too", "err", serveErr)
	case <-index.failed:
		openErr = index.err
		log.Error("the search index could not be opened; padd stops", "err", openErr)
	}
	log.Info("padd shutting down")
	stopJobs()
	srv.Close() // event streams say goodbye and return
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	srv.mcp.drain(shutdownCtx) // relayed MCP sessions answer what they have read
	if err := hs.Shutdown(shutdownCtx); err != nil {
		log.Warn("shutdown did not finish in time; closing the connections left", "err", err)
		_ = hs.Close()
	}
	handlers.Wait() // a handler whose connection was closed still finishes its call
	if serveErr != nil {
		return fmt.Errorf("http server stopped: %w", serveErr)
	}
	if openErr != nil {
		return openErr
	}
	log.Info("padd stopped")
	return nil
}

// joined is h, counting the requests being answered in wg, so that Run
// can wait for them: Shutdown does not wait for a hijacked connection's
// handler, nor Close for any.
type joined struct {
	h  http.Handler
	wg *sync.WaitGroup
}

func (j joined) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	j.wg.Add(1)
	defer j.wg.Done()
	j.h.ServeHTTP(w, r)
}

// removeInfo deletes daemon.json if it is still ours.
func removeInfo(path string, pid int) {
	if i, err := launch.ReadInfo(filepath.Dir(path)); err == nil && i.PID == pid {
		os.Remove(path)
	}
}

// listen binds 127.0.0.1 only. A pinned port is that port or an error
// that says who pinned it; otherwise the port of last time, padd's
// default, any free port, in that order.
func listen(pinned, previous int) (net.Listener, error) {
	bind := func(p int) (net.Listener, error) {
		return net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(p)))
	}
	if pinned != 0 {
		ln, err := bind(pinned)
		if err != nil {
			return nil, fmt.Errorf("port %d is pinned (by --port, padd.toml's port or PADD_PORT) but cannot be used: %w; free it or pin another", pinned, err)
		}
		return ln, nil
	}
	var last error
	for _, p := range []int{previous, DefaultPort, 0} {
		if p == 0 && last == nil {
			continue // no port of last time
		}
		ln, err := bind(p)
		if err == nil {
			return ln, nil
		}
		last = err
	}
	return nil, fmt.Errorf("listen on 127.0.0.1: %w", last)
}

// lastPort is the port in PortFile (0 when there is none).
func lastPort(dir string) int {
	b, err := os.ReadFile(filepath.Join(dir, PortFile))
	if err != nil {
		return 0
	}
	p, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || p <= 0 || p > 65535 {
		return 0
	}
	return p
}

// loadToken reads the local API token, minting one (0600) on first start.
// It is stable across restarts so PAD_TOKEN setups keep working.
func loadToken(dir string) (string, error) {
	path := filepath.Join(dir, TokenFile)
	b, err := os.ReadFile(path)
	if err == nil && len(strings.TrimSpace(string(b))) >= 32 {
		return strings.TrimSpace(string(b)), nil
	}
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return "", fmt.Errorf("read %s: %w", path, err)
	}
	raw := make([]byte, 32)
	if _, err := rand.Read(raw); err != nil {
		return "", err
	}
	tok := "padd_" + hex.EncodeToString(raw)
	if err := atomicfile.Write(path, []byte(tok+"\n")); err != nil {
		return "", fmt.Errorf("write %s: %w", path, err)
	}
	return tok, nil
}

// NewLogger logs JSON at level and above to a rotating file in the data
// directory and, when stderr is not nil, text to stderr too. It creates
// the directory when missing (0700).
func NewLogger(dataDir string, stderr io.Writer, level slog.Leveler) *slog.Logger {
	_ = os.MkdirAll(dataDir, 0o700)
	file := &lumberjack.Logger{Filename: filepath.Join(dataDir, launch.LogFile), MaxSize: 10, MaxBackups: 3, MaxAge: 28}
	opts := &slog.HandlerOptions{Level: level, ReplaceAttr: readableDuration}
	var h slog.Handler = slog.NewJSONHandler(file, opts)
	if stderr != nil {
		h = fanout{h, slog.NewTextHandler(stderr, opts)}
	}
	return slog.New(h)
}

// readableDuration writes a duration as people read it (1.5s, 230ms),
// not as JSON's count of nanoseconds, which `padctl daemon logs` would
// print as is.
func readableDuration(_ []string, a slog.Attr) slog.Attr {
	if a.Value.Kind() == slog.KindDuration {
		return slog.String(a.Key, a.Value.Duration().String())
	}
	return a
}

// fanout sends each record to several handlers.
type fanout []slog.Handler

func (f fanout) Enabled(ctx context.Context, l slog.Level) bool {
	for _, h := range f {
		if h.Enabled(ctx, l) {
			return true
		}
	}
	return false
}

func (f fanout) Handle(ctx context.Context, r slog.Record) error {
	var errs []error
	for _, h := range f {
		if h.Enabled(ctx, r.Level) {
			errs = append(errs, h.Handle(ctx, r.Clone()))
		}
	}
	return errors.Join(errs...)
}

func (f fanout) WithAttrs(as []slog.Attr) slog.Handler {
	out := make(fanout, len(f))
	for i, h := range f {
		out[i] = h.WithAttrs(as)
	}
	return out
}

func (f fanout) WithGroup(name string) slog.Handler {
	out := make(fanout, len(f))
	for i, h := range f {
		out[i] = h.WithGroup(name)
	}
	return out
}

// runJobs runs the periodic maintenance: purging workspaces past their
// restore window and forgetting expired leases and old idempotency keys.
func runJobs(ctx context.Context, store *storage.Store, log *slog.Logger) {
	tick := time.NewTicker(time.Hour)
	defer tick.Stop()
	for {
		if purged, err := store.PurgeWorkspaces(); err != nil {
			log.Warn("purge of deleted workspaces failed; will retry in an hour", "err", err)
		} else if len(purged) > 0 {
			log.Info("purged workspaces deleted more than 30 days ago", "slugs", purged)
		}
		if n, err := store.SweepLeases(); err != nil {
			log.Warn("sweep of expired leases failed; will retry in an hour", "err", err)
		} else if n > 0 {
			log.Debug("forgot expired leases", "count", n)
		}
		if n, err := store.SweepIdempotency(); err != nil {
			log.Warn("idempotency sweep failed; will retry in an hour", "err", err)
		} else if n > 0 {
			log.Debug("forgot expired idempotency keys", "count", n)
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// syncConfig is the sync engine's configuration: its timings from the
// limits (zero: the engine's defaults).
func syncConfig(store *storage.Store, cfg Config, log *slog.Logger) syncer.Config {
	sc := syncer.Config{Store: store, DataDir: cfg.DataDir, Log: log, Settle: cfg.Limits.SyncSettle, MaxBackoff: cfg.Limits.SyncMaxBackoff}
	if t := cfg.Limits.SyncTimeout; t > 0 {
		sc.Client.Timeout = t
		if sc.Settle == 0 {
			sc.Settle = t + 30*time.Second // the server's handler has finished or died by then
		}
	}
	return sc
}
