package eventbus

import (
	"testing"
)

// A subscriber that falls behind keeps the newest values and the loss
// is counted; the others are not held back.
func TestSlowSubscriberLosesOldestAndItIsCounted(t *testing.T) {
	var b Bus[int]
	slow, endSlow := b.Subscribe()
	defer endSlow()
	fast, endFast := b.Subscribe()
	defer endFast()
	got := make(chan []int)
	go func() {
		var vs []int
		for v := range fast {
			vs = append(vs, v)
			if v == Buffer+9 {
				break
			}
		}
		got <- vs
	}()
	for i := range Buffer + 10 {
		b.Publish(i)
	}
	// However far it fell behind, the reading subscriber got the newest.
	if vs := <-got; vs[len(vs)-1] != Buffer+9 {
		t.Fatalf("the reading subscriber ended at %d", vs[len(vs)-1])
	}
	first := <-slow
	if first != 10 {
		t.Errorf("the slow subscriber's oldest kept value is %d, want 10", first)
	}
	last := first
	for len(slow) > 0 {
		last = <-slow
	}
	if last != Buffer+9 {
		t.Errorf("the slow subscriber's newest value is %d, want %d", last, Buffer+9)
	}
	if b.Dropped() < 10 {
		t.Errorf("dropped %d, want at least 10", b.Dropped())
	}
}

// Close closes every channel, and a subscriber after it gets a closed
// one; ending a subscription closes its channel once.
func TestCloseAndUnsubscribe(t *testing.T) {
	var b Bus[string]
	a, endA := b.Subscribe()
	c, endC := b.Subscribe()
	endA()
	endA()
	if _, ok := <-a; ok {
		t.Fatal("an ended subscription's channel is open")
	}
	b.Close()
	if _, ok := <-c; ok {
		t.Fatal("Close left a channel open")
	}
	endC()
	late, _ := b.Subscribe()
	if _, ok := <-late; ok {
		t.Fatal("a subscriber after Close got an open channel")
	}
	b.Publish("nobody")
}
