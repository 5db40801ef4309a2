// Package bundle reads and writes Pad's workspace bundle (docs/BUNDLES.md):
// a tar.gz of pad-export.json, the attachment manifest, and each
// attachment's bytes. A bundle is read as hostile input, in bounded
// memory, under stated caps (Limits); what pad-export.json says is its
// reader's to judge (ExportReader).
package bundle

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"
	"unicode/utf8"

	"github.com/padd/padd/api"
	"github.com/padd/padd/blobstore"
	"github.com/padd/padd/model"
)

// ExportReader reads pad-export.json, size bytes from r. An *api.Error it
// returns is the bundle's refusal as it is; any other error is read as
// the bundle's damage.
type ExportReader func(r io.Reader, size int64) error

var gzipMagic = []byte{0x1f, 0x8b}

// LooksGzipped says a body starting with head is gzip-compressed, as a
// bundle is.
func LooksGzipped(head []byte) bool { return bytes.HasPrefix(head, gzipMagic) }

// Limits bound what a bundle may make padd read.
type Limits struct {
	// Compressed bytes of the body.
	MaxCompressed int64
	// Decompressed bytes of the whole tar stream.
	MaxExpanded int64
	// Entries of the tar.
	MaxEntries int
	// Bytes of pad-export.json and of the manifest.
	MaxExport, MaxManifest int64
	// Decompressed bytes past RatioFloor may be at most MaxRatio times the
	// compressed bytes read: a gzip bomb is refused within its first
	// RatioFloor bytes, however large it claims to be.
	RatioFloor, MaxRatio int64
}

// DefaultLimits are padd's caps (docs/BUNDLES.md).
func DefaultLimits() Limits {
	return Limits{MaxCompressed: 2 << 30, MaxExpanded: 4 << 30, MaxEntries: 100_000,
		MaxExport: 100 << 20, MaxManifest: 16 << 20, RatioFloor: 16 << 20, MaxRatio: 200}
}

// Bundle is what Read read beside the export (which went to its
// ExportReader): the manifest (empty when the bundle has none), and what
// it skipped, by kind. Staged holds, by entry name, the blobs Read wrote
// to temporary files (each matching its manifest entry) when it was
// given a blob store.
type Bundle struct {
	Manifest api.AttachmentManifest
	Skipped  map[string]int
	Staged   map[string]*blobstore.Staged
}

// Discard removes the staged blobs that were not committed.
func (b *Bundle) Discard() {
	for _, st := range b.Staged {
		st.Discard()
	}
}

// Refused is a bundle's refusal: 400 bad_bundle with its reason.
func Refused(reason, format string, args ...any) *api.Error {
	return api.Errorf(api.CodeBadBundle, format, args...).With("reason", reason)
}

// Read reads a tar.gz bundle as hostile input: every entry name is
// checked (no absolute path, no "..", no duplicate, nothing but regular
// files and directories), the entry count, the decompressed bytes and
// their ratio to the compressed ones are capped, pad-export.json comes
// first and the manifest second, and every blob's bytes must hash to its
// manifest entry. Blobs are hashed as they stream by, never held; given
// blobs, each blob the manifest names is also staged in a temporary file
// as it is hashed, and on a refusal none is left. pad-export.json goes to
// export as it is read. Every refusal is an *api.Error (bad_bundle, or
// export's own); any other error is the blob store's.
func Read(r io.Reader, lim Limits, blobs *blobstore.Store, export ExportReader) (_ *Bundle, err error) {
	staged := map[string]*blobstore.Staged{}
	defer func() {
		if err != nil {
			for _, st := range staged {
				st.Discard()
			}
		}
	}()
	comp := &countReader{r: io.LimitReader(r, lim.MaxCompressed+1)}
	br := bufio.NewReaderSize(comp, 32<<10)
	head, _ := br.Peek(16)
	head = bytes.Clone(head)
	gz, err := gzip.NewReader(br)
	if err != nil {
		return nil, Refused("gzip", "the file is not a tar.gz bundle: %s", notBundle(head))
	}
	exp := &expandReader{r: gz, comp: comp, lim: lim}
	tr := tar.NewReader(exp)
	out := &Bundle{Skipped: map[string]int{}, Staged: staged}
	seen := map[string]bool{}
	manifest := map[string]*api.AttachmentManifestEntry{}
	hashed := map[string]bool{}
	manifestSeen, exportRead := false, false
	for entries := 0; ; entries++ {
		hdr, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, exp.fail(err)
		}
		if entries >= lim.MaxEntries {
			return nil, Refused("too_many_entries", "the bundle has more than %d entries", lim.MaxEntries).With("limit", lim.MaxEntries)
		}
		name := hdr.Name
		if why := unsafeEntry(name); why != "" {
			return nil, Refused("unsafe_entry", "bundle entry %q %s", model.Excerpt(name), why).With("entry", model.Excerpt(name))
		}
		switch hdr.Typeflag {
		case tar.TypeReg, tar.TypeRegA: //nolint:staticcheck // older tars mark regular files so
		case tar.TypeDir:
			continue
		default:
			return nil, Refused("unsafe_entry", "bundle entry %q is not a regular file (type %q)", model.Excerpt(name), hdr.Typeflag).
				With("entry", model.Excerpt(name))
		}
		clean := strings.TrimPrefix(name, "./")
		if seen[clean] {
			return nil, Refused("duplicate_entry", "bundle entry %q appears twice", model.Excerpt(name)).With("entry", model.Excerpt(name))
		}
		seen[clean] = true
		if hdr.Size < 0 || hdr.Size > lim.MaxExpanded {
			return nil, Refused("too_large", "bundle entry %q declares %d bytes", model.Excerpt(name), hdr.Size).With("entry", model.Excerpt(name))
		}
		switch {
		case clean == api.BundleExportEntry:
			if entries != 0 {
				return nil, Refused("order", "pad-export.json must be the bundle's first entry")
			}
			if hdr.Size > lim.MaxExport {
				return nil, Refused("too_large", "pad-export.json is %d bytes; at most %d", hdr.Size, lim.MaxExport).With("limit", lim.MaxExport)
			}
			if err := export(tr, hdr.Size); err != nil {
				return nil, exp.fail(err)
			}
			exportRead = true
		case clean == api.BundleManifestEntry:
			if !exportRead {
				return nil, Refused("order", "the attachment manifest comes before pad-export.json")
			}
			manifestSeen = true
			if hdr.Size > lim.MaxManifest {
				return nil, Refused("too_large", "the attachment manifest is %d bytes; at most %d", hdr.Size, lim.MaxManifest)
			}
			if err := json.NewDecoder(io.LimitReader(tr, hdr.Size)).Decode(&out.Manifest); err != nil {
				if exp.err != nil {
					return nil, exp.err
				}
				return nil, Refused("manifest", "the attachment manifest is not JSON: %v", err)
			}
			if out.Manifest.Version > api.BundleManifestVer {
				return nil, Refused("manifest", "attachment manifest version %d is newer than padd reads (%d)", out.Manifest.Version, api.BundleManifestVer)
			}
			for i := range out.Manifest.Entries {
				m := &out.Manifest.Entries[i]
				p := BlobPath(m.ID, m.Filename)
				if unsafeEntry(p) != "" || manifest[p] != nil {
					return nil, Refused("manifest", "attachment manifest entry %d (%q) is unsafe or given twice", i, model.Excerpt(m.ID))
				}
				manifest[p] = m
			}
		case strings.HasPrefix(clean, "attachments/"):
			if !manifestSeen {
				return nil, Refused("order", "blob %q comes before pad-export.json and the manifest", model.Excerpt(name))
			}
			m := manifest[clean]
			var n int64
			var sum string
			if m != nil && blobs != nil {
				src := &readErr{r: tr}
				st, err := blobs.Stage(src, m.SizeBytes)
				switch {
				case src.err != nil:
					return nil, exp.fail(src.err)
				case errors.Is(err, blobstore.ErrTooLarge):
					n = m.SizeBytes + 1 // refused below as a mismatch
				case err != nil:
					return nil, fmt.Errorf("staging %s: %w", model.Excerpt(name), err)
				default:
					staged[clean] = st
					n, sum = st.Size, st.Hash
				}
			} else {
				h := sha256.New()
				if n, err = io.Copy(h, tr); err != nil {
					return nil, exp.fail(err)
				}
				sum = hex.EncodeToString(h.Sum(nil))
			}
			if m == nil {
				out.Skipped["blob_not_in_manifest"]++
				continue
			}
			if n != m.SizeBytes || !strings.EqualFold(sum, m.ContentHash) {
				return nil, Refused("blob_hash_mismatch", "blob %q does not match its manifest entry (size %d, sha256 %s)",
					model.Excerpt(name), m.SizeBytes, model.Excerpt(m.ContentHash)).With("entry", model.Excerpt(name))
			}
			hashed[clean] = true
		default:
			if _, err := io.Copy(io.Discard, tr); err != nil {
				return nil, exp.fail(err)
			}
			out.Skipped["unknown_entry"]++
		}
	}
	// The gzip stream must end where the tar does (a second stream or
	// trailing bytes are read and capped too).
	if _, err := io.Copy(io.Discard, exp); err != nil {
		return nil, exp.fail(err)
	}
	if !exportRead {
		return nil, Refused("missing_export", "the bundle holds no pad-export.json")
	}
	if n := len(manifest) - len(hashed); n > 0 {
		out.Skipped["blob_missing"] += n
	}
	return out, nil
}

// readErr keeps the first error of its reader: a failed read of the
// bundle is told apart from a failed write of a blob.
type readErr struct {
	r   io.Reader
	err error
}

func (r *readErr) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	if err != nil && err != io.EOF && r.err == nil {
		r.err = err
	}
	return n, err
}

// BlobPath is a blob's entry name: its id and the lower-cased
// extension of its filename (.bin without one), as Pad names them.
func BlobPath(id, filename string) string {
	ext := strings.ToLower(path.Ext(strings.ReplaceAll(filename, "\\", "/")))
	if ext == "" {
		ext = ".bin"
	}
	return "attachments/" + id + ext
}

// unsafeEntry says what is wrong with a tar entry name, or "".
func unsafeEntry(name string) string {
	switch {
	case name == "":
		return "has no name"
	case !utf8.ValidString(name):
		return "is not valid UTF-8"
	case strings.ContainsAny(name, "\x00\\:"):
		return "holds a NUL, a backslash or a colon"
	case strings.HasPrefix(name, "/"):
		return "is an absolute path"
	}
	for _, seg := range strings.Split(strings.TrimSuffix(name, "/"), "/") {
		if seg == ".." {
			return "climbs out with .."
		}
	}
	if c := path.Clean(name); c != strings.TrimSuffix(strings.TrimPrefix(name, "./"), "/") {
		return "is not a clean path"
	}
	return ""
}

// expandReader reads the decompressed stream under the caps.
type expandReader struct {
	r    io.Reader
	comp *countReader
	lim  Limits
	n    int64
	err  error // a cap's refusal
}

func (e *expandReader) Read(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.r.Read(p)
	e.n += int64(n)
	switch {
	case e.comp.n > e.lim.MaxCompressed:
		e.err = Refused("too_large", "the bundle is over %d bytes", e.lim.MaxCompressed).With("limit", e.lim.MaxCompressed)
	case e.n > e.lim.MaxExpanded:
		e.err = Refused("too_large", "the bundle decompresses to over %d bytes", e.lim.MaxExpanded).With("limit", e.lim.MaxExpanded)
	case e.n > e.lim.RatioFloor && e.n > e.lim.MaxRatio*e.comp.n:
		e.err = Refused("compression_ratio", "the bundle decompresses more than %d times (%d bytes from %d): refused as a gzip bomb",
			e.lim.MaxRatio, e.n, e.comp.n).With("limit", e.lim.MaxRatio)
	}
	if e.err != nil {
		return 0, e.err
	}
	return n, err
}

// fail is the refusal for an error met reading the tar: a cap's, or a
// damaged stream's.
func (e *expandReader) fail(err error) error {
	if e.err != nil {
		return e.err
	}
	var ae *api.Error
	if errors.As(err, &ae) {
		return ae
	}
	return Refused("damaged", "the bundle is damaged or cut short: %v", err)
}

// notBundle says in words why a body starting with head is not a tar.gz
// bundle, gzip having refused it.
func notBundle(head []byte) string {
	text := bytes.TrimLeft(head, " \t\r\n")
	switch {
	case len(head) == 0:
		return "it is empty"
	case bytes.HasPrefix(head, gzipMagic):
		return "its gzip header is damaged"
	case bytes.HasPrefix(head, []byte("PK\x03\x04")):
		return "it is a zip archive, not gzip-compressed"
	case len(text) > 0 && text[0] == '{':
		return "it is not gzip-compressed; it looks like JSON: import it as JSON (Content-Type application/json)"
	}
	return "it is not gzip-compressed: it starts with " + Quote(head)
}

// Quote quotes the first bytes of a document for a message.
func Quote(head []byte) string {
	return fmt.Sprintf("%q", strings.ToValidUTF8(string(head), ""))
}

type countReader struct {
	r io.Reader
	n int64
}

func (c *countReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}
