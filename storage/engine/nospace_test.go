package engine

import (
	"errors"
	"fmt"
	"io/fs"
	"syscall"
	"testing"
)

func TestIsNoSpace(t *testing.T) {
	for _, c := range []struct {
		err  error
		want bool
	}{
		{nil, false},
		{&fs.PathError{Op: "write", Path: "/d/padd.db", Err: syscall.ENOSPC}, true},
		{fmt.Errorf("commit: %w", &fs.PathError{Op: "write", Path: "/d/padd.db", Err: syscall.EDQUOT}), true},
		{&fs.PathError{Op: "truncate", Path: "/d/padd.db", Err: syscall.EFBIG}, true},
		// bbolt's grow formats the cause with %s: only the text is left.
		{errors.New("file resize error: truncate /d/padd.db: no space left on device"), true},
		{errors.New("file resize error: truncate /d/padd.db: file too large"), true},
		{&fs.PathError{Op: "write", Path: "/d/padd.db", Err: syscall.EIO}, false},
		{errors.New("database not open"), false},
	} {
		if got := IsNoSpace(c.err); got != c.want {
			t.Errorf("IsNoSpace(%v) = %v, want %v", c.err, got, c.want)
		}
	}
}

// classify marks a disk-full failure with ErrNoSpace, keeping its cause
// and its text, and leaves any other error as it is.
func TestClassify(t *testing.T) {
	cause := &fs.PathError{Op: "write", Path: "/d/padd.db", Err: syscall.ENOSPC}
	err := classify(cause)
	if !errors.Is(err, ErrNoSpace) || !errors.Is(err, syscall.ENOSPC) || err.Error() != cause.Error() {
		t.Fatalf("classify(ENOSPC) = %#v", err)
	}
	if again := classify(err); again != err {
		t.Fatalf("classify marked a marked error again: %#v", again)
	}
	other := &fs.PathError{Op: "write", Path: "/d/padd.db", Err: syscall.EIO}
	if got := classify(other); got != error(other) {
		t.Fatalf("classify(EIO) = %#v", got)
	}
}
