package syncstate

import (
	"github.com/padd/padd/model"
	"github.com/padd/padd/storage/internal/records"
)

// The sync outbox. While a workspace is linked to a remote Pad
// (link.go), every local mutation's change-log entry is also queued in
// it by storage's stamp (storage/tx.go), in the mutation's own
// transaction, so the sync engine can push it after any crash. Changes
// that arrive from the remote (actor source "sync") are not queued back.
// Unlinking drops the queue. Here are its reads and its acknowledgement.

// Outbox returns up to limit queued changes after seq (exclusive), oldest
// first.
func (s *State) Outbox(ws string, after int64, limit int) ([]model.Change, error) {
	var out []model.Change
	err := s.base.Read(ws, func(r *records.Rtx) error {
		c := r.WS.Outbox().Cursor()
		for k, v := c.Seek(records.SeqKey(after + 1)); k != nil && len(out) < limit; k, v = c.Next() {
			ch, err := records.DecodeChange(v)
			if err != nil {
				return err
			}
			out = append(out, ch)
		}
		return nil
	})
	return out, err
}

// AckOutbox removes the queued changes up to and including seq: the
// remote has them.
func (s *State) AckOutbox(ws string, through int64) error {
	return s.base.Update(func(tx *records.Txn) error {
		rec, err := records.LiveWorkspace(tx, ws)
		if err != nil {
			return err
		}
		return records.AckOutbox(records.OpenWS(tx, rec.ID), through)
	})
}

// OutboxLen counts the queued changes of a linked workspace.
func (s *State) OutboxLen(ws string) (int, error) {
	n := 0
	err := s.base.Read(ws, func(r *records.Rtx) error {
		c := r.WS.Outbox().Cursor()
		for k, _ := c.First(); k != nil; k, _ = c.Next() {
			n++
		}
		return nil
	})
	return n, err
}

// OutboxHolds says whether a change of the entity is queued: a local edit
// the remote has not had yet.
func (s *State) OutboxHolds(ws, entity, id string) (bool, error) {
	found := false
	err := s.base.Read(ws, func(r *records.Rtx) error {
		c := r.WS.Outbox().Cursor()
		for k, v := c.First(); k != nil && !found; k, v = c.Next() {
			ch, err := records.DecodeChange(v)
			if err != nil {
				return err
			}
			found = ch.Entity == entity && ch.ID == id
		}
		return nil
	})
	return found, err
}
