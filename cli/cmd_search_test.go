package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/padd/padd/api"
)

// statusServer answers GET /api/v1/padd/index with the statuses given,
// one per request, repeating the last.
func statusServer(t *testing.T, seq ...api.IndexStatus) *api.Client {
	t.Helper()
	var mu sync.Mutex
	n := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		st := seq[min(n, len(seq)-1)]
		n++
		mu.Unlock()
		_ = json.NewEncoder(w).Encode(st)
	}))
	t.Cleanup(srv.Close)
	return api.NewClient(srv.URL, "token")
}

func shortRebuildTimes(t *testing.T) {
	poll, maxPoll, grace, progress := rebuildPoll, rebuildMaxPoll, rebuildGrace, rebuildProgress
	rebuildPoll, rebuildMaxPoll, rebuildGrace, rebuildProgress = time.Millisecond, 2*time.Millisecond, 50*time.Millisecond, 0
	t.Cleanup(func() { rebuildPoll, rebuildMaxPoll, rebuildGrace, rebuildProgress = poll, maxPoll, grace, progress })
}

// TestWaitIndex follows a rebuild: progress on stderr while it runs,
// the final status once it is ready again.
func TestWaitIndex(t *testing.T) {
	shortRebuildTimes(t)
	var errb bytes.Buffer
	a := &App{errw: &errb, style: piped}
	ready := api.IndexStatus{State: api.IndexReady, Docs: 10, Total: 10, Done: 10}
	cl := statusServer(t, api.IndexStatus{State: api.IndexRebuilding, Total: 10}, api.IndexStatus{State: api.IndexRebuilding, Done: 5, Total: 10}, ready)
	st, err := a.waitIndex(context.Background(), cl, &api.IndexStatus{State: api.IndexReady})
	if err != nil || st.Docs != 10 {
		t.Fatalf("waitIndex = %+v, %v", st, err)
	}
	for _, want := range []string{"note: rebuilding the search index: 0 of 10 items (0%)\n", "5 of 10 items (50%)"} {
		if !strings.Contains(errb.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, errb.String())
		}
	}
}

// TestWaitIndexNeverSeen: a rebuild too quick to be seen running ends
// the wait after the grace period, not never.
func TestWaitIndexNeverSeen(t *testing.T) {
	shortRebuildTimes(t)
	a := &App{errw: &bytes.Buffer{}, style: piped}
	start := time.Now()
	if _, err := a.waitIndex(context.Background(), statusServer(t, api.IndexStatus{State: api.IndexReady}), &api.IndexStatus{State: api.IndexReady}); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d < rebuildGrace {
		t.Errorf("returned after %s, before the grace period", d)
	}
}

// TestWaitIndexFailed: a failed rebuild is an error; a failed index
// that has not started its rebuild yet is not.
func TestWaitIndexFailed(t *testing.T) {
	shortRebuildTimes(t)
	a := &App{errw: &bytes.Buffer{}, style: piped}
	failed := api.IndexStatus{State: api.IndexFailed, Error: "disk full"}
	cl := statusServer(t, failed, api.IndexStatus{State: api.IndexRebuilding}, failed)
	_, err := a.waitIndex(context.Background(), cl, &failed)
	if e := explain(err); e.Code != "index_failed" || !strings.Contains(e.Message, "disk full") {
		t.Errorf("waitIndex = %v", err)
	}
}
