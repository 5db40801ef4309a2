package syncer

import (
	"maps"
	"slices"
	"testing"
)

// A cycle takes what is owed whole, and a failed one gives it back
// beside what was asked for meanwhile: nothing owed is dropped, and
// what was taken is not owed twice.
func TestReadsTakenAndGivenBack(t *testing.T) {
	var owed reads
	owed.items = true
	owed.thread("r1")
	took := owed.take()
	if !took.items || !took.threads["r1"] {
		t.Fatalf("took %+v", took)
	}
	if owed.items || len(owed.threads) != 0 || owed.threads == nil {
		t.Fatalf("after take, still owed %+v", owed)
	}
	// Meanwhile an event asks for stars and another item's thread; then
	// the cycle fails and gives back what it took.
	owed.stars = true
	owed.thread("r2")
	owed.add(took)
	if !owed.items || !owed.stars || owed.colls || owed.export {
		t.Errorf("owed after the failure %+v, want items and stars", owed)
	}
	if got := slices.Sorted(maps.Keys(owed.threads)); !slices.Equal(got, []string{"r1", "r2"}) {
		t.Errorf("threads owed %v, want r1 and r2", got)
	}
	all := allReads()
	if !all.items || !all.colls || !all.catchUp || !all.stars || !all.export || all.resync {
		t.Errorf("a start reads %+v, want everything but a resync", all)
	}
	var zero reads
	zero.add(all)
	if zero.threads == nil || !zero.export {
		t.Errorf("added to a zero value: %+v", zero)
	}
}
