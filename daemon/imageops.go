package daemon

import (
	"bufio"
	"image"
	"image/color"
	"image/draw"
	"image/jpeg"
	"image/png"
	"io"
)

// The image work behind transform (docs/ATTACHMENTS.md): only the
// standard library. A rotation is an exact reordering of pixels (no
// resampling) that keeps the decoder's pixel type where it can, so a JPEG
// rotates in its own YCbCr planes (1.5 bytes a pixel for 4:2:0) instead
// of a 4-byte copy.

// MaxImagePixels is the most pixels an image padd decodes may have, as its
// header states them: Pad's cap (8000 x 8000). An image over it is refused
// before any pixel buffer is allocated.
const MaxImagePixels = 8000 * 8000

// MaxImageBytes is the most bytes an image padd decodes may take in
// memory, decoded (its pixels times the bytes a pixel of its colour model
// takes): 16-bit images near MaxImagePixels are refused by it. A worked
// image holds its pixels and the result's, so at most twice this.
const MaxImageBytes = 256 << 20

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

// imageHeader is what an image's header says, read before any pixel.
type imageHeader struct {
	image.Config
	Format string
	// JPEG only: the samples a pixel decodes to (1.5 for 4:2:0 colour)
	// and whether the frame is progressive, whose decoder also holds every
	// coefficient (4 bytes a sample) until the end.
	jpegSamples float64
	progressive bool
}

// readImageHeader reads f's header: image.DecodeConfig, and for a JPEG
// its frame header's sampling and mode. f is left anywhere.
func readImageHeader(f io.ReadSeeker) (imageHeader, error) {
	cfg, format, err := image.DecodeConfig(bufio.NewReader(f))
	if err != nil {
		return imageHeader{}, err
	}
	h := imageHeader{Config: cfg, Format: format}
	if format == "jpeg" {
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return h, err
		}
		h.jpegSamples, h.progressive = jpegFrame(bufio.NewReader(f))
	}
	return h, nil
}

// decodedBytes is what decoding the image takes in memory: its pixels
// times the bytes a pixel of its colour model takes (a JPEG's from its
// frame header, with a progressive one's coefficients).
func (h imageHeader) decodedBytes() int64 {
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

// JPEGQuality is the quality of the JPEG padd writes (Pad's).
const JPEGQuality = 85

// imageSlots lets one image be decoded and worked on at a time in the
// process, so the pixels held at once are bounded by one image under
// MaxImagePixels, however many requests arrive together.
var imageSlots = make(chan struct{}, 1)

// outputFormat is the format padd writes a worked image in: PNG stays
// PNG (it may hold transparency), everything else becomes JPEG (Pad's
// policy).
func outputFormat(decoded string) (format, mimeType, ext string) {
	if decoded == "png" {
		return "png", "image/png", ".png"
	}
	return "jpeg", "image/jpeg", ".jpg"
}

// encodeImage writes m in format ("png" or "jpeg").
func encodeImage(w io.Writer, m image.Image, format string) error {
	if format == "png" {
		enc := png.Encoder{CompressionLevel: png.DefaultCompression}
		return enc.Encode(w, m)
	}
	return jpeg.Encode(w, m, &jpeg.Options{Quality: JPEGQuality})
}

// cropImage is m cut to r (in m's pixels, already checked to overlap m):
// a view of m's pixels, not a copy.
func cropImage(m image.Image, r image.Rectangle) image.Image {
	r = r.Add(m.Bounds().Min).Intersect(m.Bounds())
	if s, ok := m.(interface {
		SubImage(image.Rectangle) image.Image
	}); ok {
		return s.SubImage(r)
	}
	out := image.NewNRGBA(image.Rect(0, 0, r.Dx(), r.Dy()))
	draw.Draw(out, out.Bounds(), m, r.Min, draw.Src)
	return out
}

// rotateImage is m turned clockwise by deg (90, 180 or 270).
func rotateImage(m image.Image, deg int) image.Image {
	b := m.Bounds()
	w, h := b.Dx(), b.Dy()
	nw, nh := w, h
	if deg != 180 {
		nw, nh = h, w
	}
	nr := image.Rect(0, 0, nw, nh)
	switch s := m.(type) {
	case *image.Gray:
		d := image.NewGray(nr)
		rotatePlane(d.Pix, d.Stride, s.Pix[s.PixOffset(b.Min.X, b.Min.Y):], s.Stride, w, h, 1, deg)
		return d
	case *image.Gray16:
		d := image.NewGray16(nr)
		rotatePlane(d.Pix, d.Stride, s.Pix[s.PixOffset(b.Min.X, b.Min.Y):], s.Stride, w, h, 2, deg)
		return d
	case *image.RGBA:
		d := image.NewRGBA(nr)
		rotatePlane(d.Pix, d.Stride, s.Pix[s.PixOffset(b.Min.X, b.Min.Y):], s.Stride, w, h, 4, deg)
		return d
	case *image.NRGBA:
		d := image.NewNRGBA(nr)
		rotatePlane(d.Pix, d.Stride, s.Pix[s.PixOffset(b.Min.X, b.Min.Y):], s.Stride, w, h, 4, deg)
		return d
	case *image.RGBA64:
		d := image.NewRGBA64(nr)
		rotatePlane(d.Pix, d.Stride, s.Pix[s.PixOffset(b.Min.X, b.Min.Y):], s.Stride, w, h, 8, deg)
		return d
	case *image.NRGBA64:
		d := image.NewNRGBA64(nr)
		rotatePlane(d.Pix, d.Stride, s.Pix[s.PixOffset(b.Min.X, b.Min.Y):], s.Stride, w, h, 8, deg)
		return d
	case *image.CMYK:
		d := image.NewCMYK(nr)
		rotatePlane(d.Pix, d.Stride, s.Pix[s.PixOffset(b.Min.X, b.Min.Y):], s.Stride, w, h, 4, deg)
		return d
	case *image.Paletted:
		d := image.NewPaletted(nr, s.Palette)
		rotatePlane(d.Pix, d.Stride, s.Pix[s.PixOffset(b.Min.X, b.Min.Y):], s.Stride, w, h, 1, deg)
		return d
	case *image.YCbCr:
		if d := rotateYCbCr(s, deg); d != nil {
			return d
		}
	}
	// Any other type (or a YCbCr whose subsampling does not turn into
	// one Go has): through a 4-byte copy.
	c := image.NewNRGBA(image.Rect(0, 0, w, h))
	draw.Draw(c, c.Bounds(), m, b.Min, draw.Src)
	return rotateImage(c, deg)
}

// rotatedRatio is the subsampling of a YCbCr image turned by 90 or 270
// degrees, false when Go has no such ratio.
func rotatedRatio(r image.YCbCrSubsampleRatio) (image.YCbCrSubsampleRatio, bool) {
	switch r {
	case image.YCbCrSubsampleRatio444, image.YCbCrSubsampleRatio420:
		return r, true
	case image.YCbCrSubsampleRatio422:
		return image.YCbCrSubsampleRatio440, true
	case image.YCbCrSubsampleRatio440:
		return image.YCbCrSubsampleRatio422, true
	}
	return 0, false
}

// rotateYCbCr turns a decoder's YCbCr image plane by plane; nil when it
// cannot (an origin other than 0,0, a subsampling with no turned form).
func rotateYCbCr(s *image.YCbCr, deg int) image.Image {
	b := s.Bounds()
	if b.Min != (image.Point{}) {
		return nil
	}
	ratio, ok := rotatedRatio(s.SubsampleRatio)
	if !ok {
		return nil
	}
	w, h := b.Dx(), b.Dy()
	nr := image.Rect(0, 0, h, w)
	if deg == 180 {
		ratio, nr = s.SubsampleRatio, image.Rect(0, 0, w, h)
	}
	d := image.NewYCbCr(nr, ratio)
	cw, ch := chromaSize(s.SubsampleRatio, w, h)
	rotatePlane(d.Y, d.YStride, s.Y, s.YStride, w, h, 1, deg)
	rotatePlane(d.Cb, d.CStride, s.Cb, s.CStride, cw, ch, 1, deg)
	rotatePlane(d.Cr, d.CStride, s.Cr, s.CStride, cw, ch, 1, deg)
	return d
}

// chromaSize is the size of a chroma plane of a w x h image at 0,0.
func chromaSize(r image.YCbCrSubsampleRatio, w, h int) (int, int) {
	switch r {
	case image.YCbCrSubsampleRatio422:
		return (w + 1) / 2, h
	case image.YCbCrSubsampleRatio420:
		return (w + 1) / 2, (h + 1) / 2
	case image.YCbCrSubsampleRatio440:
		return w, (h + 1) / 2
	}
	return w, h
}

// rotatePlane copies the w x h plane src (bpp bytes a pixel, rows stride
// apart) into dst turned clockwise by deg: the pixel at x, y goes to
// h-1-y, x (90), w-1-x, h-1-y (180) or y, w-1-x (270). Each source row
// is one walk through dst with a fixed step.
func rotatePlane(dst []byte, dstStride int, src []byte, srcStride, w, h, bpp, deg int) {
	for y := 0; y < h; y++ {
		row := src[y*srcStride : y*srcStride+w*bpp]
		var o, step int
		switch deg {
		case 90:
			o, step = (h-1-y)*bpp, dstStride
		case 180:
			o, step = (h-1-y)*dstStride+(w-1)*bpp, -bpp
		default:
			o, step = (w-1)*dstStride+y*bpp, -dstStride
		}
		if bpp == 1 {
			for _, v := range row {
				dst[o] = v
				o += step
			}
			continue
		}
		for x := 0; x < len(row); x += bpp {
			copy(dst[o:o+bpp], row[x:x+bpp])
			o += step
		}
	}
}

// fitSize is w x h scaled so its longer edge is maxLong (the shorter
// rounded, at least 1).
func fitSize(w, h, maxLong int) (int, int) {
	if w >= h {
		return maxLong, max(1, (h*maxLong+w/2)/w)
	}
	return max(1, (w*maxLong+h/2)/h), maxLong
}

// boxWeights says, for each of dn destination cells over sn source cells
// (dn <= sn), the first source cell it covers and the share of each
// covered cell (the cell's overlap over the destination cell's width):
// an area average, the filter that loses nothing when shrinking.
func boxWeights(sn, dn int) (first []int, weights [][]float32) {
	first = make([]int, dn)
	weights = make([][]float32, dn)
	scale := float64(sn) / float64(dn)
	for d := 0; d < dn; d++ {
		lo, hi := float64(d)*scale, float64(d+1)*scale
		s0 := int(lo)
		first[d] = s0
		for s := s0; s < sn && float64(s) < hi; s++ {
			ov := min(hi, float64(s+1)) - max(lo, float64(s))
			weights[d] = append(weights[d], float32(ov/scale))
		}
	}
	return first, weights
}

// shrinkImage is m scaled down to dw x dh (each at most m's) by area
// averaging, in premultiplied RGBA. It reads m one row at a time through
// a one-row RGBA buffer (draw's fast paths convert YCbCr, gray and
// NRGBA rows), so it holds m, the result and a few rows.
func shrinkImage(m image.Image, dw, dh int) *image.RGBA {
	b := m.Bounds()
	sw, sh := b.Dx(), b.Dy()
	xFirst, xW := boxWeights(sw, dw)
	yFirst, yW := boxWeights(sh, dh)
	out := image.NewRGBA(image.Rect(0, 0, dw, dh))
	row := image.NewRGBA(image.Rect(0, 0, sw, 1))
	hrow := make([]float32, dw*4)
	acc := make([]float32, dw*4) // the destination row being summed
	d := 0                       // that row
	for sy := 0; sy < sh && d < dh; sy++ {
		draw.Draw(row, row.Rect, m, image.Pt(b.Min.X, b.Min.Y+sy), draw.Src)
		for dx := 0; dx < dw; dx++ {
			var r, g, bl, a float32
			p := xFirst[dx] * 4
			for _, wt := range xW[dx] {
				r += wt * float32(row.Pix[p])
				g += wt * float32(row.Pix[p+1])
				bl += wt * float32(row.Pix[p+2])
				a += wt * float32(row.Pix[p+3])
				p += 4
			}
			hrow[dx*4], hrow[dx*4+1], hrow[dx*4+2], hrow[dx*4+3] = r, g, bl, a
		}
		// Source row sy is in destination row d; when it is d's last, d is
		// written, and sy may also start row d+1 (it straddles the two).
		i := sy - yFirst[d]
		for k, v := range hrow {
			acc[k] += yW[d][i] * v
		}
		if i < len(yW[d])-1 {
			continue
		}
		o := out.Pix[d*out.Stride : d*out.Stride+dw*4]
		for k, v := range acc {
			o[k] = uint8(min(255, v+0.5))
			acc[k] = 0
		}
		d++
		if d < dh && yFirst[d] == sy {
			for k, v := range hrow {
				acc[k] += yW[d][0] * v
			}
		}
	}
	return out
}
