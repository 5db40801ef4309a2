package records

import (
	"bytes"
	"maps"
	"slices"
)

// A bulk load writes the same few stream counts with every item it
// creates, and its list-index entries land all over the index: 5,000
// items a chunk each get and put about a dozen of the same count keys and
// put a dozen index entries in no order. A bulk write therefore holds
// both until something reads them in order or the write ends, then puts
// each changed count once and the index entries stream by stream in key
// order, so each B+tree path is walked while it is still in the CPU's
// caches. Point reads of a count (countOf) add the held change, so
// nothing inside the write sees a stale count.
type held struct {
	counts, vcounts map[string]int64
	ix              map[string][]heldPut // by stream prefix, in write order
	err             error                // a failed flush, reported when the write ends
}

// heldPut is a held list-index write; a nil val deletes.
type heldPut struct {
	key, val []byte
}

// Hold makes the rest of this write hold its counts and list-index
// writes until flushHeld.
func (b *Wsb) Hold() {
	b.held = &held{counts: map[string]int64{}, vcounts: map[string]int64{}, ix: map[string][]heldPut{}}
}

// AddCount changes the size of the list-index stream prefix by d.
func (b *Wsb) AddCount(prefix []byte, d int64) error {
	if b.held != nil {
		b.held.counts[string(prefix)] += d
		return nil
	}
	return AddCount(b.countsBucket(), prefix, d)
}

// addVCount changes the project views' count under key by d.
func (b *Wsb) addVCount(key []byte, d int64) error {
	if b.held != nil {
		b.held.vcounts[string(key)] += d
		return nil
	}
	return AddCount(b.vcountsBucket(), key, d)
}

// PutIndex writes the list-index entry key of the stream prefix; a nil
// val deletes it.
func (b *Wsb) PutIndex(prefix, key, val []byte) error {
	if h := b.held; h != nil {
		h.ix[string(prefix)] = append(h.ix[string(prefix)], heldPut{key, val})
		return nil
	}
	if val == nil {
		return b.indexBucket().Delete(key)
	}
	return b.indexBucket().Put(key, val)
}

// FlushHeld writes what is held. The write keeps holding.
func (b *Wsb) FlushHeld() error {
	h := b.held
	if h == nil {
		return nil
	}
	if h.err != nil {
		return h.err
	}
	ix := b.indexBucket()
	for _, stream := range slices.Sorted(maps.Keys(h.ix)) {
		puts := h.ix[stream]
		// A stream's keys differ after its prefix. Stable, so that of
		// two writes of one key the later one wins.
		slices.SortStableFunc(puts, func(x, y heldPut) int {
			return bytes.Compare(x.key[len(stream):], y.key[len(stream):])
		})
		for _, p := range puts {
			var err error
			if p.val == nil {
				err = ix.Delete(p.key)
			} else {
				err = ix.Put(p.key, p.val)
			}
			if err != nil {
				h.err = err
				return err
			}
		}
		delete(h.ix, stream)
	}
	for _, t := range []struct {
		held map[string]int64
		b    *Bucket
	}{{h.counts, b.countsBucket()}, {h.vcounts, b.vcountsBucket()}} {
		for _, k := range slices.Sorted(maps.Keys(t.held)) {
			if d := t.held[k]; d != 0 {
				if err := AddCount(t.b, []byte(k), d); err != nil {
					h.err = err
					return err
				}
			}
			delete(t.held, k)
		}
	}
	return nil
}

func (b *Wsb) indexBucket() *Bucket { return b.lazy(&b.open.index, bIndex) }

func (b *Wsb) countsBucket() *Bucket { return b.lazy(&b.open.counts, bCounts) }

func (b *Wsb) vcountsBucket() *Bucket { return b.lazy(&b.open.vcounts, BVCounts) }

// Index is the list index for reads, with what is held written first. A
// failure to write it fails the write when it ends.
func (b *Wsb) Index() *Bucket {
	b.FlushHeld()
	return b.indexBucket()
}

// Counts is index for the stream counts.
func (b *Wsb) Counts() *Bucket {
	b.FlushHeld()
	return b.countsBucket()
}

// Vcounts is index for the project views' counts.
func (b *Wsb) Vcounts() *Bucket {
	b.FlushHeld()
	return b.vcountsBucket()
}

func CountOf(b *Wsb, prefix []byte) int64 {
	n := int64(GetU64(b.countsBucket().Get(prefix)))
	if b.held != nil {
		n += b.held.counts[string(prefix)]
	}
	return n
}

// VcountOf is countOf for the project views' counts.
func VcountOf(b *Wsb, key []byte) int64 {
	n := int64(GetU64(b.vcountsBucket().Get(key)))
	if b.held != nil {
		n += b.held.vcounts[string(key)]
	}
	return n
}
