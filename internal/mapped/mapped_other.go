//go:build !linux

package mapped

import "errors"

// Supported says whether Release gives anything back on this system. On
// macOS the memory a user sees (the footprint) leaves clean file pages
// out already; elsewhere padd leaves the mappings to the system.
const Supported = false

var errUnsupported = errors.New("resident set not read on this system")

// Release does nothing here.
func Release(addr, n uintptr) error { return nil }

// ReleaseBytes does nothing here.
func ReleaseBytes(b []byte) error { return nil }

// Resident is not read on this system.
func Resident() (rss, file int64, err error) { return 0, 0, errUnsupported }
