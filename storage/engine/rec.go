package engine

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"

	bolt "go.etcd.io/bbolt"
)

// Tx, Bucket and Cursor are bbolt's types with every mutation written
// down as it happens. The write-ahead log (wal.go) acknowledges a write
// once its record of mutations is on disk; the bbolt transaction that
// holds it commits later, with others. A record is physical (put this
// key in this bucket), so replaying it needs none of the logic that
// produced it, and replaying it twice changes nothing.
//
// Reads go through the same types; with no recorder they only wrap. They
// offer only what a callback may do inside a transaction the engine
// owns: no Commit, Rollback or copy, and no unrecorded mutation.
type Tx struct {
	tx  *bolt.Tx
	rec *recorder
}

// Bucket is a bucket of a Tx.
type Bucket struct {
	b    *bolt.Bucket
	rec  *recorder
	path []byte // the names from the root, each length-prefixed
}

// Cursor walks a Bucket in key order.
type Cursor struct {
	c   *bolt.Cursor
	b   *Bucket
	cur []byte // the key under the cursor, for Delete's record
}

// Op codes of a mutation record.
const (
	opPut byte = iota + 1
	opDelete
	opCreateBucket // create if missing: replay is idempotent
	opDeleteBucket // delete if present
	opSetSequence
)

// recorder collects the mutations of one write, in order.
type recorder struct {
	buf []byte
}

func (r *recorder) op(code byte, path, key, val []byte) {
	if r == nil {
		return
	}
	r.buf = append(r.buf, code)
	r.buf = binary.AppendUvarint(r.buf, uint64(len(path)))
	r.buf = append(r.buf, path...)
	r.buf = binary.AppendUvarint(r.buf, uint64(len(key)))
	r.buf = append(r.buf, key...)
	r.buf = binary.AppendUvarint(r.buf, uint64(len(val)))
	r.buf = append(r.buf, val...)
}

func wrapTx(tx *bolt.Tx, rec *recorder) *Tx { return &Tx{tx: tx, rec: rec} }

// wrapBucket wraps c, the bucket name under the bucket at parent (nil:
// the root). Without a recorder no path is kept: reads need none.
func wrapBucket(c *bolt.Bucket, rec *recorder, parent, name []byte) *Bucket {
	if c == nil {
		return nil
	}
	if rec == nil {
		return &Bucket{b: c}
	}
	return &Bucket{b: c, rec: rec, path: pathJoin(parent, name)}
}

func pathJoin(parent, name []byte) []byte {
	p := make([]byte, 0, len(parent)+binary.MaxVarintLen16+len(name))
	p = append(p, parent...)
	p = binary.AppendUvarint(p, uint64(len(name)))
	return append(p, name...)
}

// created records a bucket made under parent, and wraps it.
func created(rec *recorder, parent, name []byte, c *bolt.Bucket, err error) (*Bucket, error) {
	if err != nil {
		return nil, err
	}
	rec.op(opCreateBucket, parent, name, nil)
	return wrapBucket(c, rec, parent, name), nil
}

// deleted records a bucket removed from parent.
func deleted(rec *recorder, parent, name []byte, err error) error {
	if err != nil {
		return err
	}
	rec.op(opDeleteBucket, parent, name, nil)
	return nil
}

// Bucket is the top-level bucket name, or nil.
func (t *Tx) Bucket(name []byte) *Bucket { return wrapBucket(t.tx.Bucket(name), t.rec, nil, name) }

// CreateBucket makes the top-level bucket name; it fails if it exists.
func (t *Tx) CreateBucket(name []byte) (*Bucket, error) {
	c, err := t.tx.CreateBucket(name)
	return created(t.rec, nil, name, c, err)
}

// CreateBucketIfNotExists is the top-level bucket name, made if missing.
func (t *Tx) CreateBucketIfNotExists(name []byte) (*Bucket, error) {
	c, err := t.tx.CreateBucketIfNotExists(name)
	return created(t.rec, nil, name, c, err)
}

// DeleteBucket removes the top-level bucket name and all it holds.
func (t *Tx) DeleteBucket(name []byte) error {
	return deleted(t.rec, nil, name, t.tx.DeleteBucket(name))
}

// Writable reports whether the transaction may change the file.
func (t *Tx) Writable() bool { return t.tx.Writable() }

// Size is the database's size in bytes as this transaction sees it.
func (t *Tx) Size() int64 { return t.tx.Size() }

// CopyFile writes the database as this transaction sees it to a new file
// at path.
func (t *Tx) CopyFile(path string, mode os.FileMode) error { return t.tx.CopyFile(path, mode) }

// Get is the value of key, or nil. It is valid until the transaction ends.
func (b *Bucket) Get(key []byte) []byte { return b.b.Get(key) }

// Bucket is the bucket name inside b, or nil.
func (b *Bucket) Bucket(name []byte) *Bucket {
	return wrapBucket(b.b.Bucket(name), b.rec, b.path, name)
}

// CreateBucket makes the bucket name inside b; it fails if it exists.
func (b *Bucket) CreateBucket(name []byte) (*Bucket, error) {
	c, err := b.b.CreateBucket(name)
	return created(b.rec, b.path, name, c, err)
}

// CreateBucketIfNotExists is the bucket name inside b, made if missing.
func (b *Bucket) CreateBucketIfNotExists(name []byte) (*Bucket, error) {
	c, err := b.b.CreateBucketIfNotExists(name)
	return created(b.rec, b.path, name, c, err)
}

// DeleteBucket removes the bucket name inside b and all it holds.
func (b *Bucket) DeleteBucket(name []byte) error {
	return deleted(b.rec, b.path, name, b.b.DeleteBucket(name))
}

// Put sets key to val.
func (b *Bucket) Put(key, val []byte) error {
	if err := b.b.Put(key, val); err != nil {
		return err
	}
	b.rec.op(opPut, b.path, key, val)
	return nil
}

// Delete removes key; a missing key is no error.
func (b *Bucket) Delete(key []byte) error {
	if err := b.b.Delete(key); err != nil {
		return err
	}
	b.rec.op(opDelete, b.path, key, nil)
	return nil
}

// NextSequence raises the bucket's counter by one and returns it.
func (b *Bucket) NextSequence() (uint64, error) {
	n, err := b.b.NextSequence()
	if err != nil {
		return 0, err
	}
	b.rec.op(opSetSequence, b.path, binary.BigEndian.AppendUint64(nil, n), nil)
	return n, nil
}

// SetSequence sets the bucket's counter.
func (b *Bucket) SetSequence(n uint64) error {
	if err := b.b.SetSequence(n); err != nil {
		return err
	}
	b.rec.op(opSetSequence, b.path, binary.BigEndian.AppendUint64(nil, n), nil)
	return nil
}

// SetFillPercent sets how full b's pages are left when they split, for
// the rest of the transaction: near 1 for keys that arrive in order.
func (b *Bucket) SetFillPercent(f float64) { b.b.FillPercent = f }

// ForEach calls fn for every key of b in order (a nested bucket's value
// is nil). fn must not change b.
func (b *Bucket) ForEach(fn func(k, v []byte) error) error { return b.b.ForEach(fn) }

// ForEachBucket calls fn for the name of every bucket inside b, in order.
func (b *Bucket) ForEachBucket(fn func(k []byte) error) error { return b.b.ForEachBucket(fn) }

// KeyN counts b's keys, walking all of its pages (bbolt's Stats).
func (b *Bucket) KeyN() int { return b.b.Stats().KeyN }

// Cursor is a cursor over b.
func (b *Bucket) Cursor() *Cursor { return &Cursor{c: b.b.Cursor(), b: b} }

// The moves remember the key they land on (only when recording), since
// bbolt's cursor does not say which key Delete removes.
func (c *Cursor) at(k, v []byte) ([]byte, []byte) {
	if c.b.rec != nil {
		c.cur = append(c.cur[:0], k...)
	}
	return k, v
}

// First, Last, Next, Prev and Seek move the cursor and return the key and
// value it lands on (nil at either end).
func (c *Cursor) First() ([]byte, []byte)        { return c.at(c.c.First()) }
func (c *Cursor) Last() ([]byte, []byte)         { return c.at(c.c.Last()) }
func (c *Cursor) Next() ([]byte, []byte)         { return c.at(c.c.Next()) }
func (c *Cursor) Prev() ([]byte, []byte)         { return c.at(c.c.Prev()) }
func (c *Cursor) Seek(k []byte) ([]byte, []byte) { return c.at(c.c.Seek(k)) }

// Delete removes the key under the cursor.
func (c *Cursor) Delete() error {
	if err := c.c.Delete(); err != nil {
		return err
	}
	c.b.rec.op(opDelete, c.b.path, c.cur, nil)
	return nil
}

// errBadRecord says a mutation record does not parse: a log whose tail
// was torn by a crash, or damage.
var errBadRecord = errors.New("mutation record unreadable")

// replay applies a record made by a recorder to tx, in order. fill (may
// be nil) gives the split fill of the buckets it writes to, by name.
func replay(tx *bolt.Tx, rec []byte, fill func(name []byte) float64) error {
	var (
		lastPath []byte
		lastB    *bolt.Bucket
		haveLast bool
	)
	for len(rec) > 0 {
		code := rec[0]
		rec = rec[1:]
		var path, key, val []byte
		var ok bool
		if path, rec, ok = field(rec); !ok {
			return errBadRecord
		}
		if key, rec, ok = field(rec); !ok {
			return errBadRecord
		}
		if val, rec, ok = field(rec); !ok {
			return errBadRecord
		}
		var parent *bolt.Bucket // nil: the root
		if len(path) > 0 {
			if haveLast && string(path) == string(lastPath) {
				parent = lastB
			} else {
				b, err := walkPath(tx, path, fill)
				if err != nil {
					return err
				}
				parent, lastPath, lastB, haveLast = b, path, b, true
			}
		}
		if err := apply1(tx, parent, code, key, val); err != nil {
			return fmt.Errorf("replay op %d on %q: %w", code, key, err)
		}
		if code == opDeleteBucket || code == opCreateBucket {
			haveLast = false // a cached bucket below may be gone
		}
	}
	return nil
}

func apply1(tx *bolt.Tx, parent *bolt.Bucket, code byte, key, val []byte) error {
	switch code {
	case opPut:
		if parent == nil {
			return errBadRecord
		}
		return parent.Put(key, val)
	case opDelete:
		if parent == nil {
			return errBadRecord
		}
		return parent.Delete(key)
	case opCreateBucket:
		var err error
		if parent == nil {
			_, err = tx.CreateBucketIfNotExists(key)
		} else {
			_, err = parent.CreateBucketIfNotExists(key)
		}
		return err
	case opDeleteBucket:
		var err error
		if parent == nil {
			err = tx.DeleteBucket(key)
		} else {
			err = parent.DeleteBucket(key)
		}
		if errors.Is(err, bolt.ErrBucketNotFound) {
			return nil
		}
		return err
	case opSetSequence:
		if parent == nil || len(key) != 8 {
			return errBadRecord
		}
		return parent.SetSequence(binary.BigEndian.Uint64(key))
	}
	return errBadRecord
}

func walkPath(tx *bolt.Tx, path []byte, fill func(name []byte) float64) (*bolt.Bucket, error) {
	var b *bolt.Bucket
	for len(path) > 0 {
		name, rest, ok := field(path)
		if !ok {
			return nil, errBadRecord
		}
		if b == nil {
			b = tx.Bucket(name)
		} else {
			b = b.Bucket(name)
		}
		if b == nil {
			return nil, fmt.Errorf("%w: bucket %q missing", errBadRecord, name)
		}
		if len(rest) == 0 && fill != nil {
			if f := fill(name); f > 0 {
				b.FillPercent = f
			}
		}
		path = rest
	}
	return b, nil
}

func field(b []byte) (f, rest []byte, ok bool) {
	n, w := binary.Uvarint(b)
	if w <= 0 || uint64(len(b)-w) < n {
		return nil, nil, false
	}
	return b[w : w+int(n)], b[w+int(n):], true
}
