// Command padctl is Pad's command line for padd, Pad on your laptop:
// workspaces, collections and items in Pad's CLI vocabulary, and the
// daemon's lifecycle. It finds the running padd through daemon.json in
// the data directory and starts it when none answers.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/padd/padd/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.Run(ctx, os.Args[1:], cli.ProcessEnv())
	stop()
	os.Exit(code)
}
