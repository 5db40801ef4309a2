package engine

import (
	"errors"
	"fmt"
)

// ErrLogFailed marks (for errors.Is) a write refused because the disk
// failed to write or sync the write-ahead log; the error is a *LogError.
//
// The rule (fail-stop): a failed write or fdatasync of the log says
// nothing of what reached the disk, so the group's record may be there
// whole. The engine undoes the group in the open batch (rollback and
// replay, as for a refused write) and takes the record back at once by
// zeroing its header and syncing that. Until that succeeds no write is
// taken, so no record follows the failed one and a write answered as
// failed never comes back after the record is taken back; reads go on.
// The engine retries once a second and at the next write, so writes
// resume without a restart once the disk works.
var ErrLogFailed = errors.New("the disk failed to store the write-ahead log")

// LogError is a write refused by a failure of the log (ErrLogFailed).
// It unwraps to the disk's error, so a full disk is also ErrNoSpace.
type LogError struct {
	// Err is the disk's error.
	Err error
	// Unknown says this write's record could not be taken back yet: it
	// may be on disk, and if padd stops before it is taken back, the
	// write is replayed at the next start. Otherwise nothing of the
	// write was kept.
	Unknown bool
	// Earlier says this write was not tried: an earlier write's record
	// is not taken back yet, and no write is taken until it is.
	Earlier bool
}

func (e *LogError) Error() string {
	switch {
	case e.Earlier:
		return fmt.Sprintf("writes are refused until a failed record of the write-ahead log is taken back: %v", e.Err)
	case e.Unknown:
		return fmt.Sprintf("the write-ahead log failed and its record could not be taken back, so the write's outcome is unknown: %v", e.Err)
	}
	return fmt.Sprintf("the write-ahead log failed, and the write was not kept: %v", e.Err)
}

func (e *LogError) Unwrap() error        { return e.Err }
func (e *LogError) Is(target error) bool { return target == ErrLogFailed }
