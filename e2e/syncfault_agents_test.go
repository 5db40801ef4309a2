//go:build unix

package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/padd/padd/api"
	"github.com/padd/padd/internal/syncfaultreport"
	"github.com/padd/padd/internal/testremote"
)

// The sync fault run's agents and their ledger: agents write on both
// sides of a sync (the local padd, and the remote straight past the
// proxy) and the ledger keeps every write a side acknowledged, and every
// write whose answer never came, with what it wrote and when.

// sfLines is how many lines every item's content has: content writes
// change one line, so that edits of different lines merge.
const sfLines = 6

// sfCollections are the collections the agents use: both have the text
// field the agents write (category), so a move keeps it.
var sfCollections = []string{"ideas", "docs"}

// sfWrite is one write a side acknowledged (or sent without an answer).
// part is "create", "title", "content:<line>", "fields.category",
// "collection", "archived", "parent", "comment", "link" or "attachment"; value is what
// that part holds after the write.
type sfWrite struct {
	side        string
	key         string
	part, value string
	sent, done  time.Time
	acked       bool // false: the outcome is unknown
}

// sfLedger is the run's record of writes, shared by every agent.
type sfLedger struct {
	mu     sync.Mutex
	writes []sfWrite
	acked  map[string]syncfaultreport.Counts // side -> op -> count
	unk    int
	errs   []string
}

func newLedger() *sfLedger {
	return &sfLedger{acked: map[string]syncfaultreport.Counts{}}
}

func (l *sfLedger) fail(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.errs) < 30 {
		l.errs = append(l.errs, fmt.Sprintf(format, args...))
	}
}

// sfOutcome sorts a write's error: nil is acknowledged; an answer of the
// server (a refusal) wrote nothing; anything else (the connection broke,
// the process died) may or may not have written.
func sfOutcome(err error) (acked, unknown bool) {
	if err == nil {
		return true, false
	}
	var ae *api.Error
	if errors.As(err, &ae) {
		return false, false
	}
	return false, true
}

// record notes a write's outcome: the op's count, and each part it set.
func (l *sfLedger) record(side, op string, sent time.Time, err error, parts ...sfWrite) {
	acked, unknown := sfOutcome(err)
	if !acked && !unknown {
		return
	}
	done := time.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	if acked {
		if l.acked[side] == nil {
			l.acked[side] = syncfaultreport.Counts{}
		}
		l.acked[side][op]++
	} else {
		l.unk++
	}
	for _, p := range parts {
		p.side, p.sent, p.done, p.acked = side, sent, done, acked
		l.writes = append(l.writes, p)
	}
}

// sfSide is one end of the sync as the agents write to it.
type sfSide struct {
	name   string // "remote", or a laptop's: "local" (one), "local1"... (several)
	tag    string // the first letter of the keys its agents make
	ws     string
	client func() *api.Client // the local padd's changes when it restarts

	mu       sync.Mutex
	ids      map[string]string   // key -> item id on this side
	keys     []string            // the keys of ids, to pick from
	comments map[string][]string // key -> comment ids this side acknowledged
	bodies   map[string]string   // comment id -> body
}

func newSide(name, tag, ws string, client func() *api.Client) *sfSide {
	return &sfSide{name: name, tag: tag, ws: ws, client: client, ids: map[string]string{},
		comments: map[string][]string{}, bodies: map[string]string{}}
}

func (s *sfSide) learn(key, id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.ids[key]; !ok {
		s.keys = append(s.keys, key)
	}
	s.ids[key] = id
}

// pick is a random known item (its key and its id here).
func (s *sfSide) pick(rng *rand.Rand) (string, string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.keys) == 0 {
		return "", "", false
	}
	k := s.keys[rng.IntN(len(s.keys))]
	return k, s.ids[k], true
}

// discover lists the side's items and learns the keys it does not know
// yet (items the other side made, synced here).
func (s *sfSide) discover(ctx context.Context) error {
	items, err := sfListItems(ctx, s.client(), s.ws)
	if err != nil {
		return err
	}
	for _, it := range items {
		if k := sfKey(it.Title); k != "" {
			s.learn(k, it.ID)
		}
	}
	return nil
}

// sfKey is an item's key: the first word of its title, which no write
// changes.
func sfKey(title string) string {
	k, _, _ := strings.Cut(title, " ")
	return k
}

func sfListItems(ctx context.Context, c *api.Client, ws string) ([]api.Item, error) {
	var out []api.Item
	for offset := 0; ; {
		page, p, err := c.ListItems(ctx, ws, "", api.ItemQuery{IncludeArchived: true, Limit: 200, Offset: offset})
		if err != nil {
			return nil, err
		}
		out = append(out, page...)
		if !p.HasMore || len(page) == 0 {
			return out, nil
		}
		offset += len(page)
	}
}

// sfContent is a new item's content: sfLines lines, each its own.
func sfContent(key string) string {
	var b strings.Builder
	for i := range sfLines {
		fmt.Fprintf(&b, "line %d: %s new\n", i, key)
	}
	return b.String()
}

// sfAgent writes to one side until its context ends.
type sfAgent struct {
	side   *sfSide
	ledger *sfLedger
	rng    *rand.Rand
	id     int
	n      int // writes made, for unique values
	pause  time.Duration
}

// stamp is a value no other write anywhere uses.
func (a *sfAgent) stamp() string {
	a.n++
	return fmt.Sprintf("%s%d.%d", a.side.tag, a.id, a.n)
}

// sfOps are the agents' writes with their weights.
var sfOps = []struct {
	name   string
	weight int
}{
	{"create", 14}, {"title", 10}, {"content", 14}, {"field", 10}, {"comment", 12}, {"reply", 6},
	{"move", 5}, {"archive", 4}, {"restore", 4}, {"link", 6}, {"attach", 4}, {"discover", 3},
}

func (a *sfAgent) run(ctx context.Context) {
	total := 0
	for _, o := range sfOps {
		total += o.weight
	}
	for ctx.Err() == nil {
		n := a.rng.IntN(total)
		op := ""
		for _, o := range sfOps {
			if n < o.weight {
				op = o.name
				break
			}
			n -= o.weight
		}
		a.do(ctx, op)
		// Pacing, so that the sync keeps up with the agents (Pad's 10
		// requests a second bound the local padd's pushes).
		d := a.pause/2 + time.Duration(a.rng.Int64N(int64(a.pause)+1))
		t := time.NewTimer(d)
		select {
		case <-ctx.Done():
		case <-t.C:
		}
		t.Stop()
	}
}

// archived says item id is archived (want true) or live (want false) on
// the agent's side, as a person looks before archiving or restoring: an
// archive of an archived item, or a restore of a live one, changes
// nothing, and recorded as a write it would stand for a state the item
// never took.
func (a *sfAgent) archived(ctx context.Context, id string, want bool) bool {
	it, err := a.side.client().GetItem(ctx, a.side.ws, id)
	return err == nil && (it.DeletedAt != nil) == want
}

func (a *sfAgent) do(ctx context.Context, op string) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	s, c, ws := a.side, a.side.client(), a.side.ws
	rec := func(sent time.Time, err error, parts ...sfWrite) { a.ledger.record(s.name, op, sent, err, parts...) }
	switch op {
	case "discover":
		_ = s.discover(ctx)
	case "create":
		key := fmt.Sprintf("%s%d-%d", s.tag, a.id, a.n)
		a.n++
		coll := sfCollections[a.rng.IntN(len(sfCollections))]
		in := api.ItemCreate{Title: key + " new", Content: sfContent(key),
			Fields: api.Flex(fmt.Sprintf(`{"category":%q}`, key+" new")), Tags: api.Flex(fmt.Sprintf(`["t%d"]`, a.rng.IntN(3)))}
		parent := ""
		if pk, pid, ok := s.pick(a.rng); ok && a.rng.IntN(5) == 0 {
			in.ParentID, parent = &pid, pk
		}
		sent := time.Now()
		it, err := c.CreateItem(ctx, ws, coll, in)
		parts := []sfWrite{{key: key, part: "create", value: key}, {key: key, part: "title", value: in.Title},
			{key: key, part: "fields.category", value: key + " new"}, {key: key, part: "collection", value: coll},
			{key: key, part: "archived", value: "false"}, {key: key, part: "parent", value: parent}}
		for i := range sfLines {
			parts = append(parts, sfWrite{key: key, part: fmt.Sprintf("content:%d", i), value: fmt.Sprintf("line %d: %s new", i, key)})
		}
		rec(sent, err, parts...)
		if err == nil {
			s.learn(key, it.ID)
		}
	case "title":
		key, id, ok := s.pick(a.rng)
		if !ok {
			return
		}
		title := key + " " + a.stamp()
		sent := time.Now()
		_, err := c.UpdateItem(ctx, ws, id, api.ItemUpdate{Title: &title})
		rec(sent, err, sfWrite{key: key, part: "title", value: title})
	case "field":
		key, id, ok := s.pick(a.rng)
		if !ok {
			return
		}
		v := key + " " + a.stamp()
		sent := time.Now()
		_, err := c.UpdateItem(ctx, ws, id, api.ItemUpdate{FieldsPatch: api.Flex(fmt.Sprintf(`{"category":%q}`, v))})
		rec(sent, err, sfWrite{key: key, part: "fields.category", value: v})
	case "content":
		key, id, ok := s.pick(a.rng)
		if !ok {
			return
		}
		// Read, change one line, write guarded by the seq read: a write
		// that lands between is not overwritten by this agent.
		for range 3 {
			it, err := c.GetItem(ctx, ws, id)
			if err != nil {
				return
			}
			lines := strings.Split(strings.TrimSuffix(it.Content, "\n"), "\n")
			if len(lines) != sfLines {
				return // a conflict's merge left it otherwise: not this agent's to fix
			}
			i := a.rng.IntN(sfLines)
			lines[i] = fmt.Sprintf("line %d: %s", i, a.stamp())
			content := strings.Join(lines, "\n") + "\n"
			seq := it.Seq
			sent := time.Now()
			_, err = c.UpdateItem(ctx, ws, id, api.ItemUpdate{Content: &content, ExpectedSeq: &seq})
			var ae *api.Error
			if errors.As(err, &ae) && ae.Status == http.StatusConflict {
				continue
			}
			rec(sent, err, sfWrite{key: key, part: fmt.Sprintf("content:%d", i), value: lines[i]})
			return
		}
	case "move":
		key, id, ok := s.pick(a.rng)
		if !ok {
			return
		}
		it, err := c.GetItem(ctx, ws, id)
		if err != nil {
			return
		}
		to := sfCollections[0]
		if it.CollectionSlug == to {
			to = sfCollections[1]
		}
		sent := time.Now()
		_, err = c.MoveItem(ctx, ws, id, api.ItemMove{TargetCollection: to, Force: true})
		rec(sent, err, sfWrite{key: key, part: "collection", value: to})
	case "archive":
		key, id, ok := s.pick(a.rng)
		if !ok || !a.archived(ctx, id, false) {
			return
		}
		sent := time.Now()
		err := c.DeleteItem(ctx, ws, id)
		rec(sent, err, sfWrite{key: key, part: "archived", value: "true"})
	case "restore":
		key, id, ok := s.pick(a.rng)
		if !ok || !a.archived(ctx, id, true) {
			return
		}
		sent := time.Now()
		_, err := c.RestoreItem(ctx, ws, id)
		rec(sent, err, sfWrite{key: key, part: "archived", value: "false"})
	case "comment":
		key, id, ok := s.pick(a.rng)
		if !ok {
			return
		}
		body := "comment " + key + " " + a.stamp()
		sent := time.Now()
		cm, err := c.AddComment(ctx, ws, id, api.CommentCreate{Body: body})
		rec(sent, err, sfWrite{key: key, part: "comment", value: body})
		if err == nil {
			s.mu.Lock()
			s.comments[key] = append(s.comments[key], cm.ID)
			s.bodies[cm.ID] = body
			s.mu.Unlock()
		}
	case "reply":
		key, id, ok := s.pick(a.rng)
		if !ok {
			return
		}
		s.mu.Lock()
		cs := s.comments[key]
		parent := ""
		if len(cs) > 0 {
			parent = cs[a.rng.IntN(len(cs))]
		}
		s.mu.Unlock()
		if parent == "" {
			return
		}
		body := "reply " + key + " " + a.stamp()
		sent := time.Now()
		_, err := c.AddComment(ctx, ws, id, api.CommentCreate{Body: body, ParentID: parent})
		rec(sent, err, sfWrite{key: key, part: "comment", value: body})
	case "attach":
		key, id, ok := s.pick(a.rng)
		if !ok {
			return
		}
		name := "file " + key + " " + a.stamp() + ".txt"
		sent := time.Now()
		_, err := c.UploadAttachment(ctx, ws, strings.NewReader(name), int64(len(name)), name, id)
		rec(sent, err, sfWrite{key: key, part: "attachment", value: name})
	case "link":
		key, id, ok := s.pick(a.rng)
		other, oid, ok2 := s.pick(a.rng)
		if !ok || !ok2 || key == other {
			return
		}
		sent := time.Now()
		_, err := c.AddLink(ctx, ws, id, api.ItemLinkCreate{TargetID: oid, LinkType: "blocks"})
		rec(sent, err, sfWrite{key: key, part: "link", value: "blocks>" + other})
	}
}

// sfFaults is the proxy's fault hook of the run: each request to the
// remote meets a fault with probability rate, up to max faults (0: no
// cap), while on.
type sfFaults struct {
	mu     sync.Mutex
	rng    *rand.Rand
	rate   float64
	max    int
	on     bool
	counts syncfaultreport.Counts
	total  int
	seen   int
}

func (f *sfFaults) set(on bool) {
	f.mu.Lock()
	f.on = on
	f.mu.Unlock()
}

func (f *sfFaults) snapshot() (syncfaultreport.Counts, int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := syncfaultreport.Counts{}
	for k, v := range f.counts {
		out[k] = v
	}
	return out, f.seen
}

// sfFault is one kind of fault the hook injects, with its weight.
type sfFault struct {
	name   string
	weight int
	make   func(rng *rand.Rand) testremote.Fault
}

var sfFaultKinds = []sfFault{
	{"drop_before", 25, func(*rand.Rand) testremote.Fault { return testremote.Fault{Kind: testremote.DropBefore} }},
	{"drop_after", 25, func(*rand.Rand) testremote.Fault { return testremote.Fault{Kind: testremote.DropAfter} }},
	{"delay", 20, func(r *rand.Rand) testremote.Fault {
		return testremote.Fault{Delay: time.Duration(100+r.IntN(1900)) * time.Millisecond}
	}},
	{"500", 15, func(*rand.Rand) testremote.Fault {
		return testremote.Fault{Kind: testremote.Answer, Status: http.StatusInternalServerError}
	}},
	{"429", 15, func(*rand.Rand) testremote.Fault {
		return testremote.Fault{Kind: testremote.Answer, Status: http.StatusTooManyRequests}
	}},
}

// decide picks the fault for one request.
func (f *sfFaults) decide(*http.Request) testremote.Fault {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.seen++
	if !f.on || f.max > 0 && f.total >= f.max || f.rng.Float64() >= f.rate {
		return testremote.Fault{}
	}
	total := 0
	for _, k := range sfFaultKinds {
		total += k.weight
	}
	n := f.rng.IntN(total)
	for _, k := range sfFaultKinds {
		if n < k.weight {
			f.total++
			f.counts[k.name]++
			return k.make(f.rng)
		}
		n -= k.weight
	}
	return testremote.Fault{}
}

// canonJSON is a JSON text with its object keys sorted and numbers kept.
func canonJSON(s string) string {
	if strings.TrimSpace(s) == "" {
		return "{}"
	}
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return s
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func sortedTags(s string) string {
	var t []string
	_ = json.Unmarshal([]byte(s), &t)
	slices.Sort(t)
	return strings.Join(t, ",")
}
