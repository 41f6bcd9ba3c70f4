package jpegscale

import "math"

// zigzag[k] is the row-major index in the 8x8 block of the k-th
// coefficient in zig-zag order (T.81 Figure A.6): the anti-diagonals
// r+c = s in turn, going up (row decreasing) for even s and down for odd
// s.
var zigzag = func() (z [64]int) {
	k := 0
	for s := range 15 {
		lo, hi := max(0, s-7), min(s, 7)
		for i := lo; i <= hi; i++ {
			r := i // odd s: row increasing
			if s%2 == 0 {
				r = lo + hi - i
			}
			z[k] = r*8 + (s - r)
			k++
		}
	}
	return z
}()

// idctBasis[n][x*n+u] is (1/2) C(u) cos((2x+1) u pi / (2n)) for the n-point
// scaled inverse DCT (n = 1, 2, 4, 8), C(0) = 1/sqrt 2 and C(u) = 1
// otherwise.
//
// The 8-point inverse DCT of T.81 A.3.3 is separable into rows and
// columns of s(x) = (1/2) sum_u C(u) S(u) cos((2x+1) u pi / 16). For a
// block that is to be shrunk to n x n samples, each the mean of an
// (8/n) x (8/n) square, the orthonormal n-point DCT of those means has,
// for u < n, approximately sqrt(n/8) times the 8-point coefficient S(u)
// (exactly for the DC). Substituting that into the orthonormal n-point
// inverse, sqrt(2/n) sum_u C(u) S_n(u) cos((2x+1) u pi / (2n)), gives the
// same (1/2) C(u) factor as the 8-point inverse over the top-left n x n
// coefficients, with the n-point cosines. For n = 1 it is S(0,0)/8, the
// block mean.
var idctBasis = func() (b [9][]float32) {
	for _, n := range []int{1, 2, 4, 8} {
		b[n] = make([]float32, n*n)
		for x := range n {
			for u := range n {
				c := 0.5
				if u == 0 {
					c /= math.Sqrt2
				}
				b[n][x*n+u] = float32(c * math.Cos(float64(2*x+1)*float64(u)*math.Pi/float64(2*n)))
			}
		}
	}
	return b
}()

// clampSample rounds v+128 (the level shift of A.3.1) to the nearest
// integer and clamps it to [0, 255].
func clampSample(v float32) byte {
	v += 128.5
	if v <= 0 {
		return 0
	}
	if v >= 255 {
		return 255
	}
	return byte(v)
}

// idct writes the nx x ny samples (nx, ny in 1, 2, 4, 8) of the
// dequantised coefficients coef (row-major 8x8, only the top-left
// ny rows of nx read) into dst, rows stride bytes apart, and zeroes those
// coefficients for the next block: rows by the nx-point and columns by
// the ny-point scaled inverse DCT. With ac false (no AC coefficient among
// them is set) every sample is the DC term.
func idct(dst []byte, stride int, coef *[64]int32, nx, ny int, ac bool) {
	if !ac || nx*ny == 1 {
		// DC only: S(0,0)/8, rounded half up.
		v := (coef[0] + 4) >> 3
		coef[0] = 0
		s := byte(0)
		switch {
		case v >= 127:
			s = 255
		case v > -128:
			s = byte(v + 128)
		}
		for y := range ny {
			row := dst[y*stride:][:nx]
			for x := range row {
				row[x] = s
			}
		}
		return
	}
	switch {
	case nx == 4 && ny == 4:
		idct4x4(dst, stride, coef)
		return
	case nx == 2 && ny == 2:
		// The 2-point transform of idct1 on rows and columns.
		s00, s01, s10, s11 := float32(coef[0]), float32(coef[1]), float32(coef[8]), float32(coef[9])
		coef[0], coef[1], coef[8], coef[9] = 0, 0, 0, 0
		e0, o0 := c0*s00, c2*s01
		e1, o1 := c0*s10, c2*s11
		r00, r01, r10, r11 := e0+o0, e0-o0, e1+o1, e1-o1
		_ = dst[stride+1]
		dst[0], dst[stride] = clampSample(c0*r00+c2*r10), clampSample(c0*r00-c2*r10)
		dst[1], dst[stride+1] = clampSample(c0*r01+c2*r11), clampSample(c0*r01-c2*r11)
		return
	}
	// Rows: tmp[v*8+x] = sum_u basis(x,u) S(v,u), for the rows that have
	// a coefficient; the others are zero and drop out of the columns.
	var tmp [64]float32
	rows := 0
	for v := range ny {
		in := coef[v*8:][:nx]
		nz := false
		for _, c := range in {
			if c != 0 {
				nz = true
				break
			}
		}
		if !nz {
			continue
		}
		rows = v + 1
		var f [8]float32
		for u, c := range in {
			f[u] = float32(c)
		}
		idct1(tmp[v*8:v*8+8], &f, nx)
		clear(in)
	}
	// Columns: out(x,y) = sum_v basis(y,v) tmp[v*8+x].
	var col, out [8]float32
	for x := range nx {
		for v := range rows {
			col[v] = tmp[v*8+x]
		}
		for v := rows; v < ny; v++ {
			col[v] = 0
		}
		idct1(out[:], &col, ny)
		for y := range ny {
			dst[y*stride+x] = clampSample(out[y])
		}
	}
}

// Constants of the 2- and 4-point inverse DCTs: (1/2) C(u) cos(u pi k/8).
var (
	c0 = float32(0.5 / math.Sqrt2)
	c1 = float32(0.5 * math.Cos(math.Pi/8))
	c2 = float32(0.5 * math.Cos(2*math.Pi/8))
	c3 = float32(0.5 * math.Cos(3*math.Pi/8))
)

// odd8[x][k] is (1/2) cos((2x+1)(2k+1) pi/16), the odd-frequency part of
// the 8-point inverse DCT for x < 4.
var odd8 = func() (m [4][4]float32) {
	for x := range 4 {
		for k := range 4 {
			m[x][k] = float32(0.5 * math.Cos(float64((2*x+1)*(2*k+1))*math.Pi/16))
		}
	}
	return m
}()

// idct1 writes into out[:n] the n-point scaled inverse DCT (see
// idctBasis) of in[:n]. The transforms split into even and odd parts, by
// the symmetry cos((2(n-1-x)+1) u pi/(2n)) = (-1)^u cos((2x+1) u pi/(2n)):
// the even coefficients of the 8-point transform make a 4-point one (the
// same (1/2) C(u) factors, cos((2x+1) 2k pi/16) = cos((2x+1) k pi/8)), and
// so on down.
func idct1(out []float32, in *[8]float32, n int) {
	switch n {
	case 1:
		out[0] = c0 * in[0]
	case 2:
		// x = 0, 1: (1/2)(S0/sqrt2 +- S1 cos(pi/4)).
		e, o := c0*in[0], c2*in[1]
		out[0], out[1] = e+o, e-o
	case 4:
		e0, e1 := c0*in[0]+c2*in[2], c0*in[0]-c2*in[2]
		o0, o1 := c1*in[1]+c3*in[3], c3*in[1]-c1*in[3]
		out[0], out[1], out[2], out[3] = e0+o0, e1+o1, e1-o1, e0-o0
	default:
		// Even part: the 4-point transform of S0, S2, S4, S6.
		e00, e01 := c0*in[0]+c2*in[4], c0*in[0]-c2*in[4]
		e10, e11 := c1*in[2]+c3*in[6], c3*in[2]-c1*in[6]
		e := [4]float32{e00 + e10, e01 + e11, e01 - e11, e00 - e10}
		s1, s3, s5, s7 := in[1], in[3], in[5], in[7]
		for x := range 4 {
			m := &odd8[x]
			o := m[0]*s1 + m[1]*s3 + m[2]*s5 + m[3]*s7
			out[x], out[7-x] = e[x]+o, e[x]-o
		}
	}
}

// idct4x4 is idct for 4x4 samples (1/2 scale) written out: the 4-point
// transform of idct1 on each row of coefficients, then on each column.
func idct4x4(dst []byte, stride int, coef *[64]int32) {
	var t [16]float32
	for v := range 4 {
		in := coef[v*8:][:4]
		s0, s1, s2, s3 := float32(in[0]), float32(in[1]), float32(in[2]), float32(in[3])
		in[0], in[1], in[2], in[3] = 0, 0, 0, 0
		e0, e1 := c0*s0+c2*s2, c0*s0-c2*s2
		o0, o1 := c1*s1+c3*s3, c3*s1-c1*s3
		r := t[v*4:][:4]
		r[0], r[1], r[2], r[3] = e0+o0, e1+o1, e1-o1, e0-o0
	}
	_ = dst[3*stride+3]
	for x := range 4 {
		s0, s1, s2, s3 := t[x], t[4+x], t[8+x], t[12+x]
		e0, e1 := c0*s0+c2*s2, c0*s0-c2*s2
		o0, o1 := c1*s1+c3*s3, c3*s1-c1*s3
		dst[x] = clampSample(e0 + o0)
		dst[stride+x] = clampSample(e1 + o1)
		dst[2*stride+x] = clampSample(e1 - o1)
		dst[3*stride+x] = clampSample(e0 - o0)
	}
}
