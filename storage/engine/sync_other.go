//go:build !linux

package engine

import "os"

func fdatasync(f *os.File) error { return f.Sync() }
