package records

import (
	"errors"
	"strconv"

	"github.com/padd/padd/model"
	"github.com/padd/padd/storage/engine"
)

// Update runs fn as one mutation outside any workspace's seq (workspace
// records, sync bookkeeping), durable when it returns. A disk-full
// failure is refused as NoSpace.
func (s *Base) Update(fn func(tx *Txn) error) error {
	return Classify(EngineErr(s.DB.Write(fn)))
}

// View runs fn in a read transaction that sees every acknowledged write
// (engine.DB.View). Inside a write, read through the write's transaction:
// a view there is refused with engine.ErrReadInWrite.
func (s *Base) View(fn func(tx *Txn) error) error {
	return EngineErr(s.DB.View(fn))
}

// EngineErr gives the engine's own failures Pad's codes: a write the
// disk failed to store in the log is unavailable (503, logFailed), a full
// disk is NoSpace (507), a callback that panicked or a lost batch is a
// server error (500), a key or value past bbolt's sizes a refusal of the
// write's data (400; the model's limits keep user text from it, so it
// is a bound padd missed, never a reason to stop a sync). Anything else,
// the callbacks' own refusals included, is returned as it is.
func EngineErr(err error) error {
	var le *engine.LogError
	switch {
	case err == nil:
		return nil
	case engine.TooLarge(err):
		return model.Invalid("a value is too large to store: %v", err).With("reason", "too_large")
	case errors.As(err, &le):
		return logFailed(le)
	case errors.Is(err, engine.ErrNoSpace):
		return Classify(err)
	case errors.Is(err, engine.ErrFault):
		return ErrInternal("%s", err)
	}
	return err
}

// DecodeActivity reads a feed entry, restoring what the record leaves to
// its key and bucket: the workspace, and an id derived from the seq.
func DecodeActivity(b *Wsb, raw []byte) (model.Activity, error) {
	var a model.Activity
	if err := DecodeActivityRecord(raw, &a); err != nil {
		return a, ErrInternal("activity entry unreadable: %v", err)
	}
	a.WorkspaceID = b.ID
	if a.ID == "" {
		a.ID = "act-" + strconv.FormatInt(a.Seq, 10)
	}
	return a, nil
}
