//go:build !linux

package testbin

// RunShared is not known here: each test package builds its own.
func RunShared(race bool) (dir string, unlock func(), ok bool) { return "", nil, false }
