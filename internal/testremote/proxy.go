package testremote

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/time/rate"
)

// FaultKind is what the proxy does to a request instead of (or around)
// forwarding it.
type FaultKind int

const (
	// Pass forwards the request as usual (after Fault.Delay).
	Pass FaultKind = iota
	// DropBefore closes the client's connection without forwarding: the
	// write never reaches padd, and the client gets no answer.
	DropBefore
	// DropAfter forwards the request, lets padd answer in full and
	// closes the client's connection instead of answering: the write
	// happened, its answer is lost.
	//
	// A request with an Idempotency-Key (or a GET) dropped on a reused
	// connection is sent again by Go's transport itself, so the client
	// may never see either drop (Once faults let the resend through).
	DropAfter
	// Answer answers Fault.Status in Pad's error envelope without
	// forwarding (500: server_error; 429: rate_limited with
	// Retry-After: 1; another 4xx: bad_request, a refusal).
	Answer
)

// Fault is what the fault hook asks for one request.
type Fault struct {
	Kind FaultKind
	// Delay holds the request this long before the rest happens (or
	// until the client gives up).
	Delay time.Duration
	// Status is the status an Answer fault answers.
	Status int
}

// FaultFunc decides the fault for a request; the zero Fault forwards it.
// It is called for every request that passed the rate limiter, from the
// proxy's handler goroutines at once, and must not read the body.
type FaultFunc func(*http.Request) Fault

// Once is a FaultFunc that answers f for the first request match
// accepts, and Pass for every other.
func Once(match func(*http.Request) bool, f Fault) FaultFunc {
	var used atomic.Bool
	return func(r *http.Request) Fault {
		if match(r) && used.CompareAndSwap(false, true) {
			return f
		}
		return Fault{}
	}
}

// SetFault installs the fault hook (nil removes it). It needs the proxy.
func (r *Remote) SetFault(f FaultFunc) {
	if r.proxy == nil {
		panic("testremote: SetFault needs the proxy (Options.Direct is set)")
	}
	if f == nil {
		r.proxy.fault.Store(nil)
		return
	}
	r.proxy.fault.Store(&f)
}

// Stats counts what reached the proxy, by route: "METHOD /api/v1/..."
// with the workspace, collection, item and comment segments written as
// {ws}, {coll}, {ref} and {comment}.
type Stats struct {
	// Requests counts every request, the refused and dropped ones too.
	Requests map[string]int
	// TooMany counts the 429 answers: the rate limiter's, a fault's and
	// any padd sent.
	TooMany map[string]int
}

// Total is the number of requests of every route.
func (s Stats) Total() int { return sum(s.Requests) }

// TotalTooMany is the number of 429 answers of every route.
func (s Stats) TotalTooMany() int { return sum(s.TooMany) }

func sum(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

// Stats is a copy of the counts so far. It needs the proxy.
func (r *Remote) Stats() Stats {
	if r.proxy == nil {
		panic("testremote: Stats needs the proxy (Options.Direct is set)")
	}
	return r.proxy.snapshot()
}

// ResetStats sets the counts back to zero.
func (r *Remote) ResetStats() {
	if r.proxy == nil {
		panic("testremote: ResetStats needs the proxy (Options.Direct is set)")
	}
	p := r.proxy
	p.mu.Lock()
	p.stats = Stats{Requests: map[string]int{}, TooMany: map[string]int{}}
	p.mu.Unlock()
}

// proxy is the harness in front of the second padd: a reverse proxy on
// loopback, in this process.
type proxy struct {
	aug        bool
	noAttach   bool
	limiter    *rate.Limiter // nil: no limit
	perMinute  int           // the limit as Pad's X-Ratelimit-Limit says it
	changesCap atomic.Int64  // the page the /changes walk asks padd for; 0: padd's default
	fault      atomic.Pointer[FaultFunc]
	tr         *http.Transport // to padd

	mu       sync.Mutex
	stats    Stats
	addr     string // 127.0.0.1:port, kept across restarts
	srv      *http.Server
	rp       *httputil.ReverseProxy
	handlers sync.WaitGroup
	// teammates are the ids of what the teammate's client made (teammate.go).
	teammates map[string]bool
	// written are relation values as a write sent them, by item id and
	// key (relationsAsWritten).
	written map[string]map[string]writtenValue
}

func newProxy(opts Options) *proxy {
	p := &proxy{aug: opts.Aug2026, noAttach: opts.NoAttachments, tr: &http.Transport{DisableCompression: true, MaxIdleConnsPerHost: 16},
		stats: Stats{Requests: map[string]int{}, TooMany: map[string]int{}}, teammates: map[string]bool{}}
	if opts.RateLimit > 0 {
		burst := max(opts.Burst, 1)
		p.limiter = rate.NewLimiter(rate.Limit(opts.RateLimit), burst)
		p.perMinute = int(opts.RateLimit * 60)
	}
	return p
}

// start serves on the proxy's address (a free port the first time, the
// same one after a restart), forwarding to padd at target.
func (p *proxy) start(target string) error {
	u, err := url.Parse(target)
	if err != nil {
		return err
	}
	addr := p.addr
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	ln, err := listenAgain(addr)
	if err != nil {
		return err
	}
	rp := &httputil.ReverseProxy{
		Rewrite:   func(pr *httputil.ProxyRequest) { pr.SetURL(u) },
		Transport: p.tr,
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			if r.Context().Err() != nil {
				return // the client left
			}
			writeEnvelope(w, http.StatusBadGateway, "server_error", fmt.Sprintf("the test remote's proxy could not reach padd: %v", err))
		},
	}
	rp.ModifyResponse = func(resp *http.Response) error {
		if p.aug {
			if err := p.augAnswer(resp); err != nil {
				return err
			}
		}
		return p.teammateAnswer(resp)
	}
	srv := &http.Server{Handler: p, ReadHeaderTimeout: time.Minute}
	p.mu.Lock()
	p.addr, p.rp, p.srv = ln.Addr().String(), rp, srv
	p.mu.Unlock()
	go func() { _ = srv.Serve(ln) }()
	return nil
}

// listenAgain listens on addr: a free port for 127.0.0.1:0, else the
// port a proxy or a link had before it stopped, tried again for a while
// as a socket on its way out may still hold it.
func listenAgain(addr string) (net.Listener, error) {
	for attempt := 0; ; attempt++ {
		ln, err := net.Listen("tcp", addr)
		if err == nil || addr == "127.0.0.1:0" || attempt == 20 {
			return ln, err
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func (p *proxy) url() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return "http://" + p.addr
}

// stopListening closes the listener and every connection, and waits for
// the handlers to return.
func (p *proxy) stopListening() {
	p.mu.Lock()
	srv := p.srv
	p.srv = nil
	p.mu.Unlock()
	if srv != nil {
		_ = srv.Close()
	}
	p.handlers.Wait()
	p.tr.CloseIdleConnections()
}

func (p *proxy) close() { p.stopListening() }

func (p *proxy) snapshot() Stats {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := Stats{Requests: make(map[string]int, len(p.stats.Requests)), TooMany: make(map[string]int, len(p.stats.TooMany))}
	for k, v := range p.stats.Requests {
		out.Requests[k] = v
	}
	for k, v := range p.stats.TooMany {
		out.TooMany[k] = v
	}
	return out
}

func (p *proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.handlers.Add(1)
	defer p.handlers.Done()
	key := r.Method + " " + routeOf(r.URL.Path)
	sw := &statusWriter{ResponseWriter: w}
	p.mu.Lock()
	p.stats.Requests[key]++
	p.mu.Unlock()
	defer func() {
		if sw.status == http.StatusTooManyRequests {
			p.mu.Lock()
			p.stats.TooMany[key]++
			p.mu.Unlock()
		}
	}()

	if isTeammate(r) {
		p.forward(sw, r, false)
		return
	}
	if p.limiter != nil && strings.HasPrefix(r.URL.Path, "/api/") && !p.limiter.Allow() {
		sw.Header().Set("X-Ratelimit-Limit", strconv.Itoa(p.perMinute))
		writeEnvelope(sw, http.StatusTooManyRequests, "rate_limited", "Too many requests; retry after the time in Retry-After")
		return
	}
	var f Fault
	if hook := p.fault.Load(); hook != nil {
		f = (*hook)(r)
	}
	if f.Delay > 0 {
		t := time.NewTimer(f.Delay)
		select {
		case <-t.C:
		case <-r.Context().Done():
			t.Stop()
			return
		}
	}
	switch f.Kind {
	case DropBefore:
		drop(sw)
		return
	case Answer:
		code := "server_error"
		switch {
		case f.Status == http.StatusTooManyRequests:
			code = "rate_limited"
		case f.Status >= 400 && f.Status < 500:
			code = "bad_request"
		}
		writeEnvelope(sw, f.Status, code, fmt.Sprintf("the test remote's fault hook answered %d", f.Status))
		return
	}
	if p.noAttach && strings.Contains(r.URL.Path, "/attachments") {
		writeEnvelope(sw, http.StatusServiceUnavailable, "attachments_disabled", "Attachment storage is not configured on this server")
		return
	}
	p.forward(sw, r, f.Kind == DropAfter)
}

// forward sends r on to padd as the server the proxy plays would answer
// it (the August 2026 rewrites); dropAnswer lets padd answer and closes
// the client's connection instead (DropAfter).
func (p *proxy) forward(sw *statusWriter, r *http.Request, dropAnswer bool) {
	p.mu.Lock()
	rp := p.rp
	p.mu.Unlock()
	if p.aug {
		if missingRoute(r) {
			writeEnvelope(sw, http.StatusNotFound, "not_found", "404 page not found")
			return
		}
		written, err := augRequest(r)
		if err != nil {
			if a, ok := errors.AsType[*padAnswer](err); ok {
				writeEnvelope(sw, a.status, a.code, a.message)
				return
			}
			writeEnvelope(sw, http.StatusBadRequest, "bad_request", err.Error())
			return
		}
		if written != nil {
			r = r.WithContext(context.WithValue(r.Context(), writtenKey{}, written))
		}
		if n := p.changesCap.Load(); n > 0 && isChangesFeed(r) {
			q := r.URL.Query()
			q.Set("limit", strconv.FormatInt(n, 10))
			r.URL.RawQuery = q.Encode()
		}
	}
	if dropAnswer {
		rp.ServeHTTP(&discardWriter{header: http.Header{}}, r)
		drop(sw)
		return
	}
	rp.ServeHTTP(sw, r)
}

// drop closes the client's connection with no answer.
func drop(w http.ResponseWriter) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		panic(http.ErrAbortHandler) // the server closes the connection itself
	}
	_ = conn.Close()
}

// writeEnvelope answers Pad's error envelope; a 429 says Retry-After: 1,
// as Pad's limiter does.
func writeEnvelope(w http.ResponseWriter, status int, code, message string) {
	b, _ := json.Marshal(map[string]any{"error": map[string]any{"code": code, "message": message}})
	w.Header().Set("Content-Type", "application/json")
	if status == http.StatusTooManyRequests {
		w.Header().Set("Retry-After", "1")
	}
	w.WriteHeader(status)
	_, _ = w.Write(append(b, '\n'))
}

// statusWriter notes the status answered; Unwrap lets the reverse proxy
// flush (event streams) and drop hijack through it.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (s *statusWriter) WriteHeader(code int) {
	if s.status == 0 {
		s.status = code
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusWriter) Write(b []byte) (int, error) {
	if s.status == 0 {
		s.status = http.StatusOK
	}
	return s.ResponseWriter.Write(b)
}

func (s *statusWriter) Unwrap() http.ResponseWriter { return s.ResponseWriter }

// discardWriter takes padd's answer of a DropAfter request whole and
// throws it away.
type discardWriter struct {
	header http.Header
	buf    bytes.Buffer
}

func (d *discardWriter) Header() http.Header         { return d.header }
func (d *discardWriter) WriteHeader(int)             {}
func (d *discardWriter) Write(b []byte) (int, error) { return d.buf.Write(b) }

// routeParams names the segment after each of these as a parameter.
var routeParams = map[string]string{"workspaces": "{ws}", "collections": "{coll}", "items": "{ref}", "comments": "{comment}",
	"links": "{link}", "versions": "{version}", "roles": "{role}", "tokens": "{token}"}

// routeLiterals are segments that stand where a parameter would and are
// routes of their own.
var routeLiterals = map[string]bool{"bulk": true}

// routeOf is a request path with its parameters replaced by names, so
// requests of one route count together.
func routeOf(path string) string {
	segs := strings.Split(path, "/")
	for i := 1; i < len(segs); i++ {
		if name, ok := routeParams[segs[i-1]]; ok && segs[i] != "" && !routeLiterals[segs[i]] && i > 3 {
			segs[i] = name
		}
	}
	return strings.Join(segs, "/")
}

var errBodyTooLarge = errors.New("request body too large for the test remote's proxy")
