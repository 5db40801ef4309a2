package testremote

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The Pad of August 2026 as the proxy makes the second padd look
// (../shared/spec/pad-observed-api.md; docs/SYNC.md, "What each
// capability changes" and "The test remote"). Where padd already
// answers as that Pad does, nothing is rewritten:
//
//   - item and comment times are whole seconds in padd's store too, and
//     expected_updated_at is compared at whole seconds (storage's
//     tstamp, item_update.go), so the client's whole-second token is
//     forwarded as it is: a stale one is refused with 409, the current
//     one passes, and two writers in one second both pass, as on Pad;
//   - a comment changes neither its item's seq nor its updated_at, and
//     no comment makes its item a row of /items-changes or /changes.

// missingCapabilities are the features the Pad of August 2026 lacks;
// the proxy takes them out of padd's capabilities answer.
var missingCapabilities = []string{"idempotency_keys", "item_patch", "expected_seq", "changes_paged", "export_comment_parents", "attachment_attach", "item_field_append"}

// missingRoute reports a route the Pad of August 2026 does not have: it
// answers 404 as Pad's router does.
func missingRoute(r *http.Request) bool {
	return r.Method == http.MethodPost && strings.Contains(r.URL.Path, "/attachments/") && strings.HasSuffix(r.URL.Path, "/attach")
}

// A collection's schema is JSON text in a request (schemaAsText);
// settings may be text or an object, as padd takes both.

// ignoredBodyKeys are the request keys that Pad ignores (it ignores
// every unknown key): no idempotency by op_key, no expected_seq guard,
// and no append of a note or decision (a PATCH of only those answers 200
// having written nothing: seen on Pad's server, 2026-12-07). Pad's own
// clients append one by writing the whole fields back with the entry
// added, which padd takes alike and keeps as written, as Pad does.
var ignoredBodyKeys = []string{"op_key", "expected_seq", "append_implementation_note", "append_decision"}

// paddHeaders are answer headers padd adds and that Pad does not send:
// the list and activity paging headers, padd's version and seq.
var paddHeaders = []string{"X-Pad-Has-More", "X-Pad-Next-Offset", "X-Pad-Next-Before", "X-Padd-Version", "X-Padd-Seq"}

// timeKeys are the JSON keys whose RFC 3339 times Pad's SQLite stores
// to the second.
var timeKeys = map[string]bool{"created_at": true, "updated_at": true, "deleted_at": true, "actual_updated_at": true}

// maxRewriteBytes bounds a body the proxy reads to rewrite: padd's own
// request cap is 2 MiB; answers hold up to a whole workspace.
const (
	maxRequestRewriteBytes = 4 << 20
	maxAnswerRewriteBytes  = 256 << 20
)

// augRequest makes a request what Pad would act on: no Idempotency-Key,
// no op_key or expected_seq in a JSON body, no paging of /changes or
// /activity; a collection write whose schema is not JSON text is
// refused (the error is the 400's message). An item write's fields (or
// fields_patch) are answered, as written, for relationsAsWritten.
func augRequest(r *http.Request) (written map[string]any, err error) {
	r.Header.Del("Idempotency-Key")
	q := r.URL.Query()
	switch {
	case isChangesFeed(r):
		q.Del("limit")
		q.Del("cursor")
		r.URL.RawQuery = q.Encode()
	case r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/activity"):
		q.Del("before")
		q.Del("before_id")
		r.URL.RawQuery = q.Encode()
	}
	if r.Body == nil || r.Body == http.NoBody || !isJSON(r.Header.Get("Content-Type")) {
		return nil, nil
	}
	raw, err := io.ReadAll(io.LimitReader(r.Body, maxRequestRewriteBytes+1))
	r.Body.Close()
	if err != nil {
		return nil, err
	}
	if len(raw) > maxRequestRewriteBytes {
		return nil, errBodyTooLarge
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) == nil && obj != nil {
		if isCollectionWrite(r) {
			if err := schemaAsText(obj["schema"]); err != nil {
				return nil, err
			}
		}
		changed := false
		for _, k := range ignoredBodyKeys {
			if _, ok := obj[k]; ok {
				delete(obj, k)
				changed = true
			}
		}
		if isItemWrite(r) {
			c, err := padParentKeys(r.Method, obj)
			if err != nil {
				return nil, err
			}
			changed = changed || c
			written = writtenFields(obj)
		}
		if changed {
			if raw, err = json.Marshal(obj); err != nil {
				return nil, err
			}
		}
	}
	r.Body = io.NopCloser(bytes.NewReader(raw))
	r.ContentLength = int64(len(raw))
	r.Header.Set("Content-Length", strconv.Itoa(len(raw)))
	return written, nil
}

// padAnswer is an answer the proxy gives itself, as Pad would, to a
// request padd would take.
type padAnswer struct {
	status        int
	code, message string
}

func (a *padAnswer) Error() string { return a.message }

// isItemWrite: an item's create (POST …/collections/{c}/items) or
// update (PATCH …/items/{ref}).
func isItemWrite(r *http.Request) bool {
	parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/") // api v1 workspaces {ws} …
	if len(parts) < 6 || parts[0] != "api" || parts[2] != "workspaces" {
		return false
	}
	switch r.Method {
	case http.MethodPost:
		return len(parts) == 7 && parts[4] == "collections" && parts[6] == "items"
	case http.MethodPatch:
		return len(parts) == 6 && parts[4] == "items"
	}
	return false
}

// isCollectionWrite: a collection's create (POST …/collections) or
// update (PATCH …/collections/{coll}).
func isCollectionWrite(r *http.Request) bool {
	parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/") // api v1 workspaces {ws} collections …
	if len(parts) < 5 || parts[0] != "api" || parts[2] != "workspaces" || parts[4] != "collections" {
		return false
	}
	return r.Method == http.MethodPost && len(parts) == 5 || r.Method == http.MethodPatch && len(parts) == 6
}

// padParentKeys makes an item write's hierarchy keys what Pad acts on.
// Pad keeps a child's parent as an item link of type parent, written by
// a "parent" (or "plan") key in fields or fields_patch, which padd
// takes alike. A top-level parent_id only stamps a legacy column there,
// which neither Pad's UI nor its parent_ref shows and which this proxy
// does not keep: it is dropped. On an update Pad refuses parent_id with
// a fields parent (400) and fails on parent_id "" (500). clear_parent
// and a top-level parent are keys Pad does not know: dropped. (Pad
// leaves a parent or plan key that the collection declares as a field
// of its own; the proxy does not read schemas and takes every such key
// as the link.) It reports whether obj changed.
func padParentKeys(method string, obj map[string]json.RawMessage) (bool, error) {
	inFields := false
	for _, k := range []string{"fields", "fields_patch"} {
		var f map[string]json.RawMessage
		if json.Unmarshal(obj[k], &f) == nil {
			_, p := f["parent"]
			_, q := f["plan"]
			inFields = inFields || p || q
		}
	}
	pid, hasPID := obj["parent_id"]
	hasPID = hasPID && string(bytes.TrimSpace(pid)) != "null"
	if method == http.MethodPatch && hasPID {
		if inFields {
			return false, &padAnswer{http.StatusBadRequest, "validation_error",
				`Request carries both a "parent"/"plan" key in fields and a top-level "parent_id" — two competing hierarchy writes. Send exactly one.`}
		}
		if string(bytes.TrimSpace(pid)) == `""` {
			return false, &padAnswer{http.StatusInternalServerError, "internal_error", "An internal error occurred"}
		}
	}
	changed := false
	for _, k := range []string{"parent_id", "clear_parent", "parent"} {
		if _, ok := obj[k]; ok {
			delete(obj, k)
			changed = true
		}
	}
	return changed, nil
}

// padParents names each item's parent in an answer as Pad does: Pad's
// item answers name the parent link as parent_link_id (the parent's id)
// and parent_ref, and its parent_id is the legacy column, null for a
// parent set the way Pad's clients set it. Pad's /changes rows and
// export items are not enriched (enriched false): no parent_ref there.
// An item is an object with collection_id and title.
func padParents(v any, enriched bool) {
	forEachObject(v, func(m map[string]any) {
		if _, ok := m["collection_id"]; !ok {
			return
		}
		if _, ok := m["title"]; !ok {
			return
		}
		if p, _ := m["parent_id"].(string); p != "" && enriched {
			m["parent_link_id"] = p
		}
		delete(m, "parent_id")
		if !enriched {
			delete(m, "parent_ref")
			delete(m, "parent_title")
		}
	})
}

// schemaAsText refuses a collection's schema sent as anything but JSON
// text, as Pad does: its request type reads schema as a Go string (where
// settings takes either), so an object is a decode error, 400
// bad_request with the decoder's words.
func schemaAsText(raw json.RawMessage) error {
	b := bytes.TrimSpace(raw)
	if len(b) == 0 || b[0] == '"' || string(b) == "null" {
		return nil
	}
	kind := "number"
	switch b[0] {
	case '{':
		kind = "object"
	case '[':
		kind = "array"
	case 't', 'f':
		kind = "bool"
	}
	return &padAnswer{http.StatusBadRequest, "bad_request", fmt.Sprintf("invalid JSON: json: cannot unmarshal %s into Go struct field .alias.schema of type string", kind)}
}

func isChangesFeed(r *http.Request) bool {
	return r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, "/api/v1/workspaces/") && strings.HasSuffix(r.URL.Path, "/changes")
}

func isJSON(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && (mt == "application/json" || strings.HasSuffix(mt, "+json"))
}

// augAnswer rewrites padd's answer as Pad's (the reverse proxy's
// ModifyResponse).
func (p *proxy) augAnswer(resp *http.Response) error {
	for _, h := range paddHeaders {
		resp.Header.Del(h)
	}
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if mt == "text/event-stream" {
		resp.Body = &sseRewriter{src: bufio.NewReader(resp.Body), closer: resp.Body}
		return nil
	}
	if !isJSON(resp.Header.Get("Content-Type")) {
		return nil
	}
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswerRewriteBytes+1))
	resp.Body.Close()
	if err != nil {
		return err
	}
	if len(raw) > maxAnswerRewriteBytes {
		return fmt.Errorf("padd's answer is over the proxy's %d bytes", maxAnswerRewriteBytes)
	}
	path := resp.Request.URL.Path
	v, err := decodeAny(raw)
	if err == nil {
		ok := resp.StatusCode < 300
		switch {
		case ok && path == "/api/v1/server/capabilities":
			dropCapabilities(v)
		case ok && isChangesFeed(resp.Request):
			if v, err = p.wholeChanges(resp.Request, v); err != nil {
				return err
			}
			padParents(v, false)
		case ok && isCommentRoute(path):
			forEachObject(v, func(m map[string]any) { delete(m, "seq") })
		case ok && strings.HasSuffix(path, "/export"):
			padExport(v)
			padParents(v, false)
		case ok && resp.Request.Method == http.MethodGet && strings.Contains(path, "/items/") && strings.HasSuffix(path, "/links"):
			if v, err = p.withParentLink(resp.Request, v); err != nil {
				return err
			}
		case ok && strings.Contains(path, "/items"):
			if isItemWrite(resp.Request) {
				written, _ := resp.Request.Context().Value(writtenKey{}).(map[string]any)
				p.noteWritten(v, written)
			}
			padParents(v, true)
		case ok && resp.Request.Method == http.MethodGet && strings.HasSuffix(path, "/activity"):
			v = withoutLinkActivity(v)
		}
		if ok {
			p.relationsAsWritten(v)
		}
		if !isCollectionRoute(path) {
			cutTimes(v)
		}
		if raw, err = encodeAny(v); err != nil {
			return err
		}
	}
	resp.Body = io.NopCloser(bytes.NewReader(raw))
	resp.ContentLength = int64(len(raw))
	resp.Header.Set("Content-Length", strconv.Itoa(len(raw)))
	return nil
}

// dropCapabilities takes the features Pad lacks out of the list and
// keeps the rest of the answer's shape.
func dropCapabilities(v any) {
	m, ok := v.(map[string]any)
	if !ok {
		return
	}
	for _, k := range missingCapabilities {
		delete(m, k) // a feature named as a key of its own
	}
	list, ok := m["capabilities"].([]any)
	if !ok {
		return
	}
	kept := []any{}
	for _, c := range list {
		if s, ok := c.(string); !ok || !slices.Contains(missingCapabilities, s) {
			kept = append(kept, c)
		}
	}
	m["capabilities"] = kept
}

// wholeChanges answers /changes at once, as the Pad of August 2026 does:
// padd pages it (1000 items a page), so the proxy walks padd's pages
// itself and joins them. The answer keeps Pad's keys: updated, deleted,
// server_time (the first page's: the walk's start) and
// collections_changed; no has_more, no next_cursor, no items.
func (p *proxy) wholeChanges(first *http.Request, v any) (any, error) {
	page, ok := v.(map[string]any)
	if !ok {
		return v, nil
	}
	updated, _ := page["updated"].([]any)
	if updated == nil {
		updated, _ = page["items"].([]any)
	}
	deleted, _ := page["deleted"].([]any)
	collChanged, _ := page["collections_changed"].(bool)
	for more, _ := page["has_more"].(bool); more; more, _ = page["has_more"].(bool) {
		cursor, _ := page["next_cursor"].(string)
		if cursor == "" {
			return nil, fmt.Errorf("padd's /changes said has_more without a next_cursor")
		}
		next := first.Clone(first.Context())
		q := next.URL.Query()
		q.Del("since")
		q.Set("cursor", cursor)
		next.URL.RawQuery = q.Encode()
		next.RequestURI = ""
		resp, err := p.tr.RoundTrip(next)
		if err != nil {
			return nil, err
		}
		raw, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswerRewriteBytes+1))
		resp.Body.Close()
		if err != nil {
			return nil, err
		}
		if resp.StatusCode != http.StatusOK {
			return nil, fmt.Errorf("padd answered %d to the next page of /changes: %s", resp.StatusCode, raw)
		}
		w, err := decodeAny(raw)
		if err != nil {
			return nil, err
		}
		if page, ok = w.(map[string]any); !ok {
			return nil, fmt.Errorf("padd's /changes page is not an object: %s", raw)
		}
		more, _ := page["updated"].([]any)
		if more == nil {
			more, _ = page["items"].([]any)
		}
		updated = append(updated, more...)
		d, _ := page["deleted"].([]any)
		deleted = append(deleted, d...)
		if c, _ := page["collections_changed"].(bool); c {
			collChanged = true
		}
	}
	if updated == nil {
		updated = []any{}
	}
	if deleted == nil {
		deleted = []any{}
	}
	first0 := v.(map[string]any)
	return map[string]any{"updated": updated, "deleted": deleted, "server_time": first0["server_time"],
		"collections_changed": collChanged}, nil
}

// withoutLinkActivity takes padd's link rows out of an activity page:
// Pad logs no activity for a blocks or relates link.
func withoutLinkActivity(v any) any {
	rows, ok := v.([]any)
	if !ok {
		return v
	}
	kept := []any{}
	for _, row := range rows {
		if m, ok := row.(map[string]any); ok {
			if a, _ := m["action"].(string); strings.Contains(a, "link") {
				continue
			}
		}
		kept = append(kept, row)
	}
	return kept
}

// withParentLink adds to an item's links (v, the answer to links) its
// parent as Pad lists it there: a link of type parent from the item to
// its parent, read from padd's item (its parent_id). Pad lists the
// item's children's parent links too; those are not added.
func (p *proxy) withParentLink(links *http.Request, v any) (any, error) {
	list, ok := v.([]any)
	if !ok {
		return v, nil
	}
	r := links.Clone(links.Context())
	r.URL.Path = strings.TrimSuffix(r.URL.Path, "/links")
	r.URL.RawPath, r.RequestURI = "", ""
	resp, err := p.tr.RoundTrip(r)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswerRewriteBytes+1))
	if err != nil || resp.StatusCode != http.StatusOK {
		return v, err
	}
	var it struct {
		ID          string `json:"id"`
		Title       string `json:"title"`
		Ref         string `json:"ref"`
		ParentID    string `json:"parent_id"`
		ParentTitle string `json:"parent_title"`
		ParentRef   string `json:"parent_ref"`
		CreatedAt   string `json:"created_at"`
	}
	if err := json.Unmarshal(raw, &it); err != nil || it.ParentID == "" {
		return v, nil
	}
	return append(list, map[string]any{"id": "parent-" + it.ID, "source_id": it.ID, "target_id": it.ParentID,
		"link_type": "parent", "created_by": "user", "created_at": it.CreatedAt, "source_title": it.Title,
		"target_title": it.ParentTitle, "source_ref": it.Ref, "target_ref": it.ParentRef}), nil
}

// padExport takes padd's additive members out of a workspace export:
// Pad's comments do not name the comment they reply to, and Pad has no
// roles in its export.
func padExport(v any) {
	m, ok := v.(map[string]any)
	if !ok {
		return
	}
	delete(m, "roles")
	// Pad keeps a child's parent as an item link of type parent, and its
	// export lists those rows among the links.
	its, _ := m["items"].([]any)
	for _, it := range its {
		if it, ok := it.(map[string]any); ok {
			if parent, _ := it["parent_id"].(string); parent != "" {
				id, _ := it["id"].(string)
				links, _ := m["item_links"].([]any)
				m["item_links"] = append(links, map[string]any{"id": "parent-" + id, "source_id": id, "target_id": parent,
					"link_type": "parent", "created_by": "user", "created_at": it["created_at"]})
			}
		}
	}
	cs, _ := m["comments"].([]any)
	for _, c := range cs {
		if c, ok := c.(map[string]any); ok {
			delete(c, "parent_id")
		}
	}
}

func isCommentRoute(path string) bool {
	return strings.Contains(path, "/comments") || strings.HasSuffix(path, "/replies")
}

// isCollectionRoute: a collection's own answers (not its items'). Pad
// keeps collection times below the second (its expected_updated_at on a
// collection is an RFC3339Nano token), so they are left as padd has
// them.
func isCollectionRoute(path string) bool {
	i := strings.Index(path, "/collections")
	return i >= 0 && !strings.Contains(path[i:], "/items")
}

// cutTimes cuts every time under a timeKeys key to whole seconds, UTC.
func cutTimes(v any) {
	forEachObject(v, func(m map[string]any) {
		for k, x := range m {
			if !timeKeys[k] {
				continue
			}
			if s, ok := x.(string); ok {
				if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
					m[k] = wholeSecond(t)
				}
			}
		}
	})
}

// wholeSecond is a time as Pad's SQLite gives it: UTC, to the second.
func wholeSecond(t time.Time) string { return t.UTC().Truncate(time.Second).Format(time.RFC3339) }

// forEachObject calls f on every JSON object within v, v included.
func forEachObject(v any, f func(map[string]any)) {
	switch x := v.(type) {
	case map[string]any:
		f(x)
		for _, y := range x {
			forEachObject(y, f)
		}
	case []any:
		for _, y := range x {
			forEachObject(y, f)
		}
	}
}

func decodeAny(raw []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber() // numbers pass through exactly
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

func encodeAny(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// sseRewriter passes an event stream through line by line, taking seq
// out of comment_* events: Pad's comment events carry none (comments
// bump no seq there).
type sseRewriter struct {
	src    *bufio.Reader
	closer io.Closer
	buf    []byte
	err    error
}

// Read passes the stream on event by event (an event ends with a blank
// line; a keepalive comment is one of its own), rewritten or left out.
func (s *sseRewriter) Read(p []byte) (int, error) {
	for len(s.buf) == 0 {
		if s.err != nil {
			return 0, s.err
		}
		var event []byte
		for s.err == nil {
			line, err := s.src.ReadBytes('\n')
			event, s.err = append(event, line...), err
			if len(bytes.TrimSpace(line)) == 0 || bytes.HasPrefix(line, []byte(":")) {
				break
			}
		}
		s.buf = rewriteEvent(event)
	}
	n := copy(p, s.buf)
	s.buf = s.buf[n:]
	return n, nil
}

func (s *sseRewriter) Close() error { return s.closer.Close() }

// rewriteEvent is one event as Pad sends it: none for a link or an
// attachment (Pad publishes no event for a blocks or relates link, an
// upload, an attach or a delete), no seq on a comment's.
func rewriteEvent(event []byte) []byte {
	for _, silent := range []string{"link_", "attachment_"} {
		if bytes.Contains(event, []byte("\nevent: "+silent)) || bytes.HasPrefix(event, []byte("event: "+silent)) {
			return nil
		}
	}
	lines := bytes.SplitAfter(event, []byte("\n"))
	for i, line := range lines {
		lines[i] = rewriteEventLine(line)
	}
	return bytes.Join(lines, nil)
}

func rewriteEventLine(line []byte) []byte {
	data, ok := bytes.CutPrefix(line, []byte("data:"))
	if !ok || !bytes.Contains(data, []byte(`"comment_`)) {
		return line
	}
	var ev map[string]json.RawMessage
	if json.Unmarshal(data, &ev) != nil {
		return line
	}
	var typ string
	if json.Unmarshal(ev["type"], &typ) != nil || !strings.HasPrefix(typ, "comment_") {
		return line
	}
	delete(ev, "seq")
	b, err := json.Marshal(ev)
	if err != nil {
		return line
	}
	return append(append([]byte("data: "), b...), '\n')
}

// Pad keeps a relation value as it was written, and answers it so: an
// id, a ref, a title, or an id of no item (it checks only that a
// relation is a string; a multi_relation, a type its validation does not
// know, is kept whatever it is). padd resolves a ref or a title to the
// item's id when it is written. The proxy remembers, for each item, the
// relation values a write sent as something other than the id padd
// stored (padd's answer says which keys are relations: relation_targets),
// and answers them as written for as long as padd holds the same. What
// it cannot make padd do is keep a value that names no item: padd refuses
// it (400 validation_error not_found), where Pad keeps it.

// writtenKey is the request context's key for an item write's fields as
// sent (augRequest).
type writtenKey struct{}

// writtenValue is a relation value as a write sent it (sent) and as padd
// stored it (stored).
type writtenValue struct{ sent, stored any }

// writtenFields is an item write's fields or fields_patch as sent (JSON
// text or an object).
func writtenFields(obj map[string]json.RawMessage) map[string]any {
	for _, k := range []string{"fields", "fields_patch"} {
		raw := bytes.TrimSpace(obj[k])
		if len(raw) == 0 {
			continue
		}
		if raw[0] == '"' {
			var text string
			if json.Unmarshal(raw, &text) != nil {
				continue
			}
			raw = []byte(text)
		}
		if v, err := decodeAny(raw); err == nil {
			if m, ok := v.(map[string]any); ok {
				return m
			}
		}
	}
	return nil
}

// noteWritten remembers the relation values an item write sent as other
// than what padd stored (v: padd's answer, written: the fields sent).
func (p *proxy) noteWritten(v any, written map[string]any) {
	m, ok := v.(map[string]any)
	if !ok || len(written) == 0 {
		return
	}
	id, _ := m["id"].(string)
	text, _ := m["fields"].(string)
	stored, err := decodeAny([]byte(text))
	fields, _ := stored.(map[string]any)
	if id == "" || err != nil {
		return
	}
	targets, _ := m["relation_targets"].(map[string]any)
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.written == nil {
		p.written = map[string]map[string]writtenValue{}
	}
	for k, sent := range written {
		_, relation := targets[k]
		if !relation || sent == nil || sameValue(sent, fields[k]) {
			delete(p.written[id], k)
			continue
		}
		if p.written[id] == nil {
			p.written[id] = map[string]writtenValue{}
		}
		p.written[id][k] = writtenValue{sent: sent, stored: fields[k]}
	}
}

// relationsAsWritten answers each item in v with its relation values as
// they were written (noteWritten), and without relation_targets, which
// Pad does not send. An item is an object with collection_id and title.
func (p *proxy) relationsAsWritten(v any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	forEachObject(v, func(m map[string]any) {
		if _, ok := m["collection_id"]; !ok {
			return
		}
		if _, ok := m["title"]; !ok {
			return
		}
		delete(m, "relation_targets")
		id, _ := m["id"].(string)
		kept := p.written[id]
		text, isText := m["fields"].(string)
		if len(kept) == 0 || !isText {
			return
		}
		decoded, err := decodeAny([]byte(text))
		fields, _ := decoded.(map[string]any)
		if err != nil || fields == nil {
			return
		}
		changed := false
		for k, w := range kept {
			if sameValue(fields[k], w.stored) {
				fields[k], changed = w.sent, true
			}
		}
		if changed {
			if raw, err := json.Marshal(fields); err == nil {
				m["fields"] = string(raw)
			}
		}
	})
}

// sameValue compares two decoded JSON values.
func sameValue(a, b any) bool {
	x, err1 := json.Marshal(a)
	y, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && bytes.Equal(x, y)
}
