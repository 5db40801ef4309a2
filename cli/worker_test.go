package cli

import (
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	"github.com/padd/padd/model"
)

// TestWorkerID: padctl mints its worker id once, keeps it 0600, and
// answers the same id on every later run.
func TestWorkerID(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "padd") // not there yet: made on demand
	if id, err := readWorkerID(dir, false); err != nil || id != "" {
		t.Fatalf("without create, no id is minted: %q, %v", id, err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("reading made the directory: %v", err)
	}
	id, err := readWorkerID(dir, true)
	if err != nil || !model.ValidWorkerID(id) {
		t.Fatalf("minted %q, %v", id, err)
	}
	path := filepath.Join(dir, WorkerFile)
	if fi, err := os.Stat(path); err != nil || (runtime.GOOS != "windows" && fi.Mode().Perm() != 0o600) {
		t.Fatalf("%s: %v %v", path, fi.Mode(), err)
	}
	for _, create := range []bool{false, true} {
		if again, err := readWorkerID(dir, create); err != nil || again != id {
			t.Errorf("read again (create=%v) = %q, %v; want %q", create, again, err, id)
		}
	}
	if left, _ := filepath.Glob(filepath.Join(dir, WorkerFile+".*")); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

// TestWorkerIDRace: runs that start together agree on one id.
func TestWorkerIDRace(t *testing.T) {
	dir := t.TempDir()
	ids := make([]string, 8)
	var wg sync.WaitGroup
	for i := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			id, err := readWorkerID(dir, true)
			if err != nil {
				t.Error(err)
			}
			ids[i] = id
		}()
	}
	wg.Wait()
	for _, id := range ids {
		if id != ids[0] {
			t.Fatalf("runs disagree: %v", ids)
		}
	}
}

// TestWorkerIDFile: a damaged file is refused with a way out rather
// than silently replaced (that would orphan the user's claims); loose
// permissions are tightened.
func TestWorkerIDFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, WorkerFile)
	if err := os.WriteFile(path, []byte("not an id\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := readWorkerID(dir, true)
	if e := explain(err); e.Code != "bad_worker_file" || e.Hint == "" {
		t.Errorf("damaged file: %v", err)
	}
	if runtime.GOOS == "windows" {
		return
	}
	const id = "wk_0123456789abcdef0123456789abcdef"
	if err := os.WriteFile(path, []byte(id+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := readWorkerID(dir, false); err != nil || got != id {
		t.Fatalf("read %q, %v", got, err)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", fi.Mode().Perm())
	}
}
