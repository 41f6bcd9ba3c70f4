package dense

import "math"

// Tridiagonalize reduces the symmetric matrix held in the upper triangle
// of the row-major n×n matrix a to the tridiagonal T = Qᵀ A Q with
// diagonal diag and off-diagonal off[:n−1], by Householder reflections as
// LAPACK's dsytd2 (Golub and Van Loan, Matrix Computations, §8.3.1), in
// plain loops: at the small n of covariance descriptors, the BLAS-2
// calls of Dsytd2 cost more in overhead than in arithmetic. a is
// overwritten. Entries of a
// must be at most about n in magnitude (no scaling guards the norms).
// p and q are scratch of length n.
//
// Step k reflects row k with H = I − τvvᵀ and updates the trailing block,
// A₂₂ −= vwᵀ + wvᵀ with w = τq − (τ²/2)(qᵀv)v, q = A₂₂v. The update of
// step k is fused with step k+1's product q' = A₂₂'v' (A₂₂' = A₂₂ without
// its first row and column): once the update has reached row k+1, v' is
// known, and each updated entry of the rows below is multiplied by v'
// while still in a register, so every step passes over A₂₂ once instead
// of twice. Two rows share the loads and stores of v, w, v' and q' per
// column. The sums that would each take a serial pass, ‖x‖² for the next
// reflection and q'ᵀv', are accumulated in the same loops: q'_i is final
// once row i has been updated.
//
// On a CPU with AVX2 and FMA, n >= vecMinD takes the loop over row pairs
// of each step in assembly (tridiagPairsAVX), four columns a vector. At
// small n the steps' serial chain (the norm, the reflection's square root
// and divisions, the product's sums) dominates instead.
func Tridiagonalize(a []float64, n int, diag, off, p, q []float64) {
	tridiagonalizeOn(a, n, diag, off, p, q, nil, haveFMA && n >= vecMinD)
}

// tridiagonalizeOn is Tridiagonalize with the row pairs in
// tridiagPairsAVX when vec is set (which needs a CPU with AVX2 and FMA),
// else in plain Go. When taus is not nil it receives, at index k, the τ
// of step k's reflection H_k = I − τvvᵀ, whose v (v₀ = 1) is left in row
// k of a from column k+1 on, for k < n−2: Q = H_0 H_1 ⋯ H_{n−3}.
func tridiagonalizeOn(a []float64, n int, diag, off, p, q, taus []float64, vec bool) {
	a = a[:n*n]
	if n < 3 {
		if n == 2 {
			diag[0] = a[0]
			off[0] = a[1]
		}
		diag[n-1] = a[n*n-1]
		return
	}
	// Step 0's reflection and product: no update precedes them.
	diag[0] = a[0]
	var xn float64
	for _, x := range a[2:n] {
		xn += x * x
	}
	tau := house(a[1:n], xn, off)
	if taus != nil {
		taus[0] = tau
	}
	var qv float64 // qᵀv for the product q = A₂₂v in p
	{
		m := n - 1
		o := n + 1 // A₂₂[0][0]
		v := a[1:n]
		qk := p[:m]
		clear(qk)
		i := 0
		for ; i+1 < m; i += 2 { // two rows, as in the fused loop below
			i1 := i + 1
			vi, vi1 := v[i], v[i1]
			x01 := a[o+i*n+i1]
			s0 := a[o+i*n+i]*vi + x01*vi1
			s1 := x01*vi + a[o+i1*n+i1]*vi1
			vr, qr := v[i+2:m], qk[i+2:m]
			a0 := a[o+i*n+i+2 : o+i*n+m]
			a1 := a[o+i1*n+i+2 : o+i1*n+m]
			a0, a1, qr = a0[:len(vr)], a1[:len(vr)], qr[:len(vr)]
			for j, vj := range vr {
				x, y := a0[j], a1[j]
				s0 += x * vj
				s1 += y * vj
				qr[j] += x*vi + y*vi1
			}
			s0 += qk[i]
			s1 += qk[i1]
			qk[i], qk[i1] = s0, s1
			qv += s0*vi + s1*vi1
		}
		if i < m {
			s := qk[i] + a[o+i*n+i]*v[i]
			qk[i] = s
			qv += s * v[i]
		}
	}
	for k := 0; k+2 < n; k++ {
		m := n - k - 1
		o := (k+1)*n + k + 1 // A₂₂[0][0]
		v := a[k*n+k+1 : k*n+n]
		// w = τq − (τ²/2)(qᵀv)v, in place of q = A₂₂v in p, computed in the
		// update of row 0 of A₂₂, row k+1 of A. Updated, that row gives T's
		// next diagonal entry and step k+1's reflection v' (in its own
		// row, from column k+2 on).
		w := p[:m]
		kk := -0.5 * tau * (tau * qv)
		xn = 0
		{
			ar := a[o : o+m]
			vr, wr := v[:len(ar)], w[:len(ar)]
			v0 := vr[0]
			w0 := tau*wr[0] + kk*v0
			w1 := tau*wr[1] + kk*vr[1]
			wr[0], wr[1] = w0, w1
			ar[0] -= v0*w0 + w0*v0
			ar[1] -= v0*w1 + w0*vr[1]
			for j := 2; j < len(ar); j++ {
				vj := vr[j]
				wj := tau*wr[j] + kk*vj
				wr[j] = wj
				x := ar[j] - (v0*wj + w0*vj)
				ar[j] = x
				xn += x * x
			}
		}
		diag[k+1] = a[o]
		if k+3 >= n { // the last 2×2 block: no further reflection
			a[o+n+1] -= 2 * v[1] * w[1]
			off[k+1] = a[o+1]
			diag[k+2] = a[o+n+1]
			return
		}
		tau = house(a[o+1:o+m], xn, off[k+1:])
		if taus != nil {
			taus[k+1] = tau
		}
		// nv[j] = v'_{j−1} for j >= 1: v' indexed as A₂₂'s columns.
		nv := a[o : o+m]
		qk := q[:m] // qk[j] accumulates q'_{j−1}, j >= 1
		clear(qk)
		qv = 0
		i := 1
		if vec {
			_ = a[o+(m-1)*n+m-1] // the block's last entry: tridiagPairsAVX stays inside a
			_, _, _ = v[m-1], w[m-1], qk[m-1]
			qv = tridiagPairsAVX(&a[o], n, m, &v[0], &w[0], &nv[0], &qk[0])
			i += (m - 1) &^ 1
		}
		for ; i+1 < m; i += 2 {
			i1 := i + 1
			a0 := a[o+i*n+i : o+i*n+m]
			a1 := a[o+i1*n+i1 : o+i1*n+m]
			ui, ui1, wi, wi1 := v[i], v[i1], w[i], w[i1]
			ni, ni1 := nv[i], nv[i1]
			x00 := a0[0] - (ui*wi + wi*ui)
			x01 := a0[1] - (ui*w[i1] + wi*v[i1])
			x11 := a1[0] - (ui1*wi1 + wi1*ui1)
			a0[0], a0[1], a1[0] = x00, x01, x11
			s0 := x00*ni + x01*ni1
			s1 := x01*ni + x11*ni1
			a0, a1 = a0[2:], a1[1:]
			vr, wr, nr, qr := v[i+2:m], w[i+2:m], nv[i+2:m], qk[i+2:m]
			a0, a1, wr, nr, qr = a0[:len(vr)], a1[:len(vr)], wr[:len(vr)], nr[:len(vr)], qr[:len(vr)]
			for j, vj := range vr {
				wj, nj := wr[j], nr[j]
				x := a0[j] - (ui*wj + wi*vj)
				y := a1[j] - (ui1*wj + wi1*vj)
				a0[j], a1[j] = x, y
				s0 += x * nj
				s1 += y * nj
				qr[j] += x*ni + y*ni1
			}
			s0 += qk[i]
			s1 += qk[i1]
			qk[i], qk[i1] = s0, s1
			qv += s0*ni + s1*ni1
		}
		if i < m {
			x := a[o+i*n+i] - 2*v[i]*w[i]
			a[o+i*n+i] = x
			s := qk[i] + x*nv[i]
			qk[i] = s
			qv += s * nv[i]
		}
		// q' is step k+1's p; p serves as the next q.
		p, q = q[1:], p
	}
}

// house computes the reflection H = I − τvvᵀ with Hx = βe₁ for the vector
// x held in v, xn = Σ_{j>=1} x_j² (LAPACK's dlarfg; Golub and Van Loan,
// §5.1.3), leaving v in its place with
// v₀ = 1, β in off[0], and returning τ; τ = 0 (H = I) when xn = 0.
func house(v []float64, xn float64, off []float64) float64 {
	alpha := v[0]
	if xn == 0 {
		off[0] = alpha
		return 0
	}
	beta := -math.Copysign(math.Sqrt(alpha*alpha+xn), alpha)
	tau := (beta - alpha) / beta
	scal := 1 / (alpha - beta)
	v[0] = 1
	for j := 1; j < len(v); j++ {
		v[j] *= scal
	}
	off[0] = beta
	return tau
}
