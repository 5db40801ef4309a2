// Command padd is Pad on a laptop: a per-user daemon that keeps your Pad
// workspaces on local disk and serves them on loopback to padctl, local
// AI agents (through `padctl mcp serve`) and Pad's own CLI.
//
// With no arguments it runs in the foreground until SIGINT or SIGTERM.
// --home names the data directory (as PAD_HOME does), for the logon
// entries that carry no environment. When its stderr is the stream
// systemd gave it (JOURNAL_STREAM), it logs there only, for journald
// (docs/SERVICE.md).
// `padd mcp-serve` is the stdio MCP server behind `padctl mcp serve`.
//
// PADD_CPUPROFILE=<file> (off by default) writes a CPU profile of the
// whole run to that file, from start until a clean shutdown: for
// profiling padd under a load run (scripts/loadrun -cpuprofile).
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	rdebug "runtime/debug"
	"runtime/pprof"
	"syscall"

	"github.com/padd/padd/api"
	"github.com/padd/padd/daemon"
	"github.com/padd/padd/internal/launch"
	"github.com/padd/padd/mcpstdio"
	"github.com/padd/padd/padtoml"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "mcp-serve" {
		os.Exit(mcpServe())
	}
	port := flag.Int("port", 0, "pin the loopback port (default: padd.toml's port, else the port of last time, else 7787, else any free port)")
	debug := flag.Bool("debug", false, "log at debug level")
	version := flag.Bool("version", false, "print the version and exit")
	quiet := flag.Bool("quiet", false, "log only to the log file, not to stderr")
	home := flag.String("home", "", "data directory (default: $PAD_HOME, else the per-user location); for logon entries, which carry no environment")
	flag.Parse()
	if *version {
		fmt.Println("padd", api.Version)
		return
	}
	if *home != "" {
		// launch.DataDir, and every padd this one starts, read PAD_HOME.
		os.Setenv("PAD_HOME", *home)
	}
	dir, err := launch.DataDir()
	if err != nil {
		fmt.Fprintln(os.Stderr, "padd:", err)
		os.Exit(1)
	}
	// The agents' .pad.toml files, watched: every tool call that names no
	// workspace asks which one their directory links to.
	links := padtoml.NewFinder()
	defer links.Close()
	var stderr io.Writer = os.Stderr
	if *quiet {
		stderr = nil
	}
	// The level is padd.toml's log_level, live (daemon.Run reads the
	// file), unless --debug pins it.
	level := new(slog.LevelVar)
	if *debug {
		level.Set(slog.LevelDebug)
	}
	var log *slog.Logger
	if underJournal() {
		// systemd runs padd with stderr connected to journald, which
		// stamps, rotates and serves the lines (`journalctl --user -u
		// padd`): padd logs there only, without a time of its own.
		log = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level, ReplaceAttr: dropTime}))
	} else {
		log = daemon.NewLogger(dir, stderr, level)
	}
	slog.SetDefault(log)
	limits, warns := daemon.LimitsFromEnv(os.Getenv)
	for _, w := range warns {
		log.Warn(w)
	}
	cfg := daemon.Config{DataDir: dir, Port: *port, Log: log, Limits: limits, MCP: mcpstdio.Relayed(links.Find), ToolSurface: mcpstdio.ToolSurfaceJSON,
		LogLevel: level, PinLogLevel: *debug}
	tuneGC()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	stopProfile := startCPUProfile(os.Getenv("PADD_CPUPROFILE"))
	err = daemon.Run(ctx, cfg)
	stopProfile()
	if err != nil {
		fmt.Fprintln(os.Stderr, "padd:", err)
		if daemon.IsAlreadyRunning(err) {
			os.Exit(3)
		}
		os.Exit(1)
	}
}

func dropTime(groups []string, a slog.Attr) slog.Attr {
	if len(groups) == 0 && a.Key == slog.TimeKey {
		return slog.Attr{}
	}
	return a
}

// startCPUProfile starts a CPU profile into path ("" does nothing) and
// returns what stops and writes it. A profile that cannot start is
// reported and skipped: it never keeps padd from serving.
func startCPUProfile(path string) (stop func()) {
	if path == "" {
		return func() {}
	}
	f, err := os.Create(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, "padd: PADD_CPUPROFILE:", err)
		return func() {}
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		fmt.Fprintln(os.Stderr, "padd: PADD_CPUPROFILE:", err)
		f.Close()
		return func() {}
	}
	return func() {
		pprof.StopCPUProfile()
		if err := f.Close(); err != nil {
			fmt.Fprintln(os.Stderr, "padd: PADD_CPUPROFILE:", err)
		}
	}
}

// tuneGC lets the heap grow to three times what is live (GOGC=200) under
// a soft limit of 384 MiB, unless GOGC or GOMEMLIMIT say otherwise. padd's
// live heap is small, so the default GOGC=100 collects very often under
// load; the limit keeps a large job's heap (an index build) in bounds.
// Past the limit Go collects more often, never fails. The evidence for
// both numbers is in docs/PERFORMANCE.md, "Why the code is as it is".
func tuneGC() {
	if os.Getenv("GOGC") == "" {
		rdebug.SetGCPercent(200)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		rdebug.SetMemoryLimit(384 << 20)
	}
}
