package mapped

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

func TestParseStatm(t *testing.T) {
	for _, c := range []struct {
		in         string
		rss, file  int64
		wantsError bool
	}{
		{in: "123 45 6 7 0 89 0\n", rss: 45 * pageSize, file: 6 * pageSize},
		{in: "1 0 0 0 0 0 0", rss: 0, file: 0},
		{in: "1 2", wantsError: true},
		{in: "", wantsError: true},
		{in: "a b c d e f g", wantsError: true},
	} {
		rss, file, err := parseStatm([]byte(c.in))
		if c.wantsError {
			if err == nil {
				t.Errorf("parseStatm(%q) = %d, %d; want an error", c.in, rss, file)
			}
			continue
		}
		if err != nil || rss != c.rss || file != c.file {
			t.Errorf("parseStatm(%q) = %d, %d, %v; want %d, %d", c.in, rss, file, err, c.rss, c.file)
		}
	}
}

// mapFile writes n bytes of a pattern to a file and maps it as Bleve
// does: shared and read-only, from a read-only descriptor.
func mapFile(t *testing.T, n int) (data, want []byte) {
	return mapFileOpened(t, n, os.O_RDONLY)
}

// mapFileOpened maps it from a descriptor opened with flag: bbolt's is
// opened for writing.
func mapFileOpened(t *testing.T, n, flag int) (data, want []byte) {
	t.Helper()
	want = bytes.Repeat([]byte("padd maps its files; "), n/21+1)[:n]
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, want, 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, flag, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	data, err = unix.Mmap(int(f.Fd()), 0, n, unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Munmap(data) })
	return data, want
}

// sink keeps touch's reads from being optimised away.
var sink byte

func touch(b []byte) {
	for i := 0; i < len(b); i += int(pageSize) {
		sink += b[i]
	}
}

func TestReleaseGivesBackMappedPagesAndKeepsTheirContents(t *testing.T) {
	const n = 16 << 20
	data, want := mapFile(t, n)
	_, before, err := Resident()
	if err != nil {
		t.Fatal(err)
	}
	touch(data)
	_, mappedAll, _ := Resident()
	if mappedAll-before < n*3/4 {
		t.Fatalf("reading the 16 MiB mapping added %d bytes of file-backed pages; want most of it", mappedAll-before)
	}
	if err := ReleaseBytes(data); err != nil {
		t.Fatal(err)
	}
	_, released, _ := Resident()
	if mappedAll-released < n*3/4 {
		t.Fatalf("releasing gave back %d bytes of the 16 MiB mapped; want most of it", mappedAll-released)
	}
	if !bytes.Equal(data, want) {
		t.Fatal("the mapping's contents changed after a release")
	}

	// Release by address, as storage does with bbolt's mapping.
	touch(data)
	_, again, _ := Resident()
	if err := Release(uintptr(unsafePointer(data)), n); err != nil {
		t.Fatal(err)
	}
	_, releasedAgain, _ := Resident()
	if again-releasedAgain < n*3/4 {
		t.Fatalf("Release by address gave back %d bytes of 16 MiB; want most of it", again-releasedAgain)
	}
	if !bytes.Equal(data, want) {
		t.Fatal("the mapping's contents changed after a release by address")
	}
}

func TestReleaseOfNothingIsNoError(t *testing.T) {
	if err := Release(0, 0); err != nil {
		t.Error(err)
	}
	if err := ReleaseBytes(nil); err != nil {
		t.Error(err)
	}
}

func TestReleaseOfAnUnalignedAddressIsAnError(t *testing.T) {
	data, _ := mapFile(t, 1<<20)
	if err := Release(uintptr(unsafePointer(data))+1, 4096); err == nil {
		t.Error("Release at an address inside a page succeeded; want EINVAL")
	}
}
