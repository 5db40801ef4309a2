package daemon

import (
	"net/http"
	"strings"

	"github.com/padd/padd/api"
	"github.com/padd/padd/model"
	"github.com/padd/padd/storage"
)

// Item leases (LSE-01..03).

// claimant is who the caller is for leases: the worker id from the body,
// else the X-Pad-Worker header, else ?worker_id=; the holder label from
// the body, else the X-Pad-Agent name, else the local user's name.
func claimant(r *http.Request, body api.Claim) (model.Claimant, error) {
	c := model.Claimant{Holder: strings.TrimSpace(body.Holder), Worker: strings.TrimSpace(body.WorkerID)}
	if c.Worker == "" {
		c.Worker = strings.TrimSpace(r.Header.Get("X-Pad-Worker"))
	}
	if c.Worker == "" {
		c.Worker = strings.TrimSpace(r.URL.Query().Get("worker_id"))
	}
	if c.Worker != "" && !model.ValidWorkerID(c.Worker) {
		return c, model.InvalidWorkerID(c.Worker)
	}
	if c.Holder == "" {
		c.Holder = actor(r).Name
	}
	return c, nil
}

func (s *Server) claim(w http.ResponseWriter, r *http.Request) error {
	var body api.Claim
	if err := decodeBody(r, &body); err != nil {
		return err
	}
	who, err := claimant(r, body)
	if err != nil {
		return err
	}
	var ttl *int64
	if body.TTLSeconds != "" {
		n, err := body.TTLSeconds.Int64()
		if err != nil {
			return model.Invalid("ttl_seconds must be a whole number of seconds, got %s", body.TTLSeconds).With("field", "ttl_seconds")
		}
		ttl = &n
	}
	d, err := model.LeaseTTL(ttl)
	if err != nil {
		return err
	}
	res, err := s.store.Claim(r.PathValue("ws"), r.PathValue("ref"), storage.LeaseClaim{Claimant: who, TTL: d}, actor(r))
	if err != nil {
		return err
	}
	l := res.Lease
	writeJSON(w, 200, api.ClaimAnswer{Ref: res.Ref, ItemID: res.ItemID, Holder: l.Holder, WorkerID: l.Worker,
		Worker: model.ShortWorkerID(l.Worker), AcquiredAt: l.AcquiredAt, ExpiresAt: l.ExpiresAt, Renewed: res.Renewed})
	return nil
}

func (s *Server) release(w http.ResponseWriter, r *http.Request) error {
	var body api.Claim
	if err := decodeBody(r, &body); err != nil {
		return err
	}
	who, err := claimant(r, body)
	if err != nil {
		return err
	}
	res, err := s.store.Release(r.PathValue("ws"), r.PathValue("ref"), who, actor(r))
	if err != nil {
		return err
	}
	writeJSON(w, 200, api.ReleaseAnswer{Ref: res.Ref, ItemID: res.ItemID, Released: res.Released})
	return nil
}

// wireLease is an item's live lease as reads show it: holder and the
// short worker id.
func wireLease(l *model.Lease) *api.Lease {
	if l == nil {
		return nil
	}
	return &api.Lease{Holder: l.Holder, Worker: model.ShortWorkerID(l.Worker), AcquiredAt: l.AcquiredAt, ExpiresAt: l.ExpiresAt}
}
