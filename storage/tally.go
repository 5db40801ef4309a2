package storage

// A bulk load changes the same few stream counts with every item it
// creates: 5,000 items a chunk each get and put about a dozen of the
// same keys. A bulk write therefore holds its count changes here and
// puts each changed key once, when something reads the bucket in order
// or the write ends. Point reads (countOf) add the held change to the
// stored count, so nothing inside the write sees a stale count.

// tally is the held count changes of one bucket.
type tally map[string]int64

// addCount changes the size of the list-index stream prefix by d.
func (b *wsb) addCount(prefix []byte, d int64) error {
	if b.held != nil {
		b.held.counts[string(prefix)] += d
		return nil
	}
	return addCount(b.countsBucket(), prefix, d)
}

// addVCount changes the project views' count under key by d.
func (b *wsb) addVCount(key []byte, d int64) error {
	if b.held != nil {
		b.held.vcounts[string(key)] += d
		return nil
	}
	return addCount(b.vcountsBucket(), key, d)
}

// holdCounts makes the rest of this write hold its count changes until
// flushCounts.
func (b *wsb) holdCounts() {
	b.held = &heldCounts{counts: tally{}, vcounts: tally{}}
}

// flushCounts puts the held count changes. The write keeps holding.
func (b *wsb) flushCounts() error {
	if b.held == nil {
		return nil
	}
	if err := b.held.err; err != nil {
		return err
	}
	for _, t := range []struct {
		held tally
		b    *bucket
	}{{b.held.counts, b.countsBucket()}, {b.held.vcounts, b.vcountsBucket()}} {
		for k, d := range t.held {
			if d != 0 {
				if err := addCount(t.b, []byte(k), d); err != nil {
					b.held.err = err
					return err
				}
			}
			delete(t.held, k)
		}
	}
	return nil
}

type heldCounts struct {
	counts, vcounts tally
	err             error // a failed flush, reported when the write ends
}

func (b *wsb) countsBucket() *bucket  { return b.lazy(&b.open.counts, bCounts) }
func (b *wsb) vcountsBucket() *bucket { return b.lazy(&b.open.vcounts, bVCounts) }

// counts is the stream-count bucket for reads in key order, with the
// held changes put first.
func (b *wsb) counts() *bucket {
	b.flushCounts() // a failure fails the write when it ends
	return b.countsBucket()
}

// vcounts is counts for the project views' counts.
func (b *wsb) vcounts() *bucket {
	b.flushCounts()
	return b.vcountsBucket()
}

func countOf(b *wsb, prefix []byte) int64 {
	n := int64(getU64(b.countsBucket().Get(prefix)))
	if b.held != nil {
		n += b.held.counts[string(prefix)]
	}
	return n
}

// vcountOf is countOf for the project views' counts.
func vcountOf(b *wsb, key []byte) int64 {
	n := int64(getU64(b.vcountsBucket().Get(key)))
	if b.held != nil {
		n += b.held.vcounts[string(key)]
	}
	return n
}
