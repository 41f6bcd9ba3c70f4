package dense

import "math"

// WhitenedGram8 is spd's whitened Gram matrix on eight lanes, the
// matrices that Tridiagonalize8 takes: for the lower triangular L in l's
// lower triangle (row-major d×d) and the lower triangular M_p in the
// lower triangle of m[p] (nil for a lane not wanted), it forms
// Zᵀ = (L⁻¹M_p)ᵀ as SolveLowerT does, scales it by 2^−s_p (s_p the
// binary exponent of its largest magnitude, as math.Frexp gives it) and
// writes G_p = Z'ᵀZ' as GramUpperT does into h's lane p, interleaved
// (entry (i, j), j >= i, at h[(i·d+j)·8+p]). Every lane's G is bit for
// bit that of SolveLowerT, MaxAbsUpper, ScaleUpper and GramUpperT on
// this CPU: the same operations in the same order, dot2AVX's four
// partial sums a dot product four accumulators a lane. ok[p] reports
// that lane p was formed: m[p] != nil, no entry of Z NaN or ±Inf and
// s_p in [−1000, 1000] (s[p] holds it). mz (8·d·d) is scratch; h holds
// Zᵀ on the way (each pair of G's columns overwrites Zᵀ's once read).
// It needs Lanes8(d).
func WhitenedGram8(h, mz, l []float64, m *[8][]float64, d int, s *[8]int, ok *[8]bool) {
	const L = 8
	n := d * d
	h, mz, l = h[:L*n], mz[:L*n], l[:n]
	z := h
	var rl [PlainMaxD]float64
	for i := range d {
		rl[i] = 1 / l[i*d+i]
	}
	// M's lower triangles, interleaved (a lane not wanted reads l's:
	// any finite triangle would do).
	var rows [L]*float64
	for p, mp := range m {
		ok[p] = mp != nil
		rows[p] = &l[0]
		if mp != nil {
			rows[p] = &mp[:n][0]
		}
	}
	packLower8AVX512(&mz[0], &rows, d)
	// Zᵀ's upper triangle is written below; the entries below it that
	// the solve's sums read (dot2AVX's tri starts rows at a multiple of
	// four) must be zero.
	for r := range d {
		for k := r &^ 3; k < r; k++ {
			clear(z[(r*d+k)*L : (r*d+k)*L+L])
		}
	}
	// solveLowerTVec's loop, eight lanes.
	i := 0
	for ; i+1 < d; i += 2 {
		i1 := i + 1
		oi, o1 := i*d, i1*d
		c := l[o1+i]
		r1 := rl[i1]
		if i > 0 {
			cs := [3]float64{rl[i], r1, c}
			solveRows8AVX512(&z[0], d, i, &l[oi], &l[o1], &mz[oi*L], &mz[o1*L], &cs)
		}
		for p := range L {
			v := mz[(oi+i)*L+p] / l[oi+i]
			z[(oi+i)*L+p] = v
			z[(oi+i1)*L+p] = (mz[(o1+i)*L+p] - c*v) * r1
			z[(o1+i1)*L+p] = mz[(o1+i1)*L+p] / l[o1+i1]
		}
	}
	if i < d { // the last row of an odd d
		oi := i * d
		cs := [3]float64{rl[i], 0, 0}
		if i > 0 {
			solveRows8AVX512(&z[0], d, i, &l[oi], nil, &mz[oi*L], nil, &cs)
		}
		for p := range L {
			z[(oi+i)*L+p] = mz[(oi+i)*L+p] / l[oi+i]
		}
	}
	// whitenedGram's scaling.
	var mx, scal [L]float64
	bad := maxAbsUpper8AVX512(&z[0], d, &mx)
	var mask uint64
	for p := range L {
		if bad&(1<<p) != 0 {
			ok[p] = false
		}
		_, e := math.Frexp(mx[p])
		if e < -1000 || e > 1000 {
			ok[p] = false
		}
		s[p] = e
		scal[p] = 1
		if ok[p] && e != 0 {
			scal[p] = math.Ldexp(1, -e)
			mask |= 1 << p
		}
	}
	if mask != 0 {
		scale8AVX512(&z[0], n, &scal, mask)
	}
	// gramUpperTVec's loop.
	b := 0
	for ; b+1 < d; b += 2 {
		gramRows8AVX512(&h[0], &z[0], d, b)
	}
	if b < d { // the last column of an odd d
		ob := (b*d + b) * L
		for a := 0; a <= b; a++ {
			o := (a*d + b) * L
			for p := range L {
				h[o+p] = z[o+p] * z[ob+p]
			}
		}
	}
}

// Lanes8 reports whether WhitenedGram8 may be called for size d: an
// AVX-512 CPU and d in [vecMinD, PlainMaxD], where SolveLowerT and
// GramUpperT take their assembly paths.
func Lanes8(d int) bool { return have512 && d >= vecMinD && d <= PlainMaxD }
