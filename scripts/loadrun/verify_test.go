//go:build linux

package main

import "testing"

// TestEventsMatchCountsEachEventOnce is the case CI once met by chance in
// TestLoadRunShort's tampering: a claim's event goes missing and another
// claim's event arrives twice. Counted by type the record still balances;
// only the duplicate id gives it away.
func TestEventsMatchCountsEachEventOnce(t *testing.T) {
	led := newLedger()
	led.created(createAck{ID: "a", Seq: 1})
	led.other("item_claimed")
	led.other("item_claimed")
	good := []event{{ID: 1, Type: "item_created", ItemID: "a"}, {ID: 2, Type: "item_claimed", ItemID: "a"},
		{ID: 3, Type: "item_claimed", ItemID: "b"}}
	fed := []string{"a", "b"}
	if c := eventsMatch(good, led, fed, 0); !c.Pass {
		t.Fatalf("the untampered record fails: %s %v", c.Detail, c.Samples)
	}
	bad := []event{good[0], good[1], good[1]}
	if c := eventsMatch(bad, led, fed[:1], 0); c.Pass {
		t.Errorf("a claim event lost and another arriving twice passed: %s", c.Detail)
	}
}
