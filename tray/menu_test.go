package tray

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/padd/padd/api"
)

// render is a menu as the user sees it: visible entries, indented under
// their submenu, "[x]"/"[ ]" for check marks, "(off)" when disabled.
func render(items []Item, depth int, out *[]string) {
	for _, it := range items {
		if it.Hidden {
			continue
		}
		line := strings.Repeat("  ", depth)
		switch {
		case it.Separator:
			line += "---"
		case it.Checkable && it.Checked:
			line += "[x] " + it.Label
		case it.Checkable:
			line += "[ ] " + it.Label
		default:
			line += it.Label
		}
		if it.Disabled {
			line += " (off)"
		}
		*out = append(*out, line)
		render(it.Children, depth+1, out)
	}
}

func shown(s State) string {
	var out []string
	render(Menu(s), 0, &out)
	return strings.Join(out, "\n")
}

// A past day, so that times show with their date whatever day the test
// runs on.
var (
	t0       = time.Date(2026, 11, 30, 14, 5, 0, 0, time.UTC)
	agents   = []Agent{{Name: "claude-code", Label: "Claude Code", Installed: true}, {Name: "cursor", Label: "Cursor"}}
	loginOn  = Login{Known: true, Available: true, Enabled: true, Manager: "systemd"}
	loginOff = Login{Known: true, Available: true, Manager: "systemd"}
)

func up() State {
	return State{Conn: ConnUp, TrayVersion: "v1.4.0", PaddVersion: "v1.4.0",
		Workspaces: []Workspace{{Slug: "acme", Name: "Acme"}, {Slug: "home", Name: "home"}},
		Current:    "acme", Open: 12, OpenKnown: true,
		Next:   []NextItem{{Ref: "TASK-7", Title: "Fix the login", Reason: "critical"}, {Ref: "BUG-2", Title: "Crash on start"}},
		Agents: agents, Login: loginOff}
}

func with(s State, fn func(*State)) State { fn(&s); return s }

const tail = `---
Open logs
Open data folder
Restart padd
Quit tray
Stop padd and quit`

const tailDown = `---
Open logs
Open data folder
Restart padd (off)
Quit tray
Stop padd and quit (off)`

const agentsLogin = `Set up an AI agent…
  [x] Claude Code
  [ ] Cursor
`

func TestMenuIconTooltipPerState(t *testing.T) {
	Location = time.UTC
	syncing := func(st ...api.SyncStatus) State { return with(up(), func(s *State) { s.Sync = st }) }
	cases := []struct {
		name    string
		s       State
		menu    string
		icon    IconKind
		tooltip string
	}{
		{"starting up", State{Agents: agents}, "padd: looking… (off)\n---\n" + agentsLogin + "[ ] Start at login (off)\n" + tailDown,
			IconStopped, "padd"},
		{"padd gone: Start", State{Conn: ConnDown, Since: t0, Why: "padd is not running", Agents: agents, Login: loginOn},
			"padd not running: Start\n---\n" + agentsLogin + "[x] Start at login\n" + tailDown,
			IconStopped, "padd: not running"},
		{"starting padd", State{Conn: ConnStarting, Login: Login{Known: true}},
			"Starting padd… (off)\n---\n[ ] Start at login (unavailable) (off)\n" + tailDown,
			IconStopped, "padd: starting"},
		{"padd unreachable: the outage", State{Conn: ConnLost, Since: t0, Why: "connection refused", Login: loginOff},
			"padd unreachable since Nov 30 14:05: reconnecting… (off)\n---\n[ ] Start at login\n" + tail,
			IconStopped, "padd: unreachable since Nov 30 14:05"},
		{"running", up(), `padd v1.4.0 · 2 workspaces (off)
Workspace: Acme
  [x] Acme (acme)
  [ ] home
12 open items (off)
Next: (off)
    TASK-7  Fix the login
    BUG-2  Crash on start
---
` + agentsLogin + "[ ] Start at login\n" + tail,
			IconRunning, "padd v1.4.0 · acme: 12 open items"},
		{"padd older than the tray", with(up(), func(s *State) { s.PaddVersion = "v1.3.9"; s.Next = nil; s.Open = 1 }),
			`padd v1.3.9 is older than this tray (v1.4.0): update padd (off)
Workspace: Acme
  [x] Acme (acme)
  [ ] home
1 open item (off)
Next: nothing ready (off)
---
` + agentsLogin + "[ ] Start at login\n" + tail,
			IconOld, "padd v1.3.9: older than this tray, update padd"},
		{"no workspace yet", with(up(), func(s *State) {
			s.Workspaces, s.Current, s.Next, s.OpenKnown, s.Agents = nil, "", nil, false, nil
		}), "padd v1.4.0 · 0 workspaces (off)\nNo workspace yet: padctl init (off)\n---\n[ ] Start at login\n" + tail,
			IconRunning, "padd v1.4.0"},
		{"a failed action and a busy one", with(up(), func(s *State) {
			s.Busy, s.Note, s.Workspaces, s.Current, s.Next, s.OpenKnown, s.Agents = "Stopping padd…", "could not copy TASK-7: no clipboard tool found", nil, "", nil, false, nil
		}), "Stopping padd… (off)\ncould not copy TASK-7: no clipboard tool found (off)\nNo workspace yet: padctl init (off)\n---\n[ ] Start at login\n" + `---
Open logs
Open data folder
Restart padd (off)
Quit tray
Stop padd and quit (off)`, IconRunning, "padd v1.4.0"},
	}
	// The sync lines, each with its icon and tooltip.
	syncCases := []struct {
		name    string
		st      api.SyncStatus
		line    string
		icon    IconKind
		tooltip string
	}{
		{"synced", api.SyncStatus{Workspace: "acme", State: api.SyncSynced}, "acme: synced", IconRunning, ""},
		{"pending, on their way", api.SyncStatus{Workspace: "acme", State: api.SyncPushing, Pending: 3}, "acme: syncing · 3 pending", IconSyncing, " · 3 pending"},
		{"cloning", api.SyncStatus{Workspace: "acme", State: api.SyncPulling, Cloning: true}, "acme: cloning", IconSyncing, ""},
		{"offline with pending changes", api.SyncStatus{Workspace: "acme", State: api.SyncOffline, Pending: 2, OfflineSince: &t0},
			"acme: offline since Nov 30 14:05 · 2 pending", IconOffline, " · 1 workspace offline · 2 pending"},
		{"offline, nothing pending", api.SyncStatus{Workspace: "acme", State: api.SyncOffline, OfflineSince: &t0},
			"acme: offline since Nov 30 14:05", IconRunning, " · 1 workspace offline"},
		{"token refused", api.SyncStatus{Workspace: "acme", State: api.SyncTokenRefused, Pending: 1}, "acme: token refused · 1 pending", IconOffline, " · 1 pending"},
		{"remote gone", api.SyncStatus{Workspace: "acme", State: api.SyncRemoteGone}, "acme: remote workspace gone", IconRunning, ""},
		{"conflicts", api.SyncStatus{Workspace: "acme", State: api.SyncSynced, Conflicts: 2}, "acme: synced · 2 conflicts", IconConflict, " · 2 conflicts"},
		{"paused", api.SyncStatus{Workspace: "acme", State: api.SyncPaused, Pending: 1}, "acme: paused · 1 pending", IconRunning, " · 1 pending"},
	}
	for _, c := range syncCases {
		pause := "  Pause sync"
		now := "  Sync now"
		if c.st.State == api.SyncPaused {
			pause, now = "  Resume sync", "  Sync now (off)"
		}
		cases = append(cases, struct {
			name    string
			s       State
			menu    string
			icon    IconKind
			tooltip string
		}{"sync: " + c.name, syncing(c.st), `padd v1.4.0 · 2 workspaces (off)
Workspace: Acme
  [x] Acme (acme)
  [ ] home
12 open items (off)
Next: (off)
    TASK-7  Fix the login
    BUG-2  Crash on start
---
` + c.line + "\n" + now + "\n" + pause + "\n" + agentsLogin + "[ ] Start at login\n" + tail,
			c.icon, "padd v1.4.0 · acme: 12 open items" + c.tooltip})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := shown(c.s); got != c.menu {
				t.Errorf("menu:\n%s\nwant:\n%s", got, c.menu)
			}
			if got := Icon(c.s); got != c.icon {
				t.Errorf("icon %s, want %s", got, c.icon)
			}
			if got := Tooltip(c.s); got != c.tooltip {
				t.Errorf("tooltip %q, want %q", got, c.tooltip)
			}
		})
	}
}

// The adapter keeps one native entry per key: the top level's keys and
// their order are the same in every state.
func TestMenuKeysAreFixed(t *testing.T) {
	keys := func(s State) []string {
		var out []string
		for _, it := range Menu(s) {
			out = append(out, it.Key)
		}
		return out
	}
	want := keys(State{})
	for _, s := range []State{up(), {Conn: ConnDown}, with(up(), func(s *State) {
		s.Sync = []api.SyncStatus{{Workspace: "a"}, {Workspace: "b"}}
		s.Note = "x"
	})} {
		if got := keys(s); !slices.Equal(got, want) {
			t.Fatalf("top-level keys %v, want %v", got, want)
		}
	}
}

// What a click does, per entry.
func TestMenuActions(t *testing.T) {
	s := with(up(), func(s *State) {
		s.Sync = []api.SyncStatus{{Workspace: "acme", State: api.SyncPaused}}
	})
	byKey := map[string]Item{}
	var walk func([]Item)
	walk = func(items []Item) {
		for _, it := range items {
			byKey[it.Key] = it
			walk(it.Children)
		}
	}
	walk(Menu(s))
	for key, want := range map[string]Action{
		"next.0":       {Kind: ActCopyRef, Arg: "acme", Arg2: "TASK-7"},
		"ws.home":      {Kind: ActSelectWorkspace, Arg: "home"},
		"sync.0.now":   {Kind: ActSyncNow, Arg: "acme"},
		"sync.0.pause": {Kind: ActSyncResume, Arg: "acme"},
		"agent.cursor": {Kind: ActAgentToggle, Arg: "cursor"},
		"login":        {Kind: ActLoginToggle},
		"logs":         {Kind: ActOpenLogs},
		"data":         {Kind: ActOpenData},
		"restart":      {Kind: ActRestart},
		"quit":         {Kind: ActQuitTray},
		"stopquit":     {Kind: ActStopAndQuit},
	} {
		if got := byKey[key].Action; got != want {
			t.Errorf("%s: action %+v, want %+v", key, got, want)
		}
	}
	if got := Menu(State{Conn: ConnDown})[0].Action; got.Kind != ActStart {
		t.Errorf("the down status line's action is %+v, want Start", got)
	}
	if got := Menu(up())[0].Action; got.Kind != ActNone {
		t.Errorf("the running status line does something: %+v", got)
	}
}

func TestTooOld(t *testing.T) {
	for _, c := range []struct {
		padd, tray string
		old        bool
	}{
		{"v1.2.3", "v1.2.3", false},
		{"v1.2.2", "v1.2.3", true},
		{"v1.10.0", "v1.9.9", false},
		{"v0.9.0", "v1.0.0", true},
		{"v1.2.3-rc1", "v1.2.4", true},
		{"dev", "v1.0.0", false},
		{"v1.0.0", "dev", false},
		{"", "v1.0.0", false},
	} {
		s := State{PaddVersion: c.padd, TrayVersion: c.tray}
		if got := s.TooOld(); got != c.old {
			t.Errorf("padd %q, tray %q: too old %v, want %v", c.padd, c.tray, got, c.old)
		}
	}
}

func TestMoreNextThanRoomAndLongTitles(t *testing.T) {
	s := up()
	s.Next = nil
	for i := range MaxNext + 2 {
		s.Next = append(s.Next, NextItem{Ref: "T-" + string(rune('0'+i)), Title: strings.Repeat("x", 80)})
	}
	n := 0
	for _, it := range Menu(s) {
		if strings.HasPrefix(it.Key, "next.") && !it.Hidden {
			n++
			if len([]rune(it.Label)) > 4+3+2+60 {
				t.Errorf("label not clipped: %q", it.Label)
			}
		}
	}
	if n != MaxNext {
		t.Errorf("%d next entries shown, want %d", n, MaxNext)
	}
}
