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
	if !solveLowerT(z, u, w.b, d) {
		return false
	}
	// Scale Z by 2^−s, exactly, so that G's entries are at most d: no
	// overflow in G or in the Householder norms, and λ = 2^2s·λ(G').
	var zmax float64
	for _, v := range z {
		if v = math.Abs(v); v > zmax {
			zmax = v
		}
	}
	_, s := math.Frexp(zmax) // zmax in [2^(s−1), 2^s)
	if s < -1000 || s > 1000 {
		return false
	}
	if s != 0 {
		f := math.Ldexp(1, -s)
		for i := range z {
			z[i] *= f
		}
	}
	gramUpperT(g, z, d)
	diag, off := w.vals, w.fv
	tridiagonalize(g, d, diag, off, w.work[:d])
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
// lower triangular L and M held in the lower triangles of l and m. It
// reports false when an entry is not finite.
//
// Row j of Zᵀ, column j of Z, is found by forward substitution,
//
//	Z_ij = (M_ij − Σ_{k=j}^{i−1} L_ik Z_kj) / L_ii,  i >= j,
//
// a dot product of two contiguous rows, L's row i and Zᵀ's row j. Three
// rows of Zᵀ share the loads of L's row: with the zeros below the diagonal
// their sums all run over k >= j.
func solveLowerT(z, l, m []float64, d int) bool {
	n := d * d
	z, l, m = z[:n], l[:n], m[:n]
	clear(z)
	// entry computes Z_ij from the sum t over k < i. It divides rather
	// than multiplying by a reciprocal so that Z = L⁻¹L is exactly I and
	// d(X, X) exactly 0.
	entry := func(i, j int, t float64) float64 {
		v := (m[i*d+j] - t) / l[i*d+i]
		z[j*d+i] = v
		return v
	}
	// single completes row j of Zᵀ from column i0 on.
	single := func(j, i0 int) {
		zj := z[j*d : j*d+d]
		for i := i0; i < d; i++ {
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
		a := entry(j, j, 0)
		b := entry(j1, j, l[j1*d+j]*a)
		c := entry(j1, j1, 0)
		entry(j2, j, l[j2*d+j]*a+l[j2*d+j1]*b)
		entry(j2, j1, l[j2*d+j1]*c)
		entry(j2, j2, 0)
		z0 := z[j*d : j*d+d]
		z1 := z[j1*d : j1*d+d]
		z2 := z[j2*d : j2*d+d]
		for i := j + 3; i < d; i++ {
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
	for _, v := range z {
		if math.IsInf(v, 0) || math.IsNaN(v) {
			return false
		}
	}
	return true
}

// gramUpperT writes into the upper triangle of g that of G = ZᵀZ for the
// upper triangular zt = Zᵀ: G_ab = Σ_{k>=b} Zᵀ_ak Zᵀ_bk, a <= b, dot
// products of contiguous rows, four rows a sharing the loads of row b.
func gramUpperT(g, zt []float64, d int) {
	for b := range d {
		rb := zt[b*d+b : b*d+d]
		a := 0
		for ; a+3 <= b; a += 4 {
			r0 := zt[a*d+b : a*d+d]
			r1 := zt[(a+1)*d+b : (a+1)*d+d]
			r2 := zt[(a+2)*d+b : (a+2)*d+d]
			r3 := zt[(a+3)*d+b : (a+3)*d+d]
			r0, r1, r2, r3 = r0[:len(rb)], r1[:len(rb)], r2[:len(rb)], r3[:len(rb)]
			var t0, t1, t2, t3 float64
			for k, v := range rb {
				t0 += v * r0[k]
				t1 += v * r1[k]
				t2 += v * r2[k]
				t3 += v * r3[k]
			}
			g[a*d+b] = t0
			g[(a+1)*d+b] = t1
			g[(a+2)*d+b] = t2
			g[(a+3)*d+b] = t3
		}
		for ; a <= b; a++ {
			ra := zt[a*d+b : a*d+d]
			ra = ra[:len(rb)]
			var t float64
			for k, v := range rb {
				t += v * ra[k]
			}
			g[a*d+b] = t
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
// p is scratch of length n.
func tridiagonalize(a []float64, n int, diag, off, p []float64) {
	a = a[:n*n]
	for k := 0; k+2 < n; k++ {
		diag[k] = a[k*n+k]
		// The reflection H = I − τvvᵀ with Hx = βe₁ for x = A[k, k+1:],
		// row k above the diagonal (column k below it).
		v := a[k*n+k+1 : k*n+n]
		m := len(v)
		alpha := v[0]
		var xn float64
		for _, x := range v[1:] {
			xn += x * x
		}
		if xn == 0 {
			off[k] = alpha
			continue
		}
		beta := -math.Copysign(math.Sqrt(alpha*alpha+xn), alpha)
		tau := (beta - alpha) / beta
		scal := 1 / (alpha - beta)
		v[0] = 1
		for j := 1; j < m; j++ {
			v[j] *= scal
		}
		off[k] = beta
		// p = τ A₂₂ v from the upper triangle of A₂₂ = A[k+1:, k+1:]:
		// row i contributes a dot product to p_i and A_ij v_i to p_j.
		p := p[:m]
		clear(p)
		o := (k+1)*n + k + 1 // A₂₂[0][0]
		i := 0
		for ; i+1 < m; i += 2 {
			// Rows i and i+1 together share the loads and stores of v_j
			// and p_j.
			a0 := a[o+i*n+i : o+i*n+m]
			a1 := a[o+(i+1)*n+i+1 : o+(i+1)*n+m]
			vr := v[i+2 : m]
			pr := p[i+2 : m]
			a0, a1, pr = a0[2:2+len(vr)], a1[1:1+len(vr)], pr[:len(vr)]
			v0, v1 := v[i], v[i+1]
			a00, a01, a11 := a[o+i*n+i], a[o+i*n+i+1], a[o+(i+1)*n+i+1]
			s0 := a00*v0 + a01*v1
			s1 := a01*v0 + a11*v1
			for j, vj := range vr {
				x, y := a0[j], a1[j]
				s0 += x * vj
				s1 += y * vj
				pr[j] += x*v0 + y*v1
			}
			p[i] += s0
			p[i+1] += s1
		}
		if i < m {
			p[i] += a[o+i*n+i] * v[i]
		}
		var pv float64
		for i := range p {
			p[i] *= tau
			pv += p[i] * v[i]
		}
		// w = p − (τ/2)(pᵀv) v, then A₂₂ −= v wᵀ + w vᵀ.
		kk := -0.5 * tau * pv
		for i := range p {
			p[i] += kk * v[i]
		}
		for i := range m {
			ar := a[o+i*n+i : o+i*n+m]
			vr := v[i:]
			wr := p[i:]
			vr, wr = vr[:len(ar)], wr[:len(ar)]
			vi, wi := vr[0], wr[0]
			for j := range ar {
				ar[j] -= vi*wr[j] + wi*vr[j]
			}
		}
	}
	if n >= 2 {
		diag[n-2] = a[(n-2)*n+n-2]
		off[n-2] = a[(n-2)*n+n-1]
	}
	diag[n-1] = a[n*n-1]
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
// division and a few multiplications per step instead of two divisions. work, of length at least
// 2n, keeps a copy of the input for that fallback. It reports false when
// the iteration does not converge.
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
			anorm = math.Max(anorm, math.Abs(d[i]))
		}
		for i := l; i < lend; i++ {
			anorm = math.Max(anorm, math.Abs(e[i]))
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

// gonumLapack calls gonum's native LAPACK routines that lapack64 does not
// export.
var gonumLapack lapackgonum.Implementation
