package spd

import "math"

// dot2Go is the plain-Go reference of dot2AVX: t0[r] = Σ_k R_rk x0[k]
// and t1[r] = Σ_k R_rk x1[k] for the m rows R_r = a[r·stride:][:n], k
// from 0, or with tri from r rounded down to a multiple of 4, to n.
func dot2Go(a []float64, stride, m, n int, x0, x1, t0, t1 []float64, tri bool) {
	x0, x1 = x0[:n], x1[:n]
	for r := range m {
		k0 := 0
		if tri {
			k0 = min(r&^3, n)
		}
		row := a[r*stride+k0 : r*stride+n]
		y0, y1 := x0[k0:], x1[k0:]
		var s0, s1 float64
		for k, v := range row {
			s0 += v * y0[k]
			s1 += v * y1[k]
		}
		t0[r], t1[r] = s0, s1
	}
}

// cholLowerVec is cholLower with the dot products in dot2AVX: for each
// pair of columns i, i+1, one call computes the sums Σ_{k<i} L_jk L_ik
// and Σ_{k<i} L_jk L_{i+1,k} of every row j >= i, the pair's own pivots'
// sums included, so the call overhead is paid d/2 times per
// factorisation. Only used when haveFMA.
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
	var buf [2 * plainMaxD]float64
	t0, t1 := buf[:d], buf[plainMaxD:plainMaxD+d]
	tol := pivotTol(d)
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
		for ; r < m; r++ {
			finish(r)
		}
	}
	if i < d { // the last column of an odd d; s00 holds its sum
		o := i*d + i
		a := at(o)
		p := a - s00
		if !pivotOK(p, a, tol) {
			return 0, false
		}
		l[o] = math.Sqrt(p)
		ld.mul(p)
	}
	return ld.log(), true
}

// vecMinD is the smallest d for which cholLower, solveLowerT, gramUpperT
// and tridiagonalize take their assembly kernels: below it the kernels'
// calls and horizontal sums cost more than their four lanes save (each
// measured against its plain loop at d = 5 to 16: the four cross over
// between d = 10 and 14; at d = 8 every one was 10–25% slower).
const vecMinD = 13

// solveLowerTVec is solveLowerT with the dot products in dot2AVX: for
// each pair of rows i, i+1 of Z, one call computes Σ_k L_ik Z_kj and
// Σ_k L_{i+1,k} Z_kj for every column j < i, as products of the rows of
// Zᵀ found so far with the rows of L (tri: Zᵀ's zeros below the diagonal
// are skipped four at a time). The quotients are as in solveLowerT, so
// Z = L⁻¹L is still exactly I. Only used when haveFMA.
func solveLowerTVec(z, l, m, rl []float64, d int) {
	n := d * d
	z, l, m, rl = z[:n], l[:n], m[:n], rl[:d]
	clear(z)
	for i := range rl {
		rl[i] = 1 / l[i*d+i]
	}
	var buf [2 * plainMaxD]float64
	t0, t1 := buf[:d], buf[plainMaxD:plainMaxD+d]
	i := 0
	for ; i+1 < d; i += 2 {
		i1 := i + 1
		oi, o1 := i*d, i1*d
		if i > 0 {
			dot2AVX(&z[0], d, i, i, &l[oi], &l[o1], &t0[0], &t1[0], true)
		}
		c := l[o1+i]
		r0, r1 := rl[i], rl[i1]
		u0, u1 := t0[:i], t1[:i]
		u1 = u1[:len(u0)]
		mi, m1 := m[oi:oi+i], m[o1:o1+i]
		mi, m1 = mi[:len(u0)], m1[:len(u0)]
		for j, s := range u0 {
			v := (mi[j] - s) * r0
			z[j*d+i] = v
			z[j*d+i1] = (m1[j] - (u1[j] + c*v)) * r1
		}
		v := m[oi+i] / l[oi+i]
		z[oi+i] = v
		z[oi+i1] = (m[o1+i] - c*v) * r1
		z[o1+i1] = m[o1+i1] / l[o1+i1]
	}
	if i < d { // the last row of an odd d
		oi := i * d
		dot2AVX(&z[0], d, i, i, &l[oi], &l[oi], &t0[0], &t1[0], true)
		for j, s := range t0[:i] {
			z[j*d+i] = (m[oi+j] - s) * rl[i]
		}
		z[oi+i] = m[oi+i] / l[oi+i]
	}
}

// gramUpperTVec is gramUpperT with the dot products in dot2AVX: for each
// pair of columns b, b+1 of G, one call computes the products of rows b
// and b+1 of Zᵀ, from column b+1 on, with every row a <= b+1. Only used
// when haveFMA.
func gramUpperTVec(g, zt []float64, d int) {
	var buf [2 * plainMaxD]float64
	t0, t1 := buf[:d], buf[plainMaxD:plainMaxD+d]
	b := 0
	for ; b+1 < d; b += 2 {
		b1 := b + 1
		dot2AVX(&zt[b1], d, b+2, d-b1, &zt[b*d+b1], &zt[b1*d+b1], &t0[0], &t1[0], false)
		zbb := zt[b*d+b]
		for a := 0; a <= b; a++ {
			g[a*d+b] = zt[a*d+b]*zbb + t0[a]
			g[a*d+b1] = t1[a]
		}
		g[b1*d+b1] = t1[b1]
	}
	if b < d { // the last column of an odd d
		rb := zt[b*d+b : b*d+d]
		for a := 0; a <= b; a++ {
			g[a*d+b] = zt[a*d+b] * rb[0]
		}
	}
}
