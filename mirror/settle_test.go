package mirror

import (
	"slices"
	"testing"
	"time"
)

// The settle rule, on a clock of its own: no test waits for it.
func TestSettlerReadsAFileOnceItIsQuiet(t *testing.T) {
	const settle = 100 * time.Millisecond
	t0 := time.Unix(1000, 0)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	s := newSettler(settle)

	// Two writes 60 ms apart: one read, after the second has settled.
	s.touch("a.md", at(0))
	s.touch("a.md", at(60))
	if got := s.take(at(100)); len(got) != 0 {
		t.Fatalf("read %v 40 ms after its second write", got)
	}
	if when, _ := s.next(); !when.Equal(at(160)) {
		t.Fatalf("due at %v, want 160 ms", when.Sub(t0))
	}
	if got := s.take(at(160)); !slices.Equal(got, []string{"a.md"}) {
		t.Fatalf("took %v", got)
	}
	if _, ok := s.next(); ok {
		t.Fatal("a timer with nothing waiting")
	}

	// A burst over many files is one batch, after its last event.
	for i := range 50 {
		s.touch(string(rune('a'+i%26))+".md", at(1000+i*2))
	}
	when, _ := s.next()
	if !when.Equal(at(1098 + 100)) {
		t.Fatalf("burst due at %v", when.Sub(t0))
	}
	if got := s.take(when); len(got) != 26 {
		t.Fatalf("burst took %d files", len(got))
	}

	// A file written without pause does not hold back one that settled:
	// at most maxWait after the batch's first event.
	s.touch("quiet.md", at(5000))
	for ms := 5000; ms < 6000; ms += 20 {
		s.touch("busy.md", at(ms))
		if when, _ := s.next(); !when.After(at(ms)) && ms < 5000+int(s.maxWait/time.Millisecond) {
			t.Fatalf("due at %v with busy.md written at %d", when.Sub(t0), ms)
		}
	}
	if when, _ := s.next(); when.After(at(5000).Add(s.maxWait)) {
		t.Fatalf("quiet.md waits until %v", when.Sub(t0))
	}
	if got := s.take(at(5000).Add(s.maxWait)); !slices.Equal(got, []string{"quiet.md"}) {
		t.Fatalf("took %v, want the settled file alone", got)
	}
}
