// Command padtray is padd's tray app: padd at a glance, the next work,
// each linked workspace's sync, and reminders as desktop notifications
// (docs/TRAY.md). It is a client of padd, found through daemon.json in
// padd's data directory (PAD_HOME), and starts padd only when asked.
package main

import (
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"runtime"
	"syscall"

	"github.com/padd/padd/api"
	"github.com/padd/padd/tray"
)

func main() {
	version := flag.Bool("version", false, "print the version and exit")
	verbose := flag.Bool("v", false, "log what the tray does (to stderr)")
	flag.Parse()
	if *version {
		fmt.Println("padtray", api.Version)
		return
	}
	// One P: an idle second P has the runtime's monitor thread poll
	// (docs/DESIGN.md, the relay's reason); the tray waits on sockets.
	if os.Getenv("GOMAXPROCS") == "" {
		runtime.GOMAXPROCS(1)
	}
	level := slog.LevelWarn
	if *verbose {
		level = slog.LevelInfo
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
	home, _ := os.UserHomeDir()
	stop := make(chan struct{})
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-sigs
		close(stop)
	}()
	err := tray.Run(tray.Options{Home: home, Log: log, Notifier: tray.NewNotifier(log)}, stop)
	if err != nil {
		fmt.Fprintln(os.Stderr, "padtray:", err)
		os.Exit(1)
	}
}
