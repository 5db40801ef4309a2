package e2e

import (
	"fmt"
	"testing"

	"github.com/padd/padd/api"
)

// TestIdleMirrorIsQuiet: a padd with a mirror of a workspace, nothing
// changing on either side, is as quiet as an idle padd (the mirror polls
// nothing: it waits on fsnotify and the store's commits).
func TestIdleMirrorIsQuiet(t *testing.T) {
	t.Parallel()
	r := &mirrorRig{t: t, home: t.TempDir(), dir: t.TempDir() + "/pad"}
	r.d = startPaddEnv(t, r.home, []string{"GODEBUG=gctrace=1"})
	r.ws = r.d.mkWorkspace(t, "Idle mirror")
	var last string
	for i := range 30 {
		last = r.d.createItem(t, r.ws, "tasks", api.ItemCreate{Title: fmt.Sprintf("Idle %d", i), Content: "x"}).Ref
	}
	r.add()
	r.fileOf(last)
	r.d.http.CloseIdleConnections()
	wantIdle(t, "padd with an idle mirror", idleProc{name: "padd", pid: r.d.pid(), stderr: r.d.stderr})
}
