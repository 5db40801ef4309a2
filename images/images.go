// Package images decodes untrusted images under stated caps and does the
// pixel work behind attachments' transform and thumbnails
// (docs/ATTACHMENTS.md), with the standard library only. A header is read
// and judged against the caps before any pixel is decoded, and one image
// is decoded and worked on at a time in the process.
package images

import (
	"bufio"
	"context"
	"image"
	_ "image/gif" // the formats Decode and ReadHeader read
	"image/jpeg"
	"image/png"
	"io"
)

// Workable reports whether h is an image padd works on: a PNG, JPEG or
// GIF with a size.
func (h Header) Workable() bool {
	return (h.Format == "png" || h.Format == "jpeg" || h.Format == "gif") && h.Width > 0 && h.Height > 0
}

// Acquire waits for the process's one image slot, or for ctx; release
// gives it back.
func Acquire(ctx context.Context) (release func(), err error) {
	select {
	case slots <- struct{}{}:
		return func() { <-slots }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Decode decodes the image r holds, from its first byte. Its header
// must have been judged (ReadHeader, then the caps) and the slot taken
// (Acquire).
func Decode(r io.Reader) (image.Image, error) {
	m, _, err := image.Decode(bufio.NewReader(r))
	return m, err
}

// Size reads an image's width and height from its header; false when r
// holds no image of a format padd reads.
func Size(r io.Reader) (width, height int, ok bool) {
	cfg, _, err := image.DecodeConfig(bufio.NewReader(r))
	if err != nil {
		return 0, 0, false
	}
	return cfg.Width, cfg.Height, true
}

// JPEGQuality is the quality of the JPEG padd writes (Pad's).
const JPEGQuality = 85

// slots lets one image be decoded and worked on at a time in the
// process, so the pixels held at once are bounded by one image under
// MaxPixels, however many requests arrive together.
var slots = make(chan struct{}, 1)

// OutputFormat is the format padd writes a worked image in: PNG stays
// PNG (it may hold transparency), everything else becomes JPEG (Pad's
// policy).
func OutputFormat(decoded string) (format, mimeType, ext string) {
	if decoded == "png" {
		return "png", "image/png", ".png"
	}
	return "jpeg", "image/jpeg", ".jpg"
}

// Encode writes m in format ("png" or "jpeg").
func Encode(w io.Writer, m image.Image, format string) error {
	if format == "png" {
		enc := png.Encoder{CompressionLevel: png.DefaultCompression}
		return enc.Encode(w, m)
	}
	return jpeg.Encode(w, m, &jpeg.Options{Quality: JPEGQuality})
}
