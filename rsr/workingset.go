package rsr

import (
	"math"
	"slices"
)

const (
	// workingSetFrom is the dictionary size above which SolveTo works on
	// working sets; below it a whole sweep costs little more than a
	// working set's.
	workingSetFrom = 64
	// workingSetMin is the smallest working set.
	workingSetMin = 16
	// maxRounds bounds the working-set rounds before the whole dictionary
	// is solved.
	maxRounds = 30
	// innerFraction is the KKT tolerance of a working set's subproblem
	// relative to the worst violation outside it.
	innerFraction = 0.3
)

// violator is an atom outside the support whose KKT condition fails by
// viol.
type violator struct {
	viol float64
	j    int
}

// setBuffers holds the working-set solver's buffers (see
// solveWorkingSet): the set, the candidates, the subproblem's Gram matrix,
// kernel vector and code, and its solver and workspace.
type setBuffers struct {
	set      []int
	supp     []int
	cand     []violator
	kw       []float64
	kxw, vw  []float64
	subLasso Lasso
	sub      *LassoWorkspace
}

func newSetBuffers(n int) *setBuffers {
	return &setBuffers{
		set:  make([]int, 0, n),
		supp: make([]int, 0, n),
		cand: make([]violator, 0, n),
		kxw:  make([]float64, n),
		vw:   make([]float64, n),
		sub:  &LassoWorkspace{g: make([]float64, n), active: make([]int, 0, n), prev: make([]float64, n)},
	}
}

// solveWorkingSet solves from the warm start v over working sets W, as
// Celer (Massias, Gramfort & Salmon, ICML 2018) does for the Euclidean
// Lasso. Each round, W is the support of v and the atoms outside it whose
// optimality condition |2(k − Kv)_j| <= λ fails by more than the KKT
// tolerance, the worst first, up to |W| = max(workingSetMin, 2·nnz, the
// last |W|); the Lasso restricted to W (solvePath on K_WW, a contiguous
// copy) is solved, warm, to a tolerance that tightens with the worst
// violation outside W while the violators are many. Rounds end when no
// atom outside W violates its condition and W's subproblem was solved to
// the full tolerance; the certificate is then the whole problem's, from
// g = K v. Each round keeps the support and adds a violator, so the
// objective falls strictly and no W repeats; after maxRounds the whole
// dictionary finishes the solve.
//
// Coordinate descent on the whole dictionary pays an N-long update of
// K v for every coefficient that moves, although a code uses a few dozen
// atoms of hundreds; on W each costs |W|, and only the checks between
// rounds cost N·nnz.
func (l *Lasso) solveWorkingSet(v, kx []float64, kxx float64, ws *LassoWorkspace, kmax float64) (Certificate, error) {
	n := l.n
	lam := l.opts.Lambda
	nonneg := l.opts.NonNegative
	kktTol := l.kktTol(kmax)
	if ws.setBuffers == nil {
		ws.setBuffers = newSetBuffers(n)
	}
	b := ws.setBuffers
	l.gradient(ws.g, v)
	sweeps, size := 0, 0
	exact := false // the last subproblem was solved to the tolerance
	for round := 0; round < maxRounds; round++ {
		// The violators outside the support.
		cand, supp := b.cand[:0], b.supp[:0]
		worst := 0.0
		g := ws.g[:len(v)]
		for j, x := range v {
			if x != 0 {
				supp = append(supp, j)
				continue
			}
			r := kx[j] - g[j]
			if !nonneg {
				r = math.Abs(r)
			}
			if viol := 2*r - lam; viol > kktTol {
				cand = append(cand, violator{viol, j})
				if viol > worst {
					worst = viol
				}
			}
		}
		b.cand, b.supp = cand, supp
		nnz := len(supp)
		if worst <= kktTol && exact {
			break
		}
		size = max(size, workingSetMin, 2*nnz)
		if k := size - nnz; k < len(cand) {
			selectWorst(cand, k)
			cand = cand[:k]
		}
		// W, ascending: the support (ascending) merged with the chosen
		// violators, sorted, which are fewer than the whole set.
		slices.SortFunc(cand, func(x, y violator) int { return x.j - y.j })
		set := b.set[:0]
		p := 0
		for _, j := range supp {
			for ; p < len(cand) && cand[p].j < j; p++ {
				set = append(set, cand[p].j)
			}
			set = append(set, j)
		}
		for _, c := range cand[p:] {
			set = append(set, c.j)
		}
		b.set = set
		if sweeps >= l.opts.MaxSweeps {
			break
		}
		// While many atoms outside W violate their conditions by much, W
		// will change: solve its subproblem only to a fraction of the worst
		// violation (Celer's inner tolerance). With few violators W is
		// likely final, and a loose solve would only need a second, exact
		// one.
		tol := l.opts.Tol
		if loose := innerFraction * worst / kktTol * tol; loose > tol && 4*len(cand) > nnz {
			tol = min(loose, 0.1)
		}
		exact = tol == l.opts.Tol
		c, err := l.solveOn(set, v, kx, kxx, b, kmax, tol, l.opts.MaxSweeps-sweeps)
		sweeps += c.Sweeps
		l.gradient(ws.g, v)
		if err != nil {
			break // the cap: report the whole problem's certificate below
		}
	}
	cert := Certificate{Lambda: lam, Sweeps: sweeps}
	l.certify(&cert, v, kx, kxx, ws.g, kktTol)
	if cert.KKT <= kktTol {
		cert.Converged = true
		return cert, nil
	}
	if sweeps >= l.opts.MaxSweeps {
		return cert, noConvergence(cert, kktTol)
	}
	// The subproblem's incremental gradient and the whole one differ by
	// round-off: finish on the whole dictionary, warm.
	rest := *l
	rest.opts.MaxSweeps -= sweeps
	c, err := rest.solve(v, kx, kxx, ws, kmax)
	c.Sweeps += sweeps
	if err != nil {
		return c, noConvergence(c, kktTol)
	}
	return c, nil
}

// solveOn solves the Lasso restricted to the atoms of set (ascending),
// warm from v's coefficients there, within maxSweeps sweeps, and writes the
// code back into v.
func (l *Lasso) solveOn(set []int, v, kx []float64, kxx float64, b *setBuffers, kmax, tol float64, maxSweeps int) (Certificate, error) {
	n, m := l.n, len(set)
	if cap(b.kw) < m*m {
		b.kw = make([]float64, m*m, min(n*n, 2*m*m))
	}
	kw := b.kw[:m*m]
	for p, i := range set {
		row := l.k[i*n : i*n+n]
		dst := kw[p*m : p*m+m]
		for q, j := range set {
			dst[q] = row[j]
		}
	}
	vw, kxw := b.vw[:m], b.kxw[:m]
	for p, i := range set {
		vw[p], kxw[p] = v[i], kx[i]
	}
	sub := &b.subLasso
	sub.n, sub.k, sub.all, sub.opts = m, kw, l.all[:m], l.opts
	sub.opts.MaxSweeps, sub.opts.Tol = maxSweeps, tol
	sws := b.sub
	sws.g, sws.prev = sws.g[:m], sws.prev[:m]
	c, err := sub.solvePath(vw, kxw, kxx, sws, kmax)
	for p, i := range set {
		v[i] = vw[p]
	}
	return c, err
}

// selectWorst reorders c so that its first k elements are the k largest
// violations (ties to the lower index), by quickselect with a
// median-of-three pivot: O(len(c)) on average, where sorting the
// dictionary would cost more than a working set's solve.
func selectWorst(c []violator, k int) {
	before := func(x, y violator) bool { return x.viol > y.viol || x.viol == y.viol && x.j < y.j }
	lo, hi := 0, len(c)-1
	for lo < hi {
		mid := lo + (hi-lo)/2
		if before(c[mid], c[lo]) {
			c[mid], c[lo] = c[lo], c[mid]
		}
		if before(c[hi], c[lo]) {
			c[hi], c[lo] = c[lo], c[hi]
		}
		if before(c[hi], c[mid]) {
			c[hi], c[mid] = c[mid], c[hi]
		}
		p := c[mid]
		i, j := lo, hi
		for i <= j {
			for before(c[i], p) {
				i++
			}
			for before(p, c[j]) {
				j--
			}
			if i <= j {
				c[i], c[j] = c[j], c[i]
				i++
				j--
			}
		}
		switch {
		case k-1 <= j:
			hi = j
		case k-1 >= i:
			lo = i
		default:
			return
		}
	}
}
