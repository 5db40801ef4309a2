package mirror

import "time"

// DefaultSettle is how long a changed file must go without a write before
// the mirror reads it (Config.Settle).
const DefaultSettle = 100 * time.Millisecond

// settler decides when changed files are read. A file is due once it has
// gone settle without an event: a file written in parts (an editor's
// write, truncate and write again; a script's two writes some
// milliseconds apart) is read once, whole. Files due together are read as
// one batch: while events keep coming, the batch waits for the last of
// them to settle, up to maxWait from its first event; then the files
// already settled are read and the others wait their turn.
type settler struct {
	settle, maxWait time.Duration
	due             map[string]time.Time // by rel path
	first           time.Time            // the first event of the batch waiting
	// latest is the latest due time (exact: a path's due time only ever
	// moves later), earliest a bound below every due time (a path touched
	// again moves on; take finds the exact one). next costs no walk of
	// the map, which holds 10,000 paths after a first write.
	latest, earliest time.Time
}

func newSettler(settle time.Duration) *settler {
	if settle <= 0 {
		settle = DefaultSettle
	}
	return &settler{settle: settle, maxWait: 4 * settle, due: map[string]time.Time{}}
}

// touch notes an event on rel at now.
func (s *settler) touch(rel string, now time.Time) { s.after(rel, now, s.settle) }

// after makes rel due d after now (a file still open for writing is
// looked at again later).
func (s *settler) after(rel string, now time.Time, d time.Duration) {
	t := now.Add(d)
	if len(s.due) == 0 {
		s.first, s.latest, s.earliest = now, t, t
	}
	if t.After(s.latest) {
		s.latest = t
	}
	if t.Before(s.earliest) {
		s.earliest = t
	}
	s.due[rel] = t
}

// next is when the batch is to be read; false when nothing waits.
func (s *settler) next() (time.Time, bool) {
	if len(s.due) == 0 {
		return time.Time{}, false
	}
	at := s.latest
	if cap := s.first.Add(s.maxWait); cap.Before(at) {
		at = cap
	}
	if at.Before(s.earliest) {
		at = s.earliest
	}
	return at, true
}

// take returns the files due at now, and forgets them.
func (s *settler) take(now time.Time) []string {
	var out []string
	var earliest time.Time
	for rel, t := range s.due {
		if !t.After(now) {
			out = append(out, rel)
			delete(s.due, rel)
		} else if earliest.IsZero() || t.Before(earliest) {
			earliest = t
		}
	}
	s.first, s.earliest = now, earliest
	return out
}

// clear forgets every file (the whole folder is compared instead).
func (s *settler) clear() { clear(s.due) }
