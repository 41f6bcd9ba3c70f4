// Package jpegtest writes baseline JPEG files with the features that
// image/jpeg's encoder does not write, for tests of JPEG decoders: any
// sampling factors (4:4:4, 4:2:2, 4:4:0, 4:1:1, ...), restart intervals
// (DRI and RSTn), one scan per component, chosen component ids, an Adobe
// marker, and progressive files of a DC scan alone. It follows ITU-T T.81
// directly and slowly (a floating-point DCT by its definition), and its
// Huffman tables are not optimal but mix short codes with codes of more
// than 9 bits.
package jpegtest

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"math"
	"testing"
)

// Options says how Encode writes a file. The zero value writes a grey
// baseline file with quantisation step 2.
type Options struct {
	// Sampling holds each component's horizontal and vertical sampling
	// factors (1..4): one component makes a grey file of the image's
	// luminance, three a Y'CbCr one, each chroma sample the mean of the
	// pixels it covers. Empty means one component, 1x1.
	Sampling [][2]int
	// Quant is the quantisation step of the DC coefficient; the k-th
	// coefficient in zig-zag order has step Quant + k*Slope. 0 means 2.
	Quant, Slope int
	// Restart, when positive, is the restart interval in MCUs (a DRI
	// segment and RSTn markers).
	Restart int
	// Separate codes each component in a scan of its own
	// (non-interleaved), in component order.
	Separate bool
	// ProgressiveDC writes a progressive (SOF2) frame whose only scan is
	// the first DC scan: every block is its DC value.
	ProgressiveDC bool
	// IDs are the component ids; nil means 1, 2, 3.
	IDs []byte
	// Adobe, when not nil, writes an Adobe APP14 segment with this colour
	// transform; otherwise a JFIF APP0 segment is written, unless NoJFIF.
	Adobe  *byte
	NoJFIF bool
}

// component is a component being encoded.
type component struct {
	h, v    int
	samples []float64 // padded plane, bw*8 x bh*8, level-shifted
	bw, bh  int       // blocks of the padded plane
	nbw     int       // blocks across of a non-interleaved scan
	nbh     int
	coef    [][64]int32 // quantised, zig-zag order, per block of the plane
	pred    int32
	tq      int
}

// Encode encodes img as o says.
func Encode(img image.Image, o Options) ([]byte, error) {
	if len(o.Sampling) == 0 {
		o.Sampling = [][2]int{{1, 1}}
	}
	if o.Quant == 0 {
		o.Quant = 2
	}
	nc := len(o.Sampling)
	if nc != 1 && nc != 3 {
		return nil, fmt.Errorf("jpegtest: %d components", nc)
	}
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	if w < 1 || h < 1 || w > 65535 || h > 65535 {
		return nil, fmt.Errorf("jpegtest: size %dx%d", w, h)
	}
	ids := o.IDs
	if ids == nil {
		ids = []byte{1, 2, 3}[:nc]
	}
	// Full-resolution planes.
	full := make([][]float64, nc)
	for i := range full {
		full[i] = make([]float64, w*h)
	}
	for y := range h {
		for x := range w {
			c := img.At(b.Min.X+x, b.Min.Y+y)
			if nc == 1 {
				full[0][y*w+x] = float64(color.GrayModel.Convert(c).(color.Gray).Y)
				continue
			}
			r, g, bl, _ := c.RGBA()
			yy, cb, cr := color.RGBToYCbCr(uint8(r>>8), uint8(g>>8), uint8(bl>>8))
			full[0][y*w+x], full[1][y*w+x], full[2][y*w+x] = float64(yy), float64(cb), float64(cr)
		}
	}
	hmax, vmax := 1, 1
	for _, s := range o.Sampling {
		if s[0] < 1 || s[0] > 4 || s[1] < 1 || s[1] > 4 {
			return nil, fmt.Errorf("jpegtest: sampling %v", s)
		}
		hmax, vmax = max(hmax, s[0]), max(vmax, s[1])
	}
	mcusx, mcusy := (w+8*hmax-1)/(8*hmax), (h+8*vmax-1)/(8*vmax)
	comps := make([]*component, nc)
	for i, s := range o.Sampling {
		if hmax%s[0] != 0 || vmax%s[1] != 0 {
			return nil, fmt.Errorf("jpegtest: sampling %v does not divide %dx%d", s, hmax, vmax)
		}
		c := &component{h: s[0], v: s[1], bw: mcusx * s[0], bh: mcusy * s[1], tq: min(i, 1)}
		cw, ch := (w*c.h+hmax-1)/hmax, (h*c.v+vmax-1)/vmax
		c.nbw, c.nbh = (cw+7)/8, (ch+7)/8
		fx, fy := hmax/c.h, vmax/c.v
		pw, ph := c.bw*8, c.bh*8
		c.samples = make([]float64, pw*ph)
		for y := range ph {
			for x := range pw {
				// Mean of the pixels the sample covers, the edge sample
				// repeated beyond the component's size.
				sx, sy := min(x, cw-1), min(y, ch-1)
				var sum float64
				n := 0
				for dy := range fy {
					for dx := range fx {
						px, py := sx*fx+dx, sy*fy+dy
						if px < w && py < h {
							sum += full[i][py*w+px]
							n++
						}
					}
				}
				c.samples[y*pw+x] = sum/float64(n) - 128
			}
		}
		comps[i] = c
	}
	var quant [2][64]int32
	for t := range quant {
		for k := range quant[t] {
			quant[t][k] = int32(min(255, max(1, o.Quant+k*o.Slope)))
		}
	}
	for _, c := range comps {
		c.coef = make([][64]int32, c.bw*c.bh)
		for by := range c.bh {
			for bx := range c.bw {
				fdct(&c.coef[by*c.bw+bx], c.samples, c.bw*8, bx*8, by*8, &quant[c.tq])
			}
		}
	}

	var out bytes.Buffer
	seg := func(marker byte, body []byte) {
		out.Write([]byte{0xff, marker, byte((len(body) + 2) >> 8), byte(len(body) + 2)})
		out.Write(body)
	}
	out.Write([]byte{0xff, 0xd8})
	if o.Adobe != nil {
		seg(0xee, []byte{'A', 'd', 'o', 'b', 'e', 0, 100, 0, 0, 0, 0, *o.Adobe})
	} else if !o.NoJFIF {
		seg(0xe0, []byte{'J', 'F', 'I', 'F', 0, 1, 2, 0, 0, 1, 0, 1, 0, 0})
	}
	for t := range min(nc, 2) {
		body := []byte{byte(t)}
		for _, q := range quant[t] {
			body = append(body, byte(q))
		}
		seg(0xdb, body)
	}
	sof := byte(0xc0)
	if o.ProgressiveDC {
		sof = 0xc2
	}
	body := []byte{8, byte(h >> 8), byte(h), byte(w >> 8), byte(w), byte(nc)}
	for i, c := range comps {
		body = append(body, ids[i], byte(c.h<<4|c.v), byte(c.tq))
	}
	seg(sof, body)
	dcCounts, dcVals, acCounts, acVals := tables()
	dc, ac := canonical(dcCounts, dcVals), canonical(acCounts, acVals)
	for _, class := range []byte{0x00, 0x10} {
		counts, vals := dcCounts, dcVals
		if class == 0x10 {
			counts, vals = acCounts, acVals
		}
		body := append([]byte{class}, counts[:]...)
		seg(0xc4, append(body, vals...))
	}
	if o.Restart > 0 {
		seg(0xdd, []byte{byte(o.Restart >> 8), byte(o.Restart)})
	}
	scans := [][]*component{comps}
	if o.Separate {
		scans = nil
		for _, c := range comps {
			scans = append(scans, []*component{c})
		}
	}
	for _, sc := range scans {
		body := []byte{byte(len(sc))}
		for _, c := range sc {
			for i := range comps {
				if comps[i] == c {
					body = append(body, ids[i], 0x00)
				}
			}
		}
		if o.ProgressiveDC {
			body = append(body, 0, 0, 0)
		} else {
			body = append(body, 0, 63, 0)
		}
		seg(0xda, body)
		e := &entropy{out: &out, dc: dc, ac: ac, dcOnly: o.ProgressiveDC}
		e.scan(sc, mcusx, mcusy, o.Restart)
	}
	out.Write([]byte{0xff, 0xd9})
	return out.Bytes(), nil
}

// fdct computes the quantised DCT of the 8x8 block at (x0, y0) of the
// plane p (stride samples per row) into dst, in zig-zag order (T.81
// A.3.3 and A.3.4).
func fdct(dst *[64]int32, p []float64, stride, x0, y0 int, q *[64]int32) {
	var s [64]float64
	for v := range 8 {
		for u := range 8 {
			var sum float64
			for y := range 8 {
				for x := range 8 {
					sum += p[(y0+y)*stride+x0+x] * cosine(x, u) * cosine(y, v)
				}
			}
			s[v*8+u] = sum * cu(u) * cu(v) / 4
		}
	}
	for k, z := range zigzagOrder() {
		dst[k] = int32(math.Round(s[z] / float64(q[k])))
	}
}

func cosine(x, u int) float64 { return math.Cos(float64(2*x+1) * float64(u) * math.Pi / 16) }

func cu(u int) float64 {
	if u == 0 {
		return 1 / math.Sqrt2
	}
	return 1
}

// zigzagOrder returns the row-major index of each zig-zag position,
// walking the anti-diagonals (T.81 Figure A.6).
func zigzagOrder() []int {
	var z []int
	for s := range 15 {
		var diag []int
		for r := max(0, s-7); r <= min(s, 7); r++ {
			diag = append(diag, r*8+s-r)
		}
		if s%2 == 0 {
			for i := len(diag) - 1; i >= 0; i-- {
				z = append(z, diag[i])
			}
		} else {
			z = append(z, diag...)
		}
	}
	return z
}

// tables returns the DC and AC Huffman tables' counts of codes by length
// and values: DC categories 0..2 take 2-bit codes and 3..11 6-bit ones;
// AC symbols EOB, ZRL and the first 62 run/size pairs take 7-bit codes,
// the other 98 12-bit ones.
func tables() (dcCounts [16]byte, dcVals []byte, acCounts [16]byte, acVals []byte) {
	dcCounts[1], dcCounts[5] = 3, 9
	for s := range 12 {
		dcVals = append(dcVals, byte(s))
	}
	acVals = []byte{0x00, 0xf0}
	for r := range 16 {
		for s := 1; s <= 10; s++ {
			acVals = append(acVals, byte(r<<4|s))
		}
	}
	acCounts[6], acCounts[11] = 64, byte(len(acVals)-64)
	return
}

// code is a Huffman code.
type code struct {
	bits uint32
	n    int
}

// canonical returns the codes of the values, by value, generated as in
// T.81 Annex C.2.
func canonical(counts [16]byte, vals []byte) map[byte]code {
	m := map[byte]code{}
	c, k := uint32(0), 0
	for l := 1; l <= 16; l++ {
		for range counts[l-1] {
			m[vals[k]] = code{c, l}
			c++
			k++
		}
		c <<= 1
	}
	return m
}

// entropy writes entropy-coded data.
type entropy struct {
	out    *bytes.Buffer
	dc, ac map[byte]code
	dcOnly bool
	acc    uint32
	n      int
}

// put writes the n low bits of bits, stuffing a 0 after each 0xFF.
func (e *entropy) put(bits uint32, n int) {
	for i := n - 1; i >= 0; i-- {
		e.acc = e.acc<<1 | (bits>>uint(i))&1
		e.n++
		if e.n == 8 {
			e.out.WriteByte(byte(e.acc))
			if byte(e.acc) == 0xff {
				e.out.WriteByte(0)
			}
			e.acc, e.n = 0, 0
		}
	}
}

// flush pads the last byte with 1 bits.
func (e *entropy) flush() {
	for e.n != 0 {
		e.put(1, 1)
	}
}

// value writes the category of v and its bits (T.81 F.1.2.1).
func (e *entropy) value(t map[byte]code, run int, v int32) {
	a, s := v, 0
	if a < 0 {
		a = -a
	}
	for a > 0 {
		s++
		a >>= 1
	}
	c := t[byte(run<<4|s)]
	e.put(c.bits, c.n)
	if v < 0 {
		v += 1<<s - 1
	}
	e.put(uint32(v), s)
}

// block codes one block of c.
func (e *entropy) block(c *component, bx, by int) {
	coef := &c.coef[by*c.bw+bx]
	e.value(e.dc, 0, coef[0]-c.pred)
	c.pred = coef[0]
	if e.dcOnly {
		return
	}
	run := 0
	for k := 1; k < 64; k++ {
		if coef[k] == 0 {
			run++
			continue
		}
		for ; run > 15; run -= 16 {
			z := e.ac[0xf0]
			e.put(z.bits, z.n)
		}
		e.value(e.ac, run, coef[k])
		run = 0
	}
	if run > 0 {
		eob := e.ac[0x00]
		e.put(eob.bits, eob.n)
	}
}

// scan codes the components sc, interleaved when more than one, with a
// restart marker every restart MCUs.
func (e *entropy) scan(sc []*component, mcusx, mcusy, restart int) {
	mx, my := mcusx, mcusy
	if len(sc) == 1 {
		mx, my = sc[0].nbw, sc[0].nbh
	}
	for _, c := range sc {
		c.pred = 0
	}
	for m := range mx * my {
		if restart > 0 && m > 0 && m%restart == 0 {
			e.flush()
			e.out.Write([]byte{0xff, byte(0xd0 + (m/restart-1)%8)})
			for _, c := range sc {
				c.pred = 0
			}
		}
		bx, by := m%mx, m/mx
		if len(sc) == 1 {
			e.block(sc[0], bx, by)
			continue
		}
		for _, c := range sc {
			for v := range c.v {
				for h := range c.h {
					e.block(c, bx*c.h+h, by*c.v+v)
				}
			}
		}
	}
	e.flush()
}

// MustEncode is Encode, failing tb on an error.
func MustEncode(tb testing.TB, img image.Image, o Options) []byte {
	tb.Helper()
	data, err := Encode(img, o)
	if err != nil {
		tb.Fatal(err)
	}
	return data
}

// Grey returns the luminance of img (color.GrayModel) as an image.Gray.
func Grey(img image.Image) *image.Gray {
	b := img.Bounds()
	g := image.NewGray(b)
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			g.Set(x, y, img.At(x, y))
		}
	}
	return g
}
