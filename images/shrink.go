package images

import (
	"image"
	"image/draw"
)

// FitSize is w x h scaled so its longer edge is maxLong (the shorter
// rounded, at least 1).
func FitSize(w, h, maxLong int) (int, int) {
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

// Shrink is m scaled down to dw x dh (each at most m's) by area
// averaging, in premultiplied RGBA. It reads m one row at a time through
// a one-row RGBA buffer (draw's fast paths convert YCbCr, gray and
// NRGBA rows), so it holds m, the result and a few rows.
func Shrink(m image.Image, dw, dh int) *image.RGBA {
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
