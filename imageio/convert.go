package imageio

import (
	"image"
	"image/color"
	"iter"
)

// scratch holds the reusable buffers of a Y'CbCr conversion.
type scratch struct {
	cidx  []int     // chroma column of each pixel of a row
	terms []float64 // chroma terms of a row
}

// planes are the destination of a conversion, each of length W*H. The
// colour planes are either all nil or all set; gray may be nil when they
// are set.
type planes struct {
	gray, r, g, b []float64
}

// each calls f(a, b) for every plane a of p that is set and the
// corresponding plane b of q.
func (p *planes) each(q *planes, f func(a, b []float64)) {
	if p.gray != nil {
		f(p.gray, q.gray)
	}
	if p.r != nil {
		f(p.r, q.r)
		f(p.g, q.g)
		f(p.b, q.b)
	}
}

// set stores the colour (r, g, b) at index i.
func (p *planes) set(i int, r, g, b float64) {
	if p.r != nil {
		p.r[i], p.g[i], p.b[i] = r, g, b
	}
	if p.gray != nil {
		p.gray[i] = luminance(r, g, b)
	}
}

// setGray stores the grey value v at index i.
func (p *planes) setGray(i int, v float64) {
	if p.r != nil {
		p.r[i], p.g[i], p.b[i] = v, v, v
	}
	if p.gray != nil {
		p.gray[i] = v
	}
}

// luminance is Y = 0.299 R + 0.587 G + 0.114 B (ITU-R BT.601), exactly R
// when R = G = B.
func luminance(r, g, b float64) float64 {
	if r == g && g == b {
		return r
	}
	return kr*r + kg*g + kb*b
}

// unit8[v] is v/255.
var unit8 = func() (t [256]float64) {
	for v := range t {
		t[v] = float64(v) / 255
	}
	return t
}()

// unit16 is v/65535. For v = 257*u it equals u/255 exactly, since both are
// the correctly rounded quotient of the same rational number.
func unit16(v uint32) float64 { return float64(v) / 65535 }

// unpremultiply returns the non-premultiplied colour of the premultiplied
// 16-bit colour (r, g, b, a) as values in [0,1]: c/a, and black when a = 0.
func unpremultiply(r, g, b, a uint32) (float64, float64, float64) {
	switch a {
	case 0xffff:
		return unit16(r), unit16(g), unit16(b)
	case 0:
		return 0, 0, 0
	}
	fa := float64(a)
	return float64(r) / fa, float64(g) / fa, float64(b) / fa
}

// convert writes the pixels of img into p (row-major over img.Bounds()).
// ws is scratch for *image.YCbCr. Known
// image types take fast paths that read the pixel buffers directly; each
// gives the same values as convertGeneric, bit for bit, except that NRGBA
// types give their stored colour where alpha < 1 (see the package
// documentation) and Y'CbCr is converted more exactly (see convertYCbCr).
func convert(img image.Image, p *planes, ws *scratch) {
	b := img.Bounds()
	w := b.Dx()
	i := 0
	switch m := img.(type) {
	case *image.Gray:
		for y := b.Min.Y; y < b.Max.Y; y++ {
			row := m.Pix[m.PixOffset(b.Min.X, y):][:w]
			for _, v := range row {
				p.setGray(i, unit8[v])
				i++
			}
		}
	case *image.Gray16:
		for y := b.Min.Y; y < b.Max.Y; y++ {
			row := m.Pix[m.PixOffset(b.Min.X, y):][:2*w]
			for x := 0; x < len(row); x += 2 {
				p.setGray(i, unit16(uint32(row[x])<<8|uint32(row[x+1])))
				i++
			}
		}
	case *image.RGBA:
		convertRGBA(p, m.Pix[m.PixOffset(b.Min.X, b.Min.Y):], m.Stride, w, b.Dy(), true)
	case *image.NRGBA:
		convertRGBA(p, m.Pix[m.PixOffset(b.Min.X, b.Min.Y):], m.Stride, w, b.Dy(), false)
	case *image.RGBA64:
		convertRGBA64(p, m.Pix[m.PixOffset(b.Min.X, b.Min.Y):], m.Stride, w, b.Dy(), true)
	case *image.NRGBA64:
		convertRGBA64(p, m.Pix[m.PixOffset(b.Min.X, b.Min.Y):], m.Stride, w, b.Dy(), false)
	case *image.YCbCr:
		convertYCbCr(m, p, ws)
	case *image.Paletted:
		convertPaletted(m, p)
	default:
		convertGeneric(img, p)
	}
}

// convertRGBA converts the rows of w x h 8-bit RGBA pixels at pix, stride
// bytes apart: premultiplied colours (image.RGBA) are divided by alpha,
// non-premultiplied ones (image.NRGBA) are taken as stored.
func convertRGBA(p *planes, pix []byte, stride, w, h int, premultiplied bool) {
	for i, s := range pixels(pix, stride, w, h, 4) {
		if !premultiplied || s[3] == 0xff {
			p.set(i, unit8[s[0]], unit8[s[1]], unit8[s[2]])
		} else {
			r, g, bl := unpremultiply(uint32(s[0])*0x101, uint32(s[1])*0x101, uint32(s[2])*0x101, uint32(s[3])*0x101)
			p.set(i, r, g, bl)
		}
	}
}

// convertRGBA64 is convertRGBA for 16-bit big-endian samples
// (image.RGBA64 and image.NRGBA64).
func convertRGBA64(p *planes, pix []byte, stride, w, h int, premultiplied bool) {
	for i, s := range pixels(pix, stride, w, h, 8) {
		r, g, bl := uint32(s[0])<<8|uint32(s[1]), uint32(s[2])<<8|uint32(s[3]), uint32(s[4])<<8|uint32(s[5])
		if premultiplied {
			fr, fg, fb := unpremultiply(r, g, bl, uint32(s[6])<<8|uint32(s[7]))
			p.set(i, fr, fg, fb)
		} else {
			p.set(i, unit16(r), unit16(g), unit16(bl))
		}
	}
}

// pixels yields, in row order, the index and the n bytes of each of the
// w x h pixels at pix, whose rows are stride bytes apart.
func pixels(pix []byte, stride, w, h, n int) iter.Seq2[int, []byte] {
	return func(yield func(int, []byte) bool) {
		i := 0
		for y := range h {
			row := pix[y*stride:][:n*w]
			for x := 0; x < len(row); x += n {
				if !yield(i, row[x:x+n:x+n]) {
					return
				}
				i++
			}
		}
	}
}

// BT.601 luma weights, which also define the JFIF Y'CbCr transform.
const (
	kr = 0.299
	kg = 0.587
	kb = 0.114
)

// Tables of the chroma terms of the JFIF transform (JFIF 1.02, Sec. 7),
// with coefficients derived exactly from the luma weights:
//
//	R = Y + 2(1-kr) (Cr-128)
//	G = Y - 2kb(1-kb)/kg (Cb-128) - 2kr(1-kr)/kg (Cr-128)
//	B = Y + 2(1-kb) (Cb-128)
//
// (1.402, 0.344136, 0.714136, 1.772), each divided by 255. With these, the
// luminance of (R, G, B) is Y exactly, before clamping.
var crToR, cbToG, crToG, cbToB = func() (r, gb, gr, b [256]float64) {
	for c := range 256 {
		d := float64(c-128) / 255
		r[c] = 2 * (1 - kr) * d
		gb[c] = 2 * kb * (1 - kb) / kg * d
		gr[c] = 2 * kr * (1 - kr) / kg * d
		b[c] = 2 * (1 - kb) * d
	}
	return
}()

// clamp1 clamps v to [0,1]. Branches beat the min and max builtins, whose
// NaN and signed-zero handling costs some 15 instructions: saturated pixels
// come in runs, so the branches predict well.
func clamp1(v float64) float64 {
	if v < 0 {
		return 0
	}
	if v > 1 {
		return 1
	}
	return v
}

// convertYCbCr converts any subsample ratio, with the chroma addressing of
// image.YCbCr.COffset, by the JFIF equations in float64, clamped to [0,1].
// This is exact where color.YCbCrToRGB rounds to 8 bits and
// color.YCbCr.RGBA (the generic path) to 16 bits with a chroma scale of
// 256/257; both stay within 1/255 of it.
func convertYCbCr(m *image.YCbCr, p *planes, ws *scratch) {
	b := m.Rect
	w := b.Dx()
	dx, dy := 1, 1
	switch m.SubsampleRatio {
	case image.YCbCrSubsampleRatio422:
		dx = 2
	case image.YCbCrSubsampleRatio420:
		dx, dy = 2, 2
	case image.YCbCrSubsampleRatio440:
		dy = 2
	case image.YCbCrSubsampleRatio411:
		dx = 4
	case image.YCbCrSubsampleRatio410:
		dx, dy = 4, 2
	}
	// The chroma column of each pixel of a row, and the chroma terms of
	// each pixel of the current chroma row: cr, cg, cb are added to Y/255
	// to give R, G, B.
	if cap(ws.cidx) < w {
		ws.cidx = make([]int, w)
	}
	cidx := ws.cidx[:w]
	for x := range cidx {
		cidx[x] = (b.Min.X+x)/dx - b.Min.X/dx
	}
	ws.terms = grow(ws.terms, 3*w)
	cr, cg, cb := ws.terms[:w], ws.terms[w:2*w], ws.terms[2*w:]
	lastC := -1
	i := 0
	for y := b.Min.Y; y < b.Max.Y; y++ {
		if c0 := (y/dy - b.Min.Y/dy) * m.CStride; c0 != lastC {
			lastC = c0
			cbrow, crrow := m.Cb[c0:], m.Cr[c0:]
			for x, k := range cidx {
				vb, vr := cbrow[k], crrow[k]
				cr[x], cg[x], cb[x] = crToR[vr], -cbToG[vb]-crToG[vr], cbToB[vb]
			}
		}
		yrow := m.Y[m.YOffset(b.Min.X, y):][:w]
		switch {
		case p.gray == nil:
			rr, gg, bb := p.r[i:i+w], p.g[i:i+w], p.b[i:i+w]
			for x, yy := range yrow {
				v := unit8[yy]
				rr[x], gg[x], bb[x] = clamp1(v+cr[x]), clamp1(v+cg[x]), clamp1(v+cb[x])
			}
		case p.r == nil:
			gray := p.gray[i : i+w]
			for x, yy := range yrow {
				v := unit8[yy]
				gray[x] = luminance(clamp1(v+cr[x]), clamp1(v+cg[x]), clamp1(v+cb[x]))
			}
		default:
			gray, rr, gg, bb := p.gray[i:i+w], p.r[i:i+w], p.g[i:i+w], p.b[i:i+w]
			for x, yy := range yrow {
				v := unit8[yy]
				r, g, bl := clamp1(v+cr[x]), clamp1(v+cg[x]), clamp1(v+cb[x])
				rr[x], gg[x], bb[x] = r, g, bl
				gray[x] = luminance(r, g, bl)
			}
		}
		i += w
	}
}

// convertPaletted converts through a table of the palette's colours.
// Indices beyond the palette, on which image.Paletted.At would panic, give
// black.
func convertPaletted(m *image.Paletted, p *planes) {
	var r, g, bl, gray [256]float64
	for k, c := range m.Palette {
		if k == len(r) {
			break
		}
		if c == nil {
			continue
		}
		r[k], g[k], bl[k] = unpremultiply(c.RGBA())
		gray[k] = luminance(r[k], g[k], bl[k])
	}
	b := m.Rect
	w := b.Dx()
	i := 0
	for y := b.Min.Y; y < b.Max.Y; y++ {
		row := m.Pix[m.PixOffset(b.Min.X, y):][:w]
		for _, k := range row {
			if p.r != nil {
				p.r[i], p.g[i], p.b[i] = r[k], g[k], bl[k]
			}
			if p.gray != nil {
				p.gray[i] = gray[k]
			}
			i++
		}
	}
}

// convertGeneric converts any image through its 16-bit premultiplied
// colours.
func convertGeneric(img image.Image, p *planes) {
	b := img.Bounds()
	i := 0
	if m, ok := img.(image.RGBA64Image); ok {
		for y := b.Min.Y; y < b.Max.Y; y++ {
			for x := b.Min.X; x < b.Max.X; x++ {
				c := m.RGBA64At(x, y)
				r, g, bl := unpremultiply(uint32(c.R), uint32(c.G), uint32(c.B), uint32(c.A))
				p.set(i, r, g, bl)
				i++
			}
		}
		return
	}
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl := unpremultiply(img.At(x, y).RGBA())
			p.set(i, r, g, bl)
			i++
		}
	}
}

// depthOf is the bits per sample of img's colour model: 16 for the 16-bit
// models, else 8.
func depthOf(img image.Image) int {
	switch img.ColorModel() {
	case color.Gray16Model, color.RGBA64Model, color.NRGBA64Model, color.Alpha16Model:
		return 16
	}
	return 8
}
