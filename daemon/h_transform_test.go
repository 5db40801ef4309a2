package daemon

import (
	"bytes"
	"image"
	"image/color"
	"image/gif"
	"testing"

	"github.com/padd/padd/api"
	"github.com/padd/padd/images/imagetest"
)

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
	orig := imagetest.PatternPNG(t, w, ht)
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
	up := h.upload(imagetest.HalvesJPEG(t, 32, 16), "photo.JPEG", it.Ref, 201)
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
	up := h.upload(imagetest.PatternPNG(t, 4, 4), "shot.png", it.Ref, 201)
	text := h.upload([]byte("just text, not an image"), "notes.txt", it.Ref, 201)
	bomb := h.upload(imagetest.PNGHeaderOnly(100_000, 100_000), "bomb.png", it.Ref, 201)
	justOver := h.upload(imagetest.PNGHeaderOnly(8001, 8000), "big.png", it.Ref, 201)
	deep := h.upload(imagetest.PNGHeader(6000, 6000, 16, 6), "deep.png", it.Ref, 201) // 36 Mpx of 8 bytes
	// 38.4 Mpx of 4:2:0: 58 MB decoded, and 230 MB more of coefficients when progressive.
	baseline := h.upload(imagetest.JPEGHeader(8000, 4800, 0xc0), "flat.jpg", it.Ref, 201)
	progressive := h.upload(imagetest.JPEGHeader(8000, 4800, 0xc2), "prog.jpg", it.Ref, 201)
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
