//go:build unix

package main

import (
	"fmt"
	"os"
	"syscall"
)

// underJournal reports whether stderr is connected to journald: systemd
// sets JOURNAL_STREAM to the device and inode of the stream it gave the
// service, and a process checks that its stderr is still that stream (a
// program started from a shell inside a unit inherits the variable but
// not the stream).
func underJournal() bool {
	v := os.Getenv("JOURNAL_STREAM")
	if v == "" {
		return false
	}
	var dev, ino uint64
	if _, err := fmt.Sscanf(v, "%d:%d", &dev, &ino); err != nil {
		return false
	}
	var st syscall.Stat_t
	if err := syscall.Fstat(2, &st); err != nil {
		return false
	}
	return uint64(st.Dev) == dev && uint64(st.Ino) == ino
}
