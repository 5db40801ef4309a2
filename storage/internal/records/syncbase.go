package records

import (
	"crypto/sha256"
	"encoding/json"
	"time"

	"github.com/padd/padd/model"
)

// SyncBase is the last version of an item both sides agreed on (merge's
// common ancestor) and the remote's tokens for it: written when a push is
// answered and when a pulled change is applied.
type SyncBase struct {
	ItemID       string
	Title        string
	Content      string
	Fields       map[string]any
	Tags         []string
	ParentID     string
	CollectionID string
	Archived     bool
	Pinned       bool
	// RemoteSeq and RemoteUpdatedAt are the remote's tokens of this
	// version: expected_seq where the server has it, else
	// expected_updated_at, kept as the server wrote it.
	RemoteSeq       int64
	RemoteUpdatedAt string
	// RecordedAt is when padd wrote this base, by its own clock
	// (storage's SyncTx.SetBase sets it); zero for a base written before
	// padd kept it.
	RecordedAt time.Time
	// Waiting holds, by field key, the remote's value of a relation field
	// that names an item padd does not have yet, as the remote sent it.
	// Fields holds that key as it was before (the remote's change is not
	// merged yet), so the base never holds a value the local item lacks
	// only because its target has not arrived: that would read as a
	// local delete and be pushed.
	Waiting map[string]any
	// Held names the parts of the remote's version that were past padd's
	// limits ("title", "content", "tags", "fields.<key>"), which padd
	// holds without the remote's value: each holds here the value the
	// local item kept (a new item's stand-in), so the merge reads no
	// change of the remote's in it, and a push never sends it (the
	// remote's value would be lost to padd's). A later remote version
	// within the limits takes it off.
	Held []string
	// Released names the held parts whose padd value the user chose
	// (storage's LocalWrite.ReleaseHeld): the engine sends the item's
	// value of each over the remote's, whatever the base holds, and a
	// pull of a remote version still past the limits there holds it over
	// as Held does, without setting it aside again. A remote version
	// within the limits ends it.
	Released []string
}

// baseRecord is a base as stored. Its content is kept once: a base whose
// text is one of the item's recent versions names that version (whose
// body storage keeps anyway, versions.go); any other text is kept inline.
// The hash says which text the base holds, and is checked on read.
type baseRecord struct {
	Title           string          `json:"title"`
	ContentSHA      []byte          `json:"content_sha256"`
	VersionSeq      int64           `json:"version_seq,omitempty"`
	Content         *string         `json:"content,omitempty"`
	Fields          json.RawMessage `json:"fields,omitempty"`
	Tags            []string        `json:"tags,omitempty"`
	ParentID        string          `json:"parent_id,omitempty"`
	CollectionID    string          `json:"collection_id"`
	Archived        bool            `json:"archived,omitempty"`
	Pinned          bool            `json:"pinned,omitempty"`
	RemoteSeq       int64           `json:"remote_seq,omitempty"`
	RemoteUpdatedAt string          `json:"remote_updated_at,omitempty"`
	RecordedAt      time.Time       `json:"recorded_at,omitzero"`
	Waiting         json.RawMessage `json:"waiting,omitempty"`
	Held            []string        `json:"held,omitempty"`
	Released        []string        `json:"released,omitempty"`
}

// baseVersionScan bounds how many of an item's newest versions are
// searched for the base's text before it is kept inline.
const baseVersionScan = 16

func ContentSHA(s string) []byte {
	h := sha256.Sum256([]byte(s))
	return h[:]
}

// versionText is a version's body: its own copy, or the item's current
// content for the newest version, which keeps none.
func versionText(b *Wsb, itemKey []byte, v *model.Version) string {
	if v.Current {
		return string(b.Content().Get(itemKey))
	}
	return v.Content
}

func PutBase(b *Wsb, base SyncBase, now time.Time) error {
	id, ok := IDKey(base.ItemID)
	if !ok {
		return model.Invalid("base item id %q is not an id", base.ItemID)
	}
	if b.Items().Get(id) == nil {
		return model.NotFound("Item not found: %s", base.ItemID)
	}
	fields, err := json.Marshal(base.Fields)
	if err != nil {
		return model.Invalid("base fields: %v", err)
	}
	rec := baseRecord{Title: base.Title, ContentSHA: ContentSHA(base.Content), Fields: fields,
		Tags: base.Tags, ParentID: base.ParentID, CollectionID: base.CollectionID,
		Archived: base.Archived, Pinned: base.Pinned, RemoteSeq: base.RemoteSeq, RemoteUpdatedAt: base.RemoteUpdatedAt,
		RecordedAt: now.UTC(), Held: base.Held, Released: base.Released}
	if len(base.Waiting) > 0 {
		if rec.Waiting, err = json.Marshal(base.Waiting); err != nil {
			return model.Invalid("base waiting relations: %v", err)
		}
	}
	n := 0
	err = b.EachReverse(b.Versions().Cursor(), id, nil, func(_, raw []byte) (bool, error) {
		var v model.Version
		if DecodeVersionRecord(raw, &v) != nil {
			return true, nil
		}
		if string(ContentSHA(versionText(b, id, &v))) == string(rec.ContentSHA) {
			rec.VersionSeq = v.VersionSeq
			return false, nil
		}
		n++
		return n < baseVersionScan, nil
	})
	if err != nil {
		return err
	}
	if rec.VersionSeq == 0 {
		rec.Content = &base.Content
	}
	raw, err := Encode(rec)
	if err != nil {
		return err
	}
	return b.SyncBase().Put(id, raw)
}

func GetBase(b *Wsb, itemID string) (*SyncBase, error) {
	id, ok := IDKey(itemID)
	if !ok {
		return nil, nil
	}
	raw := b.SyncBase().Get(id)
	if raw == nil {
		return nil, nil
	}
	unreadable := func(why string, args ...any) error {
		return model.Errorf(model.CodeStoredStateUnreadable, "stored sync base of item %s is unreadable: "+why, append([]any{itemID}, args...)...)
	}
	var rec baseRecord
	if err := Decode(raw, &rec); err != nil {
		return nil, unreadable("%v", err)
	}
	out := &SyncBase{ItemID: itemID, Title: rec.Title, Tags: rec.Tags, ParentID: rec.ParentID,
		CollectionID: rec.CollectionID, Archived: rec.Archived, Pinned: rec.Pinned,
		RemoteSeq: rec.RemoteSeq, RemoteUpdatedAt: rec.RemoteUpdatedAt, RecordedAt: rec.RecordedAt, Held: rec.Held,
		Released: rec.Released}
	if len(rec.Fields) > 0 && string(rec.Fields) != "null" {
		v, err := model.DecodeJSON(rec.Fields)
		if err != nil {
			return nil, unreadable("fields: %v", err)
		}
		m, ok := v.(map[string]any)
		if !ok {
			return nil, unreadable("fields are not an object")
		}
		out.Fields = m
	}
	if len(rec.Waiting) > 0 {
		v, err := model.DecodeJSON(rec.Waiting)
		if err != nil {
			return nil, unreadable("waiting relations: %v", err)
		}
		m, ok := v.(map[string]any)
		if !ok {
			return nil, unreadable("waiting relations are not an object")
		}
		out.Waiting = m
	}
	switch {
	case rec.Content != nil:
		out.Content = *rec.Content
	case rec.VersionSeq > 0:
		vraw := b.Versions().Get(Cat(id, U64(uint64(rec.VersionSeq))))
		var v model.Version
		if vraw == nil || DecodeVersionRecord(vraw, &v) != nil {
			return nil, unreadable("its version %d is missing", rec.VersionSeq)
		}
		out.Content = versionText(b, id, &v)
	}
	if string(ContentSHA(out.Content)) != string(rec.ContentSHA) {
		return nil, unreadable("its content does not match its hash")
	}
	return out, nil
}

// A comment's base is the SHA-256 of the body both sides last agreed
// on, under 'c' and the comment's id in the same bucket as the items'
// bases: with it a pulled body that differs from padd's says which side
// changed it.
func CommentBaseKey(id []byte) []byte { return Cat([]byte{'c'}, id) }

// An item whose relation values wait for an item to be mapped (a
// remote's value naming an item padd has not got, SyncBase.Waiting, or a
// local value naming an item the remote has not got yet) is marked under
// 'w' and its id in the same bucket, written in the transaction that
// makes it wait: the engine finds them again after a restart. The drain
// pushes a marked item the remote has, so the mark also has an item
// pushed once more after a restart: storage's LocalWrite.ReleaseHeld
// sets it.
func RelationWaitKey(id []byte) []byte { return Cat([]byte{'w'}, id) }

// SyncCollectionBase is the last version of a collection both sides
// agreed on: the common ancestor of its three-way merge (its schema,
// settings, icon and description), written when a pull or a push leaves
// both sides equal.
type SyncCollectionBase struct {
	CollectionID string         `json:"-"`
	Icon         string         `json:"icon,omitempty"`
	Description  string         `json:"description,omitempty"`
	Schema       model.Schema   `json:"schema"`
	Settings     model.Settings `json:"settings"`
	// RemoteUpdatedAt is the remote's updated_at of this version, as the
	// server wrote it.
	RemoteUpdatedAt string `json:"remote_updated_at,omitempty"`
}

// A collection's base is kept under 'k' and the collection's id in the
// bucket of the items' bases (whose keys are ids alone, and comments'
// 'c' and an id).
func CollectionBaseKey(id []byte) []byte { return Cat([]byte{'k'}, id) }
