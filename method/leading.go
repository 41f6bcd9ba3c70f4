package method

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/covpipe/covpipe/internal/dense"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/lapack/gonum"
)

// leadingEigen computes the k largest eigenvalues of the symmetric n×n
// matrix A held in the lower triangle of a (row-major, stride n), in
// descending order, and orthonormal eigenvectors for them: column c of
// the row-major n×k vecs belongs to vals[c]. a is overwritten.
//
// It is LAPACK's route to a subset of the eigenpairs (dsyevx without
// bisection): A is reduced to the tridiagonal T = Qᵀ A Q (Dsytrd), all
// eigenvalues of T come from the root-free QR iteration (Dsterf, O(n²)),
// the eigenvectors of T for the k largest by inverse iteration
// (tridiagInverse, LAPACK's dstein, O(n k) plus the reorthogonalisation
// of clusters), and Q is applied to them (Dormqr, 2n²k flops). Against
// the full eigendecomposition (Dsytrd, Dorgtr to form Q, then the
// implicit QR iteration accumulating n×n rotations, about 7n³ flops in
// all), it saves what dominates: forming Q and rotating all of its n
// columns. Both are backward stable; eigenvectors of either are accurate
// to O(ε‖A‖/gap) for an eigenvalue isolated by gap.
//
// ok is false when the QR iteration or the inverse iteration did not
// converge (the caller can fall back to the full decomposition).
func leadingEigen(a []float64, n, k int) (vals, vecs []float64, ok bool) {
	k = min(k, n)
	if n == 0 || k <= 0 {
		return nil, nil, true
	}
	if n == 1 {
		return []float64{a[0]}, []float64{1}, true
	}
	impl := gonum.Implementation{}
	d := make([]float64, n)
	e := make([]float64, n-1)
	tau := make([]float64, n-1)
	query := []float64{0}
	impl.Dsytrd(blas.Lower, n, a, n, d, e, tau, query, -1)
	lwork := int(query[0])
	impl.Dormqr(blas.Right, blas.Trans, k, n-1, n-1, a[n:], n, tau, nil, n, query, -1)
	work := make([]float64, max(lwork, int(query[0]), n))
	impl.Dsytrd(blas.Lower, n, a, n, d, e, tau, work, len(work))

	// Split T where an off-diagonal entry is negligible (dstebz's test):
	// the eigenvectors of an unreduced block vanish outside it.
	const eps = 0x1p-53
	const safmin = 0x1p-1022
	var starts []int // first row of each block, then n
	starts = append(starts, 0)
	for i := range n - 1 {
		if e[i]*e[i] <= eps*eps*math.Abs(d[i]*d[i+1])+safmin {
			starts = append(starts, i+1)
		}
	}
	starts = append(starts, n)

	// Every block's eigenvalues (dense.Sterf), then the k largest overall.
	type pair struct {
		val   float64
		block int
	}
	all := make([]pair, 0, n)
	bd := make([]float64, n)
	be := make([]float64, n)
	for b := range len(starts) - 1 {
		lo, hi := starts[b], starts[b+1]
		m := hi - lo
		copy(bd, d[lo:hi])
		copy(be, e[lo:lo+m-1])
		if !dense.Sterf(bd[:m], be[:max(m-1, 0)]) {
			return nil, nil, false
		}
		for _, v := range bd[:m] {
			all = append(all, pair{v, b})
		}
	}
	slices.SortStableFunc(all, func(x, y pair) int { return cmp.Compare(y.val, x.val) })
	vals = make([]float64, k)
	for c := range k {
		vals[c] = all[c].val
	}

	// Inverse iteration per block, on its chosen eigenvalues ascending
	// (the order dstein's cluster handling assumes), into row c of zt
	// (k×n) for vals[c].
	zt := make([]float64, k*n)
	ti := newTridiagInverse(n)
	for b := range len(starts) - 1 {
		lo, hi := starts[b], starts[b+1]
		var cols []int
		for c := k - 1; c >= 0; c-- {
			if all[c].block == b {
				cols = append(cols, c)
			}
		}
		if len(cols) == 0 {
			continue
		}
		xs := make([]float64, len(cols))
		for i, c := range cols {
			xs[i] = vals[c]
		}
		zs, conv := ti.solve(d[lo:hi], e[lo:hi-1], xs)
		if !conv {
			return nil, nil, false
		}
		for i, c := range cols {
			copy(zt[c*n+lo:c*n+hi], zs[i])
		}
	}
	// The eigenvectors of A are Q times those of T: the rows of zt Qᵀ.
	// Q = H_0 ⋯ H_{n−2} acts on coordinates 1..n−1 (dormtr with uplo L);
	// applied from the right, each reflection reads and updates
	// contiguous rows.
	impl.Dormqr(blas.Right, blas.Trans, k, n-1, n-1, a[n:], n, tau, zt[1:], n, work, len(work))
	vecs = make([]float64, n*k)
	for c := range k {
		for r, v := range zt[c*n : c*n+n] {
			vecs[r*k+c] = v
		}
	}
	return vals, vecs, true
}

// tridiagInverse holds the buffers of inverse iteration on a symmetric
// tridiagonal matrix of order up to n.
type tridiagInverse struct {
	diag, sup, sub, sup2 []float64 // the LU factors of T − λI (dlagtf)
	piv                  []bool    // row interchanges of the factorisation
	rng                  *rand.Rand
}

func newTridiagInverse(n int) *tridiagInverse {
	return &tridiagInverse{
		diag: make([]float64, n), sup: make([]float64, n), sub: make([]float64, n), sup2: make([]float64, n),
		piv: make([]bool, n),
		// A fixed seed: the vectors do not depend on the call's history.
		rng: rand.New(rand.NewPCG(1, 1)),
	}
}

// solve returns unit eigenvectors of the unreduced symmetric tridiagonal
// T (diagonal d, off-diagonal e) for its eigenvalues xs, given in
// ascending order, by LAPACK's dstein: for each eigenvalue, inverse
// iteration from a random start on the LU factors of T − λI with
// partial pivoting (dlagtf, dlagts), eigenvalues closer than 10ε|λ| to
// the previous one moved apart by that much, and each iterate
// orthogonalised against the vectors of its cluster (eigenvalues within
// 10⁻³‖T‖₁ of their neighbour) by modified Gram–Schmidt. An iterate has
// converged when its largest entry reaches √(0.1/m) after the scaling
// below, and two more iterations follow; conv is false when an
// eigenvalue needs more than five. Each vector's largest entry is made
// positive.
func (t *tridiagInverse) solve(d, e, xs []float64) (z [][]float64, conv bool) {
	const (
		eps    = 0x1p-53
		maxIts = 5
		extra  = 2
	)
	m := len(d)
	z = make([][]float64, len(xs))
	if m == 1 {
		for i := range z {
			z[i] = []float64{1}
		}
		return z, true
	}
	var norm1 float64
	for i := range m {
		s := math.Abs(d[i])
		if i > 0 {
			s += math.Abs(e[i-1])
		}
		if i < m-1 {
			s += math.Abs(e[i])
		}
		norm1 = max(norm1, s)
	}
	ortol := 1e-3 * norm1
	dtpcrt := math.Sqrt(0.1 / float64(m))
	gp := 0 // first vector of the current cluster
	var xjm float64
	for j, xj := range xs {
		if j > 0 {
			if pertol := 10 * math.Abs(eps*xj); xj-xjm < pertol {
				xj = xjm + pertol
			}
		}
		w := make([]float64, m)
		for i := range w {
			w[i] = 2*t.rng.Float64() - 1
		}
		t.factor(d, e, xj)
		tol := t.solveTol(m)
		nrmchk := 0
		var jmax int
		for its := 0; ; its++ {
			if its == maxIts {
				return nil, false
			}
			var asum float64
			for _, v := range w {
				asum += math.Abs(v)
			}
			scl := float64(m) * norm1 * max(eps, math.Abs(t.diag[m-1])) / asum
			for i := range w {
				w[i] *= scl
			}
			t.back(w, tol)
			if j > 0 {
				if math.Abs(xj-xjm) > ortol {
					gp = j
				}
				for _, zi := range z[gp:j] {
					var dot float64
					for r, v := range w {
						dot += v * zi[r]
					}
					for r := range w {
						w[r] -= dot * zi[r]
					}
				}
			}
			jmax = 0
			for i, v := range w {
				if math.Abs(v) > math.Abs(w[jmax]) {
					jmax = i
				}
			}
			if math.Abs(w[jmax]) < dtpcrt {
				continue
			}
			if nrmchk++; nrmchk < extra+1 {
				continue
			}
			break
		}
		var ss float64
		for _, v := range w {
			ss += v * v
		}
		scl := 1 / math.Sqrt(ss)
		if w[jmax] < 0 {
			scl = -scl
		}
		for i := range w {
			w[i] *= scl
		}
		z[j] = w
		xjm = xj
	}
	return z, true
}

// factor computes the LU factorisation with partial pivoting of T − λI
// for the tridiagonal T of diagonal d and off-diagonal e (LAPACK's dlagtf
// with tol 0): U's diagonal in t.diag, its first and second
// superdiagonals in t.sup and t.sup2, the multipliers in t.sub and the
// interchanges in t.piv.
func (t *tridiagInverse) factor(d, e []float64, lambda float64) {
	m := len(d)
	a, b, c, d2 := t.diag[:m], t.sup[:m-1], t.sub[:m-1], t.sup2[:m]
	copy(a, d)
	copy(b, e)
	copy(c, e)
	a[0] -= lambda
	scale1 := math.Abs(a[0]) + math.Abs(b[0])
	for k := range m - 1 {
		a[k+1] -= lambda
		scale2 := math.Abs(c[k]) + math.Abs(a[k+1])
		if k < m-2 {
			scale2 += math.Abs(b[k+1])
		}
		piv1 := 0.0
		if a[k] != 0 {
			piv1 = math.Abs(a[k]) / scale1
		}
		if c[k] == 0 {
			t.piv[k] = false
			scale1 = scale2
			if k < m-2 {
				d2[k] = 0
			}
			continue
		}
		piv2 := math.Abs(c[k]) / scale2
		if piv2 <= piv1 {
			t.piv[k] = false
			scale1 = scale2
			c[k] /= a[k]
			a[k+1] -= c[k] * b[k]
			if k < m-2 {
				d2[k] = 0
			}
		} else {
			t.piv[k] = true
			mult := a[k] / c[k]
			a[k] = c[k]
			temp := a[k+1]
			a[k+1] = b[k] - mult*temp
			if k < m-2 {
				d2[k] = b[k+1]
				b[k+1] = -mult * d2[k]
			}
			b[k] = temp
			c[k] = mult
		}
	}
}

// solveTol is dlagts's default perturbation size for the factors of
// order m: ε times their largest entry.
func (t *tridiagInverse) solveTol(m int) float64 {
	const eps = 0x1p-53
	tol := math.Abs(t.diag[0])
	if m > 1 {
		tol = max(tol, math.Abs(t.diag[1]), math.Abs(t.sup[0]))
	}
	for k := 2; k < m; k++ {
		tol = max(tol, math.Abs(t.diag[k]), math.Abs(t.sup[k-1]), math.Abs(t.sup2[k-2]))
	}
	tol *= eps
	if tol == 0 {
		tol = eps
	}
	return tol
}

// back solves (T − λI) x = y in place from factor's factors (dlagts with
// job −1): a pivot smaller than tol in magnitude, or one that would
// overflow the quotient, is perturbed by ±tol, doubled until it suffices,
// as inverse iteration wants near a singular T − λI.
func (t *tridiagInverse) back(y []float64, tol float64) {
	const (
		sfmin  = 0x1p-1022 // dlamch's safe minimum
		bignum = 1 / sfmin
	)
	m := len(y)
	a, b, c, d2 := t.diag, t.sup, t.sub, t.sup2
	for k := 1; k < m; k++ {
		if !t.piv[k-1] {
			y[k] -= c[k-1] * y[k-1]
		} else {
			temp := y[k-1]
			y[k-1] = y[k]
			y[k] = temp - c[k-1]*y[k]
		}
	}
	for k := m - 1; k >= 0; k-- {
		temp := y[k]
		switch {
		case k <= m-3:
			temp = y[k] - b[k]*y[k+1] - d2[k]*y[k+2]
		case k == m-2:
			temp = y[k] - b[k]*y[k+1]
		}
		ak := a[k]
		pert := math.Copysign(tol, ak)
		for {
			absak := math.Abs(ak)
			if absak < 1 {
				if absak < sfmin {
					if absak == 0 || math.Abs(temp)*sfmin > absak {
						ak += pert
						pert *= 2
						continue
					}
					temp *= bignum
					ak *= bignum
				} else if math.Abs(temp) > absak*bignum {
					ak += pert
					pert *= 2
					continue
				}
			}
			break
		}
		y[k] = temp / ak
	}
}
