//go:build unix

package cli

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/padd/padd/internal/launch"
)

// The README's sync example after `eval "$(padctl env)"`: padd's own
// token in PAD_TOKEN is refused before it leaves the machine, and a token
// the server refuses is answered with a hint about tokens (it pointed at
// `collection show`). The server is a stand-in that refuses every token.
func TestSyncCloneTokenHints(t *testing.T) {
	padd, _ := binaries(t)
	home := startPadd(t, padd)
	info, err := launch.ReadInfo(home)
	if err != nil {
		t.Fatal(err)
	}
	asked := make(chan string, 16)
	pad := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/api/v1/health":
			_, _ = w.Write([]byte(`{"status":"ok","version":"0.25.0"}`))
			return
		case "/api/v1/server/capabilities":
			http.NotFound(w, r)
			return
		}
		// Everything else needs a token, and this server takes none.
		asked <- r.Header.Get("Authorization")
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = w.Write([]byte(`{"error":{"code":"unauthorized","message":"invalid token"}}`))
	}))
	t.Cleanup(pad.Close)
	dir := t.TempDir()
	wantHint := func(r result, code string) {
		t.Helper()
		if r.code != ExitError || !strings.Contains(r.stderr, "("+code+")") ||
			!strings.Contains(r.stderr, "hint: give the token the Pad server issued you") || strings.Contains(r.stderr, "collection show") {
			t.Errorf("want a %s refusal with a hint about tokens: %s", code, r)
		}
		if strings.Contains(r.stdout+r.stderr, info.Token) {
			t.Errorf("padctl printed padd's token: %s", r)
		}
	}

	r := runInProcess(t, home, dir, map[string]string{"PAD_TOKEN": info.Token}, "sync", "clone", pad.URL, "team", "--token-env", "PAD_TOKEN", "--no-wait")
	wantHint(r, "bad_request")
	if !strings.Contains(r.stderr, "this padd's own") {
		t.Errorf("the refusal does not say whose token it is: %s", r)
	}
	select {
	case got := <-asked:
		t.Fatalf("padd's own token went to the server (Authorization %q)", got)
	default:
	}

	r = runInProcess(t, home, dir, map[string]string{"TEAM_PAD_TOKEN": "pad_not_valid_here"}, "sync", "clone", pad.URL, "team", "--token-env", "TEAM_PAD_TOKEN", "--no-wait")
	wantHint(r, "validation_error")
	if got := <-asked; got != "Bearer pad_not_valid_here" {
		t.Errorf("the server was asked with Authorization %q", got)
	}
}
