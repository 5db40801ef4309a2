package remote

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestTokenFiles(t *testing.T) {
	dir := t.TempDir()
	if err := SaveToken(dir, "work-pad", testToken+"\n"); err != nil {
		t.Fatal(err)
	}
	got, err := LoadToken(dir, "work-pad")
	if err != nil || got != testToken {
		t.Fatalf("LoadToken = %q, %v", got, err)
	}
	path := filepath.Join(dir, "remotes", "work-pad.token")
	// Windows has no Unix modes to check (Go reports 0666 or 0444): there
	// the data directory's place in the user's profile guards the token.
	if runtime.GOOS != "windows" {
		if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("token file %v mode %v, want 0600", err, fi.Mode())
		}
		if fi, err := os.Stat(filepath.Dir(path)); err != nil || fi.Mode().Perm() != 0o700 {
			t.Errorf("token folder %v mode %v, want 0700", err, fi.Mode())
		}
	}
	if err := SaveToken(dir, "work-pad", "pad_new"); err != nil {
		t.Fatal(err)
	}
	if got, _ := LoadToken(dir, "work-pad"); got != "pad_new" {
		t.Errorf("a replaced token reads %q", got)
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Errorf("the folder holds %d files, want only the token (no temporary left)", len(entries))
	}
	if err := DeleteToken(dir, "work-pad"); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadToken(dir, "work-pad"); !os.IsNotExist(unwrapAll(err)) {
		t.Errorf("a deleted token = %v", err)
	}
	if err := DeleteToken(dir, "work-pad"); err != nil {
		t.Errorf("deleting a missing token = %v", err)
	}
}

func unwrapAll(err error) error {
	for {
		u, ok := err.(interface{ Unwrap() error })
		if !ok || u.Unwrap() == nil {
			return err
		}
		err = u.Unwrap()
	}
}

func TestTokenFilesStayInTheirFolder(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"", "../x", "a/b", `a\b`, ".hidden", "..", "a b", strings.Repeat("n", 129)} {
		if err := SaveToken(dir, name, testToken); err == nil {
			t.Errorf("SaveToken accepted the name %q", name)
		}
		if _, err := LoadToken(dir, name); err == nil {
			t.Errorf("LoadToken accepted the name %q", name)
		}
	}
	if err := SaveToken("", "x", testToken); err == nil {
		t.Error("SaveToken without a data directory")
	}
	for _, tok := range []string{"", "pad_a b", "pad_a\nb", "pad_\x00", strings.Repeat("t", maxTokenBytes+1)} {
		err := SaveToken(dir, "x", tok)
		if err == nil {
			t.Errorf("SaveToken accepted the token %q", tok)
		} else if tok != "" && strings.Contains(err.Error(), tok) {
			t.Errorf("the error repeats the token: %v", err)
		}
	}
	var files []string
	_ = filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			files = append(files, p)
		}
		return nil
	})
	if len(files) != 0 {
		t.Errorf("refused saves left files: %v", files)
	}
}
