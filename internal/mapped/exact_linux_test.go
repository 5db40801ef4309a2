package mapped

import (
	"bytes"
	"os"
	"testing"
)

func needUffd(t *testing.T) {
	t.Helper()
	if err := CanMapExactly(); err != nil {
		t.Skipf("this system gives no userfaultfd with asynchronous write-protect tracking, so reads keep the kernel's fault-around: %v", err)
	}
}

func TestMapExactlyMapsOnlyThePagesRead(t *testing.T) {
	needUffd(t)
	const n = 64 << 20
	data, want := mapFileOpened(t, n, os.O_RDWR)
	addr := uintptr(unsafePointer(data))
	if err := MapExactly(addr, n); err != nil {
		t.Fatal(err)
	}
	// Reads 41 pages apart: each in a 64 KB window of its own, where
	// fault-around would map sixteen pages.
	const reads = 400
	_, before, err := Resident()
	if err != nil {
		t.Fatal(err)
	}
	for i := range reads {
		sink += data[i*41*int(pageSize)]
	}
	_, after, _ := Resident()
	if got := after - before; got > 2*reads*pageSize {
		t.Fatalf("%d reads of a page each mapped %d KB; want at most %d KB, a page a read", reads, got>>10, 2*reads*pageSize>>10)
	}
	if !bytes.Equal(data, want) {
		t.Fatal("the mapping's contents changed")
	}
	if err := ReleaseBytes(data); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(data, want) {
		t.Fatal("the mapping's contents changed after a release")
	}
	// A registered range registers again, as storage does after growth.
	if err := MapExactly(addr, n); err != nil {
		t.Fatalf("registering the range again: %v", err)
	}
}

func TestMapExactlyRefusesWhatItCannotRegister(t *testing.T) {
	needUffd(t)
	ro, _ := mapFile(t, 1<<20)
	if err := MapExactly(uintptr(unsafePointer(ro)), 1<<20); err == nil {
		t.Error("MapExactly of a mapping from a read-only descriptor succeeded; want EPERM")
	}
	rw, _ := mapFileOpened(t, 1<<20, os.O_RDWR)
	if err := MapExactly(uintptr(unsafePointer(rw))+1, 4096); err == nil {
		t.Error("MapExactly at an address inside a page succeeded; want EINVAL")
	}
	if err := MapExactly(0, 0); err != nil {
		t.Errorf("MapExactly of nothing: %v", err)
	}
}
