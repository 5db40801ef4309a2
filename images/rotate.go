package images

import (
	"image"
	"image/draw"
)

// A rotation is an exact reordering of pixels (no resampling) that keeps
// the decoder's pixel type where it can, so a JPEG rotates in its own
// YCbCr planes (1.5 bytes a pixel for 4:2:0) instead of a 4-byte copy.

// Crop is m cut to r (in m's pixels, already checked to overlap m):
// a view of m's pixels, not a copy.
func Crop(m image.Image, r image.Rectangle) image.Image {
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

// Rotate is m turned clockwise by deg (90, 180 or 270).
func Rotate(m image.Image, deg int) image.Image {
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
	return Rotate(c, deg)
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
