package api

import (
	"net/url"
	"os"
	"path/filepath"
	"testing"
)

// FuzzReadPadToml: any bytes in a .pad.toml read as a link or as an
// error that names the file, never a panic; a link that names a
// workspace is what FindPadToml finds from a directory below it.
func FuzzReadPadToml(f *testing.F) {
	for _, s := range []string{
		"workspace = \"my-project\"\n", "workspace = \"w\"\nagent_name = \"bot\"\nurl = \"http://x\"\n", "", "workspace = 5",
		"[push]\nremote = true\n", "workspace = \"\"", "workspace = \"a\"\nworkspace = \"b\"", "\xff\xfe", "workspace = '''\nmulti\n'''",
		"a.b.c = 1\n[a]\n", "workspace = \"\\u0000\"",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		path := filepath.Join(dir, PadTomlName)
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		p, err := ReadPadToml(path)
		if err != nil {
			if p != nil {
				t.Fatalf("an error and a link: %v %+v", err, p)
			}
			return
		}
		if p == nil || p.Path != path {
			t.Fatalf("read %q: %+v", data, p)
		}
		sub := filepath.Join(dir, "a", "b")
		if err := os.MkdirAll(sub, 0o700); err != nil {
			t.Fatal(err)
		}
		found, err := FindPadToml(sub)
		if err != nil {
			t.Fatalf("FindPadToml after ReadPadToml accepted the file: %v", err)
		}
		if p.Workspace != "" && (found == nil || found.Path != path || found.Workspace != p.Workspace) {
			t.Fatalf("FindPadToml from below found %+v, the file says %q", found, p.Workspace)
		}
	})
}

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
