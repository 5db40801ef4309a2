package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"syscall"

	"github.com/padd/padd/mcpstdio"
)

// mcpServe is `padd mcp-serve`: the stdio MCP server that `padctl mcp
// serve` runs. It lives in padd's binary so that padctl does not link
// mcp-go, whose JSON Schema dependency compiles its meta-schemas at init,
// a cost every padctl command would pay (docs/PERFORMANCE.md, "Why the
// code is as it is"). It holds no data and no lock: it
// relays the session to the padd daemon, which serves it (starting padd
// when none answers), and serves it itself only when padd cannot.
//
// PADD_MCP_CPUPROFILE=<file> profiles it, as PADD_CPUPROFILE does padd.
func mcpServe() int {
	// One relay runs per agent and it only copies, so one P is plenty,
	// and with one the runtime's monitor thread sleeps while the relay
	// waits on the agent's stdin; with two it polls every 20 µs for as
	// long as the other P stays idle, which was most of the relay's CPU.
	// One P cuts the relays' CPU per call under load (docs/PERFORMANCE.md,
	// "Why the code is as it is"). GOMAXPROCS still overrides it.
	if os.Getenv("GOMAXPROCS") == "" {
		runtime.GOMAXPROCS(1)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	defer startCPUProfile(os.Getenv("PADD_MCP_CPUPROFILE"))()
	if err := mcpstdio.Relay(ctx, os.Stdin, os.Stdout, mcpstdio.Options{}); err != nil && ctx.Err() == nil {
		fmt.Fprintln(os.Stderr, "padd mcp-serve:", err)
		return 1
	}
	return 0
}
