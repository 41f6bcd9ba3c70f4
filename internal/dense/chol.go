package dense

import "math"

// CholLower factorises the SPD matrix A = X, or A = (X+Y)/2 when y is not
// nil, as A = LLᵀ, reading the upper triangles of the row-major d×d
// matrices x and y and writing L into the lower triangle of l (diagonal
// included). l may be x: an entry of A is read before L overwrites it. It
// returns log det A, or false when A is not SPD enough: a pivot
// p_j = A_jj − Σ_{k<j} L_jk² = L_jj² that is not positive and finite, or
// below δ·A_jj (δ = PivotTol(d)). d must be at most PlainMaxD.
//
// It is the left-looking (column) Cholesky algorithm (Golub and Van Loan,
// Matrix Computations, 4th ed., §4.2, the gaxpy form),
//
//	L_ji = (A_ij − Σ_{k<i} L_ik L_jk) / L_ii,
//
// whose inner loops are dot products of two contiguous rows of L that keep
// their sums in registers, where the right-looking update stores every
// element it touches. Two columns i, i+1 are computed together, for up to
// three rows at once: six sums share five loads per k and hide the
// addition latency. The first rows below, i+2 and i+3, also accumulate
// their own dot products, which the next pair's pivots need: the pivots'
// square roots and divisions, serial from column to column, do not wait
// for a separate pass. A = (X+Y)/2 is formed entry by entry as ½x + ½y,
// which cannot overflow near math.MaxFloat64.
//
// The same 2×3 dot-product loop appears in SolveLowerT and GramUpperT. It
// is written out in each place on purpose: as a shared function it is not
// inlined, and a call per tile costs more than the tile at the sizes of
// covariance descriptors.
//
// log det A = Σ_j log p_j is accumulated as mantissa and binary exponent:
// one logarithm instead of d, and no overflow or underflow where det A
// would.
//
// On a CPU with AVX2 and FMA, d >= vecMinD takes the same algorithm with
// the dot products four lanes wide in assembly (dot2AVX), one call per
// column pair: the scalar loops are bound by the latency of their
// additions, which four lanes hide. Its sums are rounded differently, so
// the two paths agree to round-off, not bit for bit; each is
// deterministic.
func CholLower(l, x, y []float64, d int) (float64, bool) {
	return cholLowerOn(l, x, y, d, haveFMA && d >= vecMinD)
}

// cholLowerOn is CholLower on the assembly path when vec is set (which
// needs a CPU with AVX2 and FMA), else in plain Go. CholLower calls it in
// one call, so that CholLower is inlined and the plain path costs no
// extra call at small d.
func cholLowerOn(l, x, y []float64, d int, vec bool) (float64, bool) {
	if vec {
		return cholLowerVec(l, x, y, d)
	}
	n := d * d
	l, x = l[:n], x[:n]
	two := y != nil
	if two {
		y = y[:n]
	}
	at := func(o int) float64 { // A_ij at offset o = i*d+j, i <= j
		if two {
			return 0.5*x[o] + 0.5*y[o]
		}
		return x[o]
	}
	tol := PivotTol(d)
	ld := logProd{m: 1}
	var s00, s01, s11 float64 // Σ_{k<i} of L_ik², L_ik L_{i+1,k}, L_{i+1,k}²
	i := 0
	for ; i+1 < d; i += 2 {
		i1 := i + 1
		oi, o1 := i*d, i1*d
		a00 := at(oi + i)
		p0 := a00 - s00
		b := at(oi+i1) - s01
		a11 := at(o1 + i1)
		l00, l10, l11, inv0, inv1, p1, ok := pivotPair(a00, p0, b, a11, s11, tol)
		if !ok {
			return 0, false
		}
		l[oi+i] = l00
		l[o1+i] = l10
		l[o1+i1] = l11
		ld.mul(p0)
		ld.mul(p1)
		ri := l[oi : oi+i]
		r1 := l[o1 : o1+i]
		r1 = r1[:len(ri)]
		// finish computes L_ji and L_{j,i+1} from the sums t0, t1 of row j.
		finish := func(j int, t0, t1 float64) (float64, float64) {
			lj0 := (at(oi+j) - t0) * inv0
			lj1 := (at(o1+j) - t1 - lj0*l10) * inv1
			l[j*d+i] = lj0
			l[j*d+i1] = lj1
			return lj0, lj1
		}
		j := i + 2
		switch {
		case j+1 < d: // rows i+2 and i+3: the next pair's pivots too
			rj := l[j*d : j*d+i]
			rk := l[(j+1)*d : (j+1)*d+i]
			rj, rk = rj[:len(ri)], rk[:len(ri)]
			var t00, t01, t10, t11, q00, q01, q11 float64
			for k, v := range ri {
				w := r1[k]
				x := rj[k]
				y := rk[k]
				t00 += x * v
				t01 += x * w
				t10 += y * v
				t11 += y * w
				q00 += x * x
				q01 += x * y
				q11 += y * y
			}
			lj0, lj1 := finish(j, t00, t01)
			lk0, lk1 := finish(j+1, t10, t11)
			s00 = q00 + lj0*lj0 + lj1*lj1
			s01 = q01 + lj0*lk0 + lj1*lk1
			s11 = q11 + lk0*lk0 + lk1*lk1
			j += 2
		case j < d: // row d−1, the last column's pivot
			rj := l[j*d : j*d+i]
			rj = rj[:len(ri)]
			var t00, t01, q00 float64
			for k, v := range ri {
				x := rj[k]
				t00 += x * v
				t01 += x * r1[k]
				q00 += x * x
			}
			lj0, lj1 := finish(j, t00, t01)
			s00 = q00 + lj0*lj0 + lj1*lj1
			j++
		}
		for ; j+2 < d; j += 3 {
			r0 := l[j*d : j*d+i]
			r1_ := l[(j+1)*d : (j+1)*d+i]
			r2 := l[(j+2)*d : (j+2)*d+i]
			r0, r1_, r2 = r0[:len(ri)], r1_[:len(ri)], r2[:len(ri)]
			var t00, t01, t10, t11, t20, t21 float64
			for k, v := range ri {
				w := r1[k]
				x := r0[k]
				t00 += x * v
				t01 += x * w
				x = r1_[k]
				t10 += x * v
				t11 += x * w
				x = r2[k]
				t20 += x * v
				t21 += x * w
			}
			finish(j, t00, t01)
			finish(j+1, t10, t11)
			finish(j+2, t20, t21)
		}
		for ; j < d; j++ {
			rj := l[j*d : j*d+i]
			rj = rj[:len(ri)]
			var t00, t01 float64
			for k, v := range ri {
				x := rj[k]
				t00 += x * v
				t01 += x * r1[k]
			}
			finish(j, t00, t01)
		}
	}
	if i < d { // s00 holds the last column's sum
		p, ok := lastPivot(l, i*d+i, at(i*d+i), s00, tol)
		if !ok {
			return 0, false
		}
		ld.mul(p)
	}
	return ld.log(), true
}

// pivotPair factorises the 2×2 pivot block of columns i, i+1 of the
// left-looking Cholesky factorisation, given a00 = A_ii, its pivot
// p0 = a00 − Σ_{k<i} L_ik², b = A_{i,i+1} − Σ_{k<i} L_ik L_{i+1,k},
// a11 = A_{i+1,i+1} and s11 = Σ_{k<i} L_{i+1,k}²: it returns L_ii, L_{i+1,i},
// L_{i+1,i+1}, their reciprocal diagonal and the pivot p1 = L_{i+1,i+1}²,
// or false when either pivot fails pivotOK. Every left-looking
// factorisation of the package (both paths of cholLowerOn, the lanes of
// Chol4 and Chol8) takes its pivots here, so that their results agree to the
// last bit. The callers store the factor and accumulate the pivots
// themselves: passing the factor and the log-determinant in would add
// arguments and keep more values live across the calls, once per column
// pair.
func pivotPair(a00, p0, b, a11, s11, tol float64) (l00, l10, l11, inv0, inv1, p1 float64, ok bool) {
	if !pivotOK(p0, a00, tol) {
		return
	}
	// L_{i+1,i}² = b·(b/p0): p1 need not wait for the square root.
	p1 = a11 - s11 - b*(b/p0)
	l00 = math.Sqrt(p0)
	inv0 = 1 / l00
	l10 = b * inv0
	if !pivotOK(p1, a11, tol) {
		// b/p0 may have overflowed where L_{i+1,i} = b/√p0 does not.
		p1 = a11 - s11 - l10*l10
		if !pivotOK(p1, a11, tol) {
			return
		}
	}
	l11 = math.Sqrt(p1)
	return l00, l10, l11, inv0, 1 / l11, p1, true
}

// lastPivot factorises the last column of an odd d, whose diagonal entry
// a has the sum s = Σ_k L_k² over the columns before: it stores √p,
// p = a − s, at l[k] and returns p, or false when p fails pivotOK. (The
// caller multiplies p into its log-determinant, so that lastPivot is
// inlined.)
func lastPivot(l []float64, k int, a, s, tol float64) (p float64, ok bool) {
	p = a - s
	if !pivotOK(p, a, tol) {
		return 0, false
	}
	l[k] = math.Sqrt(p)
	return p, true
}

// pivotOK reports whether the pivot p = L_jj² of a diagonal entry ajj is
// positive, finite and at least tol·ajj. NaN fails every comparison.
func pivotOK(p, ajj, tol float64) bool {
	return p > 0 && p <= math.MaxFloat64 && p >= tol*ajj
}

// PivotTol returns δ = d·ε (ε = 2⁻⁵², the float64 machine epsilon), the
// smallest relative pivot L_jj²/A_jj of an SPD-enough d×d matrix A. The
// ratio is invariant to diagonal scaling A → DAD, so the test is one on
// the correlation matrix; a pivot below d·ε·A_jj is within the
// factorisation's round-off of zero (Higham, Accuracy and Stability of
// Numerical Algorithms, 2nd ed., Chapter 10).
func PivotTol(d int) float64 { return float64(d) * 0x1p-52 }

// logProd accumulates a product of positive finite numbers as m·2^e,
// m in [1, 2^64), so that neither overflows nor underflows.
type logProd struct {
	m float64
	e int
	n int // factors in m since it was last normalised
}

// mul multiplies the product by the positive finite p. Normal numbers are
// split into mantissa and exponent with bit operations (math.Frexp is a
// call); the rare subnormal takes math.Frexp.
func (l *logProd) mul(p float64) {
	b := math.Float64bits(p)
	var f float64
	if e := int(b >> 52); e != 0 {
		f = math.Float64frombits(b&(1<<52-1) | 1023<<52) // in [1, 2)
		l.e += e - 1023
	} else {
		var k int
		f, k = math.Frexp(p)
		l.e += k
	}
	l.m *= f
	l.n++
	if l.n == 63 { // 63 factors below 2 multiply to below 2^63
		fm, k := math.Frexp(l.m)
		l.m, l.e = fm, l.e+k
		l.n = 0
	}
}

// log returns the logarithm of the product.
func (l *logProd) log() float64 {
	fm, k := math.Frexp(l.m)
	return math.Log(fm) + float64(l.e+k)*math.Ln2
}

// CholLowerTo writes the lower Cholesky factor of the SPD matrix in the
// upper triangle of src (row-major d×d) into dst, zeros above the
// diagonal, and reports false when it is not SPD enough.
func CholLowerTo(dst, src []float64, d int) bool {
	if d <= PlainMaxD {
		copy(dst, src)
		if _, ok := CholLower(dst, dst, nil, d); !ok {
			return false
		}
	} else {
		copy(dst, src)
		if _, ok := CholLogDet(dst, d); !ok {
			return false
		}
		for r := range d { // U in the upper triangle: L = Uᵀ
			for c := r + 1; c < d; c++ {
				dst[c*d+r] = dst[r*d+c]
			}
		}
	}
	for r := range d {
		clear(dst[r*d+r+1 : r*d+d])
	}
	return true
}
