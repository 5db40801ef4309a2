package engine

import (
	"errors"
	"reflect"
	"runtime"
)

// ErrReadInWrite refuses a read, a write or a checkpoint asked for from
// inside a callback the committer is running (a write, or a read in the
// open batch): the request would wait in the committer's queue for the
// committer, which waits for the callback to return, forever. Inside a
// callback, read through the callback's own Tx.
var ErrReadInWrite = errors.New("engine: a read, write or checkpoint was asked for from inside a write (or a read) the committer is running; it would wait for itself: use the callback's transaction")

// The committer runs every callback through onCommitter, and a request
// that would queue for the committer first asks insideCallback whether
// its own goroutine is that committer, inside a callback: Go gives a
// goroutine no identity to compare, but the goroutine's stack holds
// onCommitter's frame exactly while the committer runs a callback on it.
// So the check refuses every request a callback makes itself (not one it
// makes from another goroutine it waits for) and never a request of
// another goroutine. The walk up the stack is skipped while no callback
// runs (inCallback is false), which is most of the time; when one runs,
// the request would wait for it anyway. The frame does not say which DB's
// committer it is: a callback of one DB asking a second DB while the
// second's committer runs a callback too is refused as well, and nothing
// should do that (a write of one file that waits on another's).
//
//go:noinline
func (db *DB) onCommitter(fn func(tx *Tx) error, tx *Tx) error {
	db.inCallback.Store(true)
	defer db.inCallback.Store(false)
	return fn(tx)
}

// onCommitterEntry is the entry PC of onCommitter, as the stack reports
// its frames.
var onCommitterEntry = runtime.FuncForPC(reflect.ValueOf((*DB).onCommitter).Pointer()).Entry()

// insideCallback reports whether the caller runs inside a callback of
// the committer (see onCommitter).
func (db *DB) insideCallback() bool {
	if !db.inCallback.Load() {
		return false
	}
	var pcs [64]uintptr
	for skip := 2; ; skip += len(pcs) {
		n := runtime.Callers(skip, pcs[:])
		for _, pc := range pcs[:n] {
			if f := runtime.FuncForPC(pc - 1); f != nil && f.Entry() == onCommitterEntry {
				return true
			}
		}
		if n < len(pcs) {
			return false
		}
	}
}
