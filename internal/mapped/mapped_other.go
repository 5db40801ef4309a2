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

// CanMapExactly says MapExactly cannot work here.
func CanMapExactly() error { return errNotExact }

// MapExactly is not possible here: reads map what the system maps.
func MapExactly(addr, n uintptr) error { return errNotExact }

var errNotExact = errors.New("reads of a mapped file cannot be made to map only their page on this system")
