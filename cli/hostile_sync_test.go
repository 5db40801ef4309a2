package cli

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/padd/padd/api"
)

// hostileText holds what remote text must never bring to a terminal:
// OSC 52 (sets the clipboard), a CSI (clears the screen), NUL, BEL, a
// carriage return, a C1 CSI, and bidi overrides and isolates (which
// reorder what is shown after them: "Trojan source").
const hostileText = "a\x1b]52;c;ZXZpbA==\x07b\x1b[2Jc\x00d\re\u009b31mf\u202eg\u2066h\u202a"

// forbidden is what padctl's human output must not hold, whatever the
// remote sent.
var forbidden = []string{"\x1b", "\x07", "\x00", "\r", "\u009b", "\u202e", "\u2066", "\u202a"}

// Every remote string padctl prints for a link (its URL and workspace,
// the last error a remote answered, conflicts and set-aside entries with
// the remote's values, verify's differences, the item's conflict mark)
// reaches the terminal sanitised, in the table and markdown formats.
func TestRemoteTextNeverDrivesTheTerminal(t *testing.T) {
	p := newSyncPadd(t, true)
	p.vars["PAD_WORKSPACE"] = "w"
	q, _ := json.Marshal(hostileText)
	at := goldenNow.Add(-time.Hour)
	p.edit(func(e *syncEngineDouble) {
		e.statuses["w"] = api.SyncStatus{Workspace: "w", URL: "https://pad.example.com/" + hostileText, RemoteWorkspace: hostileText,
			State: api.SyncOffline, Conflicts: 2, SetAside: 1, LastError: "remote: 400: " + hostileText, NotSynced: []string{hostileText}}
		e.conflicts = []api.SyncConflict{
			{ID: 1, Kind: "conflict", Ref: "TASK-1", Title: hostileText, Part: "title", Base: q, Local: json.RawMessage(`"Fix the login"`), Remote: q, At: at, State: "open"},
			{ID: 2, Kind: "conflict", Ref: "TASK-1", Part: "content", Base: q, Local: json.RawMessage(`"line\n"`), Remote: q, At: at, State: "open"},
			{ID: 3, Kind: "set_aside", Ref: hostileText, Part: hostileText, Reason: "padd refused the remote's version: title is 40000 characters long (it starts " + hostileText + ")", At: at, State: hostileText},
		}
		e.verify = &api.SyncVerify{Workspace: "w", URL: hostileText, RemoteWorkspace: hostileText, Pending: 1,
			Differences: []api.SyncDifference{{Kind: api.VerifyItem, Ref: hostileText, Part: hostileText, Local: q, Remote: q, Words: hostileText}},
			Conflicts:   []api.SyncDifference{{Kind: api.VerifyItem, Ref: "TASK-1", Part: "title", Local: q, Remote: q, Words: hostileText}},
			Notes:       []string{hostileText}}
	})
	for _, format := range []string{"table", "markdown"} {
		for _, args := range [][]string{
			{"sync", "status"},
			{"sync", "status", "w"},
			{"sync", "conflicts"},
			{"sync", "conflicts", "--all"},
			{"sync", "verify"},
			{"item", "show", "TASK-1"},
		} {
			r := p.run(append(args, "--format", format)...)
			if r.stdout == "" {
				t.Errorf("%s --format %s printed nothing: %s", args, format, r)
			}
			for _, out := range []string{r.stdout, r.stderr} {
				for _, f := range forbidden {
					if strings.Contains(out, f) {
						t.Errorf("%s --format %s printed %q:\n%q", args, format, f, out)
					}
				}
			}
		}
	}
}
