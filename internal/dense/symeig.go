package dense

import "math"

// SymEigen computes the eigenvalues and eigenvectors of the symmetric
// matrix held in the upper triangle of the row-major n×n matrix a: vals
// receives the eigenvalues, in no particular order, and row j of the
// row-major n×n matrix zt a unit eigenvector for vals[j], the rows
// orthonormal. a is overwritten. Entries of a must be at most about n in magnitude, as for
// Tridiagonalize (scale by a power of two first). It reports false when
// the iteration does not converge or a value is not finite. work must have
// length SymEigenWork(n).
//
// It is LAPACK's dsyev for small n in plain loops, without the per-call
// overhead of the BLAS and LAPACK routines that dominates at the sizes of
// covariance descriptors: the Householder reduction T = Qᵀ A Q of
// Tridiagonalize, Qᵀ accumulated from its reflections backwards
// (dorg2l's order, 2n³/3 flops, each reflection applied to a block that
// is the identity outside its rows), and the implicit QL iteration with
// Wilkinson's shift on T (EISPACK's tql2; Golub and Van Loan, Matrix
// Computations, §8.3.5), its plane rotations applied to pairs of rows of
// Qᵀ, which are contiguous in memory. An off-diagonal entry is
// negligible by dsteqr's relative test, e_m² <= ε²|d_m||d_{m+1}|, or
// when |e_m| <= 4ε‖T‖ (‖T‖ = max_i |d_i| + |e_i|): a change of T within
// the backward error of the reduction that made it.
//
// The first sweep on each eigenvalue is shifted not by Wilkinson's
// estimate but by the eigenvalue nearest to it, found beforehand without
// vectors by TridiagEigen (which costs little beside the rotations): a
// sweep with an exact shift leaves the top off-diagonal entry at a few
// ulps of ‖T‖, which the absolute test deflates or the next sweep,
// converging cubically, removes: on random 43×43 matrices 1.3 sweeps
// per eigenvalue, where Wilkinson's shift takes 2.5. Every sweep is an
// orthogonal similarity whatever its shift, so the shifts change how
// fast, not how accurately, the iteration converges.
func SymEigen(a []float64, n int, vals, zt, work []float64) bool {
	return symEigenOn(a, n, vals, zt, work, haveFMA && n >= vecMinD)
}

// symEigenOn is SymEigen with the assembly kernels when vec is set (which
// needs a CPU with AVX2 and FMA), else in plain Go.
func symEigenOn(a []float64, n int, vals, zt, work []float64, vec bool) bool {
	if n == 1 {
		vals[0] = a[0]
		zt[0] = 1
		return !math.IsNaN(a[0]) && !math.IsInf(a[0], 0)
	}
	work = work[:SymEigenWork(n)]
	off, taus, p, shifts, pwk := work[:n], work[n:2*n], work[2*n:3*n], work[3*n:4*n], work[4*n:]
	// Tridiagonalize's q is zt's first row, overwritten below.
	tridiagonalizeOn(a, n, vals, off, p, zt[:n], taus, vec)
	accumulateQT(zt, a, taus, n, vec)
	copy(shifts, vals)
	copy(pwk[:n-1], off[:n-1])
	if !TridiagEigen(shifts, pwk[:n-1], pwk[n:]) {
		shifts = nil
	}
	return tql2Rows(vals, off, zt, n, shifts, vec)
}

// SymEigenWork returns the length of SymEigen's work for n×n matrices.
func SymEigenWork(n int) int { return 7 * n }

// SymEigenSorted is SymEigen in the layout of LAPACK's dsyev and gonum's
// mat.EigenSym: vals in ascending order, and the unit eigenvector of
// vals[j] in column j of the row-major n×n matrix u. zt, also n×n, is
// scratch for SymEigen's rows; a is overwritten, and its entries must be
// scaled as for SymEigen. u may be a itself, which SymEigen no longer
// needs once the values are found. Equal eigenvalues keep SymEigen's order, so the
// result depends on nothing but a. It reports what SymEigen reports, and
// then leaves vals and u undefined.
//
// The ordering is a selection over the n values, O(n²), nothing beside
// the O(n³) decomposition; it allocates nothing.
func SymEigenSorted(a []float64, n int, vals, u, zt, work []float64) bool {
	unsorted := work[:n]
	if !SymEigen(a, n, unsorted, zt, work[n:]) {
		return false
	}
	for k := range n {
		j := 0
		for i := 1; i < n; i++ {
			if unsorted[i] < unsorted[j] {
				j = i
			}
		}
		vals[k] = unsorted[j]
		unsorted[j] = math.Inf(1) // SymEigen's values are finite
		for i, v := range zt[j*n : j*n+n] {
			u[i*n+k] = v
		}
	}
	return true
}

// SymEigenSortedWork returns the length of SymEigenSorted's work for n×n
// matrices.
func SymEigenSortedWork(n int) int { return SymEigenWork(n) + n }

// accumulateQT writes Qᵀ = H_{n−3} ⋯ H_1 H_0 into zt from the reflections
// that tridiagonalizeOn left in a and taus. Built from the last
// reflection, (⋯(I·H_{n−3})⋯)H_0, the product before H_k is the identity
// outside rows and columns k+2.., so that H_k changes rows k+1.. in
// columns k+1.. only: each row r takes r −= τ (r·v) vᵀ.
//
// With vec (a CPU with AVX2 and FMA) the rows are updated by reflRowsAVX.
func accumulateQT(zt, a, taus []float64, n int, vec bool) {
	clear(zt[:n*n])
	for i := range n {
		zt[i*n+i] = 1
	}
	for k := n - 3; k >= 0; k-- {
		tau := taus[k]
		if tau == 0 {
			continue
		}
		v := a[k*n+k+1 : k*n+n]
		if vec {
			reflRowsAVX(&zt[(k+1)*n+k+1], n, n-k-1, n-k-1, &v[0], tau)
			continue
		}
		for r := k + 1; r < n; r++ {
			row := zt[r*n+k+1 : r*n+n]
			row = row[:len(v)]
			var s float64
			for j, x := range row {
				s += x * v[j]
			}
			s *= tau
			if s == 0 {
				continue
			}
			for j, vj := range v {
				row[j] -= s * vj
			}
		}
	}
}

// tql2Rows diagonalises the symmetric tridiagonal matrix with diagonal d
// and off-diagonal e[:n−1] (e has length n; both are destroyed) by the
// implicit QL iteration, applying each rotation to rows i and i+1 of zt,
// and leaves the eigenvalues in d. shifts, when not nil, holds T's
// eigenvalues, each used (set to NaN) as the shift of the first sweeps on
// the eigenvalue it is nearest to; it is destroyed. With vec (a CPU with
// AVX2 and FMA) the rotations are applied by rotRowsAVX. It reports false after
// 30 iterations on one eigenvalue or for a value that is not finite.
func tql2Rows(d, e, zt []float64, n int, shifts []float64, vec bool) bool {
	const (
		eps2   = 0x1p-104 // (2⁻⁵²)²: dsteqr's eps², for the split test
		safmin = 0x1p-1022
	)
	d, e = d[:n], e[:n]
	e[n-1] = 0
	var tnorm float64
	for i := range n {
		tnorm = max(tnorm, math.Abs(d[i])+math.Abs(e[i]))
	}
	for l := 0; l < n; l++ {
		for iter := 0; ; iter++ {
			m := l
			for ; m < n-1; m++ {
				if t := e[m] * e[m]; t <= eps2*math.Abs(d[m])*math.Abs(d[m+1])+safmin || math.Abs(e[m]) <= 4*0x1p-52*tnorm {
					break
				}
			}
			if m == l {
				break
			}
			if iter == 30 {
				return false
			}
			// Wilkinson's shift from the leading 2×2 block, then the
			// sweep from the bottom of the block up to l.
			g := (d[l+1] - d[l]) / (2 * e[l])
			r := math.Hypot(g, 1)
			sigma := d[l] - e[l]/(g+math.Copysign(r, g))
			if shifts != nil && iter == 0 {
				if j := nearest(shifts, sigma); j >= 0 {
					sigma = shifts[j]
				}
			}
			g = d[m] - sigma
			s, c, p := 1.0, 1.0, 0.0
			i := m - 1
			for ; i >= l; i-- {
				f := s * e[i]
				b := c * e[i]
				r = math.Sqrt(f*f + g*g)
				e[i+1] = r
				if r == 0 {
					// An underflowed rotation: deflate and restart.
					d[i+1] -= p
					e[m] = 0
					break
				}
				ri := 1 / r
				s, c = f*ri, g*ri
				g = d[i+1] - p
				r = (d[i]-g)*s + 2*c*b
				p = s * r
				d[i+1] = g + p
				g = c*r - b
				if vec {
					rotRowsAVX(&zt[i*n], &zt[(i+1)*n], n, c, s)
				} else {
					rotateRows(zt[i*n:i*n+n], zt[(i+1)*n:(i+1)*n+n], c, s)
				}
			}
			if r == 0 && i >= l {
				continue
			}
			d[l] -= p
			e[l] = g
			e[m] = 0
		}
		if shifts != nil {
			if j := nearest(shifts, d[l]); j >= 0 {
				shifts[j] = math.NaN() // used
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

// rotateRows applies the plane rotation of tql2Rows to the rows x (i)
// and y (i+1): y ← s x + c y, x ← c x − s y.
func rotateRows(x, y []float64, c, s float64) {
	y = y[:len(x)]
	for k, xk := range x {
		yk := y[k]
		y[k] = s*xk + c*yk
		x[k] = c*xk - s*yk
	}
}

// nearest returns the index of the entry of sh nearest to x, skipping NaN
// (used) entries, or −1 when all are used.
func nearest(sh []float64, x float64) int {
	best, bd := -1, math.Inf(1)
	for i, v := range sh {
		if dv := math.Abs(v - x); dv < bd {
			best, bd = i, dv
		}
	}
	return best
}

// AddOuter adds Σ_j c_j v_j v_jᵀ to the upper triangle of the row-major
// n×n matrix acc, for the rows v_j of the row-major n×n matrix vt (as
// SymEigen leaves its eigenvectors): the rebuild of a matrix function
// V diag(c) Vᵀ, summed into acc. u and uc are n×n scratch and t 2n.
//
// With U = Vᵀ held in u (column j the vector v_j) and U diag(c) in uc,
// entry (a, b) is the dot product of rows a of uc and b of u, contiguous;
// columns b and b+1 are computed together (dot2AVX on a CPU with AVX2
// and FMA, from n >= vecMinD).
func AddOuter(acc, vt, c []float64, n int, u, uc, t []float64) {
	n2 := n * n
	acc, vt, u, uc = acc[:n2], vt[:n2], u[:n2], uc[:n2]
	c = c[:n]
	for j := range n {
		row := vt[j*n : j*n+n]
		cj := c[j]
		for a, x := range row {
			u[a*n+j] = x
			uc[a*n+j] = cj * x
		}
	}
	t0, t1 := t[:n], t[n:2*n]
	vec := haveFMA && n >= vecMinD
	b := 0
	for ; b+1 < n; b += 2 {
		m := b + 2
		if vec {
			dot2AVX(&uc[0], n, m, n, &u[b*n], &u[(b+1)*n], &t0[0], &t1[0], false)
		} else {
			ub, ub1 := u[b*n:b*n+n], u[(b+1)*n:(b+1)*n+n]
			for a := range m {
				ra := uc[a*n : a*n+n]
				ra = ra[:len(ub)]
				ub1 := ub1[:len(ub)]
				var s0, s1 float64
				for k, x := range ra {
					s0 += x * ub[k]
					s1 += x * ub1[k]
				}
				t0[a], t1[a] = s0, s1
			}
		}
		for a := range b + 1 {
			acc[a*n+b] += t0[a]
		}
		for a := range m {
			acc[a*n+b+1] += t1[a]
		}
	}
	if b < n { // the last column of an odd n
		ub := u[b*n : b*n+n]
		for a := 0; a <= b; a++ {
			ra := uc[a*n : a*n+n]
			ra = ra[:len(ub)]
			var s float64
			for k, x := range ra {
				s += x * ub[k]
			}
			acc[a*n+b] += s
		}
	}
}
