//go:build !linux

package storage

import "os"

func fdatasync(f *os.File) error { return f.Sync() }
