//go:build linux

package main

import "sync"

// The ledger holds every write padd acknowledged during the load, so the
// checks afterwards can prove each one is there.

// createAck is an acknowledged create.
type createAck struct {
	ID, Ref  string
	Title    string
	Token    string // the unique word in the title, searched for afterwards
	Content  string
	Priority string
	Seq      int64
	By       string // agent name or "padctl"
}

// updateAck is an acknowledged status update.
type updateAck struct {
	ID, Ref string
	Status  string
	Seq     int64
}

// commentAck is an acknowledged comment.
type commentAck struct {
	ItemRef   string
	ItemID    string
	CommentID string
	Body      string
	Seq       int64
}

// writeAck is any acknowledged write with a known change-log position:
// the event stream must carry event Seq about ItemID with type Type.
type writeAck struct {
	Seq    int64
	ItemID string
	Type   string
}

type ledger struct {
	mu       sync.Mutex
	creates  []createAck
	updates  []updateAck
	comments []commentAck
	writes   []writeAck
	// Counts of acknowledged writes the answer gives no seq for, by the
	// event type each must produce.
	unsequenced map[string]int
	// counter increments acknowledged, and ones whose outcome is unknown
	// (a failure mid-write): the final count must lie between.
	counterAcked, counterUnknown int
	// uncertain items had a write whose outcome is unknown (a failure):
	// their final state is not checked exactly.
	uncertain map[string]bool
}

func newLedger() *ledger {
	return &ledger{unsequenced: map[string]int{}, uncertain: map[string]bool{}}
}

func (l *ledger) created(c createAck) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.creates = append(l.creates, c)
	l.writes = append(l.writes, writeAck{Seq: c.Seq, ItemID: c.ID, Type: "item_created"})
}

// updated notes an acknowledged status update; base is the expected_seq
// it was sent with. An update to the status the item already had changes
// nothing, writes nothing and keeps the item's seq: no event is due.
func (l *ledger) updated(u updateAck, base int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.updates = append(l.updates, u)
	if u.Seq != base {
		l.writes = append(l.writes, writeAck{Seq: u.Seq, ItemID: u.ID, Type: "item_updated"})
	}
}

func (l *ledger) commented(c commentAck) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.comments = append(l.comments, c)
	l.writes = append(l.writes, writeAck{Seq: c.Seq, ItemID: c.ItemID, Type: "comment_created"})
}

func (l *ledger) counted(seq int64, itemID string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.counterAcked++
	l.writes = append(l.writes, writeAck{Seq: seq, ItemID: itemID, Type: "item_updated"})
}

func (l *ledger) counterLost() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.counterUnknown++
}

// other notes an acknowledged write whose answer carries no seq (a claim,
// a release): the stream must hold as many events of its type.
func (l *ledger) other(eventType string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.unsequenced[eventType]++
}

func (l *ledger) unsure(ref string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.uncertain[ref] = true
}
