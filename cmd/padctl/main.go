// Command padctl is Pad's command line for padd, Pad on your laptop:
// workspaces, collections and items in Pad's CLI vocabulary, and the
// daemon's lifecycle. It finds the running padd through daemon.json in
// the data directory and starts it when none answers.
package main

import (
	"context"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"

	"github.com/padd/padd/cli"
)

func main() {
	// A padctl run allocates most of its memory at once, much of it
	// kong's command model, so at the default GOGC its first collection
	// lands mid-run, a cost every command pays (docs/PERFORMANCE.md,
	// "Why the code is as it is"). At 400 a command finishes
	// before any; a long-lived one (watch, mcp serve) still keeps its heap
	// within five times what it holds.
	if _, set := os.LookupEnv("GOGC"); !set {
		debug.SetGCPercent(400)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.Run(ctx, os.Args[1:], cli.ProcessEnv())
	stop()
	os.Exit(code)
}
