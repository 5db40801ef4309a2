package blobstore

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

func sum(b []byte) string { h := sha256.Sum256(b); return hex.EncodeToString(h[:]) }

func TestPutStoresContentAddressedOnce(t *testing.T) {
	s, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	data := []byte("hello attachments")
	a, err := s.Put(bytes.NewReader(data), 0)
	if err != nil {
		t.Fatal(err)
	}
	if a.Hash != sum(data) || a.Size != int64(len(data)) || !bytes.Equal(a.Head, data) {
		t.Fatalf("staged %+v, want hash %s size %d", a, sum(data), len(data))
	}
	st, err := s.Stage(bytes.NewReader(data), 0)
	if err != nil {
		t.Fatal(err)
	}
	created, err := st.Commit()
	if err != nil || created {
		t.Fatalf("second commit of identical content: created %v err %v, want an existing blob", created, err)
	}
	files, _ := os.ReadDir(filepath.Join(s.Dir(), a.Hash[:2]))
	if len(files) != 1 {
		t.Fatalf("%d files for one content, want 1", len(files))
	}
	tmps, _ := os.ReadDir(filepath.Join(s.Dir(), tmpDir))
	if len(tmps) != 0 {
		t.Fatalf("temporary files left: %d", len(tmps))
	}
	f, err := s.Open(a.Hash)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(f)
	f.Close()
	if !bytes.Equal(got, data) {
		t.Fatalf("read back %q", got)
	}
}

func TestStageRefusesOverLimitAndLeavesNothing(t *testing.T) {
	s, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Put(bytes.NewReader(make([]byte, 101)), 100); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("101 bytes under a 100 limit: %v, want ErrTooLarge", err)
	}
	if st, err := s.Put(bytes.NewReader(make([]byte, 100)), 100); err != nil || st.Size != 100 {
		t.Fatalf("exactly the limit: %v", err)
	}
	tmps, _ := os.ReadDir(filepath.Join(s.Dir(), tmpDir))
	if len(tmps) != 0 {
		t.Fatalf("temporary files left: %d", len(tmps))
	}
}

func TestOpenRefusesNamesThatAreNotHashes(t *testing.T) {
	s, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range []string{"", "../../etc/passwd", "ab/../x", sum(nil)[:63] + "G", sum(nil)[:63] + "A"} {
		if _, err := s.Open(h); !errors.Is(err, ErrNotFound) {
			t.Errorf("Open(%q): %v, want ErrNotFound", h, err)
		}
	}
}

// A crash between the blob and the row leaves an orphan: the sweep
// removes it once it is older than the grace period, and keeps every
// blob a row names and every young one.
func TestSweepRemovesOldOrphansOnly(t *testing.T) {
	s, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	named, _ := s.Put(bytes.NewReader([]byte("named")), 0)
	orphan, _ := s.Put(bytes.NewReader([]byte("orphan")), 0)
	young, _ := s.Put(bytes.NewReader([]byte("young")), 0)
	leftover, err := os.CreateTemp(filepath.Join(s.Dir(), tmpDir), "blob-*")
	if err != nil {
		t.Fatal(err)
	}
	leftover.Close()
	past := time.Now().Add(-2 * time.Hour)
	for _, p := range []string{s.path(named.Hash), s.path(orphan.Hash), leftover.Name()} {
		if err := os.Chtimes(p, past, past); err != nil {
			t.Fatal(err)
		}
	}
	res, err := s.Sweep(time.Hour, func(h string) bool { return h == named.Hash })
	if err != nil {
		t.Fatal(err)
	}
	if res.Orphans != 1 || res.Temps != 1 || res.Bytes != int64(len("orphan")) {
		t.Fatalf("sweep %+v, want one orphan of 6 bytes and one temp", res)
	}
	if !s.Has(named.Hash) || s.Has(orphan.Hash) || !s.Has(young.Hash) {
		t.Fatalf("after the sweep: named %v orphan %v young %v, want true false true",
			s.Has(named.Hash), s.Has(orphan.Hash), s.Has(young.Hash))
	}
}

// Re-putting content renews the file's time: a sweep right after does
// not take a blob a new row is about to name.
func TestCommitOfExistingContentRenewsItsTime(t *testing.T) {
	s, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	a, _ := s.Put(bytes.NewReader([]byte("again")), 0)
	past := time.Now().Add(-2 * time.Hour)
	os.Chtimes(s.path(a.Hash), past, past)
	if _, err := s.Put(bytes.NewReader([]byte("again")), 0); err != nil {
		t.Fatal(err)
	}
	if res, _ := s.Sweep(time.Hour, func(string) bool { return false }); res.Orphans != 0 {
		t.Fatalf("sweep removed a blob just put again")
	}
}

func TestConcurrentPutsOfOneContent(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	data := make([]byte, 256<<10)
	r := rand.New(rand.NewPCG(seed, 0))
	for i := range data {
		data[i] = byte(r.Uint32())
	}
	s, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Go(func() {
			if _, err := s.Put(bytes.NewReader(data), 0); err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	f, err := s.Open(sum(data))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	got, _ := io.ReadAll(f)
	if !bytes.Equal(got, data) {
		t.Fatal("content differs after concurrent puts")
	}
}

// A derived file is found by its source's hash and variant, replaced in
// place, swept with its source, and never named by anything else.
func TestDerivedFilesFollowTheirBlob(t *testing.T) {
	s, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	named, _ := s.Put(bytes.NewReader([]byte("named")), 0)
	orphan, _ := s.Put(bytes.NewReader([]byte("orphan")), 0)
	derive := func(hash, variant, body string) error {
		st, err := s.Stage(bytes.NewReader([]byte(body)), 0)
		if err != nil {
			t.Fatal(err)
		}
		return st.CommitDerived(hash, variant)
	}
	for _, h := range []string{named.Hash, orphan.Hash} {
		if err := derive(h, "thumb-md", "first"); err != nil {
			t.Fatal(err)
		}
		if err := derive(h, "thumb-md", "small of "+h[:4]); err != nil {
			t.Fatal(err)
		}
	}
	f, err := s.OpenDerived(named.Hash, "thumb-md")
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(f)
	f.Close()
	if string(got) != "small of "+named.Hash[:4] {
		t.Fatalf("derived file holds %q", got)
	}
	if _, err := s.OpenDerived(named.Hash, "thumb-sm"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("a variant not made: %v", err)
	}
	for _, v := range []string{"", "../x", "Thumb", "a.b", strings.Repeat("a", 33)} {
		if err := derive(named.Hash, v, "x"); err == nil {
			t.Errorf("variant %q was taken", v)
		}
		if _, err := s.OpenDerived(named.Hash, v); !errors.Is(err, ErrNotFound) {
			t.Errorf("OpenDerived of variant %q: %v", v, err)
		}
	}
	if left, _ := os.ReadDir(filepath.Join(s.Dir(), tmpDir)); len(left) != 0 {
		t.Errorf("refused derivations left %d temporary files", len(left))
	}
	past := time.Now().Add(-2 * time.Hour)
	for _, h := range []string{named.Hash, orphan.Hash} {
		p, _ := s.derivedPath(h, "thumb-md")
		if err := os.Chtimes(p, past, past); err != nil {
			t.Fatal(err)
		}
	}
	res, err := s.Sweep(time.Hour, func(h string) bool { return h == named.Hash })
	if err != nil {
		t.Fatal(err)
	}
	if res.Derived != 1 {
		t.Fatalf("sweep %+v, want one derived file removed", res)
	}
	if _, err := s.OpenDerived(orphan.Hash, "thumb-md"); !errors.Is(err, ErrNotFound) {
		t.Error("the unnamed blob's derived file stayed")
	}
	if f, err := s.OpenDerived(named.Hash, "thumb-md"); err != nil {
		t.Error("the named blob's derived file was swept")
	} else {
		f.Close()
	}
}
