//go:build unix && !linux

package e2e

import "testing"

// evictPageCache is Linux only (posix_fadvise); elsewhere the
// directory stays cached and it says so.
func evictPageCache(tb testing.TB, dir string) bool {
	tb.Helper()
	return false
}
