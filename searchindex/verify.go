package searchindex

import (
	"fmt"
	"hash/crc32"
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
	Data() []byte // the whole file, mapped
	CRC() uint32  // the CRC-32 its footer carries
}

// verifySegments checks every segment of the index's current snapshot
// against the CRC-32 (IEEE) its last four bytes carry: the checksum of
// everything before them. Reading the mapped files costs about a
// millisecond per 10 MB.
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
		data := seg.Data()
		if len(data) < 4 {
			return fmt.Errorf("segment %s is truncated (%d bytes)", filepath.Base(seg.Path()), len(data))
		}
		if got := crc32.ChecksumIEEE(data[:len(data)-4]); got != seg.CRC() {
			return fmt.Errorf("segment %s fails its checksum (%08x; its footer says %08x)", filepath.Base(seg.Path()), got, seg.CRC())
		}
	}
	return nil
}
