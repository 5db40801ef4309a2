package storage

import (
	"github.com/padd/padd/model"
	"github.com/padd/padd/storage/internal/records"
)

// version records the item's title and body as they stand after this
// mutation; before is the body it replaced ("" on a create). The newest
// version keeps no copy of the body: it is the item's current content,
// so most items (never edited) store their body once. When a newer
// version arrives, the previous one gets its body (before) written in.
func (w *wtx) version(it *model.Item, before string, isCreate bool, summary string) error {
	if !isCreate {
		if k, prev := w.lastVersion(it.ID); prev != nil && prev.Current {
			prev.Content, prev.Current = before, false
			if err := w.ws.Versions().Put(k, records.EncodeVersion(*prev)); err != nil {
				return err
			}
		}
	}
	added, removed := records.LineDelta(before, it.Content)
	vseq, err := w.ws.Bump(records.KVersion)
	if err != nil {
		return err
	}
	v := model.Version{ID: records.NewID(), ItemID: it.ID, VersionSeq: vseq, Title: it.Title,
		Current: true, Summary: summary, Actor: w.actor, IsCreate: isCreate,
		LinesAdded: added, LinesRemoved: removed, CreatedAt: records.Tstamp(w.now), Seq: w.seq}
	return w.ws.Versions().Put(records.Cat(records.MustID(it.ID), records.U64(uint64(vseq))), records.EncodeVersion(v))
}

// lastVersion returns the item's newest version record and its key.
func (w *wtx) lastVersion(itemID string) ([]byte, *model.Version) {
	p := records.MustID(itemID)
	c := w.ws.Versions().Cursor()
	k, v := c.Seek(records.Cat(p, records.U64(^uint64(0))))
	if k == nil {
		k, v = c.Last()
	} else {
		k, v = c.Prev()
	}
	if k == nil || len(k) != 24 || string(k[:16]) != string(p) {
		return nil, nil
	}
	var out model.Version
	if records.DecodeVersionRecord(v, &out) != nil {
		return nil, nil
	}
	return append([]byte(nil), k...), &out
}
