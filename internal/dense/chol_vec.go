package dense

// cholLowerVec is cholLowerOn's assembly path, the dot products in
// dot2AVX: for each pair of columns i, i+1, one call computes the sums
// Σ_{k<i} L_jk L_ik and Σ_{k<i} L_jk L_{i+1,k} of every row j >= i, the
// pair's own pivots' sums included, so the call overhead is paid d/2
// times per factorisation; the rows below i+3 are then finished four a
// vector in cholRowsAVX. (Taking the next pair's pivots before those
// rows, as chol4AVX does, costs more in Go than the overlap saves.) Only
// used when haveFMA.
func cholLowerVec(l, x, y []float64, d int) (float64, bool) {
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
	var buf [2 * PlainMaxD]float64
	t0, t1 := buf[:d], buf[PlainMaxD:PlainMaxD+d]
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
		m := d - i - 2 // rows i+2 on
		if m <= 0 {
			continue
		}
		o2 := oi + 2*d
		if i > 0 {
			dot2AVX(&l[o2], d, m, i, &l[oi], &l[o1], &t0[0], &t1[0], false)
		} else {
			clear(t0[:m])
			clear(t1[:m])
		}
		s0, s1 := t0[:m], t1[:m]
		finish := func(r int) (float64, float64) {
			j := i + 2 + r
			lj0 := (at(oi+j) - s0[r]) * inv0
			lj1 := (at(o1+j) - s1[r] - lj0*l10) * inv1
			l[j*d+i] = lj0
			l[j*d+i1] = lj1
			return lj0, lj1
		}
		// Rows i+2 and i+3 first, and with them the next pair's pivot
		// sums, so that its square roots and divisions overlap the
		// remaining rows.
		r := 0
		if m >= 2 {
			var q0, q1 [2]float64
			if i > 0 {
				dot2AVX(&l[o2], d, 2, i, &l[o2], &l[o2+d], &q0[0], &q1[0], false)
			}
			lj0, lj1 := finish(0)
			lk0, lk1 := finish(1)
			s00 = q0[0] + lj0*lj0 + lj1*lj1
			s01 = q1[0] + lj0*lk0 + lj1*lk1
			s11 = q1[1] + lk0*lk0 + lk1*lk1
			r = 2
		} else {
			var q0, q1 [1]float64
			if i > 0 {
				dot2AVX(&l[o2], d, 1, i, &l[o2], &l[o2], &q0[0], &q1[0], false)
			}
			lj0, lj1 := finish(0)
			s00 = q0[0] + lj0*lj0 + lj1*lj1
			r = 1
		}
		if r < m {
			j := i + 2 + r
			var b0, b1 *float64
			if two {
				b0, b1 = &y[oi+j], &y[o1+j]
			}
			c := [3]float64{inv0, inv1, l10}
			cholRowsAVX(&l[j*d+i], d, m-r, &x[oi+j], &x[o1+j], b0, b1, &t0[r], &t1[r], &c, false)
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

// vecMinD is the smallest d for which CholLower, Chol4, SolveLowerT,
// GramUpperT and Tridiagonalize take their assembly kernels: below it the
// kernels' calls and horizontal sums cost more than their four lanes
// save.
const vecMinD = 13
