package engine

import (
	"errors"
	"fmt"
	"strings"
)

// ErrNoSpace marks (for errors.Is) a failure of the engine's own I/O
// because the disk refused to store more: the file system is full
// (ENOSPC), the user's quota is used up (EDQUOT), or a file-size limit
// was hit (EFBIG). The error's text is its cause's. Nothing of the
// refused writes was kept, and writes succeed again once space is freed.
var ErrNoSpace = errors.New("no space left for the database")

// ErrFault marks (for errors.Is) a failure of the engine's own making: a
// callback that panicked (its write is refused and undone), or an open
// batch that could not be rebuilt after a refusal (every write and read
// is refused until a restart replays the log).
var ErrFault = errors.New("storage engine fault")

// IsNoSpace reports whether err says the disk refused to store more: an
// error marked ErrNoSpace, or an errno or a text that says so.
func IsNoSpace(err error) bool {
	if err == nil {
		return false
	}
	if errors.Is(err, ErrNoSpace) || isNoSpaceErrno(err) {
		return true
	}
	// bbolt reports a failed grow of the file with %s, which drops the
	// errno; its text is all that is left.
	msg := strings.ToLower(err.Error())
	for _, s := range noSpaceTexts {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

var noSpaceTexts = []string{"no space left on device", "disk quota exceeded", "file too large",
	"not enough space on the disk", "disk is full"}

// classify marks a disk-full failure with ErrNoSpace; any other error is
// returned as it is.
func classify(err error) error {
	if err == nil || !IsNoSpace(err) || errors.Is(err, ErrNoSpace) {
		return err
	}
	return &noSpaceError{err}
}

type noSpaceError struct{ err error }

func (e *noSpaceError) Error() string        { return e.err.Error() }
func (e *noSpaceError) Unwrap() error        { return e.err }
func (e *noSpaceError) Is(target error) bool { return target == ErrNoSpace }

// fault is an error marked ErrFault.
func fault(format string, args ...any) error {
	return &faultError{fmt.Sprintf(format, args...)}
}

type faultError struct{ msg string }

func (e *faultError) Error() string        { return e.msg }
func (e *faultError) Is(target error) bool { return target == ErrFault }
