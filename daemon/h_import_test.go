package daemon

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/padd/padd/api"
	"github.com/padd/padd/internal/testwait"
	"github.com/padd/padd/storage"
)

// largeImportItems is the size of the imports below: ten chunks and more.
const largeImportItems = 20_000

// largeExport is Pad's JSON export of n small items in one collection.
func largeExport(n int) []byte {
	var b bytes.Buffer
	b.WriteString(`{"version":1,"workspace":{"name":"Large","slug":"large","settings":"{}"},` +
		`"collections":[{"id":"c","name":"Tasks","slug":"tasks","prefix":"TASK","schema":"{\"fields\":[]}","settings":"{}"}],"items":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"id":"i%d","collection_id":"c","title":"Item %d","item_number":%d}`, i, i, i+1)
	}
	b.WriteString(`]}`)
	return b.Bytes()
}

// holdImport is a harness whose imports stop after their third chunk
// until released: held says one is there.
func holdImport(t *testing.T) (h *harness, held <-chan struct{}, release func()) {
	heldc, releasec := make(chan struct{}), make(chan struct{})
	h = newHarnessWith(t, storage.Options{NoSync: true, ImportStep: func(ctx context.Context, chunk int) {
		if chunk == 3 {
			heldc <- struct{}{}
			select {
			case <-releasec:
			case <-ctx.Done():
			}
		}
	}})
	return h, heldc, func() { close(releasec) }
}

// importAsync sends the import on its own and answers on the channel.
func importAsync(ctx context.Context, h *harness, body []byte) <-chan reply {
	out := make(chan reply, 1)
	go func() {
		req, _ := http.NewRequestWithContext(ctx, "POST", h.ts.URL+"/api/v1/workspaces/import", bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+h.token)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			out <- reply{status: -1, body: []byte(err.Error())}
			return
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		out <- reply{status: resp.StatusCode, header: resp.Header, body: b}
	}()
	return out
}

// wantNoImport waits until no import is in progress and checks that
// padd holds the harness's workspace alone.
func wantNoImport(t *testing.T, h *harness) {
	t.Helper()
	testwait.Until(t, "the import to end", func() bool {
		var st api.DaemonStatus
		h.mustJSON("GET", "/api/v1/padd/status", nil, 200, &st)
		return len(st.Imports) == 0
	})
	var wss []api.Workspace
	h.mustJSON("GET", "/api/v1/workspaces", nil, 200, &wss)
	if len(wss) != 1 {
		t.Errorf("after the import padd holds %d workspaces, want the harness's alone", len(wss))
	}
}

// While an import is written, other requests are answered: a write and
// a read complete while the import, a third of the way through, has not
// finished, and it then finishes whole.
func TestRequestsAnsweredWhileAnImportRuns(t *testing.T) {
	h, held, release := holdImport(t)
	done := importAsync(context.Background(), h, largeExport(largeImportItems))
	testwait.Recv(t, "the import's third chunk", held)

	var st api.DaemonStatus
	h.mustJSON("GET", "/api/v1/padd/status", nil, 200, &st)
	if len(st.Imports) != 1 || st.Imports[0].ItemsWritten == 0 || st.Imports[0].ItemsWritten >= largeImportItems || st.Workspaces != 1 {
		t.Fatalf("status during the import: %+v; want one import, part written, and its workspace not there", st)
	}
	it := h.task("Written during the import")
	var got api.Item
	h.mustJSON("GET", "/api/v1/workspaces/w/items/"+it.Ref, nil, 200, &got)
	if got.ID != it.ID {
		t.Errorf("read %s, want %s", got.ID, it.ID)
	}
	select {
	case r := <-done:
		t.Fatalf("the import answered while held: %s", r.body)
	default:
	}

	release()
	r := testwait.Recv(t, "the import's answer", done)
	if r.status != 201 {
		t.Fatalf("import: %d %s", r.status, r.body)
	}
	var res api.ImportResult
	if err := json.Unmarshal(r.body, &res); err != nil {
		t.Fatal(err)
	}
	if res.ImportSummary.Imported.Items != largeImportItems || res.ImportSummary.InBundle.Items != largeImportItems {
		t.Errorf("summary %+v", res.ImportSummary)
	}
	var page []api.Item
	h.mustJSON("GET", "/api/v1/workspaces/large/items?limit=1&sort=created_at:asc", nil, 200, &page)
	if len(page) != 1 || page[0].Ref != "TASK-1" {
		t.Errorf("the first imported item: %+v", page)
	}
}

// An import whose client goes away stops at its next chunk and leaves
// nothing.
func TestImportStopsWhenItsClientGoes(t *testing.T) {
	h, held, _ := holdImport(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := importAsync(ctx, h, largeExport(largeImportItems))
	testwait.Recv(t, "the import's third chunk", held)
	cancel()
	if r := testwait.Recv(t, "the client's end", done); r.status != -1 {
		t.Fatalf("the client that went away got %d %s", r.status, r.body)
	}
	wantNoImport(t, h)
}

// An import running when padd stops is answered 503 and leaves nothing.
func TestImportStopsWhenPaddStops(t *testing.T) {
	h, held, _ := holdImport(t)
	done := importAsync(context.Background(), h, largeExport(largeImportItems))
	testwait.Recv(t, "the import's third chunk", held)
	h.srv.Close()
	r := testwait.Recv(t, "the import's answer", done)
	var e struct {
		Error api.Error `json:"error"`
	}
	if err := json.Unmarshal(r.body, &e); r.status != 503 || err != nil || e.Error.Code != api.CodeUnavailable {
		t.Fatalf("an import padd's stop ended answered %d %s", r.status, r.body)
	}
	wantNoImport(t, h)
}

// readExport finds the same export encoding/json decodes: the small
// members decoded alike, each list's elements decoding to its elements,
// whatever the spacing, the names' case and the brackets and escapes in
// strings.
func TestReadExportAgreesWithEncodingJSON(t *testing.T) {
	for _, in := range []string{
		smallExport,
		`{"version":1,"ITEMS":[{"id":"a"}, {"id":"b]}\"{"}],"Comments":null,"item_links":[],"workspace":{"name":"x"}}`,
		` { "items" : [ { "id" : "a" , "title" : "[{" } ] , "roles":[{"slug":"r"}] } `,
		`null`,
		`{"item_versions":[{"id":"v","content":"\u005b\\"}],"collections":[{"id":"c","name":"\"}"}]}`,
	} {
		doc, err := readExport(strings.NewReader(in), -1, 1<<20)
		if err != nil {
			t.Errorf("%s: %v", in, err)
			continue
		}
		var want api.WorkspaceExport
		if err := json.Unmarshal([]byte(in), &want); err != nil {
			t.Fatal(err)
		}
		got := doc.meta
		for _, l := range []struct {
			spans []span
			into  any
		}{{doc.items, &got.Items}, {doc.comments, &got.Comments}, {doc.links, &got.ItemLinks}, {doc.versions, &got.ItemVersions}} {
			list := reflect.ValueOf(l.into).Elem()
			for _, s := range l.spans {
				e := reflect.New(list.Type().Elem())
				if err := doc.element(s, e.Interface()); err != nil {
					t.Fatalf("%s: element %q: %v", in, doc.raw[s.start:s.end], err)
				}
				list.Set(reflect.Append(list, e.Elem()))
			}
		}
		for _, e := range []*api.WorkspaceExport{&got, &want} {
			e.Collections, e.Items, e.Comments = nilIfEmpty(e.Collections), nilIfEmpty(e.Items), nilIfEmpty(e.Comments)
			e.ItemLinks, e.ItemVersions, e.Roles = nilIfEmpty(e.ItemLinks), nilIfEmpty(e.ItemVersions), nilIfEmpty(e.Roles)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\nread    %+v\ndecoded %+v", in, got, want)
		}
	}
	for _, in := range []string{`[]`, `{"items":{}}`, `{"items":[1,`, `{} {}`, `"x"`} {
		if _, err := readExport(strings.NewReader(in), -1, 1<<20); !errors.As(err, new(*notExport)) {
			t.Errorf("%s: %v, want a refusal that says why it is not the export", in, err)
		}
	}
}

func nilIfEmpty[T any](s []T) []T {
	if len(s) == 0 {
		return nil
	}
	return s
}
