//go:build !windows

package engine

import (
	"errors"
	"syscall"
)

func isNoSpaceErrno(err error) bool {
	return errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT) || errors.Is(err, syscall.EFBIG)
}
