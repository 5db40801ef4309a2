package storage

import (
	"strings"

	"github.com/padd/padd/model"
	"github.com/sergi/go-diff/diffmatchpatch"
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
			if err := w.ws.versions().Put(k, encodeVersion(*prev)); err != nil {
				return err
			}
		}
	}
	added, removed := lineDelta(before, it.Content)
	vseq, err := w.ws.bump(kVersion)
	if err != nil {
		return err
	}
	v := model.Version{ID: newID(), ItemID: it.ID, VersionSeq: vseq, Title: it.Title,
		Current: true, Summary: summary, Actor: w.actor, IsCreate: isCreate,
		LinesAdded: added, LinesRemoved: removed, CreatedAt: tstamp(w.now), Seq: w.seq}
	return w.ws.versions().Put(cat(mustID(it.ID), u64(uint64(vseq))), encodeVersion(v))
}

// lastVersion returns the item's newest version record and its key.
func (w *wtx) lastVersion(itemID string) ([]byte, *model.Version) {
	p := mustID(itemID)
	c := w.ws.versions().Cursor()
	k, v := c.Seek(cat(p, u64(^uint64(0))))
	if k == nil {
		k, v = c.Last()
	} else {
		k, v = c.Prev()
	}
	if k == nil || len(k) != 24 || string(k[:16]) != string(p) {
		return nil, nil
	}
	var out model.Version
	if decodeVersionRecord(v, &out) != nil {
		return nil, nil
	}
	return append([]byte(nil), k...), &out
}

// lineCount counts lines as the diff does: each newline ends one, and
// text after the last newline is one more.
func lineCount(s string) int {
	n := strings.Count(s, "\n")
	if !strings.HasSuffix(s, "\n") {
		n++
	}
	return n
}

// lineDelta counts the lines a change adds and removes (a line diff).
func lineDelta(before, after string) (added, removed int) {
	switch {
	case before == after:
		return 0, 0
	case before == "": // a create adds every line: no diff needed
		return lineCount(after), 0
	case after == "": // a cleared body removes every line
		return 0, lineCount(before)
	}
	return diffLineDelta(before, after)
}

// diffLineDelta is lineDelta by a line diff.
func diffLineDelta(before, after string) (added, removed int) {
	dmp := diffmatchpatch.New()
	a, b, _ := dmp.DiffLinesToChars(before, after) // one rune per line
	for _, d := range dmp.DiffMain(a, b, false) {
		n := len([]rune(d.Text))
		switch d.Type {
		case diffmatchpatch.DiffInsert:
			added += n
		case diffmatchpatch.DiffDelete:
			removed += n
		}
	}
	return added, removed
}
