package images

import (
	"bufio"
	"fmt"
	"image"
	"image/color"
	"io"
)

// MaxPixels is the most pixels an image padd decodes may have, as its
// header states them: Pad's cap (8000 x 8000). An image over it is refused
// before any pixel buffer is allocated.
const MaxPixels = 8000 * 8000

// MaxBytes is the most bytes an image padd decodes may take in
// memory, decoded (its pixels times the bytes a pixel of its colour model
// takes): 16-bit images near MaxPixels are refused by it. A worked
// image holds its pixels and the result's, so at most twice this.
const MaxBytes = 256 << 20

// bytesPerPixel is what one pixel of model takes decoded (4:4:4 for
// YCbCr, the most it may take).
func bytesPerPixel(model color.Model) int64 {
	switch model {
	case color.GrayModel:
		return 1
	case color.Gray16Model:
		return 2
	case color.YCbCrModel:
		return 3
	case color.RGBA64Model, color.NRGBA64Model:
		return 8
	}
	if _, ok := model.(color.Palette); ok {
		return 1
	}
	return 4
}

// Header is what an image's header says, read before any pixel.
type Header struct {
	image.Config
	Format string
	// JPEG only: the samples a pixel decodes to (1.5 for 4:2:0 colour)
	// and whether the frame is progressive, whose decoder also holds every
	// coefficient (4 bytes a sample) until the end.
	jpegSamples float64
	progressive bool
}

// ReadHeader reads f's header: image.DecodeConfig, and for a JPEG
// its frame header's sampling and mode. f is left anywhere.
func ReadHeader(f io.ReadSeeker) (Header, error) {
	cfg, format, err := image.DecodeConfig(bufio.NewReader(f))
	if err != nil {
		return Header{}, err
	}
	h := Header{Config: cfg, Format: format}
	if format == "jpeg" {
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return h, err
		}
		h.jpegSamples, h.progressive = jpegFrame(bufio.NewReader(f))
	}
	return h, nil
}

// DecodedBytes is what decoding the image takes in memory: its pixels
// times the bytes a pixel of its colour model takes (a JPEG's from its
// frame header, with a progressive one's coefficients).
func (h Header) DecodedBytes() int64 {
	px := int64(h.Width) * int64(h.Height)
	if h.Format != "jpeg" || h.jpegSamples == 0 {
		return px * bytesPerPixel(h.ColorModel)
	}
	per := max(h.jpegSamples, float64(bytesPerPixel(h.ColorModel)))
	if h.ColorModel == color.YCbCrModel {
		per = h.jpegSamples
	}
	if h.progressive {
		per += 4 * h.jpegSamples
	}
	return int64(float64(px) * per)
}

// jpegFrame reads a JPEG's marker segments up to its frame header and
// answers the samples a pixel decodes to (each component's sampling
// over the largest) and whether the frame is progressive; 0 when it
// finds no frame header.
func jpegFrame(r *bufio.Reader) (samples float64, progressive bool) {
	var b [2]byte
	if _, err := io.ReadFull(r, b[:]); err != nil || b != [2]byte{0xff, 0xd8} {
		return 0, false
	}
	for {
		c, err := r.ReadByte()
		if err != nil {
			return 0, false
		}
		if c != 0xff {
			continue
		}
		m := byte(0xff)
		for m == 0xff && err == nil {
			m, err = r.ReadByte()
		}
		if err != nil {
			return 0, false
		}
		switch {
		case m == 0x01 || m == 0xd8 || (m >= 0xd0 && m <= 0xd7):
			continue // no length
		case m == 0xd9 || m == 0xda:
			return 0, false // the image ended or its data began without a frame header
		}
		if _, err := io.ReadFull(r, b[:]); err != nil {
			return 0, false
		}
		n := int(b[0])<<8 | int(b[1])
		if n < 2 {
			return 0, false
		}
		if m < 0xc0 || m > 0xcf || m == 0xc4 || m == 0xc8 || m == 0xcc {
			if _, err := r.Discard(n - 2); err != nil {
				return 0, false
			}
			continue
		}
		seg := make([]byte, n-2)
		if _, err := io.ReadFull(r, seg); err != nil || len(seg) < 6 {
			return 0, false
		}
		comps := int(seg[5])
		if comps == 0 || len(seg) < 6+3*comps {
			return 0, false
		}
		var hmax, vmax, sum int
		for i := 0; i < comps; i++ {
			hv := seg[6+3*i+1]
			h, v := int(hv>>4), int(hv&15)
			hmax, vmax = max(hmax, h), max(vmax, v)
			sum += h * v
		}
		if hmax == 0 || vmax == 0 {
			return 0, false
		}
		return float64(sum) / float64(hmax*vmax), m == 0xc2 || m == 0xc6 || m == 0xca || m == 0xce
	}
}

// TooLarge is an image over the caps: more pixels than MaxPixels
// (Reason "pixels") or more decoded bytes than MaxBytes ("decoded_bytes").
type TooLarge struct {
	Width, Height int
	Bytes         int64 // decoded, for "decoded_bytes"
	Reason        string
}

func (e *TooLarge) Error() string {
	if e.Reason == "pixels" {
		return fmt.Sprintf("the image is %dx%d pixels; padd works on images of at most %d pixels (8000x8000)", e.Width, e.Height, MaxPixels)
	}
	return fmt.Sprintf("the %dx%d image takes %d MiB decoded; padd works on at most %d MiB", e.Width, e.Height, e.Bytes>>20, MaxBytes>>20)
}

// Check refuses an image whose header states more pixels than MaxPixels
// or more decoded bytes than MaxBytes (a *TooLarge): a decompression bomb
// is refused before it is decoded.
func Check(h Header) error {
	if int64(h.Width)*int64(h.Height) > MaxPixels {
		return &TooLarge{Width: h.Width, Height: h.Height, Reason: "pixels"}
	}
	if n := h.DecodedBytes(); n > MaxBytes {
		return &TooLarge{Width: h.Width, Height: h.Height, Bytes: n, Reason: "decoded_bytes"}
	}
	return nil
}
