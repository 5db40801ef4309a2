package api

import (
	"context"
	"time"
)

// DaemonStatus answers GET /padd/status: the daemon's own state.
type DaemonStatus struct {
	Version       string    `json:"version"`
	PID           int       `json:"pid"`
	StartedAt     time.Time `json:"started_at"`
	UptimeSeconds int64     `json:"uptime_seconds"`
	DBPath        string    `json:"db_path"`
	DBBytes       int64     `json:"db_bytes"`
	Workspaces    int       `json:"workspaces"`
	// MCPSessions counts the agents' MCP sessions padd serves now.
	MCPSessions int `json:"mcp_sessions"`
	// Memory is padd's resident memory by kind; absent where the system
	// does not say.
	Memory *MemoryUse `json:"memory,omitempty"`
	// Imports are the workspace imports being written now, oldest first.
	Imports []ImportProgress `json:"imports,omitempty"`
}

// ImportProgress is a workspace import being written: its workspace
// appears when all of its items are.
type ImportProgress struct {
	Name         string    `json:"name"`
	Items        int       `json:"items"`
	ItemsWritten int       `json:"items_written"`
	StartedAt    time.Time `json:"started_at"`
}

// MemoryUse is padd's resident memory (what top shows as RES), by kind.
// What padd owns is OwnBytes, of which HeapBytes is the Go heap; the
// mapped file pages are the system's page cache, which it reclaims on
// its own when something else needs the memory.
type MemoryUse struct {
	// OwnBytes is padd's own memory (anonymous: heap, stacks, caches).
	OwnBytes int64 `json:"own_bytes"`
	// HeapBytes is the Go heap's live and not yet swept objects.
	HeapBytes int64 `json:"heap_bytes"`
	// DatabaseBytes and IndexBytes are the pages of the database file and
	// the search index mapped from the page cache: clean, shared with the
	// system's cache, and taken back by the system when it needs them.
	DatabaseBytes int64 `json:"database_bytes"`
	IndexBytes    int64 `json:"index_bytes"`
	// ProgramBytes is padd's own code and libraries, mapped the same way.
	ProgramBytes int64 `json:"program_bytes"`
	// PeakBytes is the highest resident set since padd started (VmHWM):
	// its own memory and the mapped pages together, as top's RES would
	// have shown at that moment.
	PeakBytes int64 `json:"peak_bytes,omitempty"`
}

// Health answers GET /health (no token needed).
func (c *Client) Health(ctx context.Context) (*Health, error) {
	var out Health
	if _, err := c.Do(ctx, "GET", "/health", nil, nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// DaemonStatus answers GET /padd/status.
func (c *Client) DaemonStatus(ctx context.Context) (*DaemonStatus, error) {
	var out DaemonStatus
	if _, err := c.Do(ctx, "GET", "/padd/status", nil, nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// Shutdown asks padd to stop (POST /padd/shutdown). It answers before it
// stops: wait for its pid to exit to know it is gone.
func (c *Client) Shutdown(ctx context.Context) error {
	_, err := c.Do(ctx, "POST", "/padd/shutdown", nil, nil, nil)
	return err
}
