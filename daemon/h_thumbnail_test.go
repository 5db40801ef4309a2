package daemon

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"github.com/padd/padd/api"
	"github.com/padd/padd/images/imagetest"
)

// checkerPNG is a w x h PNG of one-pixel black and white squares: its
// area average is mid-gray everywhere, which picking pixels never gives.
func checkerPNG(t *testing.T, w, h int) []byte {
	t.Helper()
	m := image.NewGray(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			if (x+y)%2 == 0 {
				m.Pix[y*m.Stride+x] = 255
			}
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, m); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func derivedFiles(t *testing.T, h *harness) int {
	t.Helper()
	es, err := os.ReadDir(filepath.Join(filepath.Dir(h.store.Path()), BlobDir, "derived"))
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return len(es)
}

func TestThumbnailVariants(t *testing.T) {
	h := newHarness(t)
	it := h.task("Screens")
	big := checkerPNG(t, 2000, 1000)
	shot := h.upload(big, "screen.png", it.Ref, 201)
	get := func(id, variant string) reply {
		t.Helper()
		r := h.call("GET", wsPath("/attachments/"+id+"?variant="+variant), nil)
		if r.status != 200 {
			t.Fatalf("%s ?variant=%s: %d %s", id, variant, r.status, r.body)
		}
		return r
	}
	for _, c := range []struct {
		variant string
		w, h    int
	}{{"thumb-md", 1024, 512}, {"thumb-sm", 256, 128}} {
		r := get(shot.ID, c.variant)
		if r.header.Get("X-Pad-Attachment-Variant") != c.variant || r.header.Get("Content-Type") != "image/png" ||
			r.header.Get("ETag") != `"`+shot.ContentHash+"."+c.variant+`"` ||
			r.header.Get("Content-Disposition") != `inline; filename="screen.`+c.variant+`.png"` {
			t.Fatalf("%s headers %v", c.variant, r.header)
		}
		m, err := png.Decode(bytes.NewReader(r.body))
		if err != nil {
			t.Fatal(err)
		}
		if m.Bounds() != image.Rect(0, 0, c.w, c.h) {
			t.Fatalf("%s is %v, want %dx%d", c.variant, m.Bounds(), c.w, c.h)
		}
		// The checkerboard averages to gray everywhere.
		for _, p := range []image.Point{{0, 0}, {c.w / 2, c.h / 3}, {c.w - 1, c.h - 1}} {
			g := color.GrayModel.Convert(m.At(p.X, p.Y)).(color.Gray).Y
			if g < 120 || g > 135 {
				t.Errorf("%s pixel %v is %d, want about 128 (an area average)", c.variant, p, g)
			}
		}
		// Made once: the second answer is the kept file.
		if again := get(shot.ID, c.variant); !bytes.Equal(again.body, r.body) {
			t.Errorf("%s differs the second time", c.variant)
		}
	}
	if n := derivedFiles(t, h); n != 2 {
		t.Errorf("%d derived files, want the two thumbnails", n)
	}

	// What has no thumbnail answers with the original.
	small := h.upload(checkerPNG(t, 300, 200), "small.png", it.Ref, 201)
	text := h.upload([]byte("a log, not an image"), "run.log", it.Ref, 201)
	bomb := h.upload(imagetest.PNGHeaderOnly(100_000, 100_000), "bomb.png", it.Ref, 201)
	for _, c := range []struct{ id, variant string }{{small.ID, "thumb-md"}, {text.ID, "thumb-sm"}, {bomb.ID, "thumb-md"}, {shot.ID, "original"}, {shot.ID, ""}} {
		r := h.call("GET", wsPath("/attachments/"+c.id+"?variant="+c.variant), nil)
		if r.status != 200 || r.header.Get("X-Pad-Attachment-Variant") != "original" {
			t.Errorf("%s ?variant=%s: %d, variant %q", c.id, c.variant, r.status, r.header.Get("X-Pad-Attachment-Variant"))
		}
	}
	if r := get(small.ID, "thumb-sm"); r.header.Get("X-Pad-Attachment-Variant") != "thumb-sm" {
		t.Error("a 300x200 image has no thumb-sm")
	}
	h.wantError("GET", wsPath("/attachments/"+shot.ID+"?variant=thumb-xl"), nil, 400, api.CodeBadVariant)

	// A JPEG's thumbnail is a JPEG.
	photo := h.upload(imagetest.HalvesJPEG(t, 1600, 1200), "photo.jpeg", it.Ref, 201)
	r := get(photo.ID, "thumb-md")
	m, format, err := image.Decode(bytes.NewReader(r.body))
	if err != nil || format != "jpeg" || m.Bounds() != image.Rect(0, 0, 1024, 768) || r.header.Get("Content-Type") != "image/jpeg" {
		t.Fatalf("a JPEG's thumb-md: %v %s %v %s", err, format, m.Bounds(), r.header.Get("Content-Type"))
	}
	if red, _, blue, _ := m.At(100, 384).RGBA(); red < 2*blue {
		t.Errorf("the left half's thumbnail is %v, not red", m.At(100, 384))
	}
}
