// Package bundletest makes the bundles the tests of bundle and of padd's
// import work on: hand-made tar.gz files of any entries, and a gzip bomb
// made only as fast as it is read.
package bundletest

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/padd/padd/api"
)

// Entry is one tar Entry of a hand-made bundle.
type Entry struct {
	Name string
	Body string
	Type byte // 0: a regular file
	Link string
}

// Make writes entries as a tar.gz.
func Make(t testing.TB, entries ...Entry) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, e := range entries {
		typ := e.Type
		if typ == 0 {
			typ = tar.TypeReg
		}
		hdr := &tar.Header{Name: e.Name, Mode: 0o644, Typeflag: typ, Linkname: e.Link}
		if typ == tar.TypeReg {
			hdr.Size = int64(len(e.Body))
		}
		if err := tw.WriteHeader(hdr); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write([]byte(e.Body)); err != nil {
			t.Fatal(err)
		}
	}
	if err := errors.Join(tw.Close(), gz.Close()); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// spaces reads n spaces: JSON a decoder reads on through.
type spaces struct{ n int64 }

func (z *spaces) Read(p []byte) (int, error) {
	if z.n <= 0 {
		return 0, io.EOF
	}
	k := min(int64(len(p)), z.n)
	for i := range p[:k] {
		p[i] = ' '
	}
	z.n -= k
	return int(k), nil
}

// Bomb streams a tar.gz whose pad-export.json is "{" and size-1 spaces;
// it makes them only as fast as they are read. stop ends the maker.
func Bomb(size int64) (r io.Reader, stop func()) {
	pr, pw := io.Pipe()
	done := make(chan struct{})
	go func() {
		defer close(done)
		gz, _ := gzip.NewWriterLevel(pw, gzip.BestCompression)
		tw := tar.NewWriter(gz)
		err := tw.WriteHeader(&tar.Header{Name: api.BundleExportEntry, Mode: 0o644, Size: size, Typeflag: tar.TypeReg})
		if err == nil {
			_, err = io.Copy(tw, io.MultiReader(strings.NewReader("{"), &spaces{size - 1}))
		}
		if err == nil {
			err = errors.Join(tw.Close(), gz.Close())
		}
		pw.CloseWithError(err)
	}()
	return pr, func() { pr.CloseWithError(errors.New("stopped")); <-done }
}
