package daemon

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"reflect"
	"runtime"
	"testing"

	"github.com/padd/padd/api"
)

// patternPNG is a w x h PNG whose every pixel differs: (x, y) is the
// colour {x*16, y*16, 200, 255}.
func patternPNG(t *testing.T, w, h int) []byte {
	t.Helper()
	m := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			m.SetNRGBA(x, y, color.NRGBA{uint8(x * 16), uint8(y * 16), 200, 255})
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, m); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// halvesJPEG is a w x h JPEG, red on the left half, blue on the right.
func halvesJPEG(t *testing.T, w, h int) []byte {
	t.Helper()
	m := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			c := color.RGBA{220, 20, 20, 255}
			if x >= w/2 {
				c = color.RGBA{20, 20, 220, 255}
			}
			m.SetRGBA(x, y, c)
		}
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, m, &jpeg.Options{Quality: 95}); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// pngHeaderOnly is a PNG signature and an IHDR chunk stating w x h gray
// pixels, with nothing after it: what a decompression bomb shows first.
func pngHeaderOnly(w, h uint32) []byte { return pngHeader(w, h, 8, 0) }

// pngHeader is pngHeaderOnly of bit depth depth and colour type ctype.
func pngHeader(w, h uint32, depth, ctype byte) []byte {
	var ihdr [13]byte
	binary.BigEndian.PutUint32(ihdr[0:], w)
	binary.BigEndian.PutUint32(ihdr[4:], h)
	ihdr[8], ihdr[9] = depth, ctype
	out := []byte("\x89PNG\r\n\x1a\n")
	out = binary.BigEndian.AppendUint32(out, 13)
	chunk := append([]byte("IHDR"), ihdr[:]...)
	out = append(out, chunk...)
	return binary.BigEndian.AppendUint32(out, crc32.ChecksumIEEE(chunk))
}

// jpegHeader is a JPEG's start, a JFIF segment and a frame header
// (marker sof: 0xc0 baseline, 0xc2 progressive) of w x h pixels in 4:2:0
// colour, with nothing after it.
func jpegHeader(w, h uint16, sof byte) []byte {
	out := []byte{0xff, 0xd8, 0xff, 0xe0, 0, 16, 'J', 'F', 'I', 'F', 0, 1, 1, 0, 0, 1, 0, 1, 0, 0} // JFIF
	out = append(out, 0xff, sof, 0, 17, 8)
	out = binary.BigEndian.AppendUint16(out, h)
	out = binary.BigEndian.AppendUint16(out, w)
	return append(out, 3, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1)
}

func (h *harness) transform(id string, req any, status int) api.AttachmentUpload {
	h.t.Helper()
	var out api.AttachmentUpload
	h.mustJSON("POST", wsPath("/attachments/"+id+"/transform"), req, status, &out)
	return out
}

// download decodes an attachment's bytes as an image.
func (h *harness) downloadImage(id string) (image.Image, string) {
	h.t.Helper()
	r := h.call("GET", wsPath("/attachments/"+id), nil)
	if r.status != 200 {
		h.t.Fatalf("download %s: %d", id, r.status)
	}
	m, format, err := image.Decode(bytes.NewReader(r.body))
	if err != nil {
		h.t.Fatalf("download %s: %v", id, err)
	}
	return m, format
}

func TestTransformRotatesAndCropsPNG(t *testing.T) {
	h := newHarness(t)
	it := h.task("Has a screenshot")
	const w, ht = 5, 3
	orig := patternPNG(t, w, ht)
	up := h.upload(orig, "shot.png", it.Ref, 201)
	at := func(x, y int) color.NRGBA { return color.NRGBA{uint8(x * 16), uint8(y * 16), 200, 255} }

	// Clockwise: the source pixel x, y lands at h-1-y, x (90), w-1-x,
	// h-1-y (180), y, w-1-x (270).
	for _, c := range []struct {
		deg    int
		nw, nh int
		to     func(x, y int) (int, int)
	}{
		{90, ht, w, func(x, y int) (int, int) { return ht - 1 - y, x }},
		{180, w, ht, func(x, y int) (int, int) { return w - 1 - x, ht - 1 - y }},
		{270, ht, w, func(x, y int) (int, int) { return y, w - 1 - x }},
	} {
		res := h.transform(up.ID, map[string]any{"operation": "rotate", "degrees": c.deg}, 201)
		if res.ID == up.ID || res.MIME != "image/png" || res.Filename != "shot.rotate.png" || res.ItemRef != it.Ref ||
			res.Width == nil || *res.Width != c.nw || *res.Height != c.nh || res.Category != "image" || res.RenderMode != "inline" {
			t.Fatalf("rotate %d answered %+v", c.deg, res)
		}
		m, format := h.downloadImage(res.ID)
		if format != "png" || m.Bounds().Dx() != c.nw || m.Bounds().Dy() != c.nh {
			t.Fatalf("rotate %d: %s %v", c.deg, format, m.Bounds())
		}
		for y := 0; y < ht; y++ {
			for x := 0; x < w; x++ {
				dx, dy := c.to(x, y)
				if got := color.NRGBAModel.Convert(m.At(dx, dy)).(color.NRGBA); got != at(x, y) {
					t.Fatalf("rotate %d: pixel %d,%d is %v at %d,%d, want %v", c.deg, x, y, got, dx, dy, at(x, y))
				}
			}
		}
	}

	// A crop is exact; one running past the edge is cut to the image.
	for _, c := range []struct {
		rect                 api.TransformRect
		x0, y0, wantW, wantH int
	}{
		{api.TransformRect{X: 1, Y: 1, W: 3, H: 2}, 1, 1, 3, 2},
		{api.TransformRect{X: 3, Y: 2, W: 100, H: 100}, 3, 2, 2, 1},
	} {
		res := h.transform(up.ID, api.TransformRequest{Operation: "crop", Rect: &c.rect}, 201)
		if res.Filename != "shot.crop.png" || *res.Width != c.wantW || *res.Height != c.wantH {
			t.Fatalf("crop %+v answered %+v", c.rect, res)
		}
		m, _ := h.downloadImage(res.ID)
		if m.Bounds() != image.Rect(0, 0, c.wantW, c.wantH) {
			t.Fatalf("crop %+v: bounds %v", c.rect, m.Bounds())
		}
		for y := 0; y < c.wantH; y++ {
			for x := 0; x < c.wantW; x++ {
				if got := color.NRGBAModel.Convert(m.At(x, y)).(color.NRGBA); got != at(c.x0+x, c.y0+y) {
					t.Fatalf("crop %+v: pixel %d,%d is %v, want %v", c.rect, x, y, got, at(c.x0+x, c.y0+y))
				}
			}
		}
	}

	// The original stays; the item holds it and the five results. The
	// same rotation twice is one blob (content-addressed), two rows.
	var list api.AttachmentList
	h.mustJSON("GET", wsPath("/attachments?item_id="+it.Ref), nil, 200, &list)
	if list.Total != 6 {
		t.Fatalf("the item holds %d attachments, want 6", list.Total)
	}
	r := h.call("GET", wsPath("/attachments/"+up.ID), nil)
	if !bytes.Equal(r.body, orig) {
		t.Error("the original's bytes changed")
	}
	a := h.transform(up.ID, map[string]any{"operation": "rotate", "degrees": 90}, 201)
	b := h.transform(up.ID, map[string]any{"operation": "rotate", "degrees": 90}, 201)
	if a.ID == b.ID || a.ContentHash != b.ContentHash {
		t.Errorf("two equal rotations: %s %s, hashes %s %s", a.ID, b.ID, a.ContentHash, b.ContentHash)
	}

	// The result keeps its original's uploader (Pad's rule), whoever asks.
	var byAgent api.AttachmentUpload
	h.mustJSON("POST", wsPath("/attachments/"+up.ID+"/transform"), map[string]any{"operation": "rotate", "degrees": 180}, 201, &byAgent, "X-Pad-Agent", "robot")
	var row api.AttachmentList
	h.mustJSON("GET", wsPath("/attachments?item_id="+it.Ref+"&sort=created_at_desc&limit=1"), nil, 200, &row)
	if row.Attachments[0].ID != byAgent.ID || row.Attachments[0].UploadedBy == "robot" || row.Attachments[0].UploadedBy == "" {
		t.Errorf("an agent's transform of the user's upload: %+v", row.Attachments[0])
	}

	// An unattached upload's result is unattached.
	loose := h.upload(orig, "loose.png", "", 201)
	if res := h.transform(loose.ID, map[string]any{"operation": "rotate", "degrees": 180}, 201); res.ItemRef != "" {
		t.Errorf("an unattached upload's rotation is on %s", res.ItemRef)
	}
}

func TestTransformJPEGAndGIFBecomeJPEG(t *testing.T) {
	h := newHarness(t)
	it := h.task("Photos")
	up := h.upload(halvesJPEG(t, 32, 16), "photo.JPEG", it.Ref, 201)
	res := h.transform(up.ID, map[string]any{"operation": "rotate", "degrees": 90}, 201)
	if res.MIME != "image/jpeg" || res.Filename != "photo.rotate.jpg" || *res.Width != 16 || *res.Height != 32 {
		t.Fatalf("rotate answered %+v", res)
	}
	m, format := h.downloadImage(res.ID)
	if format != "jpeg" || m.Bounds() != image.Rect(0, 0, 16, 32) {
		t.Fatalf("rotated %s %v", format, m.Bounds())
	}
	// Turned clockwise, the left (red) half is on top.
	red := func(x, y int) bool { r, _, b, _ := m.At(x, y).RGBA(); return r > 2*b }
	blue := func(x, y int) bool { r, _, b, _ := m.At(x, y).RGBA(); return b > 2*r }
	if !red(8, 4) || !blue(8, 28) {
		t.Errorf("rotated halves: top %v, bottom %v", m.At(8, 4), m.At(8, 28))
	}

	crop := h.transform(up.ID, api.TransformRequest{Operation: "crop", Rect: &api.TransformRect{X: 16, Y: 0, W: 16, H: 16}}, 201)
	m, _ = h.downloadImage(crop.ID)
	if m.Bounds() != image.Rect(0, 0, 16, 16) {
		t.Fatalf("cropped %v", m.Bounds())
	}
	if r, _, b, _ := m.At(8, 8).RGBA(); b < 2*r {
		t.Errorf("the right half cropped is %v, not blue", m.At(8, 8))
	}

	pal := image.NewPaletted(image.Rect(0, 0, 6, 4), color.Palette{color.White, color.Black})
	var gb bytes.Buffer
	if err := gif.Encode(&gb, pal, nil); err != nil {
		t.Fatal(err)
	}
	g := h.upload(gb.Bytes(), "anim.gif", it.Ref, 201)
	res = h.transform(g.ID, map[string]any{"operation": "rotate", "degrees": 270}, 201)
	if res.MIME != "image/jpeg" || res.Filename != "anim.rotate.jpg" || *res.Width != 4 || *res.Height != 6 {
		t.Errorf("a GIF's rotation answered %+v", res)
	}
}

func TestTransformRefusals(t *testing.T) {
	h := newHarness(t)
	it := h.task("Refusals")
	up := h.upload(patternPNG(t, 4, 4), "shot.png", it.Ref, 201)
	text := h.upload([]byte("just text, not an image"), "notes.txt", it.Ref, 201)
	bomb := h.upload(pngHeaderOnly(100_000, 100_000), "bomb.png", it.Ref, 201)
	justOver := h.upload(pngHeaderOnly(8001, 8000), "big.png", it.Ref, 201)
	deep := h.upload(pngHeader(6000, 6000, 16, 6), "deep.png", it.Ref, 201) // 36 Mpx of 8 bytes
	// 38.4 Mpx of 4:2:0: 58 MB decoded, and 230 MB more of coefficients when progressive.
	baseline := h.upload(jpegHeader(8000, 4800, 0xc0), "flat.jpg", it.Ref, 201)
	progressive := h.upload(jpegHeader(8000, 4800, 0xc2), "prog.jpg", it.Ref, 201)
	path := func(id string) string { return wsPath("/attachments/" + id + "/transform") }
	for _, c := range []struct {
		name   string
		id     string
		body   any
		status int
		code   string
	}{
		{"no operation", up.ID, map[string]any{}, 400, api.CodeBadTransform},
		{"unknown operation", up.ID, map[string]any{"operation": "flip"}, 400, api.CodeBadTransform},
		{"45 degrees", up.ID, map[string]any{"operation": "rotate", "degrees": 45}, 400, api.CodeBadTransform},
		{"-90 degrees (Pad refuses it too)", up.ID, map[string]any{"operation": "rotate", "degrees": -90}, 400, api.CodeBadTransform},
		{"0 degrees", up.ID, map[string]any{"operation": "rotate"}, 400, api.CodeBadTransform},
		{"crop without rect", up.ID, map[string]any{"operation": "crop"}, 400, api.CodeBadTransform},
		{"crop of no width", up.ID, map[string]any{"operation": "crop", "rect": map[string]any{"x": 0, "y": 0, "w": 0, "h": 2}}, 400, api.CodeBadTransform},
		{"crop at a negative x", up.ID, map[string]any{"operation": "crop", "rect": map[string]any{"x": -1, "y": 0, "w": 2, "h": 2}}, 400, api.CodeBadTransform},
		{"crop outside the image", up.ID, map[string]any{"operation": "crop", "rect": map[string]any{"x": 4, "y": 0, "w": 2, "h": 2}}, 400, api.CodeBadTransform},
		{"crop past any image", up.ID, map[string]any{"operation": "crop", "rect": map[string]any{"x": 0, "y": 0, "w": 1 << 40, "h": 2}}, 400, api.CodeBadTransform},
		{"not JSON", up.ID, "{", 400, api.CodeBadRequest},
		{"not an image", text.ID, map[string]any{"operation": "rotate", "degrees": 90}, 415, api.CodeUnsupportedFormat},
		{"a decompression bomb", bomb.ID, map[string]any{"operation": "rotate", "degrees": 90}, 413, api.CodeImageTooLarge},
		{"one pixel column over the cap", justOver.ID, map[string]any{"operation": "crop", "rect": map[string]any{"x": 0, "y": 0, "w": 2, "h": 2}}, 413, api.CodeImageTooLarge},
		{"16-bit colour over the decoded bytes", deep.ID, map[string]any{"operation": "rotate", "degrees": 180}, 413, api.CodeImageTooLarge},
		{"a progressive JPEG over the decoded bytes", progressive.ID, map[string]any{"operation": "rotate", "degrees": 90}, 413, api.CodeImageTooLarge},
		{"the same baseline passes the caps (and has no data)", baseline.ID, map[string]any{"operation": "rotate", "degrees": 90}, 415, api.CodeUnsupportedFormat},
		{"no such attachment", "01938f00-1111-7222-8333-444455556666", map[string]any{"operation": "rotate", "degrees": 90}, 404, api.CodeNotFound},
	} {
		t.Run(c.name, func(t *testing.T) {
			h.wantError("POST", path(c.id), c.body, c.status, c.code)
		})
	}
	var list api.AttachmentList
	h.mustJSON("GET", wsPath("/attachments?item_id="+it.Ref), nil, 200, &list)
	if list.Total != 7 {
		t.Errorf("refused transforms left %d attachments, want the 7 uploads", list.Total)
	}

	// An archived item's attachments are not transformed.
	h.mustJSON("DELETE", wsPath("/items/"+it.Ref), nil, 204, nil)
	h.wantError("POST", path(up.ID), map[string]any{"operation": "rotate", "degrees": 90}, 409, api.CodeArchived)
}

// The header check refuses a bomb having read its header only: far less
// memory than one row of the pixels it claims.
func TestImageHeaderCheckDoesNotAllocatePixels(t *testing.T) {
	bomb := pngHeaderOnly(60_000, 60_000)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	hdr, err := readImageHeader(bytes.NewReader(bomb))
	if err != nil {
		t.Fatal(err)
	}
	if err := checkPixels(hdr); err == nil {
		t.Fatal("a 3.6-gigapixel image passed the check")
	}
	runtime.ReadMemStats(&after)
	if n := after.TotalAlloc - before.TotalAlloc; n > 1<<20 {
		t.Errorf("the header check allocated %d bytes", n)
	}
}

// rotateImage keeps each decoder's pixel type and turns every plane,
// including odd-sized subsampled chroma.
func TestRotateImageTypes(t *testing.T) {
	r := image.Rect(0, 0, 5, 3)
	ycc := func(ratio image.YCbCrSubsampleRatio) *image.YCbCr {
		m := image.NewYCbCr(r, ratio)
		for i := range m.Y {
			m.Y[i] = uint8(i * 7)
		}
		for i := range m.Cb {
			m.Cb[i], m.Cr[i] = uint8(i*11), uint8(255-i*13)
		}
		return m
	}
	gray := image.NewGray(r)
	for i := range gray.Pix {
		gray.Pix[i] = uint8(i * 9)
	}
	for _, src := range []image.Image{gray, ycc(image.YCbCrSubsampleRatio444), ycc(image.YCbCrSubsampleRatio420),
		ycc(image.YCbCrSubsampleRatio422), ycc(image.YCbCrSubsampleRatio440), ycc(image.YCbCrSubsampleRatio411)} {
		for _, deg := range []int{90, 180, 270} {
			out := rotateImage(src, deg)
			if y, ok := src.(*image.YCbCr); ok && y.SubsampleRatio == image.YCbCrSubsampleRatio411 {
				if _, ok := out.(*image.NRGBA); !ok {
					t.Fatalf("4:1:1 turned by %d is %T, want the NRGBA copy", deg, out)
				}
			} else if reflect.TypeOf(out) != reflect.TypeOf(src) {
				t.Fatalf("%T turned by %d is %T", src, deg, out)
			}
			// Turned four times (twice for 180) it is the image again.
			back := out
			turns := 3
			if deg == 180 {
				turns = 1
			}
			for range turns {
				back = rotateImage(back, deg)
			}
			for y := 0; y < 3; y++ {
				for x := 0; x < 5; x++ {
					a := color.RGBAModel.Convert(src.At(x, y))
					b := color.RGBAModel.Convert(back.At(x, y))
					if a != b {
						t.Fatalf("%T %v turned by %d back to the start: pixel %d,%d %v, was %v", src, ratioOf(src), deg, x, y, b, a)
					}
				}
			}
		}
	}
}

func ratioOf(m image.Image) any {
	if y, ok := m.(*image.YCbCr); ok {
		return y.SubsampleRatio
	}
	return ""
}

// The frame header says what a JPEG decodes to: Go's encoder writes
// 4:2:0 colour (1.5 samples a pixel) and gray (1), baseline.
func TestJPEGFrameHeader(t *testing.T) {
	colour := halvesJPEG(t, 16, 16)
	var gray bytes.Buffer
	if err := jpeg.Encode(&gray, image.NewGray(image.Rect(0, 0, 8, 8)), nil); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name        string
		data        []byte
		samples     float64
		progressive bool
		bytes       int64
	}{
		{"colour", colour, 1.5, false, 16 * 16 * 3 / 2},
		{"gray", gray.Bytes(), 1, false, 64},
		{"progressive header", jpegHeader(100, 10, 0xc2), 1.5, true, 1000 * 15 / 2},
	} {
		h, err := readImageHeader(bytes.NewReader(c.data))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if h.jpegSamples != c.samples || h.progressive != c.progressive || h.decodedBytes() != c.bytes {
			t.Errorf("%s: %v samples, progressive %v, %d bytes; want %v, %v, %d", c.name, h.jpegSamples, h.progressive, h.decodedBytes(), c.samples, c.progressive, c.bytes)
		}
	}
}

// FuzzReadImageHeader: any bytes give a header or an error, never a
// panic, and the caps' arithmetic never goes negative.
func FuzzReadImageHeader(f *testing.F) {
	f.Add(jpegHeader(8000, 4800, 0xc2))
	f.Add(pngHeaderOnly(100_000, 100_000))
	f.Add([]byte{0xff, 0xd8, 0xff, 0xc0, 0, 2})
	f.Fuzz(func(t *testing.T, data []byte) {
		h, err := readImageHeader(bytes.NewReader(data))
		if err != nil {
			return
		}
		if h.Width >= 0 && h.Height >= 0 && h.decodedBytes() < 0 {
			t.Fatalf("%dx%d decodes to %d bytes", h.Width, h.Height, h.decodedBytes())
		}
		_ = checkPixels(h)
	})
}
