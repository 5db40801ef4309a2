package tray

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/padd/padd/api"
)

// ActionKind is what a click asks the Engine to do.
type ActionKind int

const (
	ActNone ActionKind = iota
	ActStart
	ActSelectWorkspace // Arg: the slug
	ActCopyRef         // Arg: the workspace, Arg2: the ref
	ActSyncNow         // Arg: the workspace
	ActSyncPause       // Arg: the workspace
	ActSyncResume      // Arg: the workspace
	ActAgentToggle     // Arg: the MCP client's name
	ActLoginToggle
	ActOpenLogs
	ActOpenData
	ActRestart
	ActQuitTray
	ActStopAndQuit
)

// Action is a click's meaning.
type Action struct {
	Kind      ActionKind
	Arg, Arg2 string
}

// Item is one menu entry. Key names its place: the adapter keeps one
// native entry per key, so the top level's keys and their order are the
// same in every state (Hidden says what is not shown), and a submenu's
// children are keyed by what they stand for.
type Item struct {
	Key       string
	Label     string
	Tooltip   string
	Disabled  bool
	Hidden    bool
	Separator bool
	// Checkable entries show a check mark, set when Checked. Whether an
	// entry is checkable never changes for its key.
	Checkable bool
	Checked   bool
	Action    Action
	Children  []Item
}

// Location is where the menu's times are shown (tests pin it).
var Location = time.Local

// Menu is the tray's menu for a state: a pure function, so that every
// state's menu is a table test.
func Menu(s State) []Item {
	up := s.Conn == ConnUp
	reachable := up || s.Conn == ConnLost
	var m []Item
	add := func(it Item) { m = append(m, it) }

	add(statusItem(s))
	add(Item{Key: "note", Label: s.Note, Disabled: true, Hidden: s.Note == ""})
	add(workspaceItem(s, up))
	open := Item{Key: "open", Disabled: true, Hidden: !up || !s.OpenKnown || s.Current == ""}
	if s.Open == 1 {
		open.Label = "1 open item"
	} else {
		open.Label = strconv.Itoa(s.Open) + " open items"
	}
	add(open)
	nextHdr := Item{Key: "next", Label: "Next:", Disabled: true, Hidden: !up || s.Current == ""}
	if len(s.Next) == 0 {
		nextHdr.Label = "Next: nothing ready"
	}
	add(nextHdr)
	for i := range MaxNext {
		it := Item{Key: "next." + strconv.Itoa(i), Hidden: true}
		if up && i < len(s.Next) {
			n := s.Next[i]
			it.Hidden = false
			it.Label = "    " + n.Ref + "  " + clip(n.Title, 60)
			it.Tooltip = "Copy " + n.Ref
			if n.Reason != "" {
				it.Tooltip += " (" + n.Reason + ")"
			}
			it.Action = Action{Kind: ActCopyRef, Arg: s.Current, Arg2: n.Ref}
		}
		add(it)
	}
	add(Item{Key: "sep.1", Separator: true})

	for i := range MaxSync {
		key := "sync." + strconv.Itoa(i)
		it := Item{Key: key, Hidden: true}
		if up && i < len(s.Sync) {
			st := s.Sync[i]
			paused := st.State == api.SyncPaused
			it.Hidden = false
			it.Label = SyncLine(st)
			it.Tooltip = st.URL
			if st.LastError != "" {
				it.Tooltip += ": " + st.LastError
			}
			pause := Item{Key: key + ".pause", Label: "Pause sync", Action: Action{Kind: ActSyncPause, Arg: st.Workspace}}
			if paused {
				pause.Label, pause.Action.Kind = "Resume sync", ActSyncResume
			}
			it.Children = []Item{
				{Key: key + ".now", Label: "Sync now", Disabled: paused, Action: Action{Kind: ActSyncNow, Arg: st.Workspace}},
				pause,
			}
		}
		add(it)
	}

	agents := Item{Key: "agents", Label: "Set up an AI agent…"}
	for _, a := range s.Agents {
		agents.Children = append(agents.Children, Item{Key: "agent." + a.Name, Label: a.Label, Checkable: true,
			Checked: a.Installed, Action: Action{Kind: ActAgentToggle, Arg: a.Name}})
	}
	agents.Hidden = len(agents.Children) == 0
	add(agents)
	add(loginItem(s.Login))
	add(Item{Key: "sep.2", Separator: true})

	add(Item{Key: "logs", Label: "Open logs", Action: Action{Kind: ActOpenLogs}})
	add(Item{Key: "data", Label: "Open data folder", Action: Action{Kind: ActOpenData}})
	add(Item{Key: "restart", Label: "Restart padd", Disabled: !reachable || s.Busy != "", Action: Action{Kind: ActRestart}})
	add(Item{Key: "quit", Label: "Quit tray", Action: Action{Kind: ActQuitTray}})
	add(Item{Key: "stopquit", Label: "Stop padd and quit", Disabled: !reachable || s.Busy != "", Action: Action{Kind: ActStopAndQuit}})
	return m
}

func statusItem(s State) Item {
	it := Item{Key: "status", Disabled: true}
	switch {
	case s.Busy != "":
		it.Label = s.Busy
	case s.Conn == ConnUnknown:
		it.Label = "padd: looking…"
	case s.Conn == ConnStarting:
		it.Label = "Starting padd…"
	case s.Conn == ConnDown:
		it.Label, it.Disabled = "padd not running: Start", false
		it.Action = Action{Kind: ActStart}
		it.Tooltip = s.Why
	case s.Conn == ConnLost:
		it.Label = "padd unreachable since " + clock(s.Since) + ": reconnecting…"
		it.Tooltip = s.Why
	case s.TooOld():
		it.Label = fmt.Sprintf("padd %s is older than this tray (%s): update padd", s.PaddVersion, s.TrayVersion)
	default:
		it.Label = "padd " + s.PaddVersion + " · " + plural(len(s.Workspaces), "workspace")
	}
	return it
}

func workspaceItem(s State, up bool) Item {
	it := Item{Key: "workspace", Hidden: !up}
	if len(s.Workspaces) == 0 {
		it.Label, it.Disabled = "No workspace yet: padctl init", true
		return it
	}
	name := s.Current
	for _, w := range s.Workspaces {
		if w.Slug == s.Current && w.Name != "" {
			name = w.Name
		}
		it.Children = append(it.Children, Item{Key: "ws." + w.Slug, Label: wsLabel(w), Checkable: true,
			Checked: w.Slug == s.Current, Action: Action{Kind: ActSelectWorkspace, Arg: w.Slug}})
	}
	it.Label = "Workspace: " + name
	return it
}

func wsLabel(w Workspace) string {
	if w.Name == "" || w.Name == w.Slug {
		return w.Slug
	}
	return w.Name + " (" + w.Slug + ")"
}

func loginItem(l Login) Item {
	it := Item{Key: "login", Label: "Start at login", Checkable: true, Action: Action{Kind: ActLoginToggle}}
	switch {
	case !l.Known:
		it.Disabled = true
	case !l.Available:
		it.Label, it.Disabled = "Start at login (unavailable)", true
		it.Tooltip = "this padctl has no `padctl daemon install`"
	default:
		it.Checked = l.Enabled
		if l.Manager != "" {
			it.Tooltip = "padd as a " + l.Manager + " service"
		}
	}
	return it
}

// SyncLine says one linked workspace's sync in a few words: synced, N
// pending, offline since T, token refused, N conflicts.
func SyncLine(st api.SyncStatus) string {
	var parts []string
	switch st.State {
	case api.SyncSynced:
		if st.Pending == 0 {
			parts = append(parts, "synced")
		}
	case api.SyncPushing:
		parts = append(parts, "syncing")
	case api.SyncPulling:
		if st.Cloning {
			parts = append(parts, "cloning")
		} else {
			parts = append(parts, "syncing")
		}
	case api.SyncOffline:
		if st.OfflineSince != nil {
			parts = append(parts, "offline since "+clock(*st.OfflineSince))
		} else {
			parts = append(parts, "offline")
		}
	case api.SyncTokenRefused:
		parts = append(parts, "token refused")
	case api.SyncRemoteGone:
		parts = append(parts, "remote workspace gone")
	case api.SyncPaused:
		parts = append(parts, "paused")
	default:
		parts = append(parts, st.State)
	}
	if st.Pending > 0 {
		parts = append(parts, strconv.Itoa(st.Pending)+" pending")
	}
	if st.Conflicts > 0 {
		parts = append(parts, plural(st.Conflicts, "conflict"))
	}
	return st.Workspace + ": " + strings.Join(parts, " · ")
}

// IconKind is which of the tray's icons a state shows.
type IconKind int

const (
	IconRunning  IconKind = iota // padd runs, everything synced
	IconSyncing                  // a linked workspace is exchanging
	IconOffline                  // a linked workspace has work that has not reached its server
	IconConflict                 // a conflict waits for the user
	IconStopped                  // padd is not running or not answering
	IconOld                      // padd is older than the tray
)

func (k IconKind) String() string {
	return [...]string{"running", "syncing", "offline", "conflict", "stopped", "old"}[k]
}

// Icon is the icon for a state: the worst thing first.
func Icon(s State) IconKind {
	switch {
	case s.Conn != ConnUp:
		return IconStopped
	case s.TooOld():
		return IconOld
	}
	kind := IconRunning
	for _, st := range s.Sync {
		switch {
		case st.Conflicts > 0:
			return IconConflict
		case (st.State == api.SyncOffline || st.State == api.SyncTokenRefused || st.State == api.SyncRemoteGone) && st.Pending > 0:
			kind = IconOffline
		case (st.State == api.SyncPushing || st.State == api.SyncPulling) && kind == IconRunning:
			kind = IconSyncing
		}
	}
	return kind
}

// Tooltip is the line shown when the pointer rests on the icon.
func Tooltip(s State) string {
	switch s.Conn {
	case ConnUnknown:
		return "padd"
	case ConnStarting:
		return "padd: starting"
	case ConnDown:
		return "padd: not running"
	case ConnLost:
		return "padd: unreachable since " + clock(s.Since)
	}
	if s.TooOld() {
		return "padd " + s.PaddVersion + ": older than this tray, update padd"
	}
	parts := []string{"padd " + s.PaddVersion}
	if s.Current != "" && s.OpenKnown {
		parts = append(parts, s.Current+": "+plural(s.Open, "open item"))
	}
	pending, conflicts, offline := 0, 0, 0
	for _, st := range s.Sync {
		pending += st.Pending
		conflicts += st.Conflicts
		if st.State == api.SyncOffline {
			offline++
		}
	}
	if offline > 0 {
		parts = append(parts, plural(offline, "workspace")+" offline")
	}
	if pending > 0 {
		parts = append(parts, strconv.Itoa(pending)+" pending")
	}
	if conflicts > 0 {
		parts = append(parts, plural(conflicts, "conflict"))
	}
	return strings.Join(parts, " · ")
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
}

// clock is a moment as the menu says it: the time of day, with the date
// when it is not today.
func clock(t time.Time) string {
	if t.IsZero() {
		return "a moment ago"
	}
	t = t.In(Location)
	now := time.Now().In(Location)
	if t.YearDay() == now.YearDay() && t.Year() == now.Year() {
		return t.Format("15:04")
	}
	return t.Format("Jan 2 15:04")
}

func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
