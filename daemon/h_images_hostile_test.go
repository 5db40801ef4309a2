package daemon

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/color"
	"image/png"
	"runtime/debug"
	"testing"

	"github.com/padd/padd/api"
	"github.com/padd/padd/images/imagetest"
	"github.com/padd/padd/internal/procstat"
)

// withIHDR is png with its IHDR's width and height replaced (its CRC
// made right): a header that lies about the pixels that follow.
func withIHDR(t *testing.T, data []byte, w, h uint32) []byte {
	t.Helper()
	out := bytes.Clone(data)
	if string(out[12:16]) != "IHDR" {
		t.Fatal("no IHDR first")
	}
	binary.BigEndian.PutUint32(out[16:], w)
	binary.BigEndian.PutUint32(out[20:], h)
	binary.BigEndian.PutUint32(out[29:], crc32.ChecksumIEEE(out[12:29]))
	return out
}

// Hostile images through both image routes (transform, thumbnails): a
// header over the caps is refused before a pixel is decoded; one that
// is cut short, or whose header lies about what follows, is an image
// padd cannot decode. Never a 5xx, and a thumbnail of any of them is
// the original.
func TestHostileImagesThroughTheRoutes(t *testing.T) {
	h := newHarness(t)
	it := h.task("Hostile images")
	jpg := imagetest.HalvesJPEG(t, 640, 480)
	pngData := imagetest.PatternPNG(t, 64, 64)
	for _, c := range []struct {
		name   string
		data   []byte
		status int
		code   string
	}{
		{"8000x8000 16-bit colour (512 MiB decoded)", imagetest.PNGHeader(8000, 8000, 16, 6), 413, api.CodeImageTooLarge},
		{"8000x8000 16-bit gray (128 MiB decoded, no data)", imagetest.PNGHeader(8000, 8000, 16, 0), 415, api.CodeUnsupportedFormat},
		{"a JPEG cut in half", jpg[:len(jpg)/2], 415, api.CodeUnsupportedFormat},
		{"a JPEG cut after its frame header", jpg[:700], 415, api.CodeUnsupportedFormat},
		{"a baseline JPEG bomb (8000x8000 stated, no data)", imagetest.JPEGHeader(8000, 8000, 0xc0), 415, api.CodeUnsupportedFormat},
		{"a progressive JPEG bomb", imagetest.JPEGHeader(8000, 8000, 0xc2), 413, api.CodeImageTooLarge},
		{"a PNG cut in half", pngData[:len(pngData)/2], 415, api.CodeUnsupportedFormat},
		{"a PNG stating fewer pixels than it holds", withIHDR(t, pngData, 4, 4), 415, api.CodeUnsupportedFormat},
		{"a PNG stating more pixels than it holds", withIHDR(t, pngData, 4000, 4000), 415, api.CodeUnsupportedFormat},
		{"a PNG stating 0 pixels", withIHDR(t, pngData, 0, 64), 415, api.CodeUnsupportedFormat},
	} {
		t.Run(c.name, func(t *testing.T) {
			up := h.upload(c.data, "hostile.bin", it.Ref, 201)
			h.wantError("POST", wsPath("/attachments/"+up.ID+"/transform"), map[string]any{"operation": "rotate", "degrees": 90}, c.status, c.code)
			for _, v := range []string{"thumb-sm", "thumb-md"} {
				r := h.call("GET", wsPath("/attachments/"+up.ID+"?variant="+v), nil)
				if r.status != 200 || r.header.Get("X-Pad-Attachment-Variant") != "original" || !bytes.Equal(r.body, c.data) {
					t.Errorf("?variant=%s: %d, variant %q, %d bytes", v, r.status, r.header.Get("X-Pad-Attachment-Variant"), len(r.body))
				}
			}
		})
	}
}

// The largest image padd works on at its heaviest: 16-bit colour just
// under the decoded-bytes cap (5790x5790, 256 MiB decoded), turned by 90
// degrees through the route (the decoded image and its result held at
// once), under padd's own collector settings (cmd/padd's tuneGC: without
// them the PNG encoder's garbage adds some 256 MiB before a collection).
// Heap in use above the start (seconds of work making the image, and
// 600 MiB for the test alone); make test runs it in its step without the
// race detector.
func TestHeaviestRotationInBoundedMemory(t *testing.T) {
	if raceOn {
		t.Skip("the race detector's own memory hides the bound: make test runs it without -race (go test -run HeaviestRotationInBoundedMemory ./daemon)")
	}
	const side = 5790
	m := image.NewNRGBA64(image.Rect(0, 0, side, side))
	for y := 0; y < side; y += 7 {
		for x := 0; x < side; x += 5 {
			m.SetNRGBA64(x, y, color.NRGBA64{uint16(x * 11), uint16(y * 13), 0x8000, 0xffff})
		}
	}
	var buf bytes.Buffer
	if err := (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(&buf, m); err != nil {
		t.Fatal(err)
	}
	m = nil
	defer debug.SetGCPercent(debug.SetGCPercent(200))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(384 << 20))
	h := newHarness(t)
	it := h.task("Heavy")
	up := h.upload(buf.Bytes(), "deep.png", it.Ref, 201)
	t.Logf("the upload: %d MiB", buf.Len()>>20)
	buf = bytes.Buffer{}
	used := procstat.HeapPeak(func() {
		h.transform(up.ID, map[string]any{"operation": "rotate", "degrees": 90}, 201)
	})
	t.Logf("rotating a %dx%d 16-bit PNG: heap in use grew by at most %d MiB", side, side, used>>20)
	if used > 540<<20 {
		t.Errorf("heap in use grew by %d MiB; twice the cap is 512 MiB", used>>20)
	}
}
