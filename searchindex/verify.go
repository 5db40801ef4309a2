package searchindex

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/util"
	segment "github.com/blevesearch/scorch_segment_api/v2"
	zap "github.com/blevesearch/zapx/v17"
	"github.com/padd/padd/storage/engine"
)

// openChecked opens the Bleve index at path and checks it, so a damaged
// index is found at start, when rebuilding it costs a search nothing:
// Bleve trusts its segment files as they are, and a flipped byte in one
// otherwise shows up later as a failed search, a panic, or (worst) wrong
// hits. A panic while opening (Bleve indexes into a corrupt segment
// without bounds checks) is an error here, never the end of padd.
func openChecked(path string) (bi bleve.Index, err error) {
	defer func() {
		if p := recover(); p != nil {
			if bi != nil {
				bi.Close()
			}
			bi, err = nil, fmt.Errorf("opening the index panicked (a damaged segment): %v", p)
		}
	}()
	if err := checkNewestSnapshot(path); err != nil {
		return nil, errDamaged{err}
	}
	bi, err = bleve.OpenUsing(path, scorchConfig())
	if err != nil {
		return nil, err
	}
	if err := verifySegments(bi); err != nil {
		bi.Close()
		return nil, errDamaged{err}
	}
	return bi, nil
}

// errDamaged marks an index that opened but failed its check.
type errDamaged struct{ error }

func (e errDamaged) Unwrap() error { return e.error }

// zapSegment is what a persisted segment of every zap version offers.
type zapSegment interface {
	Path() string
	CRC() uint32 // the CRC-32 its footer carries
}

// fileCRC is the CRC-32 of a segment file but its last four bytes (where
// the footer keeps the expected value). It reads the file rather than the
// segment's mapping, so checking a large index at start does not leave
// all of it resident in padd's memory.
func fileCRC(path string) (uint32, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return 0, err
	}
	if fi.Size() < 4 {
		return 0, fmt.Errorf("segment %s is truncated (%d bytes)", filepath.Base(path), fi.Size())
	}
	h := crc32.NewIEEE()
	if _, err := io.Copy(h, io.LimitReader(f, fi.Size()-4)); err != nil {
		return 0, fmt.Errorf("read segment %s: %w", filepath.Base(path), err)
	}
	return h.Sum32(), nil
}

// verifySegments checks every segment of the index's current snapshot
// against the CRC-32 (IEEE) its last four bytes carry: the checksum of
// everything before them. It reads every segment file whole, so its
// cost grows with the index (docs/PERFORMANCE.md, "Why the code is as it is").
func verifySegments(bi bleve.Index) error {
	return eachSegment(bi, func(s segment.Segment) error {
		seg, ok := s.(zapSegment)
		if !ok {
			return nil
		}
		got, err := fileCRC(seg.Path())
		if err != nil {
			return err
		}
		if got != seg.CRC() {
			return fmt.Errorf("segment %s fails its checksum (%08x; its footer says %08x)", filepath.Base(seg.Path()), got, seg.CRC())
		}
		return nil
	})
}

// eachSegment calls fn with each segment of bi's current snapshot, which
// it holds meanwhile: no segment fn sees is closed (or unmapped) before
// fn returns. An index that is not scorch has no segments to see.
func eachSegment(bi bleve.Index, fn func(segment.Segment) error) error {
	adv, err := bi.Advanced()
	if err != nil {
		return err
	}
	rd, err := adv.Reader()
	if err != nil {
		return err
	}
	defer rd.Close()
	snap, ok := rd.(*scorch.IndexSnapshot)
	if !ok {
		return nil
	}
	for _, ss := range snap.Segments() {
		if err := fn(ss.Segment()); err != nil {
			return err
		}
	}
	return nil
}

// checkNewestSnapshot makes sure Bleve will open the index's newest
// snapshot: that every segment file it names is there and opens. Bleve
// skips a snapshot it cannot load and opens an older one, and the
// snapshots it then writes reuse the skipped ones' numbers: one can land
// in the leftovers of a broken one, and the next start finds no usable
// snapshot, not even the index's mapping. An index that would roll back
// is rebuilt instead. Only zap v17 snapshots are checked; others are
// left to Bleve.
func checkNewestSnapshot(path string) error {
	db, err := engine.OpenFile(filepath.Join(path, "store", "root.bolt"), time.Second)
	if err != nil {
		return nil // Bleve reports what is wrong with it
	}
	defer db.Close()
	return db.View(func(tx *engine.Tx) error {
		snaps := tx.Bucket(util.BoltSnapshotsBucket)
		if snaps == nil {
			return nil
		}
		key, _ := snaps.Cursor().Last()
		if key == nil {
			return nil
		}
		snap := snaps.Bucket(key)
		if snap == nil {
			return fmt.Errorf("the newest snapshot %x has no contents", key)
		}
		meta := snap.Bucket(util.BoltMetaDataKey)
		if meta == nil || string(meta.Get(util.BoltMetaDataSegmentTypeKey)) != zap.Type {
			return nil
		}
		if v := meta.Get(util.BoltMetaDataSegmentVersionKey); len(v) < 4 || binary.BigEndian.Uint32(v[:4]) != zap.Version {
			return nil
		}
		return snap.ForEachBucket(func(k []byte) error {
			if k[0] == util.BoltInternalKey[0] || k[0] == util.BoltMetaDataKey[0] {
				return nil
			}
			name := snap.Bucket(k).Get(util.BoltPathKey)
			if len(name) == 0 {
				return fmt.Errorf("the newest snapshot %x names a segment without a file", key)
			}
			seg, err := (&zap.ZapPlugin{}).Open(filepath.Join(path, "store", string(name)))
			if err != nil {
				return fmt.Errorf("the newest snapshot's segment %s does not open: %w", name, err)
			}
			return seg.Close()
		})
	})
}
