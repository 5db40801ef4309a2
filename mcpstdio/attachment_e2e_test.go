package mcpstdio_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"math/rand/v2"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/padd/padd/api"
)

// pad_attachment list and show, and the image resource, through padd's
// relayed session: the resource hands over an image as base64 and
// refuses a file that is not one.
func TestAttachmentsOverMCP(t *testing.T) {
	e := newEnv(t)
	ws := e.workspace("Files")
	var it api.Item
	e.do("POST", "/workspaces/"+ws+"/collections/tasks/items", map[string]any{"title": "Fix the chart"}, &it)
	var buf bytes.Buffer
	if err := png.Encode(&buf, image.NewGray(image.Rect(0, 0, 3, 2))); err != nil {
		t.Fatal(err)
	}
	img := buf.Bytes()
	ctx := context.Background()
	shot, err := e.api.UploadAttachment(ctx, ws, bytes.NewReader(img), int64(len(img)), "chart.png", it.Ref)
	if err != nil {
		t.Fatal(err)
	}
	notes, err := e.api.UploadAttachment(ctx, ws, strings.NewReader("plain notes"), -1, "notes.txt", "")
	if err != nil {
		t.Fatal(err)
	}

	cs := e.session(sessionOpts{})
	r := ok(t, cs, "pad_attachment", map[string]any{"action": "list", "workspace": ws, "item": it.Ref})
	rows := r.list("attachments")
	if len(rows) != 1 || rows[0].(map[string]any)["filename"] != "chart.png" {
		t.Fatalf("list by item: %s", r.texts[0])
	}
	r = ok(t, cs, "pad_attachment", map[string]any{"action": "list", "workspace": ws, "unattached": true})
	if rows := r.list("attachments"); len(rows) != 1 || rows[0].(map[string]any)["id"] != notes.ID {
		t.Fatalf("list unattached: %s", r.texts[0])
	}
	r = ok(t, cs, "pad_attachment", map[string]any{"action": "show", "workspace": ws, "attachment_id": shot.ID})
	if r.str("mime") != "image/png" || r.str("filename") != "chart.png" || r.str("etag") != `"`+shot.ContentHash+`"` || r.str("last_modified") == "" {
		t.Fatalf("show: %s", r.texts[0])
	}
	refused(t, cs, "pad_attachment", map[string]any{"action": "show", "workspace": ws, "attachment_id": "nope"}, api.CodeNotFound)

	c := readResource(t, cs, "pad://workspace/"+ws+"/attachments/"+shot.ID)
	if len(c) != 1 || c[0].MIMEType != "image/png" || !bytes.Equal(c[0].Blob, img) {
		got := ""
		if len(c) == 1 {
			got = base64.StdEncoding.EncodeToString(c[0].Blob)
		}
		t.Fatalf("image resource: %d contents, %q", len(c), got)
	}
	// An image over 1 MiB reaches the agent as its thumb-md (ATT-04).
	photo := noisyJPEG(t, 2000, 1500)
	if len(photo) <= api.MaxAttachmentResourceBytes {
		t.Fatalf("the photo is %d bytes; the test needs more than 1 MiB", len(photo))
	}
	big, err := e.api.UploadAttachment(ctx, ws, bytes.NewReader(photo), int64(len(photo)), "photo.jpg", it.Ref)
	if err != nil {
		t.Fatal(err)
	}
	c = readResource(t, cs, "pad://workspace/"+ws+"/attachments/"+big.ID)
	if len(c) != 1 || c[0].MIMEType != "image/jpeg" {
		t.Fatalf("a large photo as the image resource: %d contents", len(c))
	}
	if cfg, err := jpeg.DecodeConfig(bytes.NewReader(c[0].Blob)); err != nil || cfg.Width != 1024 || cfg.Height != 768 {
		t.Fatalf("the large photo's resource: %v %dx%d, want its 1024x768 thumb-md", err, cfg.Width, cfg.Height)
	}
	_, err = cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: "pad://workspace/" + ws + "/attachments/" + notes.ID})
	if err == nil || !strings.Contains(err.Error(), "not an image") {
		t.Fatalf("a text file as the image resource: %v", err)
	}
}

// noisyJPEG is a w x h JPEG (quality 95) of fixed noise (seed 29): hard
// to compress, so large.
func noisyJPEG(t *testing.T, w, h int) []byte {
	t.Helper()
	t.Logf("seed 29")
	r := rand.New(rand.NewPCG(29, 29))
	m := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			v := r.Uint32()
			m.SetRGBA(x, y, color.RGBA{uint8(v), uint8(v >> 8), uint8(v >> 16), 255})
		}
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, m, &jpeg.Options{Quality: 95}); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
