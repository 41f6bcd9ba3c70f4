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
	bh, bv := idctBasis[nx], idctBasis[ny]
	var tmp [64]float32
	// Rows: tmp[v*nx+x] = sum_u basis(x,u) S(v,u).
	for v := range ny {
		in := coef[v*8:][:nx]
		out := tmp[v*nx:][:nx]
		for x := range out {
			bx := bh[x*nx:][:nx]
			var s float32
			for u, c := range in {
				s += bx[u] * float32(c)
			}
			out[x] = s
		}
		clear(in)
	}
	// Columns: out(x,y) = sum_v basis(y,v) tmp[v*nx+x].
	for y := range ny {
		by := bv[y*ny:][:ny]
		row := dst[y*stride:][:nx]
		for x := range row {
			var s float32
			for v, b := range by {
				s += b * tmp[v*nx+x]
			}
			row[x] = clampSample(s)
		}
	}
}
