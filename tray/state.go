// Package tray is padd's tray app (cmd/padtray): padd at a glance, the
// next work, each linked workspace's sync, and reminders as desktop
// notifications. It is a client of padd like padctl, through api and
// internal/launch; it never opens padd's storage.
//
// The shape: Engine builds a State from padd's API and its two event
// streams; Menu, Icon and Tooltip are pure functions of that State; a
// thin adapter (systray.go) puts the result on the system tray and sends
// the clicks back to the Engine as Actions.
package tray

import (
	"strconv"
	"strings"
	"time"

	"github.com/padd/padd/api"
)

// Conn is how the tray stands with padd.
type Conn int

const (
	// ConnUnknown: the tray has not looked yet (its first moments).
	ConnUnknown Conn = iota
	// ConnUp: padd answers and the event streams are open.
	ConnUp
	// ConnDown: no padd runs for the data directory (no daemon.json, or
	// its pid is gone). The tray waits for the user's Start.
	ConnDown
	// ConnLost: a padd runs (or ran a moment ago) but its streams broke
	// or it does not answer; the tray reconnects with backoff.
	ConnLost
	// ConnStarting: the user asked to start (or restart) padd.
	ConnStarting
)

// MaxNext is how many "Next:" items the menu has room for.
const MaxNext = 5

// MaxSync is how many linked workspaces the menu lists.
const MaxSync = 8

// State is everything the menu, the icon and the tooltip show. The
// Engine owns it and hands out copies.
type State struct {
	Conn Conn
	// Since is when Conn last changed to Down or Lost (the outage).
	Since time.Time
	// Why is the last connection error, in words.
	Why string

	// TrayVersion is this build's version; PaddVersion padd's.
	TrayVersion, PaddVersion string

	Workspaces []Workspace
	// Current is the slug of the workspace the menu shows.
	Current string
	// Open is the open (non-terminal) work of Current; OpenKnown says
	// that it was read.
	Open      int
	OpenKnown bool
	// Next is padd's `next` for Current, as `padctl project next` gives it.
	Next []NextItem

	// Sync is each linked workspace's sync status, by local slug order.
	Sync []api.SyncStatus
	// SyncUnavailable: this padd has no sync engine.
	SyncUnavailable bool

	// Agents are the MCP clients `padctl mcp install` knows.
	Agents []Agent
	// Login is the "Start at login" checkbox's state.
	Login Login

	// Busy names an action in flight ("Stopping padd…"), "" when none.
	Busy string
	// Note is the outcome of the last action when it failed, shown
	// until the next action.
	Note string
}

// Workspace is one of padd's workspaces.
type Workspace struct {
	Slug, Name string
}

// NextItem is one of padd's suggested items.
type NextItem struct {
	Ref, Title, Reason string
}

// Agent is one MCP client and whether padd's server is in its config.
type Agent struct {
	Name, Label string
	Installed   bool
}

// Login is what `padctl daemon status --format json` says about the
// per-user service, and the tray's own autostart entry.
type Login struct {
	// Known: padctl answered (Available or not).
	Known bool
	// Available: padctl has the daemon install commands.
	Available bool
	// Enabled: the service is installed and enabled, and the tray's
	// autostart entry is in place.
	Enabled bool
	// Manager is the service manager padctl uses (systemd, launchd, ...).
	Manager string
}

// TooOld reports whether padd is older than the tray: both versions are
// releases (vMAJOR.MINOR.PATCH) and padd's is lower. A development build
// ("dev") is older than nothing and newer than nothing.
func (s *State) TooOld() bool {
	p, ok1 := parseVersion(s.PaddVersion)
	t, ok2 := parseVersion(s.TrayVersion)
	if !ok1 || !ok2 {
		return false
	}
	for i := range p {
		if p[i] != t[i] {
			return p[i] < t[i]
		}
	}
	return false
}

// parseVersion reads vMAJOR.MINOR.PATCH (a pre-release or build suffix
// after - or + is ignored).
func parseVersion(v string) ([3]int, bool) {
	var out [3]int
	v, ok := strings.CutPrefix(v, "v")
	if !ok {
		return out, false
	}
	if i := strings.IndexAny(v, "-+"); i >= 0 {
		v = v[:i]
	}
	parts := strings.Split(v, ".")
	if len(parts) != 3 {
		return out, false
	}
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 {
			return out, false
		}
		out[i] = n
	}
	return out, true
}

// syncOf is the sync status of a workspace, nil when it is not linked.
func (s *State) syncOf(slug string) *api.SyncStatus {
	for i := range s.Sync {
		if s.Sync[i].Workspace == slug {
			return &s.Sync[i]
		}
	}
	return nil
}

// clone is a deep copy: the adapter reads it while the Engine goes on.
func (s State) clone() State {
	s.Workspaces = append([]Workspace(nil), s.Workspaces...)
	s.Next = append([]NextItem(nil), s.Next...)
	s.Sync = append([]api.SyncStatus(nil), s.Sync...)
	s.Agents = append([]Agent(nil), s.Agents...)
	return s
}
