package storage

import (
	"encoding/binary"
	"errors"
	"fmt"

	bolt "go.etcd.io/bbolt"
)

// txn, bucket and cursor are bbolt's types with every mutation written
// down as it happens. The write-ahead log (wal.go) acknowledges a write
// once its record of mutations is on disk; the bbolt transaction that
// holds it commits later, with others. A record is physical (put this
// key in this bucket), so replaying it needs none of the logic that
// produced it, and replaying it twice changes nothing.
//
// Reads go through the same types; with no recorder they only wrap.
type txn struct {
	*bolt.Tx
	rec *recorder
}

// boltBucket names the embedded field apart from the Bucket method.
type boltBucket = bolt.Bucket

type bucket struct {
	*boltBucket
	rec  *recorder
	path []byte // the names from the root, each length-prefixed
}

type cursor struct {
	*bolt.Cursor
	b   *bucket
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

func wrapTx(tx *bolt.Tx, rec *recorder) *txn { return &txn{Tx: tx, rec: rec} }

// wrapBucket wraps c, the bucket name under the bucket at parent (nil:
// the root). Without a recorder no path is kept: reads need none.
func wrapBucket(c *bolt.Bucket, rec *recorder, parent, name []byte) *bucket {
	if c == nil {
		return nil
	}
	if rec == nil {
		return &bucket{boltBucket: c}
	}
	return &bucket{boltBucket: c, rec: rec, path: pathJoin(parent, name)}
}

func pathJoin(parent, name []byte) []byte {
	p := make([]byte, 0, len(parent)+binary.MaxVarintLen16+len(name))
	p = append(p, parent...)
	p = binary.AppendUvarint(p, uint64(len(name)))
	return append(p, name...)
}

// created records a bucket made under parent, and wraps it.
func created(rec *recorder, parent, name []byte, c *bolt.Bucket, err error) (*bucket, error) {
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

func (t *txn) Bucket(name []byte) *bucket { return wrapBucket(t.Tx.Bucket(name), t.rec, nil, name) }

func (t *txn) CreateBucket(name []byte) (*bucket, error) {
	c, err := t.Tx.CreateBucket(name)
	return created(t.rec, nil, name, c, err)
}

func (t *txn) CreateBucketIfNotExists(name []byte) (*bucket, error) {
	c, err := t.Tx.CreateBucketIfNotExists(name)
	return created(t.rec, nil, name, c, err)
}

func (t *txn) DeleteBucket(name []byte) error {
	return deleted(t.rec, nil, name, t.Tx.DeleteBucket(name))
}

func (b *bucket) Bucket(name []byte) *bucket {
	return wrapBucket(b.boltBucket.Bucket(name), b.rec, b.path, name)
}

func (b *bucket) CreateBucket(name []byte) (*bucket, error) {
	c, err := b.boltBucket.CreateBucket(name)
	return created(b.rec, b.path, name, c, err)
}

func (b *bucket) CreateBucketIfNotExists(name []byte) (*bucket, error) {
	c, err := b.boltBucket.CreateBucketIfNotExists(name)
	return created(b.rec, b.path, name, c, err)
}

func (b *bucket) DeleteBucket(name []byte) error {
	return deleted(b.rec, b.path, name, b.boltBucket.DeleteBucket(name))
}

func (b *bucket) Put(key, val []byte) error {
	if err := b.boltBucket.Put(key, val); err != nil {
		return err
	}
	b.rec.op(opPut, b.path, key, val)
	return nil
}

func (b *bucket) Delete(key []byte) error {
	if err := b.boltBucket.Delete(key); err != nil {
		return err
	}
	b.rec.op(opDelete, b.path, key, nil)
	return nil
}

func (b *bucket) NextSequence() (uint64, error) {
	n, err := b.boltBucket.NextSequence()
	if err != nil {
		return 0, err
	}
	b.rec.op(opSetSequence, b.path, binary.BigEndian.AppendUint64(nil, n), nil)
	return n, nil
}

func (b *bucket) SetSequence(n uint64) error {
	if err := b.boltBucket.SetSequence(n); err != nil {
		return err
	}
	b.rec.op(opSetSequence, b.path, binary.BigEndian.AppendUint64(nil, n), nil)
	return nil
}

func (b *bucket) Cursor() *cursor { return &cursor{Cursor: b.boltBucket.Cursor(), b: b} }

// The moves remember the key they land on (only when recording), since
// bbolt's cursor does not say which key Delete removes.
func (c *cursor) at(k, v []byte) ([]byte, []byte) {
	if c.b.rec != nil {
		c.cur = append(c.cur[:0], k...)
	}
	return k, v
}

func (c *cursor) First() ([]byte, []byte)        { return c.at(c.Cursor.First()) }
func (c *cursor) Last() ([]byte, []byte)         { return c.at(c.Cursor.Last()) }
func (c *cursor) Next() ([]byte, []byte)         { return c.at(c.Cursor.Next()) }
func (c *cursor) Prev() ([]byte, []byte)         { return c.at(c.Cursor.Prev()) }
func (c *cursor) Seek(k []byte) ([]byte, []byte) { return c.at(c.Cursor.Seek(k)) }

// Delete removes the key under the cursor.
func (c *cursor) Delete() error {
	if err := c.Cursor.Delete(); err != nil {
		return err
	}
	c.b.rec.op(opDelete, c.b.path, c.cur, nil)
	return nil
}

// errBadRecord says a mutation record does not parse: a log whose tail
// was torn by a crash, or damage.
var errBadRecord = errors.New("mutation record unreadable")

// replay applies a record made by a recorder to tx, in order.
func replay(tx *bolt.Tx, rec []byte) error {
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
				b, err := walkPath(tx, path)
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

func walkPath(tx *bolt.Tx, path []byte) (*bolt.Bucket, error) {
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
		if len(rest) == 0 && appendOrdered[string(name)] {
			b.FillPercent = appendFill
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
