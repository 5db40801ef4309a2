// Package blobstore keeps attachment bytes as content-addressed files
// beside the database (docs/ATTACHMENTS.md): <dir>/<aa>/<sha256 hex>,
// where aa is the hash's first two digits. Identical content is one file.
//
// The crash rule: a blob is written to a temporary file, synced, renamed
// into place and its directory synced before the caller commits the
// database row that names it. A crash before the row commits leaves at
// most an orphan file, which Sweep removes; a row never names a missing
// file. Nothing here holds a blob in memory whole: bytes stream from the
// reader to the file through the hash.
package blobstore

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

// DirName is the blob directory's name in padd's data directory, beside
// the database.
const DirName = "blobs"

// tmpDir is where blobs are written before they are renamed into place:
// inside the store's directory, so the rename stays on one file system.
const tmpDir = "tmp"

// ErrTooLarge says a blob ran past the limit it was written under; the
// partial file is removed.
var ErrTooLarge = errors.New("blob is larger than the limit")

// ErrNotFound says no blob has the hash.
var ErrNotFound = errors.New("blob not found")

// Store is one blob directory.
type Store struct {
	dir string
}

// Open opens (creating, mode 0700) the blob directory dir.
func Open(dir string) (*Store, error) {
	if err := os.MkdirAll(filepath.Join(dir, tmpDir), 0o700); err != nil {
		return nil, fmt.Errorf("create blob directory %s: %w", dir, err)
	}
	return &Store{dir: dir}, nil
}

// Dir is the blob directory.
func (s *Store) Dir() string { return s.dir }

// ValidHash reports whether h is a sha256 in lower-case hex: the only
// names a blob has. Anything else is never turned into a path.
func ValidHash(h string) bool {
	if len(h) != sha256.Size*2 {
		return false
	}
	for i := 0; i < len(h); i++ {
		c := h[i]
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

func (s *Store) path(hash string) string {
	return filepath.Join(s.dir, hash[:2], hash)
}

// Staged is a blob written and synced to a temporary file, not yet in
// place: Commit puts it there, Discard removes it.
type Staged struct {
	s    *Store
	tmp  string
	Hash string // sha256, lower-case hex
	Size int64
	// Head is the blob's first bytes (up to HeadSize), for sniffing its
	// type without reading the file again.
	Head []byte
}

// HeadSize is how many leading bytes Staged keeps: what
// http.DetectContentType reads.
const HeadSize = 512

// Stage copies r to a temporary file in the store, hashing it as it
// goes, and syncs the file. More than max bytes (max > 0) is ErrTooLarge,
// and nothing is left behind on any error.
func (s *Store) Stage(r io.Reader, max int64) (*Staged, error) {
	f, err := os.CreateTemp(filepath.Join(s.dir, tmpDir), "blob-*")
	if err != nil {
		return nil, err
	}
	st := &Staged{s: s, tmp: f.Name()}
	ok := false
	defer func() {
		if !ok {
			f.Close()
			os.Remove(st.tmp)
		}
	}()
	h := sha256.New()
	hw := &headWriter{max: HeadSize}
	src := r
	if max > 0 {
		src = io.LimitReader(r, max+1)
	}
	n, err := io.Copy(f, io.TeeReader(src, io.MultiWriter(h, hw)))
	if err != nil {
		return nil, err
	}
	if max > 0 && n > max {
		return nil, ErrTooLarge
	}
	if err := f.Sync(); err != nil {
		return nil, err
	}
	if err := f.Close(); err != nil {
		return nil, err
	}
	ok = true
	st.Hash, st.Size, st.Head = hex.EncodeToString(h.Sum(nil)), n, hw.b
	return st, nil
}

// headWriter keeps the first max bytes written to it.
type headWriter struct {
	b   []byte
	max int
}

func (w *headWriter) Write(p []byte) (int, error) {
	if room := w.max - len(w.b); room > 0 {
		w.b = append(w.b, p[:min(room, len(p))]...)
	}
	return len(p), nil
}

// Commit moves the staged blob into place and syncs the directories the
// rename changed. When a blob of that hash is already there the staged
// copy is dropped (identical content is stored once) and the existing
// file's time is renewed, so a sweep's grace period counts from now.
// created says whether this call made the file.
func (st *Staged) Commit() (created bool, err error) {
	if st.tmp == "" {
		return false, errors.New("blobstore: staged blob already committed or discarded")
	}
	tmp := st.tmp
	st.tmp = ""
	final := st.s.path(st.Hash)
	if _, err := os.Stat(final); err == nil {
		os.Remove(tmp)
		now := time.Now()
		_ = os.Chtimes(final, now, now)
		return false, nil
	}
	sub := filepath.Dir(final)
	if err := os.Mkdir(sub, 0o700); err == nil {
		if err := syncDir(st.s.dir); err != nil {
			os.Remove(tmp)
			return false, err
		}
	} else if !errors.Is(err, fs.ErrExist) {
		os.Remove(tmp)
		return false, err
	}
	if err := os.Rename(tmp, final); err != nil {
		os.Remove(tmp)
		return false, err
	}
	if err := syncDir(sub); err != nil {
		return true, err
	}
	return true, nil
}

// Discard removes a staged blob that was not committed; after Commit it
// does nothing.
func (st *Staged) Discard() {
	if st.tmp != "" {
		os.Remove(st.tmp)
		st.tmp = ""
	}
}

// Put stages r and commits it: the blob is durable in place when Put
// returns.
func (s *Store) Put(r io.Reader, max int64) (*Staged, error) {
	st, err := s.Stage(r, max)
	if err != nil {
		return nil, err
	}
	if _, err := st.Commit(); err != nil {
		return nil, err
	}
	return st, nil
}

// Open opens the blob with the hash for reading.
func (s *Store) Open(hash string) (*os.File, error) {
	if !ValidHash(hash) {
		return nil, ErrNotFound
	}
	f, err := os.Open(s.path(hash))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, ErrNotFound
	}
	return f, err
}

// Has reports whether the blob with the hash is in place.
func (s *Store) Has(hash string) bool {
	if !ValidHash(hash) {
		return false
	}
	_, err := os.Stat(s.path(hash))
	return err == nil
}

// derivedDir holds files derived from blobs (thumbnails), each named
// <source hash>.<variant>: a cache, made again when missing.
const derivedDir = "derived"

// validVariant reports whether v may name a derived file: lower-case
// letters, digits and '-', at most 32 of them.
func validVariant(v string) bool {
	if v == "" || len(v) > 32 {
		return false
	}
	for i := 0; i < len(v); i++ {
		if c := v[i]; (c < 'a' || c > 'z') && (c < '0' || c > '9') && c != '-' {
			return false
		}
	}
	return true
}

func (s *Store) derivedPath(hash, variant string) (string, bool) {
	if !ValidHash(hash) || !validVariant(variant) {
		return "", false
	}
	return filepath.Join(s.dir, derivedDir, hash+"."+variant), true
}

// OpenDerived opens the file derived as variant from the blob with the
// hash; ErrNotFound when there is none yet.
func (s *Store) OpenDerived(hash, variant string) (*os.File, error) {
	p, ok := s.derivedPath(hash, variant)
	if !ok {
		return nil, ErrNotFound
	}
	f, err := os.Open(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, ErrNotFound
	}
	return f, err
}

// CommitDerived puts a staged file in place as variant of the blob with
// the hash (replacing one there: both are the same derivation). It is a
// cache: a crash loses at most the file, never leaves half of one.
func (st *Staged) CommitDerived(hash, variant string) error {
	p, ok := st.s.derivedPath(hash, variant)
	if !ok {
		st.Discard()
		return fmt.Errorf("blobstore: %q of %q cannot name a derived file", variant, hash)
	}
	if st.tmp == "" {
		return errors.New("blobstore: staged blob already committed or discarded")
	}
	tmp := st.tmp
	st.tmp = ""
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, p); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}

// SweepResult counts what a sweep removed.
type SweepResult struct {
	Orphans int   // blobs no row names
	Bytes   int64 // their size
	Temps   int   // temporary files a stopped write left
	Derived int   // derived files of blobs no row names
}

// Sweep removes the blobs named reports as unnamed, the files derived
// from them, and the temporary files, each only when its modification time is older than grace: a
// blob written for a row that has not committed yet is younger than
// that. Files that are not blobs (other names) are left alone.
func (s *Store) Sweep(grace time.Duration, named func(hash string) bool) (SweepResult, error) {
	var res SweepResult
	cutoff := time.Now().Add(-grace)
	old := func(e fs.DirEntry) (fs.FileInfo, bool) {
		fi, err := e.Info()
		return fi, err == nil && fi.Mode().IsRegular() && fi.ModTime().Before(cutoff)
	}
	temps, err := os.ReadDir(filepath.Join(s.dir, tmpDir))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return res, err
	}
	for _, e := range temps {
		if _, ok := old(e); ok && strings.HasPrefix(e.Name(), "blob-") {
			if os.Remove(filepath.Join(s.dir, tmpDir, e.Name())) == nil {
				res.Temps++
			}
		}
	}
	derived, err := os.ReadDir(filepath.Join(s.dir, derivedDir))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return res, err
	}
	for _, e := range derived {
		h, _, ok := strings.Cut(e.Name(), ".")
		if !ok || !ValidHash(h) || named(h) {
			continue
		}
		if fi, ok := old(e); ok && os.Remove(filepath.Join(s.dir, derivedDir, e.Name())) == nil {
			res.Derived++
			res.Bytes += fi.Size()
		}
	}
	subs, err := os.ReadDir(s.dir)
	if err != nil {
		return res, err
	}
	for _, sub := range subs {
		if !sub.IsDir() || len(sub.Name()) != 2 || sub.Name() == tmpDir {
			continue
		}
		files, err := os.ReadDir(filepath.Join(s.dir, sub.Name()))
		if err != nil {
			return res, err
		}
		for _, e := range files {
			h := e.Name()
			if !ValidHash(h) || h[:2] != sub.Name() || named(h) {
				continue
			}
			if fi, ok := old(e); ok && os.Remove(filepath.Join(s.dir, sub.Name(), h)) == nil {
				res.Orphans++
				res.Bytes += fi.Size()
			}
		}
	}
	return res, nil
}

// syncDir makes a rename or create in dir durable. Windows cannot sync
// a directory (its renames are durable with the file system's journal).
func syncDir(dir string) error {
	if runtime.GOOS == "windows" {
		return nil
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}
