package dense

// cholLowerVec is cholLowerOn's assembly path, the dot products in
// dot2AVX: for each pair of columns i, i+1, one call computes the sums
// Σ_{k<i} L_jk L_ik and Σ_{k<i} L_jk L_{i+1,k} of every row j >= i, the
// pair's own pivots' sums included, so the call overhead is paid d/2
// times per factorisation. The next pair's pivots are taken as soon as
// its rows i+2 and i+3 are finished, before the rows below them
// (cholRowsAVX, four rows a vector), so that the pivots' serial chain of
// square roots and divisions overlaps those rows. Only used when haveFMA.
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
	var c [3]float64          // 1/L_ii, 1/L_{i+1,i+1}, L_{i+1,i} of the pair i the pivots took
	// pivots takes the pivots of columns i, i+1 from s00, s01, s11.
	pivots := func(i int) bool {
		i1 := i + 1
		oi, o1 := i*d, i1*d
		a00 := at(oi + i)
		p0 := a00 - s00
		b := at(oi+i1) - s01
		a11 := at(o1 + i1)
		l00, l10, l11, inv0, inv1, p1, ok := pivotPair(a00, p0, b, a11, s11, tol)
		if !ok {
			return false
		}
		l[oi+i] = l00
		l[o1+i] = l10
		l[o1+i1] = l11
		ld.mul(p0)
		ld.mul(p1)
		c = [3]float64{inv0, inv1, l10}
		return true
	}
	if d == 1 {
		p, ok := lastPivot(l, 0, at(0), 0, tol)
		if !ok {
			return 0, false
		}
		ld.mul(p)
		return ld.log(), true
	}
	if !pivots(0) {
		return 0, false
	}
	for i := 0; i+1 < d; i += 2 {
		i1 := i + 1
		oi, o1 := i*d, i1*d
		m := d - i - 2 // rows i+2 on
		if m <= 0 {
			continue
		}
		ci := c
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
			lj0 := (at(oi+j) - s0[r]) * ci[0]
			lj1 := (at(o1+j) - s1[r] - lj0*ci[2]) * ci[1]
			l[j*d+i] = lj0
			l[j*d+i1] = lj1
			return lj0, lj1
		}
		// Rows i+2 and i+3 first, and with them the next pair's pivots.
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
			if !pivots(i + 2) {
				return 0, false
			}
		} else { // row d−1, the last column's pivot
			var q0, q1 [1]float64
			if i > 0 {
				dot2AVX(&l[o2], d, 1, i, &l[o2], &l[o2], &q0[0], &q1[0], false)
			}
			lj0, lj1 := finish(0)
			s00 = q0[0] + lj0*lj0 + lj1*lj1
			o := (d-1)*d + d - 1
			p, ok := lastPivot(l, o, at(o), s00, tol)
			if !ok {
				return 0, false
			}
			ld.mul(p)
		}
		if m > 2 {
			j := i + 4
			a0, a1 := &x[oi+j], &x[o1+j]
			var b0, b1 *float64
			if two {
				b0, b1 = &y[oi+j], &y[o1+j]
			}
			cholRowsAVX(&l[j*d+i], d, m-2, a0, a1, b0, b1, &t0[2], &t1[2], &ci)
		}
	}
	return ld.log(), true
}

// vecMinD is the smallest d for which CholLower, Chol4, SolveLowerT,
// GramUpperT and Tridiagonalize take their assembly kernels: below it the
// kernels' calls and horizontal sums cost more than their four lanes
// save.
const vecMinD = 13
