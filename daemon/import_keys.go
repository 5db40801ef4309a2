package daemon

import (
	"maps"
	"net/http"
	"regexp"
	"sync"
	"time"

	"github.com/padd/padd/api"
	"github.com/padd/padd/model"
)

// Keyed imports (pad-inventory IMP-01, IMP-02; docs/BUNDLES.md): a
// client names an import attempt with ?import_key=, so that when the
// answer is lost it can ask what became of the attempt (GET
// /workspaces/import-status?key=) instead of sending the bundle again
// and getting a second workspace. While the attempt runs, another with
// its key is refused (409 import_key_in_use); once it is complete, the
// same request again is answered with the first answer and imports
// nothing (Idempotent-Replayed: true). padd keeps the keys in memory for
// an hour, as Pad does: a restart forgets them (the status is then 404,
// which a client reads as unknown).

// importKeyTTL is how long a keyed import is remembered after it ends.
const importKeyTTL = time.Hour

var importKeyPattern = regexp.MustCompile(`^[A-Za-z0-9-]{8,64}$`)

// importKeys are the keyed imports of the last hour.
type importKeys struct {
	mu sync.Mutex
	m  map[string]*keyedImport
}

// keyedImport is one keyed import: running, complete (with the answer
// to replay) or not created (refused or interrupted: the key is free for
// another attempt).
type keyedImport struct {
	key    string
	status string
	ended  time.Time
	result api.ImportResult
	header http.Header
}

// importClaim is a request's hold on its import key; nil when the
// request named none.
type importClaim struct {
	keys *importKeys
	key  string
	done bool
}

// claim reads the request's import key and claims it. It answers the
// completed import to replay instead when the key names one, and
// refuses a key that is malformed or names an import still running.
func (k *importKeys) claim(r *http.Request, now time.Time) (*importClaim, *keyedImport, error) {
	q := r.URL.Query()
	if !q.Has(api.ImportKeyParam) {
		return nil, nil, nil
	}
	key := q.Get(api.ImportKeyParam)
	if !importKeyPattern.MatchString(key) {
		return nil, nil, model.BadRequest("import_key must be 8 to 64 letters, digits and hyphens, got %q", model.Excerpt(key)).
			With("param", api.ImportKeyParam)
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	k.sweep(now)
	switch prior := k.m[key]; {
	case prior == nil, prior.status == api.ImportNotCreated:
	case prior.status == api.ImportRunning:
		return nil, nil, api.Errorf(api.CodeImportKeyInUse, "an import with import_key %q is still running; ask GET /api/v1/workspaces/import-status?key=%s what became of it", key, key).
			With("import_key", key)
	default:
		return nil, prior, nil
	}
	if k.m == nil {
		k.m = map[string]*keyedImport{}
	}
	k.m[key] = &keyedImport{key: key, status: api.ImportRunning}
	return &importClaim{keys: k, key: key}, nil, nil
}

// complete records the import's answer, to replay.
func (c *importClaim) complete(res api.ImportResult, header http.Header, now time.Time) {
	if c == nil {
		return
	}
	c.keys.mu.Lock()
	defer c.keys.mu.Unlock()
	c.done = true
	c.keys.m[c.key] = &keyedImport{key: c.key, status: api.ImportComplete, ended: now, result: res, header: header}
}

// end marks an import that did not complete as not created: nothing of
// it was written (an import is whole or absent).
func (c *importClaim) end(now time.Time) {
	if c == nil || c.done {
		return
	}
	c.keys.mu.Lock()
	defer c.keys.mu.Unlock()
	c.keys.m[c.key] = &keyedImport{key: c.key, status: api.ImportNotCreated, ended: now}
}

// sweep forgets the imports that ended over importKeyTTL ago. Callers
// hold mu.
func (k *importKeys) sweep(now time.Time) {
	for key, ki := range k.m {
		if ki.status != api.ImportRunning && now.Sub(ki.ended) > importKeyTTL {
			delete(k.m, key)
		}
	}
}

// status says what became of the import key names; ok is false for a
// key padd does not hold.
func (k *importKeys) status(key string, now time.Time) (api.ImportStatus, bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.sweep(now)
	ki := k.m[key]
	if ki == nil {
		return api.ImportStatus{}, false
	}
	st := api.ImportStatus{Key: key, Status: ki.status}
	if ki.status == api.ImportComplete {
		st.WorkspaceSlug, st.WorkspaceName, st.OwnerUsername = ki.result.Slug, ki.result.Name, model.LocalUserName
	}
	return st, true
}

// replay answers a completed import's request again.
func (ki *keyedImport) replay(w http.ResponseWriter) {
	maps.Copy(w.Header(), ki.header)
	w.Header().Set("Idempotent-Replayed", "true")
	writeJSON(w, http.StatusCreated, ki.result)
}

// importStatus answers GET /workspaces/import-status?key=: what became of
// a keyed import; 404 when padd holds no such key (never started here,
// over an hour ago, or before a restart), which is "unknown", never
// "nothing was created".
func (s *Server) importStatus(w http.ResponseWriter, r *http.Request) error {
	key := r.URL.Query().Get("key")
	if !importKeyPattern.MatchString(key) {
		return model.BadRequest("key must be an import_key: 8 to 64 letters, digits and hyphens, got %q", model.Excerpt(key)).With("param", "key")
	}
	st, ok := s.imports.status(key, s.now())
	if !ok {
		return model.NotFound("padd holds no import with key %q: it may never have started here, or ended over an hour ago or before padd restarted; its outcome is unknown", key).
			With("import_key", key)
	}
	writeJSON(w, http.StatusOK, st)
	return nil
}
