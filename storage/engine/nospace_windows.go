//go:build windows

package engine

import (
	"errors"
	"syscall"
)

// ERROR_HANDLE_DISK_FULL (39) and ERROR_DISK_FULL (112).
func isNoSpaceErrno(err error) bool {
	return errors.Is(err, syscall.Errno(39)) || errors.Is(err, syscall.Errno(112))
}
