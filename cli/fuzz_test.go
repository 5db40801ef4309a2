package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
)

// FuzzWritePadToml: `padctl init` links a directory by writing
// workspace into its .pad.toml, keeping the file's other keys. For any
// existing file and workspace slug: a file that is not TOML is refused
// (coded bad_pad_toml) and left as it was, as is a slug that is not
// UTF-8 (bad_workspace); otherwise the link reads back as written and
// every other key is still there with its value.
func FuzzWritePadToml(f *testing.F) {
	for _, s := range []struct{ file, ws string }{
		{"", "my-project"}, {"workspace = \"old\"\nagent_name = \"bot\"\n", "new"}, {"url = \"http://x\"\n[push]\nremote = true\n", "w"},
		{"not toml at all", "w"}, {"workspace = 5\n", "w"}, {"# comment only\n", "é-ü"}, {"a.b = 1\n[c]\nd = [1, 2]\n", "x\"y"},
		{"workspace = \"w\"\n", ""}, {"[[arr]]\nx = 1\n[[arr]]\nx = 2\n", "w\nz"},
	} {
		f.Add([]byte(s.file), s.ws)
	}
	f.Fuzz(func(t *testing.T, existing []byte, ws string) {
		dir := t.TempDir()
		path := filepath.Join(dir, PadTomlName)
		if len(existing) > 0 {
			if err := os.WriteFile(path, existing, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		var before map[string]any
		_, terr := toml.NewDecoder(bytes.NewReader(existing)).Decode(&before)
		_, err := writePadToml(dir, ws)
		if terr != nil {
			if err == nil {
				t.Fatalf("a file that is not TOML (%v) was rewritten", terr)
			}
			if e, ok := err.(*Error); !ok || e.Code != "bad_pad_toml" && e.Code != "bad_workspace" {
				t.Fatalf("refusal %v is not coded bad_pad_toml (or bad_workspace)", err)
			}
			if b, _ := os.ReadFile(path); !bytes.Equal(b, existing) {
				t.Fatalf("a refused file was changed")
			}
			return
		}
		if err != nil {
			// The one other refusal: the old file holds values the
			// encoder cannot write back. It must leave the file alone.
			if b, _ := os.ReadFile(path); len(existing) > 0 && !bytes.Equal(b, existing) {
				t.Fatalf("failed (%v) and changed the file", err)
			}
			return
		}
		p, err := readPadToml(path)
		if err != nil || p == nil || p.Workspace != ws {
			t.Fatalf("after writing workspace %q: %+v %v", ws, p, err)
		}
		var after map[string]any
		b, _ := os.ReadFile(path)
		if _, err := toml.NewDecoder(bytes.NewReader(b)).Decode(&after); err != nil {
			t.Fatalf("the written file is not TOML: %v\n%s", err, b)
		}
		for _, m := range []map[string]any{before, after} {
			for k := range m {
				if strings.EqualFold(k, "workspace") { // the link, in any case
					delete(m, k)
				}
			}
		}
		if len(before) == 0 && len(after) == 0 {
			return
		}
		if !reflect.DeepEqual(before, after) {
			t.Fatalf("other keys changed:\nbefore %#v\nafter  %#v", before, after)
		}
	})
}
