//go:build unix

package e2e

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/padd/padd/api"
	"github.com/padd/padd/daemon"
	"github.com/padd/padd/internal/launch"
	"github.com/padd/padd/internal/testwait"
	"github.com/padd/padd/storage"
	"github.com/padd/padd/storage/views"
)

// stopImportItems is the size of the imports stopped below: a hundred
// chunks, so that an import seen under way is still under way when padd
// is stopped.
const stopImportItems = 100_000

// leftoverLog is what padd logs at start when it removes what an
// interrupted import left (storage's setup).
const leftoverLog = "removed what imports a stop or a crash interrupted left"

// bigExport is Pad's JSON export of n small items in one collection.
func bigExport(n int) []byte {
	var b bytes.Buffer
	b.WriteString(`{"version":1,"workspace":{"name":"Big","slug":"big","settings":"{}"},` +
		`"collections":[{"id":"c","name":"Tasks","slug":"tasks","prefix":"TASK","schema":"{\"fields\":[]}","settings":"{}"}],"items":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"id":"i%d","collection_id":"c","title":"t%d"}`, i, i)
	}
	b.WriteString(`]}`)
	return b.Bytes()
}

// importUnderWay sends a large import and returns once padd's status
// shows it written in part; the import's answer (or its transport error)
// comes on the channel.
func (d *instance) importUnderWay(t *testing.T) <-chan string {
	t.Helper()
	done := make(chan string, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), testwait.Limit)
		defer cancel()
		resp, err := http.DefaultClient.Do(d.request(ctx, "POST", "/api/v1/workspaces/import", bigExport(stopImportItems)))
		if err != nil {
			done <- err.Error()
			return
		}
		resp.Body.Close()
		done <- resp.Status
	}()
	testwait.UntilOK(t, func() error {
		var st struct {
			Imports []struct {
				ItemsWritten int `json:"items_written"`
			} `json:"imports"`
		}
		decode(t, d.do(t, "GET", "/api/v1/padd/status", nil), &st)
		if len(st.Imports) == 1 && st.Imports[0].ItemsWritten > 0 {
			if st.Imports[0].ItemsWritten >= stopImportItems {
				t.Fatalf("the import was written whole before padd could be stopped under it")
			}
			return nil
		}
		select {
		case r := <-done:
			t.Fatalf("the import ended before it was seen under way: %s", r)
		default:
		}
		return fmt.Errorf("no import under way in padd's status: %+v", st)
	})
	return done
}

// wantOnlyWorkspace checks that padd lists the one workspace slug.
func (d *instance) wantOnlyWorkspace(t *testing.T, slug string) {
	t.Helper()
	var wss []api.Workspace
	decode(t, d.do(t, "GET", "/api/v1/workspaces", nil), &wss)
	if len(wss) != 1 || wss[0].Slug != slug {
		t.Errorf("padd lists %d workspaces (%+v); want %s alone", len(wss), wss, slug)
	}
}

// checkNoImport opens the database after padd stopped: it is sound and
// holds one workspace.
func checkNoImport(t *testing.T, home string) {
	t.Helper()
	st, err := storage.Open(filepath.Join(home, daemon.DBFile), storage.Options{Logger: quietLog})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.Check(); err != nil {
		t.Errorf("database consistency check: %v", err)
	}
	if wss, err := views.Of(st).ListWorkspaces(); err != nil || len(wss) != 1 {
		t.Errorf("the database holds %d workspaces (%v), want one", len(wss), err)
	}
}

// SIGTERM during a large import: padd abandons it, removes what it
// wrote, and exits cleanly; no workspace of it is there after, and the
// next start finds nothing of it to remove.
func TestSIGTERMDuringImport(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	d := startPadd(t, home)
	kept := d.mkWorkspace(t, "Kept")
	done := d.importUnderWay(t)
	d.stop() // exit 0, promptly
	if r := testwait.Recv(t, "the import's answer", done); !strings.Contains(r, "503") && !strings.Contains(r, "EOF") && !strings.Contains(r, "reset") {
		t.Errorf("the import padd stopped under answered %s; want 503 or the connection closed", r)
	}

	d2 := startPadd(t, home)
	d2.wantOnlyWorkspace(t, kept)
	d2.stop()
	if log, _ := os.ReadFile(filepath.Join(home, launch.LogFile)); strings.Contains(string(log), leftoverLog) {
		t.Errorf("padd left its stopped import to the next start to remove; want it removed at the stop")
	}
	checkNoImport(t, home)
}

// kill -9 during a large import: after the restart no workspace of it
// is there, and the restart removed what it had written.
func TestKill9DuringImport(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	d := startPadd(t, home)
	kept := d.mkWorkspace(t, "Kept")
	done := d.importUnderWay(t)
	d.kill9()
	testwait.Recv(t, "the import's end", done)

	d2 := startPadd(t, home)
	d2.wantOnlyWorkspace(t, kept)
	d2.stop()
	if log, _ := os.ReadFile(filepath.Join(home, launch.LogFile)); !strings.Contains(string(log), leftoverLog) {
		t.Errorf("the restart after kill -9 did not remove the import's leftover (its log has no %q)", leftoverLog)
	}
	checkNoImport(t, home)
}
