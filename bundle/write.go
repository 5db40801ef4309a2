package bundle

import (
	"archive/tar"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/padd/padd/api"
	"github.com/padd/padd/blobstore"
)

// Write writes the tar.gz bundle: pad-export.json (size bytes from
// export), then the attachment manifest, then each entry's blob in the
// manifest's order, always with fixed headers, so two bundles of one
// workspace differ only where the JSON's exported_at does. Blobs stream
// from their files.
func Write(w io.Writer, export io.Reader, size int64, entries []api.AttachmentManifestEntry, blobs *blobstore.Store) error {
	// Fastest compression: a bundle is written for a copy or a backup,
	// and the export's JSON still shrinks to about a third of its size.
	gz, err := gzip.NewWriterLevel(w, gzip.BestSpeed)
	if err != nil {
		return err
	}
	tw := tar.NewWriter(gz)
	epoch := time.Unix(0, 0).UTC()
	if err := tw.WriteHeader(&tar.Header{Name: api.BundleExportEntry, Mode: 0o644, Size: size, ModTime: epoch,
		Typeflag: tar.TypeReg, Format: tar.FormatPAX}); err != nil {
		return err
	}
	if n, err := io.Copy(tw, export); err != nil || n != size {
		return errors.Join(err, fmt.Errorf("export file: copied %d of %d bytes", n, size))
	}
	if entries == nil {
		entries = []api.AttachmentManifestEntry{}
	}
	manifest, err := json.MarshalIndent(api.AttachmentManifest{Version: api.BundleManifestVer, Entries: entries}, "", "  ")
	if err != nil {
		return err
	}
	if err := tw.WriteHeader(&tar.Header{Name: api.BundleManifestEntry, Mode: 0o644, Size: int64(len(manifest)),
		ModTime: epoch, Typeflag: tar.TypeReg, Format: tar.FormatPAX}); err != nil {
		return err
	}
	if _, err := tw.Write(manifest); err != nil {
		return err
	}
	for _, m := range entries {
		if err := writeBlobEntry(tw, blobs, m, epoch); err != nil {
			return err
		}
	}
	return errors.Join(tw.Close(), gz.Close())
}

// writeBlobEntry copies one blob into the bundle under its entry name.
func writeBlobEntry(tw *tar.Writer, blobs *blobstore.Store, m api.AttachmentManifestEntry, epoch time.Time) error {
	f, err := blobs.Open(m.ContentHash)
	if err != nil {
		return fmt.Errorf("attachment %s: %w", m.ID, err)
	}
	defer f.Close()
	if err := tw.WriteHeader(&tar.Header{Name: BlobPath(m.ID, m.Filename), Mode: 0o644, Size: m.SizeBytes,
		ModTime: epoch, Typeflag: tar.TypeReg, Format: tar.FormatPAX}); err != nil {
		return err
	}
	if n, err := io.Copy(tw, f); err != nil || n != m.SizeBytes {
		return errors.Join(err, fmt.Errorf("attachment %s: copied %d of %d bytes", m.ID, n, m.SizeBytes))
	}
	return nil
}
