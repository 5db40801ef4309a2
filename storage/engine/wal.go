package engine

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
)

// wal is the write-ahead log beside the database file. A write is
// acknowledged once its mutation record (rec.go) is in the log and the
// log is synced: one small fdatasync instead of bbolt's commit of dozens
// of B+tree pages and two syncs. The bbolt transaction holding the
// acknowledged writes commits later, many writes at once (a checkpoint),
// and records the last log sequence number (LSN) it holds in the same
// commit; the log then starts over from its beginning.
//
// The database file itself only ever changes by a synced bbolt commit,
// so after a crash or a power cut it is whole as of its last checkpoint,
// and replaying the log's records past that checkpoint's LSN brings back
// every acknowledged write.
//
// A record is a header (payload length, CRC-32C of LSN and payload, LSN)
// and the payload. The log is read from its start while records check out
// and LSNs follow one another: a torn tail (a record never acknowledged)
// and the older records behind it stop the scan.
//
// A failed append leaves its record unconfirmed: a failed write or
// fdatasync says nothing of what reached the disk, so the record may be
// there whole, and a crash would replay a write that was answered as
// failed. Until invalidate has zeroed that record's header and synced it,
// no record may follow it.
type wal struct {
	f      *os.File
	off    int64 // where the next record goes
	size   int64 // the file's length: writes inside it change no metadata
	noSync bool
	sync   func(*os.File) error // Options.LogSync; nil: fdatasync
	// failed says a failed append left an unconfirmed record, which
	// starts at failedAt.
	failed   bool
	failedAt int64
	buf      []byte
}

// WALSuffix names the log: the database file's name with it appended.
const WALSuffix = ".wal"

const (
	walHeader = 16
	// walPrealloc is written as zeros when the log is created, so a
	// record's fdatasync writes data blocks and no file-size change.
	walPrealloc = 8 << 20
	// walMaxRecord bounds one record: a longer length in a header is
	// damage, not a record.
	walMaxRecord = 1 << 30
)

var walCRC = crc32.MakeTable(crc32.Castagnoli)

func openWAL(path string, noSync bool, sync func(*os.File) error) (*wal, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open write-ahead log: %w", err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("open write-ahead log: %w", err)
	}
	w := &wal{f: f, size: st.Size(), noSync: noSync, sync: sync}
	if w.size < walPrealloc {
		if err := w.grow(walPrealloc); err != nil {
			f.Close()
			return nil, err
		}
	}
	return w, nil
}

// grow extends the file with zeros to n bytes and syncs it.
func (w *wal) grow(n int64) error {
	zeros := make([]byte, 1<<20)
	for off := w.size; off < n; {
		k := min(int64(len(zeros)), n-off)
		if _, err := w.f.WriteAt(zeros[:k], off); err != nil {
			return fmt.Errorf("grow write-ahead log: %w", err)
		}
		off += k
	}
	if err := w.f.Sync(); err != nil {
		return fmt.Errorf("grow write-ahead log: %w", err)
	}
	w.size = n
	return nil
}

// append writes one record and syncs it: when append returns nil, the
// record survives a crash. When it fails, the record is unconfirmed
// (failed), and append must not be called again until invalidate
// succeeds.
func (w *wal) append(lsn uint64, payload []byte) error {
	if w.failed {
		return fault("write-ahead log: a record was appended after an unconfirmed one")
	}
	n := walHeader + len(payload)
	w.buf = w.buf[:0]
	w.buf = binary.BigEndian.AppendUint32(w.buf, uint32(len(payload)))
	w.buf = binary.BigEndian.AppendUint32(w.buf, recordCRC(lsn, payload))
	w.buf = binary.BigEndian.AppendUint64(w.buf, lsn)
	w.buf = append(w.buf, payload...)
	if end := w.off + int64(n); end > w.size {
		// Past the preallocated part: grow it ahead, so the next records
		// are plain data writes again.
		if err := w.grow(max(end, 2*w.size)); err != nil {
			return err
		}
	}
	w.failed, w.failedAt = true, w.off
	if _, err := w.f.WriteAt(w.buf, w.off); err != nil {
		return fmt.Errorf("write-ahead log: %w", err)
	}
	if err := w.syncData(); err != nil {
		return fmt.Errorf("write-ahead log sync: %w", err)
	}
	w.failed = false
	w.off += int64(n)
	return nil
}

// invalidate makes the unconfirmed record of a failed append unreadable:
// its header is zeroed (a scan stops at an LSN of 0) and synced. The
// records before it are untouched, and the next record goes where it was.
func (w *wal) invalidate() error {
	if !w.failed {
		return nil
	}
	if _, err := w.f.WriteAt(make([]byte, walHeader), w.failedAt); err != nil {
		return fmt.Errorf("write-ahead log: take back a failed record: %w", err)
	}
	if err := w.syncData(); err != nil {
		return fmt.Errorf("write-ahead log: take back a failed record: sync: %w", err)
	}
	w.failed = false
	return nil
}

// syncData syncs the records written (fdatasync), unless fsync is off.
func (w *wal) syncData() error {
	switch {
	case w.noSync:
		return nil
	case w.sync != nil:
		return w.sync(w.f)
	}
	return fdatasync(w.f)
}

func recordCRC(lsn uint64, payload []byte) uint32 {
	var l [8]byte
	binary.BigEndian.PutUint64(l[:], lsn)
	return crc32.Update(crc32.Checksum(l[:], walCRC), walCRC, payload)
}

// reset starts the log over: everything in it is in a synced checkpoint.
// Nothing is erased; the stale records are told apart by their LSNs. An
// unconfirmed record stays where it is until invalidate takes it back: its
// LSN follows the checkpoint's, so a scan would still replay it.
func (w *wal) reset() { w.off = 0 }

// walRecord is one record read back.
type walRecord struct {
	lsn     uint64
	payload []byte
}

// scan reads the log from its start and returns the records after the
// checkpoint at LSN applied, in order, and leaves the log positioned
// after them. Records at or before applied are skipped; the scan stops at
// the first record that does not check out or breaks the LSN sequence.
func (w *wal) scan(applied uint64) ([]walRecord, error) {
	var out []walRecord
	var off int64
	var prev uint64
	first := true
	hdr := make([]byte, walHeader)
	for {
		if _, err := w.f.ReadAt(hdr, off); err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			return nil, fmt.Errorf("read write-ahead log: %w", err)
		}
		n := binary.BigEndian.Uint32(hdr)
		sum := binary.BigEndian.Uint32(hdr[4:])
		lsn := binary.BigEndian.Uint64(hdr[8:])
		if lsn == 0 || n > walMaxRecord || off+walHeader+int64(n) > w.size {
			break
		}
		if !first && lsn != prev+1 {
			break
		}
		payload := make([]byte, n)
		if _, err := w.f.ReadAt(payload, off+walHeader); err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			return nil, fmt.Errorf("read write-ahead log: %w", err)
		}
		if recordCRC(lsn, payload) != sum {
			break
		}
		if first && lsn > applied+1 {
			// The log starts past the checkpoint: records in between are
			// gone, so replaying these would leave a hole.
			return nil, fmt.Errorf("write-ahead log %s starts at record %d but the database holds up to %d: records are missing, so replaying it would leave a hole. If the database file was restored from a backup on purpose, move the log aside and start padd again; otherwise restore the whole data directory from a backup", w.f.Name(), lsn, applied)
		}
		first, prev = false, lsn
		off += walHeader + int64(n)
		if lsn > applied {
			out = append(out, walRecord{lsn: lsn, payload: payload})
		}
	}
	w.off = off
	return out, nil
}

func (w *wal) close() error { return w.f.Close() }
