package testremote

import (
	"errors"
	"io"
	"net"
	"sync"
	"testing"
	"time"
)

// A Link is one laptop's network path to the remote: a TCP forwarder on
// a loopback port of its own in front of the proxy, which a test cuts
// and mends as a laptop loses and finds its network. Several padds, each
// on a link of its own, reach the one remote, and one can be cut off
// while the others go on. Cutting works below HTTP, so it meets every
// request and the event stream alike:
//
//   - Refuse closes the port: a connection is refused, as by a host
//     whose server is stopped.
//   - AcceptClose accepts a connection and closes it at once, as a
//     reverse proxy in front of a stopped Pad does.
//
// Either way the link's open connections are cut.
type Link struct {
	target func() string // the proxy's address, read at each connection

	mu      sync.Mutex
	addr    string // 127.0.0.1:port, kept while cut
	ln      net.Listener
	mode    LinkMode
	cuts    int // Cut calls not yet mended
	conns   map[net.Conn]bool
	closed  bool
	serving sync.WaitGroup
}

// LinkMode is how a cut link behaves.
type LinkMode int

const (
	// LinkUp forwards every connection.
	LinkUp LinkMode = iota
	// Refuse closes the link's port: connections are refused.
	Refuse
	// AcceptClose accepts each connection and closes it unanswered.
	AcceptClose
)

func (m LinkMode) String() string {
	switch m {
	case Refuse:
		return "refused connections"
	case AcceptClose:
		return "accept and close"
	}
	return "up"
}

// NewLink opens a link to the remote's proxy on a free loopback port; the
// test's cleanup closes it.
func (r *Remote) NewLink(t testing.TB) *Link {
	t.Helper()
	if r.proxy == nil {
		t.Fatal("testremote: a Link needs the proxy (Options.Direct is set)")
	}
	l := &Link{target: func() string {
		r.proxy.mu.Lock()
		defer r.proxy.mu.Unlock()
		return r.proxy.addr
	}, conns: map[net.Conn]bool{}}
	if err := l.listen("127.0.0.1:0"); err != nil {
		t.Fatalf("testremote: open a link: %v", err)
	}
	t.Cleanup(l.close)
	return l
}

// URL is the remote's base URL through the link, as a sync client is
// given it.
func (l *Link) URL() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return "http://" + l.addr
}

// Mode is how the link behaves now.
func (l *Link) Mode() LinkMode {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.mode
}

// Cut cuts the link in mode m until every Cut is mended; a cut while cut
// changes the mode. The link's open connections are closed.
func (l *Link) Cut(m LinkMode) error {
	l.mu.Lock()
	l.cuts++
	l.mode = m
	ln := l.ln
	if m == Refuse {
		l.ln = nil
	}
	conns := l.conns
	l.conns = map[net.Conn]bool{}
	l.mu.Unlock()
	if m == Refuse && ln != nil {
		_ = ln.Close()
	}
	for c := range conns {
		_ = c.Close()
	}
	if m == AcceptClose && ln == nil {
		return l.listen(l.addrOf())
	}
	return nil
}

// Mend undoes one Cut; the link is up again once every cut is mended.
func (l *Link) Mend() error {
	l.mu.Lock()
	if l.cuts > 0 {
		l.cuts--
	}
	up := l.cuts == 0
	if up {
		l.mode = LinkUp
	}
	reopen := up && l.ln == nil && !l.closed
	l.mu.Unlock()
	if reopen {
		return l.listen(l.addrOf())
	}
	return nil
}

func (l *Link) addrOf() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.addr
}

// listen serves on addr: a free port the first time, the link's own
// after a Refuse cut.
func (l *Link) listen(addr string) error {
	ln, err := listenAgain(addr)
	if err != nil {
		return err
	}
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return ln.Close()
	}
	l.addr, l.ln = ln.Addr().String(), ln
	l.serving.Add(1)
	l.mu.Unlock()
	go l.serve(ln)
	return nil
}

func (l *Link) serve(ln net.Listener) {
	defer l.serving.Done()
	for {
		c, err := ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			continue
		}
		l.mu.Lock()
		up := l.mode == LinkUp && !l.closed
		if up {
			l.conns[c] = true
		}
		l.mu.Unlock()
		if !up {
			_ = c.Close()
			continue
		}
		go l.forward(c)
	}
}

// forward copies both ways between a client's connection and the proxy;
// a proxy that is down (the remote restarting) closes the client's.
func (l *Link) forward(c net.Conn) {
	defer func() {
		l.mu.Lock()
		delete(l.conns, c)
		l.mu.Unlock()
		_ = c.Close()
	}()
	up, err := net.DialTimeout("tcp", l.target(), 10*time.Second)
	if err != nil {
		return
	}
	defer up.Close()
	done := make(chan struct{}, 2)
	go func() { _, _ = io.Copy(up, c); done <- struct{}{} }()
	go func() { _, _ = io.Copy(c, up); done <- struct{}{} }()
	<-done // one way ended: the other is cut by the deferred closes
}

func (l *Link) close() {
	l.mu.Lock()
	l.closed = true
	ln := l.ln
	l.ln = nil
	conns := l.conns
	l.conns = map[net.Conn]bool{}
	l.mu.Unlock()
	if ln != nil {
		_ = ln.Close()
	}
	for c := range conns {
		_ = c.Close()
	}
	l.serving.Wait()
}
