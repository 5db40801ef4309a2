package records

import (
	"github.com/padd/padd/model"
	"github.com/padd/padd/storage/engine"
)

// IsNoSpace reports whether err says the disk refused to store more: the
// file system is full (ENOSPC), the user's quota is used up (EDQUOT), or
// a file-size limit was hit (EFBIG). A coded refusal is never one, even
// when its message happens to quote such words.
func IsNoSpace(err error) bool {
	if err == nil {
		return false
	}
	if _, coded := model.AsError(err); coded {
		return model.IsCode(err, model.CodeInsufficientStorage)
	}
	return engine.IsNoSpace(err)
}

// NoSpace is the refusal of a write the disk could not hold: 507
// insufficient_storage. Nothing of the write was kept (a bbolt commit is
// all or nothing), what was stored before is untouched, reads go on, and
// writes succeed again as soon as space is freed, without a restart.
func NoSpace(err error) *model.Error {
	return model.Errorf(model.CodeInsufficientStorage,
		"the disk holding padd's data is full, so nothing was written (%v); free some space and retry: padd needs no restart", err).
		With("reason", "disk_full")
}

// Classify turns a disk-full failure into NoSpace; any other error is
// returned as it is.
func Classify(err error) error {
	if err == nil || !IsNoSpace(err) {
		return err
	}
	if _, coded := model.AsError(err); coded {
		return err
	}
	return NoSpace(err)
}
