package images

import (
	"bytes"
	"image"
	"image/color"
	"image/jpeg"
	"math"
	"reflect"
	"runtime"
	"testing"

	"github.com/padd/padd/images/imagetest"
)

// The header check refuses a bomb having read its header only: far less
// memory than one row of the pixels it claims.
func TestHeaderCheckDoesNotAllocatePixels(t *testing.T) {
	bomb := imagetest.PNGHeaderOnly(60_000, 60_000)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	hdr, err := ReadHeader(bytes.NewReader(bomb))
	if err != nil {
		t.Fatal(err)
	}
	if err := Check(hdr); err == nil {
		t.Fatal("a 3.6-gigapixel image passed the check")
	}
	runtime.ReadMemStats(&after)
	if n := after.TotalAlloc - before.TotalAlloc; n > 1<<20 {
		t.Errorf("the header check allocated %d bytes", n)
	}
}

// Rotate keeps each decoder's pixel type and turns every plane,
// including odd-sized subsampled chroma.
func TestRotateKeepsTypes(t *testing.T) {
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
			out := Rotate(src, deg)
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
				back = Rotate(back, deg)
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
	colour := imagetest.HalvesJPEG(t, 16, 16)
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
		{"progressive header", imagetest.JPEGHeader(100, 10, 0xc2), 1.5, true, 1000 * 15 / 2},
	} {
		h, err := ReadHeader(bytes.NewReader(c.data))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if h.jpegSamples != c.samples || h.progressive != c.progressive || h.DecodedBytes() != c.bytes {
			t.Errorf("%s: %v samples, progressive %v, %d bytes; want %v, %v, %d", c.name, h.jpegSamples, h.progressive, h.DecodedBytes(), c.samples, c.progressive, c.bytes)
		}
	}
}

// FuzzReadHeader: any bytes give a header or an error, never a
// panic, and the caps' arithmetic never goes negative.
func FuzzReadHeader(f *testing.F) {
	f.Add(imagetest.JPEGHeader(8000, 4800, 0xc2))
	f.Add(imagetest.PNGHeaderOnly(100_000, 100_000))
	f.Add([]byte{0xff, 0xd8, 0xff, 0xc0, 0, 2})
	f.Fuzz(func(t *testing.T, data []byte) {
		h, err := ReadHeader(bytes.NewReader(data))
		if err != nil {
			return
		}
		if h.Width >= 0 && h.Height >= 0 && h.DecodedBytes() < 0 {
			t.Fatalf("%dx%d decodes to %d bytes", h.Width, h.Height, h.DecodedBytes())
		}
		_ = Check(h)
	})
}

// Shrink averages areas: a constant image stays constant and each
// destination cell's weights sum to one, at scales that do not divide.
func TestShrinkAverages(t *testing.T) {
	for _, c := range []struct{ sw, sh, dw, dh int }{{7, 5, 3, 2}, {10, 10, 3, 3}, {1000, 3, 17, 1}, {4, 4, 4, 2}, {9, 1, 2, 1}} {
		for _, n := range []int{c.sw, c.sh} {
			d := c.dw
			if n == c.sh {
				d = c.dh
			}
			_, ws := boxWeights(n, d)
			for i, w := range ws {
				var sum float64
				for _, v := range w {
					sum += float64(v)
				}
				if math.Abs(sum-1) > 1e-5 {
					t.Fatalf("%d -> %d: cell %d's weights sum to %v", n, d, i, sum)
				}
			}
		}
		src := image.NewNRGBA(image.Rect(0, 0, c.sw, c.sh))
		for i := 0; i < len(src.Pix); i += 4 {
			copy(src.Pix[i:], []byte{200, 100, 50, 255})
		}
		out := Shrink(src, c.dw, c.dh)
		for y := 0; y < c.dh; y++ {
			for x := 0; x < c.dw; x++ {
				if got := out.RGBAAt(x, y); got != (color.RGBA{200, 100, 50, 255}) {
					t.Fatalf("%dx%d -> %dx%d: pixel %d,%d is %v", c.sw, c.sh, c.dw, c.dh, x, y, got)
				}
			}
		}
	}
	if w, h := FitSize(4000, 3000, 1024); w != 1024 || h != 768 {
		t.Errorf("FitSize 4000x3000 -> %dx%d", w, h)
	}
	if w, h := FitSize(10, 5000, 256); w != 1 || h != 256 {
		t.Errorf("FitSize 10x5000 -> %dx%d", w, h)
	}
}
