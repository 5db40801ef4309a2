package launch

import (
	"net/url"
	"os"
	"path/filepath"
	"testing"
)

// FuzzReadInfo: daemon.json is how every client finds padd. Whatever it
// holds, reading it never panics, and what it accepts is a padd a
// client can talk to: a loopback URL with a real port, a live-looking
// pid, and a token that can go in a header.
func FuzzReadInfo(f *testing.F) {
	for _, s := range []string{
		`{"pid":123,"port":7787,"token":"padd_0123","version":"dev","started_at":"2026-01-01T00:00:00Z"}`,
		`{"pid":-1,"port":7787,"token":"t"}`, `{"pid":1,"port":0,"token":"t"}`, `{"pid":1,"port":70000,"token":"t"}`,
		`{"pid":1,"port":80,"token":"a\r\nX-Evil: 1"}`, `{"pid":1,"port":80,"token":""}`, `{}`, `null`, `[]`, ``, `{"port":"80"}`,
	} {
		f.Add([]byte(s))
	}
	// One directory for every input (each fuzz worker has its own): a
	// fresh one per input made the target slow enough that Go's fuzzing
	// engine timed out stopping it on a loaded machine.
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(filepath.Join(dir, InfoFile), data, 0o600); err != nil {
			t.Fatal(err)
		}
		info, err := ReadInfo(dir)
		if err != nil {
			return
		}
		u, err := url.Parse(info.URL())
		if err != nil || u.Hostname() != "127.0.0.1" || u.Port() == "" || u.Port() == "0" {
			t.Fatalf("daemon.json %q accepted with URL %q (%v)", data, info.URL(), err)
		}
		if info.PID <= 0 || info.Token == "" || !validToken(info.Token) {
			t.Fatalf("daemon.json %q accepted: %+v", data, info)
		}
	})
}
