package bundle

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"runtime"
	"testing"

	"github.com/padd/padd/api"
	"github.com/padd/padd/bundle/bundletest"
)

// smallExport stands for pad-export.json: what is in it is the export
// reader's to judge, not the bundle's.
const smallExport = `{"version":1}`

func manifestOf(entries ...api.AttachmentManifestEntry) string {
	b, _ := json.Marshal(api.AttachmentManifest{Version: 1, Entries: entries})
	return string(b)
}

// discard reads pad-export.json and keeps nothing.
func discard(r io.Reader, _ int64) error {
	_, err := io.Copy(io.Discard, r)
	return err
}

func TestGzipBombIsRefusedEarly(t *testing.T) {
	lim := DefaultLimits()
	lim.MaxExport = 3 << 30 // the ratio, not the entry's size, must stop it
	src, stop := bundletest.Bomb(3 << 30)
	defer stop()
	cr := &countReader{r: src}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := Read(cr, lim, nil, discard)
	runtime.ReadMemStats(&after)
	var ae *api.Error
	if !errors.As(err, &ae) || ae.Details["reason"] != "compression_ratio" {
		t.Fatalf("bomb: %v", err)
	}
	if cr.n > 1<<20 {
		t.Errorf("read %d compressed bytes before refusing", cr.n)
	}
	// What it holds follows the bytes read, not the 3 GiB the entry claims.
	if got := after.TotalAlloc - before.TotalAlloc; got > 256<<20 {
		t.Errorf("allocated %d MiB to refuse it", got>>20)
	}
}

func TestBundleCaps(t *testing.T) {
	lim := DefaultLimits()
	lim.MaxEntries = 3
	many := []bundletest.Entry{{Name: api.BundleExportEntry, Body: smallExport}, {Name: api.BundleManifestEntry, Body: manifestOf()}}
	for _, n := range []string{"a", "b", "c"} {
		many = append(many, bundletest.Entry{Name: "extra/" + n, Body: n})
	}
	_, err := Read(bytes.NewReader(bundletest.Make(t, many...)), lim, nil, discard)
	var ae *api.Error
	if !errors.As(err, &ae) || ae.Details["reason"] != "too_many_entries" {
		t.Errorf("entries: %v", err)
	}
	lim = DefaultLimits()
	lim.MaxExport = int64(len(smallExport)) - 1
	_, err = Read(bytes.NewReader(bundletest.Make(t, bundletest.Entry{Name: api.BundleExportEntry, Body: smallExport})), lim, nil, discard)
	if !errors.As(err, &ae) || ae.Details["reason"] != "too_large" {
		t.Errorf("export size: %v", err)
	}
}

// FuzzReadBundle feeds the bundle reader arbitrary bytes under small
// caps: it must answer (a bundle or a coded refusal), and allocate within
// a bound set by the caps, never by what the input claims.
func FuzzReadBundle(f *testing.F) {
	f.Add(bundletest.Make(f, bundletest.Entry{Name: api.BundleExportEntry, Body: smallExport}, bundletest.Entry{Name: api.BundleManifestEntry, Body: manifestOf()}))
	f.Add(bundletest.Make(f, bundletest.Entry{Name: api.BundleExportEntry, Body: smallExport}, bundletest.Entry{Name: "../x", Body: "x"}))
	var b bytes.Buffer
	src, stop := bundletest.Bomb(64 << 20)
	_, err := io.Copy(&b, io.LimitReader(src, 1<<20))
	stop()
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b.Bytes())
	f.Add([]byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff})
	lim := Limits{MaxCompressed: 4 << 20, MaxExpanded: 16 << 20, MaxEntries: 64, MaxExport: 1 << 20,
		MaxManifest: 256 << 10, RatioFloor: 2 << 20, MaxRatio: 50}
	f.Fuzz(func(t *testing.T, data []byte) {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		b, err := Read(bytes.NewReader(data), lim, nil, discard)
		runtime.ReadMemStats(&after)
		if err == nil && b == nil {
			t.Fatal("no bundle and no refusal")
		}
		var ae *api.Error
		if err != nil && !errors.As(err, &ae) {
			t.Fatalf("uncoded refusal %T: %v", err, err)
		}
		// Tar and gzip state, the manifest.
		if got := after.TotalAlloc - before.TotalAlloc; got > 64<<20 {
			t.Fatalf("allocated %d bytes for %d bytes of input", got, len(data))
		}
	})
}
