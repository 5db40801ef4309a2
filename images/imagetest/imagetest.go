// Package imagetest makes the images the tests of images and of padd's
// attachment routes work on: small real PNGs and JPEGs, and headers that
// state sizes no pixel data follows (what a decompression bomb shows).
package imagetest

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"testing"
)

// PatternPNG is a w x h PNG whose every pixel differs: (x, y) is the
// colour {x*16, y*16, 200, 255}.
func PatternPNG(t testing.TB, w, h int) []byte {
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

// HalvesJPEG is a w x h JPEG, red on the left half, blue on the right.
func HalvesJPEG(t testing.TB, w, h int) []byte {
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

// PNGHeaderOnly is a PNG signature and an IHDR chunk stating w x h gray
// pixels, with nothing after it: what a decompression bomb shows first.
func PNGHeaderOnly(w, h uint32) []byte { return PNGHeader(w, h, 8, 0) }

// PNGHeader is PNGHeaderOnly of bit depth depth and colour type ctype.
func PNGHeader(w, h uint32, depth, ctype byte) []byte {
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

// JPEGHeader is a JPEG's start, a JFIF segment and a frame header
// (marker sof: 0xc0 baseline, 0xc2 progressive) of w x h pixels in 4:2:0
// colour, with nothing after it.
func JPEGHeader(w, h uint16, sof byte) []byte {
	out := []byte{0xff, 0xd8, 0xff, 0xe0, 0, 16, 'J', 'F', 'I', 'F', 0, 1, 1, 0, 0, 1, 0, 1, 0, 0} // JFIF
	out = append(out, 0xff, sof, 0, 17, 8)
	out = binary.BigEndian.AppendUint16(out, h)
	out = binary.BigEndian.AppendUint16(out, w)
	return append(out, 3, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1)
}
