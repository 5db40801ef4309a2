package padtoml

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzReadPadToml: any bytes in a .pad.toml read as a link or as an
// error that names the file, never a panic; a link that names a
// workspace is what Find finds from a directory below it.
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
		path := filepath.Join(dir, FileName)
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		p, err := Read(path)
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
		found, err := Find(sub)
		if err != nil {
			t.Fatalf("Find after Read accepted the file: %v", err)
		}
		if p.Workspace != "" && (found == nil || found.Path != path || found.Workspace != p.Workspace) {
			t.Fatalf("Find from below found %+v, the file says %q", found, p.Workspace)
		}
	})
}
