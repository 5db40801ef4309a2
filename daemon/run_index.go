package daemon

import (
	"context"
	"log/slog"
	"sync/atomic"

	"github.com/padd/padd/api"
	"github.com/padd/padd/searchindex"
	"github.com/padd/padd/storage"
)

// indexOpening is the search index as padd's start opens it, beside the
// rest of the start rather than before the listener: searchindex.Open
// checks every segment file of the newest snapshot (a CRC of each, work
// that grows with the index), and health does not need it. A request
// that needs the index waits for the open (searchIndex); one that does
// not is answered at once.
type indexOpening struct {
	done    chan struct{} // closed when the open has ended
	failed  chan struct{} // closed too when it failed
	x       *searchindex.Index
	err     error
	waiting atomic.Int32 // requests waiting for the open (tests watch it)
}

// openIndex starts opening the index of dataDir over store.
func openIndex(dataDir string, store *storage.Store, log *slog.Logger) *indexOpening {
	o := &indexOpening{done: make(chan struct{}), failed: make(chan struct{})}
	go func() {
		o.x, o.err = searchindex.Open(dataDir, store, log)
		if o.err != nil {
			close(o.failed)
		}
		close(o.done)
	}()
	return o
}

// wait returns the open index once it is open, or ctx's error if that
// comes first. An index that could not be opened stops padd (Run), and
// the requests that waited for it are told so.
func (o *indexOpening) wait(ctx context.Context) (*searchindex.Index, error) {
	select {
	case <-o.done:
	default:
		o.waiting.Add(1)
		defer o.waiting.Add(-1)
		select {
		case <-o.done:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	if o.err != nil {
		return nil, api.Errorf(api.CodeUnavailable, "padd could not open its search index and is stopping: %v; see `padctl daemon logs`", o.err)
	}
	return o.x, nil
}

// close waits for the open to end and closes the index it opened.
func (o *indexOpening) close() {
	<-o.done
	if o.x != nil {
		o.x.Close()
	}
}

// searchIndex is the search index, once open: a server that Run built
// waits for the start's open; one built with its index (NewServer's
// argument, tests) has it at once.
func (s *Server) searchIndex(ctx context.Context) (*searchindex.Index, error) {
	if s.opening == nil {
		return s.index, nil
	}
	return s.opening.wait(ctx)
}
