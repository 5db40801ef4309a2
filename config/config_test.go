package config

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/padd/padd/internal/testwait"
)

// syncBuf is a log sink the watcher's goroutine and the test share.
type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestReloadAppliesLogLevelAndKeepsOldOnBrokenFile is the reload
// test: the level written in the file takes effect in the log without a
// restart, and a broken file keeps it and says why.
func TestReloadAppliesLogLevelAndKeepsOldOnBrokenFile(t *testing.T) {
	dir := t.TempDir()
	path := Path(dir)
	if err := os.WriteFile(path, []byte("log_level = \"info\"\nport = 7800\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var out syncBuf
	level := new(slog.LevelVar)
	log := slog.New(slog.NewTextHandler(&out, &slog.HandlerOptions{Level: level}))
	w := New(Options{DataDir: dir, Log: log, Level: level, Getenv: func(string) string { return "" }})
	if w.Settings().Port != 7800 || level.Level() != slog.LevelInfo {
		t.Fatalf("at start: settings %+v, level %v", w.Settings(), level.Level())
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); w.Run(ctx) }()
	defer func() { cancel(); <-done }()

	// Run's watch may not be in place yet: write until the level shows.
	write := func(body string) {
		t.Helper()
		tmp := path + ".tmp"
		if err := os.WriteFile(tmp, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, path); err != nil { // an editor's rename over
			t.Fatal(err)
		}
	}
	testwait.Until(t, "log_level debug to apply", func() bool {
		write("log_level = \"debug\"\nport = 7801\n")
		return level.Level() == slog.LevelDebug
	})
	log.Debug("a debug line after the reload")
	if !strings.Contains(out.String(), "a debug line after the reload") {
		t.Fatalf("debug line not logged at level debug:\n%s", out.String())
	}
	testwait.Until(t, "the port change to be pending a restart", func() bool {
		st := w.Status()
		return len(st.Restart) == 1 && st.Restart[0] == "port" && st.Error == ""
	})

	write("log_level = \"debug\nport = \n") // broken TOML
	testwait.Until(t, "the broken file to be reported", func() bool { return w.Status().Error != "" })
	if level.Level() != slog.LevelDebug || w.Settings().LogLevel != "debug" || w.Settings().Port != 7801 {
		t.Fatalf("broken file changed the settings: %+v, level %v", w.Settings(), level.Level())
	}
	if !strings.Contains(out.String(), "padd.toml is not valid") {
		t.Fatalf("the log does not say the file is broken:\n%s", out.String())
	}
	write("log_level = \"loud\"\n") // valid TOML, bad value
	testwait.Until(t, "the bad value to be reported", func() bool { return strings.Contains(w.Status().Error, "loud") })
	if level.Level() != slog.LevelDebug {
		t.Fatalf("bad value changed the level to %v", level.Level())
	}
	write("log_level = \"warn\"\n")
	testwait.Until(t, "the fixed file to apply", func() bool { return level.Level() == slog.LevelWarn && w.Status().Error == "" })
}

func TestEnvironmentOverridesTheFile(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, FileName), []byte("log_level = \"error\"\nport = 1\n[mirror]\non_delete = \"keep\"\nfuture_key = 3\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"PADD_LOG_LEVEL": "debug", "PADD_PORT": "nope"}
	w := New(Options{DataDir: dir, Log: slog.New(slog.DiscardHandler), Getenv: func(k string) string { return env[k] }})
	s := w.Settings()
	if s.LogLevel != "debug" || s.Port != 1 || s.Mirror.OnDelete != OnDeleteKeep {
		t.Fatalf("settings %+v", s)
	}
	if u := w.Status().Unknown; len(u) != 1 || u[0] != "mirror.future_key" {
		t.Fatalf("unknown keys %v", u)
	}
}

func TestValidateNamesTheKey(t *testing.T) {
	for _, c := range []struct{ body, want string }{
		{"port = 70000", "port"},
		{"log_level = 3", "log_level"},
		{"[mirror]\non_delete = \"purge\"", "mirror.on_delete"},
		{"port = \"x\"", "port"},
	} {
		_, _, err := Parse([]byte(c.body))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: err %v, want one naming %s", c.body, err, c.want)
		}
	}
}

// A change made between the start's read and the watch's start is not
// missed: Run reads the file again once it listens, and announces only a
// change.
func TestRunReadsAChangeMadeBeforeItWatched(t *testing.T) {
	dir := t.TempDir()
	path := Path(dir)
	level := new(slog.LevelVar)
	w := New(Options{DataDir: dir, Log: slog.New(slog.NewTextHandler(&syncBuf{}, nil)), Level: level, Getenv: func(string) string { return "" }})
	changes := make(chan Settings, 4)
	w.OnChange(func(s Settings) { changes <- s })
	if err := os.WriteFile(path, []byte("log_level = \"debug\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); w.Run(ctx) }()
	defer func() { cancel(); <-done }()
	s := testwait.Recv(t, "the change made before the watch", changes)
	if s.Level() != slog.LevelDebug || level.Level() != slog.LevelDebug {
		t.Fatalf("settings %+v, level %v", s, level.Level())
	}
}
