package rsr

import (
	"math"

	"github.com/covpipe/covpipe/internal/dense"
	"gonum.org/v1/gonum/floats"
)

const (
	// homotopyMaxActive bounds the numerical rank of the Gram matrices
	// whose cold starts follow the homotopy, and the support it keeps.
	// Every event costs an N·|A| product and an N-long ratio test, so the
	// homotopy pays where coordinate descent crawls: on a few nearly
	// collinear atoms in a low-dimensional feature space (logE-SR on 3×3
	// matrices: rank 6). On full-rank Stein Gram matrices with a dozen
	// atoms per code, the working sets touch the whole dictionary far less
	// often, and cost less than the homotopy's events.
	homotopyMaxActive = 16
	// homotopyDegenerate is the pivot, relative to K_jj, below which an
	// entering atom counts as lying in the span of the support (a
	// duplicate, or more atoms than the feature space has dimensions).
	homotopyDegenerate = 1e-8
)

// pathBuffers holds the homotopy's buffers (see homotopy).
type pathBuffers struct {
	c, a []float64 // c = k − K v, a = K_{:,A} d
	act  []int     // the support A, in order of entry
	sgn  []float64 // the signs s_A
	r    []float64 // upper Cholesky factor of K_AA, stride homotopyMaxActive
	d, w []float64 // the direction d and a scratch |A|-vector
}

func newPathBuffers(n int) *pathBuffers {
	m := homotopyMaxActive
	return &pathBuffers{
		c: make([]float64, n), a: make([]float64, n),
		act: make([]int, 0, m), sgn: make([]float64, 0, m), r: make([]float64, m*m), d: make([]float64, m), w: make([]float64, m),
	}
}

// homotopy follows the Lasso's solution path from λ_max = 2‖k‖∞, where
// v = 0, down to λ (the homotopy of Osborne, Presnell and Turlach, IMA J.
// Numer. Anal. 2000; LARS with the Lasso modification of Efron, Hastie,
// Johnstone and Tibshirani, Ann. Statist. 2004), in kernel form. Writing
// γ = λ/2 and c = k − K v, optimality on the support A with signs s is
// c_A = γ s_A and |c_j| <= γ elsewhere; as γ falls by δ, v_A moves by
// δ·d with K_AA d = s_A and c by −δ·K_{:,A} d. The next event is
// the smallest δ at which an atom's |c_j| reaches γ − δ (it enters) or a
// coefficient reaches zero (it leaves), so every step costs one N·|A|
// product, an N-long ratio test and an O(|A|²) update of the Cholesky
// factor.
//
// Codes whose support stays small (logE-SR's rank-6 Gram matrix, whose
// codes have about 6 atoms) are solved exactly in a dozen events, where
// coordinate descent crawls along the nearly collinear atoms; a support
// that would exceed homotopyMaxActive, an atom degenerate against the
// support, or too many events end the homotopy early, and v is then the
// solution at the λ' > λ reached: a warm start on the path for the other
// solvers. v must be zero on entry; it reports whether v is the solution
// at λ (the caller certifies it either way).
func (l *Lasso) homotopy(v, kx []float64, ws *LassoWorkspace) bool {
	n := l.n
	if ws.pathBuffers == nil {
		ws.pathBuffers = newPathBuffers(n)
	}
	b := ws.pathBuffers
	nonneg := l.opts.NonNegative
	target := 0.5 * l.opts.Lambda
	c, a := b.c, b.a
	copy(c, kx)
	b.act, b.sgn = b.act[:0], b.sgn[:0]
	const ld = homotopyMaxActive

	// γ starts at the largest correlation, where the first atom enters.
	gamma, enter := 0.0, -1
	for j, x := range c {
		if !nonneg {
			x = math.Abs(x)
		}
		if x > gamma {
			gamma, enter = x, j
		}
	}
	if gamma <= target {
		return true // v = 0 is optimal
	}
	leaving, leftSign := -1, 0.0 // the atom that left at the last event
	for range 4*homotopyMaxActive + 8 {
		if enter >= 0 {
			if len(b.act) == homotopyMaxActive || !b.insert(l, enter, sign(c[enter])) {
				return false
			}
		}
		act, sgn := b.act, b.sgn
		m := len(act)
		if m == 0 {
			return false
		}
		// d solves K_AA d = s_A; an atom entering against its own
		// sign is degenerate: the support cannot follow the path.
		d := b.d[:m]
		copy(d, sgn)
		dense.CholSolve(b.r, ld, d)
		if enter >= 0 && d[m-1]*sgn[m-1] <= 0 {
			return false
		}
		clear(a)
		addRows(a, l.k, n, act, d)
		// The ratio test below never picks an atom with c_j = γ s_j and
		// a_j = s_j exactly (the denominator on its side is zero, the
		// other side's δ is γ): that is the support, where the path keeps
		// both, and the atom that left at the last event, which may enter
		// again but not at this one, where round-off alone could bring it
		// back.
		for p, i := range act {
			a[i] = sgn[p]
		}
		var leftA float64
		if leaving >= 0 {
			leftA, a[leaving] = a[leaving], leftSign
		}
		// The step: to the target, or to the first event, where
		// c_j − δ a_j = ±(γ − δ), δ = (γ ∓ c_j)/(1 ∓ a_j) with a positive
		// denominator. Comparing num < δ·den first spares most divisions.
		delta := gamma - target
		enter = -1
		for j, cj := range c {
			aj := a[j]
			if den := 1 - aj; den > 0 {
				if num := gamma - cj; num < delta*den {
					delta, enter = num/den, j
				}
			}
			if nonneg {
				continue
			}
			if den := 1 + aj; den > 0 {
				if num := gamma + cj; num < delta*den {
					delta, enter = num/den, j
				}
			}
		}
		if leaving >= 0 {
			a[leaving], leaving = leftA, -1
		}
		drop := -1
		for p, i := range act {
			if t := -v[i] / d[p]; t > 0 && t < delta {
				delta, drop, enter = t, p, -1
			}
		}
		delta = max(delta, 0)
		for p, i := range act {
			v[i] += delta * d[p]
		}
		floats.AddScaled(c, -delta, a)
		gamma -= delta
		for p, i := range act {
			c[i] = gamma * sgn[p] // exactly on the boundary, as the path has it
		}
		if drop >= 0 {
			leaving, leftSign = act[drop], sgn[drop]
			v[leaving] = 0
			b.remove(drop)
			continue
		}
		if enter < 0 {
			b.polish(v, kx, gamma)
			return true
		}
	}
	return false
}

// insert appends atom j with sign s to the support and its column to the
// Cholesky factor of K_AA, and reports false, leaving both unchanged, when
// j is degenerate against the support: its pivot, the squared distance of
// φ(D_j) from the span of the support's atoms, is below
// homotopyDegenerate·K_jj.
func (b *pathBuffers) insert(l *Lasso, j int, s float64) bool {
	n, m := l.n, len(b.act)
	kjj := l.k[j*n+j]
	col := b.w[:m]
	for p, i := range b.act {
		col[p] = l.k[i*n+j]
	}
	if !dense.CholAppend(b.r, homotopyMaxActive, m, col, kjj, homotopyDegenerate*kjj) {
		return false
	}
	b.act = append(b.act, j)
	b.sgn = append(b.sgn, s)
	return true
}

// remove deletes position p from the support and the factor.
func (b *pathBuffers) remove(p int) {
	m := len(b.act)
	dense.CholDelete(b.r, homotopyMaxActive, m, p)
	copy(b.act[p:], b.act[p+1:])
	copy(b.sgn[p:], b.sgn[p+1:])
	b.act, b.sgn = b.act[:m-1], b.sgn[:m-1]
}

// polish replaces the support's coefficients by the solution of the face
// equations K_AA v_A = k_A − γ s_A, which the steps reach only up
// to accumulated round-off, unless that would change a sign.
func (b *pathBuffers) polish(v, kx []float64, gamma float64) {
	m := len(b.act)
	x := b.w[:m]
	for p, i := range b.act {
		x[p] = kx[i] - gamma*b.sgn[p]
	}
	dense.CholSolve(b.r, homotopyMaxActive, x)
	for p := range m {
		if x[p]*b.sgn[p] <= 0 {
			return
		}
	}
	for p, i := range b.act {
		v[i] = x[p]
	}
}

// sign returns the sign of x as ±1 (+1 for zero).
func sign(x float64) float64 {
	if x < 0 {
		return -1
	}
	return 1
}
