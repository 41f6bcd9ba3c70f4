package covariance

import "math"

// chunkValues bounds the centred values that direct holds at once
// (256 KiB), so that its scratch stays in the L2 cache and does not grow
// with the region: a 640×640 image with 43 features would otherwise need
// 141 MB.
const chunkValues = 1 << 15

// chunkRows returns the number of rows of region r that direct centres at
// once for d features; its scratch cen needs d·r.W·chunkRows(d, r) values.
func chunkRows(d int, r Region) int { return min(r.H, max(1, chunkValues/(d*r.W))) }

// direct writes into c (d×d, row-major, exactly symmetric) the unbiased
// covariance of the features over region r by the corrected two-pass
// algorithm (Chan, Golub and LeVeque, "Algorithms for computing the sample
// variance", Amer. Statist. 1983):
//
//	μ = (1/n) Σ z,   C = 1/(n−1) [ Σ (z−μ)(z−μ)ᵀ − (1/n) s sᵀ ],   s = Σ (z−μ).
//
// The correction s sᵀ/n removes, to first order, the rounding error of μ;
// the sums of centred products have no cancellation beyond that of the
// data. The second pass goes by chunks of chunkRows rows. cen (at least
// d·r.W·chunkRows(d, r) values), gram (d·d), sums and mean (d) are
// scratch.
//
// With sq not nil (r.W·chunkRows(d, r) values of scratch) it also returns
// the fourth moments Σ ‖z−μ‖⁴ that the Ledoit–Wolf shrinkage needs, from
// the same centred values; otherwise 0.
// It returns false, leaving c unspecified, when a mean is not finite: a
// NaN or ±Inf feature in r, or an overflowing sum.
func direct(c []float64, planes [][]float64, w int, r Region, cen, gram, sums, mean, sq []float64) (fourth float64, ok bool) {
	d := len(planes)
	n := r.Area()
	for k, p := range planes {
		mean[k] = sumRows(p[r.Y*w:], w, r.X, r.W, r.H) / float64(n)
		if math.IsNaN(mean[k]) || math.IsInf(mean[k], 0) {
			return 0, false
		}
	}
	clear(gram[:d*d])
	clear(sums[:d])
	rows := chunkRows(d, r)
	for y0 := r.Y; y0 < r.Y+r.H; y0 += rows {
		y1 := min(y0+rows, r.Y+r.H)
		cn := (y1 - y0) * r.W
		// The centred values go into contiguous rows of cn, so that the
		// products run over unit-stride slices.
		for k, p := range planes {
			sums[k] += centreRows(cen[k*cn:(k+1)*cn], p[y0*w:], w, r.X, r.W, y1-y0, mean[k])
		}
		gramUpper(gram, cen[:d*cn], d, cn)
		if sq != nil {
			fourth += fourthMoments(sq[:cn], cen[:d*cn], d)
		}
	}
	inv := 1 / float64(n-1)
	fn := float64(n)
	for i := range d {
		for j := i; j < d; j++ {
			v := (gram[i*d+j] - sums[i]*sums[j]/fn) * inv
			c[i*d+j] = v
			c[j*d+i] = v
		}
	}
	return fourth, true
}

// fourthMoments returns Σ_t ‖x_t‖⁴ over the n = len(sq) columns x_t of
// the d rows of a, using sq as scratch for the ‖x_t‖².
func fourthMoments(sq, a []float64, d int) float64 {
	n := len(sq)
	clear(sq)
	for k := range d {
		row := a[k*n : (k+1)*n : (k+1)*n]
		for t, v := range row {
			sq[t] += v * v
		}
	}
	var s float64
	for _, v := range sq {
		s += v * v
	}
	return s
}

// gramUpper adds to the upper triangle of s (d×d, row-major) the dot
// products Σ_t a_i[t] a_j[t], j ≥ i, of the d rows of length n of a.
// Entries below the diagonal are left alone.
//
// The rows go in blocks of 4 (the last of d mod 4 rows when d is not a
// multiple). Each block's diagonal is one kernel with all its products in
// registers (sym4 keeps 10 sums from 4 loads per pixel), and each
// off-diagonal block of 4×4 is two 2×4 tiles (8 sums from 6 loads). The
// kernels keep several independent sums (at least four but for the last
// diagonal block), so the loops are bound by the throughput of the
// multiplications and additions rather than by their latency or by loads,
// and no entry is computed twice (docs/benchmarks.md gives the cost of a
// product per pixel).
func gramUpper(s, a []float64, d, n int) {
	row := func(i int) []float64 { return a[i*n : (i+1)*n : (i+1)*n] }
	for i := 0; i < d; i += 4 {
		switch d - i {
		case 1:
			s[i*d+i] += dot(row(i), row(i))
		case 2:
			s00, s01, s11 := sym2(row(i), row(i+1))
			s[i*d+i] += s00
			s[i*d+i+1] += s01
			s[(i+1)*d+i+1] += s11
		case 3:
			s00, s01, s02, s11, s12, s22 := sym3(row(i), row(i+1), row(i+2))
			addTo(s[i*d+i:], s00, s01, s02)
			addTo(s[(i+1)*d+i+1:], s11, s12)
			s[(i+2)*d+i+2] += s22
		default:
			a0, a1, a2, a3 := row(i), row(i+1), row(i+2), row(i+3)
			s00, s01, s02, s03, s11, s12, s13, s22, s23, s33 := sym4(a0, a1, a2, a3)
			addTo(s[i*d+i:], s00, s01, s02, s03)
			addTo(s[(i+1)*d+i+1:], s11, s12, s13)
			addTo(s[(i+2)*d+i+2:], s22, s23)
			s[(i+3)*d+i+3] += s33
			j := i + 4
			for ; j+3 < d; j += 4 {
				b0, b1, b2, b3 := row(j), row(j+1), row(j+2), row(j+3)
				for r := i; r < i+4; r += 2 {
					t00, t01, t02, t03, t10, t11, t12, t13 := dot2x4(row(r), row(r+1), b0, b1, b2, b3)
					addTo(s[r*d+j:], t00, t01, t02, t03)
					addTo(s[(r+1)*d+j:], t10, t11, t12, t13)
				}
			}
			if d-j >= 2 {
				// The 4×2 remainder is the 2×4 tile with the roles of the
				// rows swapped: the same products, summed in the same order.
				t00, t10, t20, t30, t01, t11, t21, t31 := dot2x4(row(j), row(j+1), a0, a1, a2, a3)
				addTo(s[i*d+j:], t00, t01)
				addTo(s[(i+1)*d+j:], t10, t11)
				addTo(s[(i+2)*d+j:], t20, t21)
				addTo(s[(i+3)*d+j:], t30, t31)
				j += 2
			}
			if j < d {
				t0, t1, t2, t3 := dot4x1(a0, a1, a2, a3, row(j))
				s[i*d+j] += t0
				s[(i+1)*d+j] += t1
				s[(i+2)*d+j] += t2
				s[(i+3)*d+j] += t3
			}
		}
	}
}

// addTo adds v to the first len(v) elements of s.
func addTo(s []float64, v ...float64) {
	s = s[:len(v)]
	for i, x := range v {
		s[i] += x
	}
}

// The kernels below return dot products of rows, all of the length of the
// first; each re-slices its arguments to that length so that the compiler
// drops the bounds checks from the loop.

// sym4 returns the 10 products a_i·a_j, i ≤ j, of 4 rows, row by row.
func sym4(a0, a1, a2, a3 []float64) (s00, s01, s02, s03, s11, s12, s13, s22, s23, s33 float64) {
	n := len(a0)
	a1, a2, a3 = a1[:n], a2[:n], a3[:n]
	for t := range n {
		x0, x1, x2, x3 := a0[t], a1[t], a2[t], a3[t]
		s00 += x0 * x0
		s01 += x0 * x1
		s02 += x0 * x2
		s03 += x0 * x3
		s11 += x1 * x1
		s12 += x1 * x2
		s13 += x1 * x3
		s22 += x2 * x2
		s23 += x2 * x3
		s33 += x3 * x3
	}
	return
}

// sym3 returns the 6 products a_i·a_j, i ≤ j, of 3 rows, row by row.
func sym3(a0, a1, a2 []float64) (s00, s01, s02, s11, s12, s22 float64) {
	n := len(a0)
	a1, a2 = a1[:n], a2[:n]
	for t := range n {
		x0, x1, x2 := a0[t], a1[t], a2[t]
		s00 += x0 * x0
		s01 += x0 * x1
		s02 += x0 * x2
		s11 += x1 * x1
		s12 += x1 * x2
		s22 += x2 * x2
	}
	return
}

// sym2 returns a0·a0, a0·a1 and a1·a1.
func sym2(a0, a1 []float64) (s00, s01, s11 float64) {
	n := len(a0)
	a1 = a1[:n]
	for t := range n {
		x0, x1 := a0[t], a1[t]
		s00 += x0 * x0
		s01 += x0 * x1
		s11 += x1 * x1
	}
	return
}

// dot2x4 returns the products of a0 and a1 with b0, b1, b2 and b3: a0·b0,
// ..., a0·b3, a1·b0, ..., a1·b3.
func dot2x4(a0, a1, b0, b1, b2, b3 []float64) (s00, s01, s02, s03, s10, s11, s12, s13 float64) {
	n := len(a0)
	a1, b0, b1, b2, b3 = a1[:n], b0[:n], b1[:n], b2[:n], b3[:n]
	for t := range n {
		x0, x1 := a0[t], a1[t]
		y := b0[t]
		s00 += x0 * y
		s10 += x1 * y
		y = b1[t]
		s01 += x0 * y
		s11 += x1 * y
		y = b2[t]
		s02 += x0 * y
		s12 += x1 * y
		y = b3[t]
		s03 += x0 * y
		s13 += x1 * y
	}
	return
}

// dot4x1 returns the products of a0, ..., a3 with b.
func dot4x1(a0, a1, a2, a3, b []float64) (s0, s1, s2, s3 float64) {
	n := len(a0)
	a1, a2, a3, b = a1[:n], a2[:n], a3[:n], b[:n]
	for t := range n {
		y := b[t]
		s0 += a0[t] * y
		s1 += a1[t] * y
		s2 += a2[t] * y
		s3 += a3[t] * y
	}
	return
}

// dot returns a·b with four partial sums, which hide the latency of the
// additions.
func dot(a, b []float64) float64 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float64
	i := 0
	for ; i+3 < len(a); i += 4 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
		s2 += a[i+2] * b[i+2]
		s3 += a[i+3] * b[i+3]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return (s0 + s1) + (s2 + s3)
}

// sum returns the sum of x; see sumRows.
func sum(x []float64) float64 { return sumRows(x, len(x), 0, len(x), 1) }

// sumRows returns the sum of the rows x[y·w+x0 : y·w+x0+rw] for y in
// [0, rows). Eight partial sums, kept across rows, hide the latency of the
// additions, which would otherwise bound the loop.
func sumRows(x []float64, w, x0, rw, rows int) float64 {
	var s0, s1, s2, s3, s4, s5, s6, s7 float64
	for y := range rows {
		v := x[y*w+x0 : y*w+x0+rw]
		i := 0
		for ; i+7 < len(v); i += 8 {
			u := v[i : i+8 : i+8]
			s0 += u[0]
			s1 += u[1]
			s2 += u[2]
			s3 += u[3]
			s4 += u[4]
			s5 += u[5]
			s6 += u[6]
			s7 += u[7]
		}
		for ; i < len(v); i++ {
			s0 += v[i]
		}
	}
	return ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7))
}

// centreRows copies the rows src[y·w+x0 : y·w+x0+rw], y in [0, rows), less
// m, one after the other into dst, and returns the sum of dst, with partial
// sums as in sumRows.
func centreRows(dst, src []float64, w, x0, rw, rows int, m float64) float64 {
	var s0, s1, s2, s3, s4, s5, s6, s7 float64
	for y := range rows {
		v := src[y*w+x0 : y*w+x0+rw]
		d := dst[y*rw : (y+1)*rw]
		d = d[:len(v)]
		i := 0
		for ; i+7 < len(v); i += 8 {
			a, b := v[i:i+8:i+8], d[i:i+8:i+8]
			u0, u1, u2, u3 := a[0]-m, a[1]-m, a[2]-m, a[3]-m
			u4, u5, u6, u7 := a[4]-m, a[5]-m, a[6]-m, a[7]-m
			b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7] = u0, u1, u2, u3, u4, u5, u6, u7
			s0 += u0
			s1 += u1
			s2 += u2
			s3 += u3
			s4 += u4
			s5 += u5
			s6 += u6
			s7 += u7
		}
		for ; i < len(v); i++ {
			u := v[i] - m
			d[i] = u
			s0 += u
		}
	}
	return ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7))
}
