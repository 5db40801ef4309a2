//go:build linux

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/padd/padd/api"
)

// The checks after the load. Each proves one promise against what padd
// acknowledged during the load (the ledger) and what the watcher saw.

// Check is one verification's result.
type Check struct {
	Name    string   `json:"name"`
	Pass    bool     `json:"pass"`
	Detail  string   `json:"detail"`
	Samples []string `json:"samples,omitempty"` // the first problems
}

type checker struct {
	c    *api.Client
	ws   string
	wsID string
}

func (k *checker) get(path string, q url.Values, out any) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err := k.c.Do(ctx, "GET", path, q, nil, out)
	return err
}

// problems collects a check's failures, keeping the first few.
type problems struct {
	mu      sync.Mutex
	n       int
	samples []string
}

func (p *problems) add(format string, args ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.n++
	if len(p.samples) < 10 {
		p.samples = append(p.samples, fmt.Sprintf(format, args...))
	}
}

func (p *problems) check(name, okDetail string) Check {
	if p.n == 0 {
		return Check{Name: name, Pass: true, Detail: okDetail}
	}
	return Check{Name: name, Detail: fmt.Sprintf("%d problems", p.n), Samples: p.samples}
}

// parallel runs fn over n indexes with a few workers.
func parallel(n, workers int, fn func(i int)) {
	var wg sync.WaitGroup
	next := make(chan int)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				fn(i)
			}
		}()
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
}

// head is the workspace's current seq, from the seq delta feed: walked
// to its end, its cursor is the head.
func (k *checker) head(since int64) (int64, []string, error) {
	var res api.ItemsChanges
	q := url.Values{"since": {strconv.FormatInt(since, 10)}, "limit": {"50000"}}
	if err := k.get("/workspaces/"+k.ws+"/items-changes", q, &res); err != nil {
		return 0, nil, err
	}
	head, err := strconv.ParseInt(res.Cursor, 10, 64)
	if err != nil {
		return 0, nil, fmt.Errorf("items-changes cursor %q: %v", res.Cursor, err)
	}
	ids := make([]string, 0, len(res.Changes))
	for _, c := range res.Changes {
		ids = append(ids, c.ID)
	}
	return head, ids, nil
}

// creates: every acknowledged create is there with what was sent.
func (k *checker) creates(led *ledger) Check {
	var p problems
	parallel(len(led.creates), 4, func(i int) {
		c := led.creates[i]
		var it api.Item
		if err := k.get("/workspaces/"+k.ws+"/items/"+api.PathEscape(c.ID), nil, &it); err != nil {
			p.add("%s (%s by %s): %v", c.Ref, c.ID, c.By, err)
			return
		}
		var fields map[string]any
		_ = json.Unmarshal([]byte(it.Fields), &fields)
		switch {
		case it.Ref != c.Ref:
			p.add("%s: ref is now %s", c.Ref, it.Ref)
		case it.Title != c.Title:
			p.add("%s: title %q, want %q", c.Ref, it.Title, c.Title)
		case it.Content != c.Content:
			p.add("%s: content differs (%d bytes, want %d)", c.Ref, len(it.Content), len(c.Content))
		case fields["priority"] != c.Priority:
			p.add("%s: priority %v, want %s", c.Ref, fields["priority"], c.Priority)
		case it.DeletedAt != nil:
			p.add("%s: archived", c.Ref)
		}
	})
	return p.check("acknowledged creates are present with their title, content and priority",
		fmt.Sprintf("%d creates read back", len(led.creates)))
}

// updates: each updated item's status is its last acknowledged status
// (every write during the load is ours, so nothing else can have set
// it), and its seq is at least that write's.
func (k *checker) updates(led *ledger) Check {
	last := map[string]updateAck{}
	for _, u := range led.updates {
		if cur, ok := last[u.Ref]; !ok || u.Seq > cur.Seq {
			last[u.Ref] = u
		}
	}
	refs := make([]string, 0, len(last))
	for r := range last {
		refs = append(refs, r)
	}
	sort.Strings(refs)
	var p problems
	skipped := 0
	parallel(len(refs), 4, func(i int) {
		u := last[refs[i]]
		var it api.Item
		if err := k.get("/workspaces/"+k.ws+"/items/"+api.PathEscape(u.Ref), nil, &it); err != nil {
			p.add("%s: %v", u.Ref, err)
			return
		}
		var fields map[string]any
		_ = json.Unmarshal([]byte(it.Fields), &fields)
		if it.Seq < u.Seq {
			p.add("%s: seq %d is below the acknowledged update's %d", u.Ref, it.Seq, u.Seq)
		}
		if led.uncertain[u.Ref] {
			return
		}
		if fields["status"] != u.Status {
			p.add("%s: status %v, want %s (acknowledged at seq %d; item seq %d)", u.Ref, fields["status"], u.Status, u.Seq, it.Seq)
		}
	})
	for r := range last {
		if led.uncertain[r] {
			skipped++
		}
	}
	return p.check("acknowledged status updates hold (last acknowledged status per item)",
		fmt.Sprintf("%d updates on %d items (%d items with an unknown write: seq only)", len(led.updates), len(refs), skipped))
}

// comments: every acknowledged comment is on its item with its body.
func (k *checker) comments(led *ledger) Check {
	byItem := map[string][]commentAck{}
	for _, c := range led.comments {
		byItem[c.ItemRef] = append(byItem[c.ItemRef], c)
	}
	refs := make([]string, 0, len(byItem))
	for r := range byItem {
		refs = append(refs, r)
	}
	var p problems
	parallel(len(refs), 4, func(i int) {
		ref := refs[i]
		var rows []api.Comment
		if err := k.get("/workspaces/"+k.ws+"/items/"+api.PathEscape(ref)+"/comments", nil, &rows); err != nil {
			p.add("%s: %v", ref, err)
			return
		}
		have := map[string]string{}
		for _, r := range rows {
			have[r.ID] = r.Body
		}
		for _, c := range byItem[ref] {
			body, ok := have[c.CommentID]
			switch {
			case !ok:
				p.add("%s: comment %s is missing", ref, c.CommentID)
			case body != c.Body:
				p.add("%s: comment %s body %q, want %q", ref, c.CommentID, body, c.Body)
			}
		}
	})
	return p.check("acknowledged comments are present with their body",
		fmt.Sprintf("%d comments on %d items", len(led.comments), len(refs)))
}

// counter: the shared counter holds exactly the acknowledged increments
// (no lost update), give or take increments whose outcome is unknown.
func (k *checker) counter(led *ledger, ref string) Check {
	name := "shared counter equals the acknowledged expected_seq increments (no lost update)"
	var it api.Item
	if err := k.get("/workspaces/"+k.ws+"/items/"+api.PathEscape(ref), nil, &it); err != nil {
		return Check{Name: name, Detail: err.Error()}
	}
	m := countRE.FindStringSubmatch(it.Content)
	if m == nil {
		return Check{Name: name, Detail: fmt.Sprintf("no count line in %q", it.Content)}
	}
	n, _ := strconv.Atoi(m[1])
	detail := fmt.Sprintf("count %d, acknowledged increments %d, unknown outcomes %d", n, led.counterAcked, led.counterUnknown)
	return Check{Name: name, Pass: n >= led.counterAcked && n <= led.counterAcked+led.counterUnknown, Detail: detail}
}

// searchable: every acknowledged create is found by its unique word.
func (k *checker) searchable(led *ledger) Check {
	var p problems
	parallel(len(led.creates), 4, func(i int) {
		c := led.creates[i]
		var res struct {
			Results []struct {
				Item api.Item `json:"item"`
			} `json:"results"`
			Total int `json:"total"`
		}
		q := url.Values{"workspace": {k.ws}, "q": {c.Token}, "limit": {"10"}, "facets": {"false"}}
		if err := k.get("/search", q, &res); err != nil {
			p.add("%s %q: %v", c.Ref, c.Token, err)
			return
		}
		for _, r := range res.Results {
			if r.Item.ID == c.ID {
				return
			}
		}
		p.add("%s: searching %q finds %d others, not it", c.Ref, c.Token, res.Total)
	})
	return p.check("acknowledged creates are searchable by a unique title word",
		fmt.Sprintf("%d searches", len(led.creates)))
}

// stream: the watcher's event ids are exactly from+1..head, in order,
// each once, although it reconnected.
func streamCheck(evs []event, from, head int64, reconnects int) Check {
	var p problems
	want := from + 1
	for _, e := range evs {
		switch {
		case e.ID == want:
			want++
		case e.ID < want:
			p.add("event %d after %d: duplicate or out of order", e.ID, want-1)
		default:
			p.add("events %d..%d missing (next seen %d)", want, e.ID-1, e.ID)
			want = e.ID + 1
		}
	}
	if want <= head {
		p.add("stream ends at %d, head is %d: %d events never arrived", want-1, head, head-want+1)
	}
	if want > head+1 {
		p.add("stream went past the head %d to %d", head, want-1)
	}
	return p.check("event stream: ids are exactly the workspace seqs from start to head, no gap, duplicate or reordering",
		fmt.Sprintf("%d events, ids %d..%d, %d reconnects with Last-Event-ID", len(evs), from+1, head, reconnects))
}

// eventsMatch: each event arrives once; each acknowledged write's seq is
// an event about the same item, of the write's type; the writes without a seq in their answer
// (claims, releases) are as many as the events of their type; and the
// items the seq feed reports changed are the items the events name.
func eventsMatch(evs []event, led *ledger, fedItems []string, failures int) Check {
	var p problems
	byID := make(map[int64]event, len(evs))
	byType := map[string]int{}
	for _, e := range evs {
		if _, twice := byID[e.ID]; twice {
			p.add("event %d arrived twice", e.ID)
		}
		byID[e.ID] = e
		byType[e.Type]++
	}
	sequenced := map[string]int{}
	for _, w := range led.writes {
		sequenced[w.Type]++
		e, ok := byID[w.Seq]
		switch {
		case w.Seq == 0:
			p.add("a %s of %s was acknowledged without a seq", w.Type, w.ItemID)
		case !ok:
			p.add("no event %d for the acknowledged %s of %s", w.Seq, w.Type, w.ItemID)
		case e.Type != w.Type || e.ItemID != w.ItemID:
			p.add("event %d is %s of %s, but the acknowledged write there was %s of %s", w.Seq, e.Type, e.ItemID, w.Type, w.ItemID)
		}
	}
	total := len(led.writes)
	for typ, n := range led.unsequenced {
		total += n
		if byType[typ] != n && failures == 0 {
			p.add("%d %s events, %d acknowledged", byType[typ], typ, n)
		}
	}
	if failures == 0 {
		for typ, n := range byType {
			if _, ok := led.unsequenced[typ]; !ok && sequenced[typ] != n {
				p.add("%d %s events, %d acknowledged writes of that kind", n, typ, sequenced[typ])
			}
		}
		if len(evs) != total {
			p.add("%d events, %d acknowledged writes", len(evs), total)
		}
	}
	named, anyNamed := map[string]bool{}, map[string]bool{}
	for _, e := range evs {
		anyNamed[e.ItemID] = true
		if e.ItemID != "" && strings.HasPrefix(e.Type, "item_") {
			named[e.ItemID] = true
		}
	}
	fed := map[string]bool{}
	for _, id := range fedItems {
		fed[id] = true
		if !anyNamed[id] {
			p.add("items-changes reports item %s changed, no event names it", id)
		}
	}
	for id := range named {
		if !fed[id] {
			p.add("item %s has item events but items-changes does not report it", id)
		}
	}
	return p.check("events match the acknowledged writes one to one (seq, item, type), and the seq feed's changed items",
		fmt.Sprintf("%d events for %d acknowledged writes; %d changed items in items-changes", len(evs), total, len(fedItems)))
}

// sameLog: a replay of the log from the start position is exactly what
// the live watcher saw.
func sameLog(name string, live, replayed []event) Check {
	var p problems
	if len(live) != len(replayed) {
		p.add("live %d events, replay %d", len(live), len(replayed))
	}
	for i := range min(len(live), len(replayed)) {
		if live[i] != replayed[i] {
			p.add("event #%d: live %+v, replay %+v", i, live[i], replayed[i])
		}
	}
	return p.check(name, fmt.Sprintf("%d events compared", len(replayed)))
}
