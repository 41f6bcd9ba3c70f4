package spd

import (
	"math"
	"slices"

	lapackgonum "gonum.org/v1/gonum/lapack/gonum"
	"gonum.org/v1/gonum/mat"
)

// fastEigen puts into w.vals the generalised eigenvalues of X and Y, up
// to the factor e^w.logShift, in plain loops without the per-call
// overhead of the BLAS and LAPACK routines of whiten, which dominates at
// the package's sizes: with X = LLᵀ and Y = MMᵀ,
//
//	U⁻ᵀ Y U⁻¹ = L⁻¹ M Mᵀ L⁻ᵀ = Z Zᵀ,  Z = L⁻¹ M (lower triangular),
//
// whose eigenvalues are those of G = ZᵀZ. Z takes a triangular solve with
// a triangular right-hand side (d³/3 flops, against 2d³ for whiten's two
// full solves), G as much again for its triangle, and G, scaled by a power
// of two to a largest entry near 1, is reduced to tridiagonal form
// (tridiagonalize, 4d³/3) whose eigenvalues tridiagEigen finds. The Gram
// form also keeps G positive semi-definite where the congruence U⁻ᵀYU⁻¹
// may lose it to round-off.
//
// u holds X's factor as cholLogDet leaves it for d <= plainMaxD: L = Uᵀ in
// its lower triangle. When haveM is set, w.b's lower triangle already holds
// M; otherwise Y is loaded and factorised here. fastEigen reports false,
// and the caller takes the general route, when Y is not SPD enough, a
// value overflows, the iteration does not converge or an eigenvalue is
// not positive: the cases that route handles and reports.
func (w *Workspace) fastEigen(u []float64, y mat.Symmetric, haveM bool) bool {
	d := w.d
	if d > plainMaxD {
		return false
	}
	if !haveM {
		loadUpperTo(w.b, d, y)
		if _, ok := cholLower(w.b, w.b, nil, d); !ok {
			return false
		}
	}
	z, g := w.c, w.b
	solveLowerT(z, u, w.b, w.work[:d], d)
	// Scale Z by 2^−s, exactly, so that G's entries are at most d: no
	// overflow in G or in the Householder norms, and λ = 2^2s·λ(G'). The
	// scan for Z's largest entry, over Zᵀ's upper triangle (the rest is
	// zero), also rejects entries that are not finite.
	var zmax float64
	for j := range d {
		for _, v := range z[j*d+j : j*d+d] {
			v = math.Abs(v)
			if !(v <= math.MaxFloat64) { // NaN or ±Inf
				return false
			}
			if v > zmax {
				zmax = v
			}
		}
	}
	_, s := math.Frexp(zmax) // zmax in [2^(s−1), 2^s)
	if s < -1000 || s > 1000 {
		return false
	}
	if s != 0 {
		f := math.Ldexp(1, -s)
		for j := range d {
			r := z[j*d+j : j*d+d]
			for i := range r {
				r[i] *= f
			}
		}
	}
	gramUpperT(g, z, d)
	diag, off := w.vals, w.fv
	tridiagonalize(g, d, diag, off, w.work[:d], w.work[d:2*d])
	if !tridiagEigen(diag, off[:d-1], w.work[d:]) {
		return false
	}
	if !(diag[0] > 0) || math.IsInf(diag[d-1], 1) {
		return false
	}
	w.logShift = float64(2*s) * math.Ln2
	return true
}

// solveLowerT writes Zᵀ for Z = L⁻¹M into the upper triangle of the
// row-major d×d matrix z and zeros into its strict lower triangle, for the
// lower triangular L and M held in the lower triangles of l and m.
//
// Row j of Zᵀ, column j of Z, is found by forward substitution,
//
//	Z_ij = (M_ij − Σ_{k=j}^{i−1} L_ik Z_kj) / L_ii,  i >= j,
//
// a dot product of two contiguous rows, L's row i and Zᵀ's row j. Three
// rows of Zᵀ share the loads of two rows of L: with the zeros below the
// diagonal their sums all run over k >= j.
//
// Below the diagonal the quotient is a product with 1/L_ii, from rl
// (scratch of length d): d divisions instead of d(d+1)/2, each as costly
// as several multiplications. The diagonal,
// Z_jj = M_jj/L_jj, is divided so that Z = L⁻¹L is exactly I (each sum
// below the diagonal is then exactly M_ij, the entry exactly 0) and
// d(X, X) exactly 0.
//
// On a CPU with AVX2 and FMA, d >= vecMinD takes solveLowerTVec, the dot
// products four lanes wide in assembly (dot2AVX): 2.9 to 1.35 µs at
// d = 43, 0.32 to 0.24 µs at d = 17. solveLowerTGo is the plain path.
func solveLowerT(z, l, m, rl []float64, d int) {
	solveLowerTOn(z, l, m, rl, d, haveFMA && d >= vecMinD)
}

// solveLowerTGo is solveLowerT in plain Go.
func solveLowerTGo(z, l, m, rl []float64, d int) {
	solveLowerTOn(z, l, m, rl, d, false)
}

// solveLowerTOn is solveLowerTVec when vec is set, else the plain loops
// (one call from solveLowerT: inlined, no extra call at small d).
func solveLowerTOn(z, l, m, rl []float64, d int, vec bool) {
	if vec {
		solveLowerTVec(z, l, m, rl, d)
		return
	}
	n := d * d
	z, l, m, rl = z[:n], l[:n], m[:n], rl[:d]
	clear(z)
	for i := range rl {
		rl[i] = 1 / l[i*d+i]
	}
	// entry computes Z_ij, i > j, from the sum t over k < i.
	entry := func(i, j int, t float64) float64 {
		v := (m[i*d+j] - t) * rl[i]
		z[j*d+i] = v
		return v
	}
	// diag computes Z_jj.
	diag := func(j int) float64 {
		v := m[j*d+j] / l[j*d+j]
		z[j*d+j] = v
		return v
	}
	// single completes row j of Zᵀ from column i0 on.
	single := func(j, i0 int) {
		zj := z[j*d : j*d+d]
		for i := i0; i < d; i++ {
			if i == j {
				diag(j)
				continue
			}
			li := l[i*d+j : i*d+i]
			zr := zj[j:i]
			zr = zr[:len(li)]
			var t float64
			for k, v := range li {
				t += v * zr[k]
			}
			entry(i, j, t)
		}
	}
	j := 0
	for ; j+2 < d; j += 3 {
		j1, j2 := j+1, j+2
		// The 3×3 corner: Z_jj, Z_{j+1,j}, Z_{j+1,j+1}, Z_{j+2,·}.
		a := diag(j)
		b := entry(j1, j, l[j1*d+j]*a)
		c := diag(j1)
		entry(j2, j, l[j2*d+j]*a+l[j2*d+j1]*b)
		entry(j2, j1, l[j2*d+j1]*c)
		diag(j2)
		z0 := z[j*d : j*d+d]
		z1 := z[j1*d : j1*d+d]
		z2 := z[j2*d : j2*d+d]
		i := j + 3
		for ; i+1 < d; i += 2 {
			// Rows i and i+1 of L together: six sums hide the addition
			// latency. Row i+1's last term, k = i, waits for Z_i·.
			li := l[i*d+j : i*d+i]
			lk := l[(i+1)*d+j : (i+1)*d+i]
			r0, r1, r2 := z0[j:i], z1[j:i], z2[j:i]
			lk, r0, r1, r2 = lk[:len(li)], r0[:len(li)], r1[:len(li)], r2[:len(li)]
			var t0, t1, t2, u0, u1, u2 float64
			for k, v := range li {
				w := lk[k]
				x := r0[k]
				t0 += v * x
				u0 += w * x
				x = r1[k]
				t1 += v * x
				u1 += w * x
				x = r2[k]
				t2 += v * x
				u2 += w * x
			}
			c := l[(i+1)*d+i]
			entry(i+1, j, u0+c*entry(i, j, t0))
			entry(i+1, j1, u1+c*entry(i, j1, t1))
			entry(i+1, j2, u2+c*entry(i, j2, t2))
		}
		if i < d {
			li := l[i*d+j : i*d+i]
			r0, r1, r2 := z0[j:i], z1[j:i], z2[j:i]
			r0, r1, r2 = r0[:len(li)], r1[:len(li)], r2[:len(li)]
			var t0, t1, t2 float64
			for k, v := range li {
				t0 += v * r0[k]
				t1 += v * r1[k]
				t2 += v * r2[k]
			}
			entry(i, j, t0)
			entry(i, j1, t1)
			entry(i, j2, t2)
		}
	}
	for ; j < d; j++ {
		single(j, j)
	}
}

// gramUpperT writes into the upper triangle of g that of G = ZᵀZ for the
// upper triangular zt = Zᵀ: G_ab = Σ_{k>=b} Zᵀ_ak Zᵀ_bk, a <= b, dot
// products of contiguous rows. Columns b and b+1 are computed together,
// three rows a sharing the loads of rows b and b+1: six sums hide the
// addition latency (eight would not stay in registers). Column b's first
// term, k = b, is added first, as in the plain sum.
//
// On a CPU with AVX2 and FMA, d >= vecMinD takes gramUpperTVec (dot2AVX,
// one call per column pair): 2.8 to 1.05 µs at d = 43, 0.27 to 0.17 µs
// at d = 17. gramUpperTGo is the plain path.
func gramUpperT(g, zt []float64, d int) {
	gramUpperTOn(g, zt, d, haveFMA && d >= vecMinD)
}

// gramUpperTGo is gramUpperT in plain Go.
func gramUpperTGo(g, zt []float64, d int) {
	gramUpperTOn(g, zt, d, false)
}

// gramUpperTOn is gramUpperTVec when vec is set, else the plain loops
// (one call from gramUpperT: inlined, no extra call at small d).
func gramUpperTOn(g, zt []float64, d int, vec bool) {
	if vec {
		gramUpperTVec(g, zt, d)
		return
	}
	b := 0
	for ; b+1 < d; b += 2 {
		b1 := b + 1
		rb := zt[b*d+b1 : b*d+d]
		rc := zt[b1*d+b1 : b1*d+d]
		rc = rc[:len(rb)]
		zbb := zt[b*d+b]
		a := 0
		for ; a+2 <= b; a += 3 {
			r0 := zt[a*d+b1 : a*d+d]
			r1 := zt[(a+1)*d+b1 : (a+1)*d+d]
			r2 := zt[(a+2)*d+b1 : (a+2)*d+d]
			r0, r1, r2 = r0[:len(rb)], r1[:len(rb)], r2[:len(rb)]
			t0 := zt[a*d+b] * zbb
			t1 := zt[(a+1)*d+b] * zbb
			t2 := zt[(a+2)*d+b] * zbb
			var u0, u1, u2 float64
			for k, v := range rb {
				w := rc[k]
				x := r0[k]
				t0 += v * x
				u0 += w * x
				x = r1[k]
				t1 += v * x
				u1 += w * x
				x = r2[k]
				t2 += v * x
				u2 += w * x
			}
			g[a*d+b], g[a*d+b1] = t0, u0
			g[(a+1)*d+b], g[(a+1)*d+b1] = t1, u1
			g[(a+2)*d+b], g[(a+2)*d+b1] = t2, u2
		}
		for ; a <= b1; a++ {
			ra := zt[a*d+b1 : a*d+d]
			ra = ra[:len(rb)]
			var t, u float64
			if a <= b {
				t = zt[a*d+b] * zbb
			}
			for k, v := range rb {
				x := ra[k]
				t += v * x
				u += rc[k] * x
			}
			if a <= b {
				g[a*d+b] = t
			}
			g[a*d+b1] = u
		}
	}
	if b < d { // the last column of an odd d
		rb := zt[b*d+b : b*d+d]
		for a := 0; a <= b; a++ {
			g[a*d+b] = zt[a*d+b] * rb[0]
		}
	}
}

// tridiagonalize reduces the symmetric matrix held in the upper triangle
// of the row-major n×n matrix a to the tridiagonal T = Qᵀ A Q with
// diagonal diag and off-diagonal off[:n−1], by Householder reflections as
// LAPACK's dsytd2 (Golub and Van Loan, Matrix Computations, §8.3.1), in
// plain loops: at the small n of the package's descriptors, the BLAS-2
// calls of Dsytd2 cost more in overhead than in arithmetic. Entries of a
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
func tridiagonalize(a []float64, n int, diag, off, p, q []float64) {
	tridiag(a, n, diag, off, p, q, haveFMA && n >= vecMinD)
}

// tridiag is tridiagonalize, the loop over row pairs of each step in
// tridiagPairsAVX when vec is set (haveFMA required; tridiagonalize sets
// it for n >= vecMinD): four columns a vector, 12.5 to 6.2 µs at n = 43.
// At n = 17 (1.09 to 0.97 µs) the steps' serial chain (the norm, the
// reflection's square root and divisions, the product's sums) dominates.
func tridiag(a []float64, n int, diag, off, p, q []float64, vec bool) {
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
// x held in v, xn = Σ_{j>=1} x_j² (dlarfg), leaving v in its place with
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

// tridiagEigen replaces diag by the eigenvalues, ascending, of the
// symmetric tridiagonal matrix with diagonal diag and off-diagonal off
// (len(diag)−1), destroying off. It is LAPACK's dsterf (the Pal–Walker–
// Kahan root-free QL/QR iteration, as gonum's Dsterf) without the
// per-block scaling, for entries of moderate size (a block whose norm
// falls outside [1e-60, 1e60], where the products of a step might
// underflow, is left to gonum's Dsterf, as is a result that is not
// finite), and with each step rearranged so that its two divisions depend
// only on the previous step's p: the serial chain of a sweep is one
// division and a few multiplications per step instead of two divisions;
// two sweeps run at once (see pwk). work, of length at least 2n, keeps a
// copy of the input for that fallback. It reports false when the
// iteration does not converge.
func tridiagEigen(diag, off, work []float64) bool {
	n := len(diag)
	if n == 1 {
		return true
	}
	d0, e0 := work[:n], work[n:2*n-1]
	copy(d0, diag)
	copy(e0, off)
	if !pwk(diag, off) {
		copy(diag, d0)
		copy(off, e0)
		if !gonumLapack.Dsterf(n, diag, off) {
			return false
		}
	}
	slices.Sort(diag)
	return true
}

// pwk is the iteration of tridiagEigen; false asks for the fallback.
//
// Each iteration makes two sweeps over the unreduced block, shifted by
// the two eigenvalues of its leading 2×2 block (the Wilkinson shift
// first), the second pwkLag steps behind the first: a sweep's steps are a
// serial chain of divisions, and the second sweep's chain, which needs
// only entries the first has finished, runs in the first's latency. Per
// eigenvalue the pair of sweeps costs about as much as one sweep did
// (d = 43: 76 sweeps of 1920 steps in all became 48 pairs of 1228) and
// the iteration took 11.5 instead of 14 µs at d = 43, 1.9 instead of
// 2.55 µs at d = 17.
func pwk(d, e []float64) bool {
	const (
		eps  = 0x1p-53 // dlamchE
		eps2 = eps * eps
	)
	n := len(d)
	maxit := 30 * n
	jtot := 0
	for l1 := 0; l1 < n; {
		if l1 > 0 {
			e[l1-1] = 0
		}
		m := l1
		for ; m < n-1; m++ {
			if math.Abs(e[m]) <= math.Sqrt(math.Abs(d[m]))*math.Sqrt(math.Abs(d[m+1]))*eps {
				e[m] = 0
				break
			}
		}
		l, lend := l1, m
		l1 = m + 1
		if lend == l {
			continue
		}
		var anorm float64
		for i := l; i <= lend; i++ {
			anorm = max(anorm, math.Abs(d[i])) // the builtin: inline, NaN-propagating
		}
		for i := l; i < lend; i++ {
			anorm = max(anorm, math.Abs(e[i]))
			e[i] *= e[i]
		}
		if !(anorm >= 1e-60 && anorm <= 1e60) {
			return false
		}
		if math.Abs(d[lend]) < math.Abs(d[l]) {
			l, lend = lend, l
		}
		if lend > l { // QL iteration
			for {
				m = l
				for ; m < lend; m++ {
					if math.Abs(e[m]) <= eps2*math.Abs(d[m]*d[m+1]) {
						break
					}
				}
				if m < lend {
					e[m] = 0
				}
				p := d[l]
				if m == l {
					if l++; l > lend {
						break
					}
					continue
				}
				if m == l+1 {
					d[l], d[l+1] = gonumLapack.Dlae2(d[l], math.Sqrt(e[l]), d[l+1])
					e[l] = 0
					if l += 2; l > lend {
						break
					}
					continue
				}
				if jtot == maxit {
					return false
				}
				jtot++
				// The Wilkinson shift, the eigenvalue of the leading 2×2
				// block nearer to p: one square root and one division.
				half := 0.5 * (d[l+1] - p)
				sigma := p - e[l]/(half+math.Copysign(math.Sqrt(half*half+e[l]), half))
				if m-l < pwkMinDouble {
					c, s := 1.0, 0.0
					gamma := d[m] - sigma
					p = gamma * gamma
					for i := m - 1; i >= l; i-- {
						bb := e[i]
						r := p + bb
						if i != m-1 {
							e[i+1] = s * r
						}
						alpha := d[i]
						// With c = p/r and s = bb/r, γ' = c(α−σ) − sγ = N/r and
						// p' = γ'²/c = N²/(rp) for N = p(α−σ) − bb·γ: the two
						// divisions wait only for p, not for each other.
						num := p*(alpha-sigma) - bb*gamma
						ir, irp := 1/r, 1/(r*p)
						oldc := c
						c, s = p*ir, bb*ir
						oldgam := gamma
						gamma = num * ir
						d[i+1] = oldgam + (alpha - gamma)
						if p != 0 {
							p = num * num * irp
						} else {
							p = oldc * bb
						}
					}
					e[l] = s * p
					d[l] = sigma + gamma
					continue
				}
				// Two sweeps (see the doc comment), the second shifted by the
				// block's other eigenvalue.
				sigma2 := p + d[l+1] - sigma
				c, s := 1.0, 0.0
				gamma := d[m] - sigma
				p = gamma * gamma
				var c2, s2, gamma2, p2 float64
				for i := m - 1; i >= l-pwkLag; i-- {
					if i >= l {
						bb := e[i]
						r := p + bb
						if i != m-1 {
							e[i+1] = s * r
						}
						alpha := d[i]
						// With c = p/r and s = bb/r, γ' = c(α−σ) − sγ = N/r and
						// p' = γ'²/c = N²/(rp) for N = p(α−σ) − bb·γ: the two
						// divisions wait only for p, not for each other.
						num := p*(alpha-sigma) - bb*gamma
						ir, irp := 1/r, 1/(r*p)
						oldc := c
						c, s = p*ir, bb*ir
						oldgam := gamma
						gamma = num * ir
						d[i+1] = oldgam + (alpha - gamma)
						if p != 0 {
							p = num * num * irp
						} else {
							p = oldc * bb
						}
					} else if i == l-1 {
						e[l] = s * p
						d[l] = sigma + gamma
					}
					j := i + pwkLag // sweep 2
					if j > m {
						continue
					}
					if j == m {
						c2, s2 = 1, 0
						gamma2 = d[m] - sigma2
						p2 = gamma2 * gamma2
						continue
					}
					bb := e[j]
					r := p2 + bb
					if j != m-1 {
						e[j+1] = s2 * r
					}
					alpha := d[j]
					num := p2*(alpha-sigma2) - bb*gamma2
					ir, irp := 1/r, 1/(r*p2)
					oldc := c2
					c2, s2 = p2*ir, bb*ir
					oldgam := gamma2
					gamma2 = num * ir
					d[j+1] = oldgam + (alpha - gamma2)
					if p2 != 0 {
						p2 = num * num * irp
					} else {
						p2 = oldc * bb
					}
				}
				e[l] = s2 * p2
				d[l] = sigma2 + gamma2
			}
		} else { // QR iteration
			for {
				m = l
				for ; m > lend; m-- {
					if math.Abs(e[m-1]) <= eps2*math.Abs(d[m]*d[m-1]) {
						break
					}
				}
				if m > lend {
					e[m-1] = 0
				}
				p := d[l]
				if m == l {
					if l--; l < lend {
						break
					}
					continue
				}
				if m == l-1 {
					d[l], d[l-1] = gonumLapack.Dlae2(d[l], math.Sqrt(e[l-1]), d[l-1])
					e[l-1] = 0
					if l -= 2; l < lend {
						break
					}
					continue
				}
				if jtot == maxit {
					return false
				}
				jtot++
				// The Wilkinson shift, the eigenvalue of the leading 2×2
				// block nearer to p: one square root and one division.
				half := 0.5 * (d[l-1] - p)
				sigma := p - e[l-1]/(half+math.Copysign(math.Sqrt(half*half+e[l-1]), half))
				if l-m < pwkMinDouble {
					c, s := 1.0, 0.0
					gamma := d[m] - sigma
					p = gamma * gamma
					for i := m; i < l; i++ {
						bb := e[i]
						r := p + bb
						if i != m {
							e[i-1] = s * r
						}
						alpha := d[i+1]
						num := p*(alpha-sigma) - bb*gamma
						ir, irp := 1/r, 1/(r*p)
						oldc := c
						c, s = p*ir, bb*ir
						oldgam := gamma
						gamma = num * ir
						d[i] = oldgam + alpha - gamma
						if p != 0 {
							p = num * num * irp
						} else {
							p = oldc * bb
						}
					}
					e[l-1] = s * p
					d[l] = sigma + gamma
					continue
				}
				sigma2 := p + d[l-1] - sigma
				c, s := 1.0, 0.0
				gamma := d[m] - sigma
				p = gamma * gamma
				var c2, s2, gamma2, p2 float64
				for i := m; i <= l+pwkLag-1; i++ {
					if i < l {
						bb := e[i]
						r := p + bb
						if i != m {
							e[i-1] = s * r
						}
						alpha := d[i+1]
						num := p*(alpha-sigma) - bb*gamma
						ir, irp := 1/r, 1/(r*p)
						oldc := c
						c, s = p*ir, bb*ir
						oldgam := gamma
						gamma = num * ir
						d[i] = oldgam + alpha - gamma
						if p != 0 {
							p = num * num * irp
						} else {
							p = oldc * bb
						}
					} else if i == l {
						e[l-1] = s * p
						d[l] = sigma + gamma
					}
					j := i - pwkLag // sweep 2
					if j < m-1 {
						continue
					}
					if j == m-1 {
						c2, s2 = 1, 0
						gamma2 = d[m] - sigma2
						p2 = gamma2 * gamma2
						continue
					}
					bb := e[j]
					r := p2 + bb
					if j != m {
						e[j-1] = s2 * r
					}
					alpha := d[j+1]
					num := p2*(alpha-sigma2) - bb*gamma2
					ir, irp := 1/r, 1/(r*p2)
					oldc := c2
					c2, s2 = p2*ir, bb*ir
					oldgam := gamma2
					gamma2 = num * ir
					d[j] = oldgam + alpha - gamma2
					if p2 != 0 {
						p2 = num * num * irp
					} else {
						p2 = oldc * bb
					}
				}
				e[l-1] = s2 * p2
				d[l] = sigma2 + gamma2
			}
		}
	}
	for _, v := range d {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}

// pwkLag is how many steps pwk's second sweep runs behind its first: one
// is the least the data allow, two measured 10% faster (the first
// sweep's stores are not reloaded at once), three or four no better.
const pwkLag = 2

// pwkMinDouble is the least block length, less one, for which pwk makes
// two sweeps at once; shorter blocks take one at a time, which made the
// AIRM distance at d = 5 about 10% faster than two (no change at d = 17
// and 43).
const pwkMinDouble = 6

// gonumLapack calls gonum's native LAPACK routines that lapack64 does not
// export.
var gonumLapack lapackgonum.Implementation
