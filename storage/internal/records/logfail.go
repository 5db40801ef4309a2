package records

import (
	"github.com/padd/padd/model"
	"github.com/padd/padd/storage/engine"
)

// logFailed is the refusal of a write the disk failed to store in the
// write-ahead log (engine.LogError): 503 unavailable, whose message says
// what became of the write and what to do. details.outcome is
// "not_written" or "unknown". Reads go on meanwhile, and writes resume
// without a restart once the disk works (docs/RELIABILITY.md).
func logFailed(e *engine.LogError) *model.Error {
	var err *model.Error
	switch {
	case e.Earlier:
		err = model.Errorf(model.CodeUnavailable,
			"padd is refusing writes because the disk failed to store an earlier one (%v), so nothing of this write was kept; check the disk (the system log says more) and retry: writes resume without a restart once it works", e.Err).
			With("outcome", "not_written")
	case e.Unknown:
		err = model.Errorf(model.CodeUnavailable,
			"the disk failed to store this write (%v) and padd could not take it back yet, so its outcome is unknown: it is dropped once the disk works, but if padd stops before then it may be kept; check the disk (the system log says more), then read whether it was kept before you retry", e.Err).
			With("outcome", "unknown")
	default:
		err = model.Errorf(model.CodeUnavailable,
			"the disk failed to store this write (%v), so padd did not keep it; check the disk (the system log says more) and retry", e.Err).
			With("outcome", "not_written")
	}
	return err.With("reason", "disk_failed")
}
