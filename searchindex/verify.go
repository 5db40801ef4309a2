package searchindex

import (
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
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
// everything before them. Reading the files costs about a millisecond
// per 10 MB.
func verifySegments(bi bleve.Index) error {
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
		return nil // not scorch: nothing to check
	}
	for _, ss := range snap.Segments() {
		seg, ok := ss.Segment().(zapSegment)
		if !ok {
			continue
		}
		got, err := fileCRC(seg.Path())
		if err != nil {
			return err
		}
		if got != seg.CRC() {
			return fmt.Errorf("segment %s fails its checksum (%08x; its footer says %08x)", filepath.Base(seg.Path()), got, seg.CRC())
		}
	}
	return nil
}
