package syncer

// reads is what the next cycle is to read from the remote beyond the
// push: the worker gathers it from the event stream, a start or `sync
// now`, and a cycle takes it whole at its start and gives back what it
// did not finish. It is a value, so that what a cycle owes is one thing
// to read, test and put back.
type reads struct {
	items   bool            // the item feed
	colls   bool            // the collections
	catchUp bool            // the activity feed, for comments made meanwhile
	resync  bool            // the stream lost track: check every mapped item is still there
	stars   bool            // the token's user's stars
	export  bool            // every link, comment and attachment (reconcileExport)
	threads map[string]bool // remote items whose comments and links to read
}

// allReads is what a start, `sync now` and `resume` read: everything.
func allReads() reads {
	return reads{items: true, colls: true, catchUp: true, stars: true, export: true, threads: map[string]bool{}}
}

// take hands over what r holds and leaves r empty.
func (r *reads) take() reads {
	out := *r
	if out.threads == nil {
		out.threads = map[string]bool{}
	}
	*r = reads{threads: map[string]bool{}}
	return out
}

// add puts back what o holds beside what r gathered meanwhile: a cycle
// that failed owes it still.
func (r *reads) add(o reads) {
	r.items, r.colls, r.catchUp = r.items || o.items, r.colls || o.colls, r.catchUp || o.catchUp
	r.resync, r.stars, r.export = r.resync || o.resync, r.stars || o.stars, r.export || o.export
	if r.threads == nil {
		r.threads = map[string]bool{}
	}
	for id := range o.threads {
		r.threads[id] = true
	}
}

// thread asks for one remote item's comments and links.
func (r *reads) thread(remoteItem string) {
	if r.threads == nil {
		r.threads = map[string]bool{}
	}
	r.threads[remoteItem] = true
}
