package remote

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/padd/padd/api"
	"github.com/padd/padd/internal/procstat"
	"golang.org/x/time/rate"
)

// The hostile remote of issue 44: deep JSON, answers that trickle, and
// redirects to another host. Endless answers: endless_test.go.

// deepArrays is JSON of depth nested arrays; deepObjects of depth
// nested objects.
func deepArrays(depth int) string { return strings.Repeat("[", depth) + strings.Repeat("]", depth) }
func deepObjects(depth int) string {
	return strings.Repeat(`{"a":`, depth) + "1" + strings.Repeat("}", depth)
}
func unpaced() Limits {
	return Limits{General: rate.Inf, GeneralBurst: 1, Search: rate.Inf, SearchBurst: 1}
}
func itemWith(key, value string) string {
	return strings.TrimSuffix(observedItem, "}") + `,"` + key + `":` + value + "}"
}

// JSON nested 100,000 deep, in an item, an export (an item's member, a
// comment, a key padd reads past), a feed and an error envelope, is a
// bad answer (or, in an envelope, no envelope), read in bounded memory:
// never a stack blown by recursion, never memory that grows with depth.
func TestDeepJSONIsRefusedInBoundedMemory(t *testing.T) {
	const depth = 100_000
	const bound = 64 << 20
	f := newFakePad(t)
	f.answer("GET /api/v1/workspaces/w/items/arrays", 200, itemWith("extra", deepArrays(depth)))
	f.answer("GET /api/v1/workspaces/w/items/objects", 200, itemWith("extra", deepObjects(depth)))
	f.answer("GET /api/v1/workspaces/w/items/fields", 200, strings.Replace(observedItem, `"fields":"{\"priority\":\"high\",\"status\":\"open\"}"`, `"fields":`+deepObjects(depth), 1))
	f.answer("GET /api/v1/workspaces/w/items/TASK-1/comments", 200, `[`+strings.TrimSuffix(observedComment, "}")+`,"x":`+deepArrays(depth)+`}]`)
	f.answer("GET /api/v1/workspaces/w/items-index", 200, `{"items":`+deepArrays(depth)+`}`)
	for name, body := range map[string]string{
		"item":       `{"items":[{"id":"i1","x":` + deepArrays(depth) + `}]}`,
		"comment":    `{"items":[{"id":"i1"}],"comments":[{"id":"k1","item_id":"i1","body":` + deepObjects(depth) + `}]}`,
		"skipped":    `{"versions":` + deepArrays(depth) + `}`,
		"skipped-ob": `{"workspace":` + deepObjects(depth) + `}`,
	} {
		f.answer("GET /api/v1/workspaces/"+name+"/export", 200, body)
	}
	// Under the envelope's 64 KiB cap, so that its depth is what is met.
	f.answer("GET /api/v1/workspaces/envelope", 400, `{"error":{"code":"validation_error","message":"m","details":{"d":`+deepArrays(30_000)+`}}}`)
	c := f.client(Options{Limits: unpaced()})
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		call func() error
		want func(error) bool
	}{
		{"item, arrays in a member padd does not read", func() error { _, err := c.GetItem(ctx, "w", "arrays"); return err }, IsBadAnswer},
		{"item, objects in a member padd does not read", func() error { _, err := c.GetItem(ctx, "w", "objects"); return err }, IsBadAnswer},
		{"item, objects as its fields", func() error { _, err := c.GetItem(ctx, "w", "fields"); return err }, IsBadAnswer},
		{"comment list", func() error { _, err := c.ListComments(ctx, "w", "TASK-1"); return err }, IsBadAnswer},
		{"items index", func() error { _, err := c.ItemsIndex(ctx, "w"); return err }, IsBadAnswer},
		{"export, in an item", func() error { _, err := c.ExportThreads(ctx, "item"); return err }, IsBadAnswer},
		{"export, in a comment", func() error { _, err := c.ExportThreads(ctx, "comment"); return err }, IsBadAnswer},
		{"export, arrays in a key read past", func() error { _, err := c.ExportThreads(ctx, "skipped"); return err }, IsBadAnswer},
		{"export, objects in a key read past", func() error { _, err := c.ExportThreads(ctx, "skipped-ob"); return err }, IsBadAnswer},
		{"error envelope", func() error { _, err := c.GetWorkspace(ctx, "envelope"); return err }, func(err error) bool {
			var e *Error
			return errors.As(err, &e) && e.Status == 400 && e.Kind == KindRefused && len(e.Details) == 0
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var err error
			used := procstat.HeapPeak(func() { err = tc.call() })
			t.Logf("heap in use grew by at most %d KiB: %v", used>>10, err)
			if !tc.want(err) {
				t.Errorf("err = %v (%T)", err, err)
			}
			if used > bound {
				t.Errorf("reading it took %d MiB of heap; the bound is %d MiB", used>>20, bound>>20)
			}
		})
	}
}

// trickle answers status and then one byte of body every 20 ms until
// the client goes, counting the requests it holds open.
func trickle(status int, contentType, first string) (http.HandlerFunc, *sync.WaitGroup) {
	var open sync.WaitGroup
	return func(w http.ResponseWriter, r *http.Request) {
		open.Add(1)
		defer open.Done()
		w.Header().Set("Content-Type", contentType)
		w.WriteHeader(status)
		fl := w.(http.Flusher)
		_, _ = io.WriteString(w, first)
		fl.Flush()
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-r.Context().Done():
				return
			case <-tick.C:
			}
			if _, err := io.WriteString(w, "a"); err != nil {
				return
			}
			fl.Flush()
		}
	}, &open
}

// A remote that answers one byte at a time, forever, never holds a call:
// every call ends at its timeout (an event stream at its idle timeout,
// since a line never ends), as an error the engine goes on from.
func TestTrickledAnswersEndAtTheirTimeout(t *testing.T) {
	f := newFakePad(t)
	var opens []*sync.WaitGroup
	route := func(pattern string, status int, contentType, first string) {
		h, open := trickle(status, contentType, first)
		opens = append(opens, open)
		f.handle(pattern, h)
	}
	route("GET /api/v1/workspaces/w/items/TASK-1", 200, "application/json", `{"id":"i1","title":"`)
	route("GET /api/v1/workspaces/w/items/TASK-1/comments", 200, "application/json", `[{"body":"`)
	route("GET /api/v1/workspaces/w/export", 200, "application/json", `{"items":[{"id":"`)
	route("GET /api/v1/workspaces/w/attachments/a1", 200, "image/png", "\x89PNG")
	route("GET /api/v1/workspaces/err", 503, "application/json", `{"error":{"message":"`)
	route("PATCH /api/v1/workspaces/w/items/TASK-1", 200, "application/json", `{"id":"i1","title":"`)
	route("GET /api/v1/events", 200, "text/event-stream", "data: ")
	c := f.client(Options{Limits: unpaced(), Timeout: 300 * time.Millisecond, IdleTimeout: 300 * time.Millisecond})
	ctx := context.Background()
	title := "x"
	for _, tc := range []struct {
		name string
		call func() error
		want func(error) bool
	}{
		{"item", func() error { _, err := c.GetItem(ctx, "w", "TASK-1"); return err }, IsUnreachable},
		{"comments", func() error { _, err := c.ListComments(ctx, "w", "TASK-1"); return err }, IsUnreachable},
		// Its own timeout is a bad answer, not "not sent": the clone reads
		// item by item instead, as for a broken export (syncer's readExport).
		{"export", func() error { _, err := c.ExportThreads(ctx, "w"); return err }, func(err error) bool {
			return errors.Is(err, context.DeadlineExceeded) && IsBadAnswer(err) && !strings.Contains(err.Error(), "not sent")
		}},
		{"error envelope", func() error { _, err := c.GetWorkspace(ctx, "err"); return err }, IsServerError},
		{"a write's answer", func() error {
			_, err := c.UpdateItem(ctx, "w", "TASK-1", api.ItemUpdate{Title: &title}, Base{})
			return err
		}, IsOutcomeUnknown},
		{"attachment", func() error {
			rc, err := c.OpenAttachment(ctx, "w", "a1", 10)
			if err != nil {
				return err
			}
			defer rc.Close()
			_, err = io.Copy(io.Discard, rc)
			if err == nil {
				return errors.New("the trickle was read to its end")
			}
			return &Error{Kind: KindUnreachable, Message: err.Error()}
		}, IsUnreachable},
		{"event stream", func() error {
			for _, err := range c.Events(ctx, "w", "") {
				if err != nil {
					return err
				}
			}
			return errors.New("the stream ended with no error")
		}, IsUnreachable},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.call()
			t.Logf("%v", err)
			if err == nil || !tc.want(err) {
				t.Errorf("err = %v, want the call ended by its timeout", err)
			}
		})
	}
	// Every trickle ended: padd closed each connection it gave up on.
	done := make(chan struct{})
	go func() {
		for _, o := range opens {
			o.Wait()
		}
		close(done)
	}()
	<-done
}

// A redirect to another origin never carries the token there, whatever
// the call (a read, the export, the event stream, a download, a write, an
// upload) and whatever the redirect's status: the other server, on the
// same address at another port (which a browser's rule, same host, would
// let the token through to), records every Authorization it is sent.
func TestRedirectElsewhereNeverCarriesTheToken(t *testing.T) {
	var mu sync.Mutex
	var got []string
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, fmt.Sprintf("%s %s Authorization=%q", r.Method, r.URL.Path, r.Header.Get("Authorization")))
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{}`)
	}))
	t.Cleanup(other.Close)
	for _, status := range []int{301, 302, 303, 307, 308} {
		t.Run(fmt.Sprint(status), func(t *testing.T) {
			f := newFakePad(t)
			away := func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, other.URL+r.URL.RequestURI(), status)
			}
			f.handle("/api/v1/", away)
			c := f.client(Options{Limits: unpaced(), Timeout: 5 * time.Second})
			ctx := context.Background()
			title := "x"
			calls := map[string]func() error{
				"workspaces": func() error { _, err := c.ListWorkspaces(ctx); return err },
				"item":       func() error { _, err := c.GetItem(ctx, "w", "TASK-1"); return err },
				"export":     func() error { _, err := c.ExportThreads(ctx, "w"); return err },
				"changes":    func() error { _, err := c.ItemsChanges(ctx, "w", 0, 10); return err },
				"download": func() error {
					rc, err := c.OpenAttachment(ctx, "w", "a1", 10)
					if err == nil {
						rc.Close()
					}
					return err
				},
				"events": func() error {
					for _, err := range c.Events(ctx, "w", "") {
						if err != nil {
							return err
						}
					}
					return nil
				},
				"create": func() error { _, err := c.CreateItem(ctx, "w", "tasks", api.ItemCreate{Title: "x"}, "k1"); return err },
				"update": func() error {
					_, err := c.UpdateItem(ctx, "w", "TASK-1", api.ItemUpdate{Title: &title}, Base{})
					return err
				},
				"upload": func() error {
					_, err := c.UploadAttachment(ctx, "w", "", "a.txt", 2, strings.NewReader("hi"))
					return err
				},
			}
			for name, call := range calls {
				if err := call(); !IsRefused(err) {
					t.Errorf("%s redirected elsewhere = %v, want refused", name, err)
				}
			}
		})
	}
	mu.Lock()
	defer mu.Unlock()
	for _, g := range got {
		if strings.Contains(g, testToken) || strings.Contains(g, "Bearer") {
			t.Errorf("the other host was sent the token: %s", g)
		}
	}
	if len(got) > 0 {
		t.Errorf("the other host was sent %d requests: %q", len(got), got)
	}
}
