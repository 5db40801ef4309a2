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
// mcp-go, whose JSON Schema dependency compiles its meta-schemas at init
// (4 ms of every padctl command). It holds no data and no lock: it
// relays the session to the padd daemon, which serves it (starting padd
// when none answers), and serves it itself only when padd cannot.
//
// PADD_MCP_CPUPROFILE=<file> profiles it, as PADD_CPUPROFILE does padd.
func mcpServe() int {
	// One relay runs per agent and it only copies, so one P is plenty,
	// and with one the runtime's monitor thread sleeps while the relay
	// waits on the agent's stdin; with two it polled every 20 µs for as
	// long as the other P stayed idle: three quarters of the relay's
	// CPU. Under the load run this cut the relays' CPU per call by 40 %
	// (docs/PERFORMANCE.md, runs AL). GOMAXPROCS still overrides it.
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
