package storage

import (
	"crypto/sha256"
	"encoding/hex"
	"time"

	"github.com/padd/padd/model"
	"github.com/padd/padd/storage/internal/records"
)

// IdemTTL is how long an idempotency key is remembered.
const IdemTTL = 24 * time.Hour

// Idem names a write's idempotency key (op_key or Idempotency-Key) and a
// fingerprint of the request: the route, the target and the canonical
// body. The zero value means the write carries no key.
type Idem struct {
	Key     string
	Request string
}

// NewIdem fingerprints a request for an idempotency key.
func NewIdem(key string, parts ...string) Idem {
	if key == "" {
		return Idem{}
	}
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return Idem{Key: key, Request: hex.EncodeToString(h.Sum(nil))}
}

type idemRecord struct {
	Request  string           `json:"request"`
	ItemID   string           `json:"item_id,omitempty"`
	EntityID string           `json:"entity_id,omitempty"`
	Appended []map[string]any `json:"appended,omitempty"`
	Payload  []byte           `json:"payload,omitempty"`
	At       time.Time        `json:"at"`
}

// idemReplay looks the key up inside the write's transaction: the first
// answer of the same request comes back (replay), another request with
// the same key is refused. A refused write records nothing, so a
// corrected retry with the same key proceeds.
func (w *wtx) idemReplay(k Idem) (*idemRecord, error) {
	return idemLookup(w.ws, w.now, k)
}

func idemLookup(b *records.Wsb, now time.Time, k Idem) (*idemRecord, error) {
	if k.Key == "" {
		return nil, nil
	}
	v := b.Idem().Get([]byte(k.Key))
	if v == nil {
		return nil, nil
	}
	var rec idemRecord
	if err := records.Decode(v, &rec); err != nil {
		return nil, records.ErrInternal("idempotency record unreadable: %v", err)
	}
	if now.Sub(rec.At) > IdemTTL {
		return nil, nil
	}
	if rec.Request != k.Request {
		return nil, model.Errorf(model.CodeIdempotencyKeyReused,
			"idempotency key %q was already used for a different request; use a fresh key for a new request", k.Key).With("key", k.Key)
	}
	return &rec, nil
}

func (w *wtx) idemSave(k Idem, rec idemRecord) error {
	if k.Key == "" {
		return nil
	}
	rec.Request = k.Request
	rec.At = w.now
	v, err := records.Encode(rec)
	if err != nil {
		return err
	}
	return w.ws.Idem().Put([]byte(k.Key), v)
}

// replayItem answers a replayed item write with the item as it stands now.
func (w *wtx) replayItem(rec *idemRecord) (*ItemResult, error) { return replayItemIn(w.ws, rec) }

func replayItemIn(b *records.Wsb, rec *idemRecord) (*ItemResult, error) {
	k, ok := records.IDKey(rec.ItemID)
	if !ok {
		return nil, records.ErrInternal("idempotency record names no item")
	}
	it, err := records.GetItem(b, k, true)
	if err != nil {
		return nil, err
	}
	if it == nil {
		return nil, model.Errorf(model.CodeIdempotencyTargetGone, "the item this idempotency key created no longer exists")
	}
	v, err := records.View(b, it, nil)
	if err != nil {
		return nil, err
	}
	return &ItemResult{Item: v, Replayed: true, Appended: rec.Appended, IdemPayload: rec.Payload}, nil
}

// ReplayedItem answers, without writing, what an item create keyed by k
// would replay: nil when ws holds no live record of k, an error when it
// holds one for a different request (idempotency_key_reused) or for an
// item that is gone. A door whose write is more than the create (an item
// copy) asks before its own checks, since a retried request can find its
// source changed by its own first attempt.
func (s *Store) ReplayedItem(ws string, k Idem) (*ItemResult, error) {
	var out *ItemResult
	err := s.base.Read(ws, func(r *records.Rtx) error {
		rec, err := idemLookup(r.WS, r.WS.Now, k)
		if err != nil || rec == nil || rec.ItemID == "" {
			return err
		}
		out, err = replayItemIn(r.WS, rec)
		return err
	})
	return out, err
}

// SweepIdempotency forgets keys older than IdemTTL in every workspace.
func (s *Store) SweepIdempotency() (int, error) {
	return s.sweep((*records.Wsb).Idem, func(_, v []byte, now time.Time) bool {
		var rec idemRecord
		return records.Decode(v, &rec) != nil || rec.At.Before(now.Add(-IdemTTL))
	})
}
