package dense

import (
	"math"
	"slices"

	lapackgonum "gonum.org/v1/gonum/lapack/gonum"
)

// TridiagEigen replaces diag by the eigenvalues, ascending, of the
// symmetric tridiagonal matrix with diagonal diag and off-diagonal off
// (len(diag)−1), destroying off. It is LAPACK's dsterf (the Pal–Walker–
// Kahan root-free QL/QR iteration, as gonum's Dsterf; Parlett, The
// Symmetric Eigenvalue Problem, Chapter 8) without the per-block scaling,
// for entries of moderate size (a block whose norm falls outside
// [1e-60, 1e60], where the products of a step might underflow, is left to
// Sterf, gonum's Dsterf on blocks scaled by powers of two, as is a result
// that is not finite), and with each step rearranged so that its two
// divisions depend only on the previous step's p: the serial chain of a
// sweep is one division and a few multiplications per step instead of
// two divisions (rootFree.step); two
// sweeps run at once (see pwkQL). work, of length at least 2n, keeps a
// copy of the input for that fallback. It reports false when the
// iteration does not converge.
func TridiagEigen(diag, off, work []float64) bool {
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
		if !Sterf(diag, off) {
			return false
		}
	}
	slices.Sort(diag)
	return true
}

// Sterf replaces d by the eigenvalues, ascending, of the symmetric
// tridiagonal matrix with diagonal d and off-diagonal e (len(d)−1,
// destroyed), by gonum's Dsterf (LAPACK's dsterf) on each unreduced block
// after scaling the block by a power of two to a norm in [0.5, 1). The
// blocks are dsterf's own (split where |e_m| <= ε·√|d_m|·√|d_{m+1}|), and
// power-of-two scalings are exact, so each block's values are what Dsterf
// computes on it, scaled back. The scaling keeps Dsterf from rescaling a
// block whose norm is beyond about 1e−122 or 1e153 itself, which gonum
// (v0.17.0) does through Dlascl with a row stride of n instead of 1: a
// panic for any block longer than one entry. It reports false when a
// value is not finite or the iteration does not converge (30n steps).
func Sterf(d, e []float64) bool {
	const eps = 0x1p-53 // dlamchE, as Dsterf splits
	n := len(d)
	for l := 0; l < n; {
		m := l
		for ; m < n-1; m++ {
			if math.Abs(e[m]) <= math.Sqrt(math.Abs(d[m]))*math.Sqrt(math.Abs(d[m+1]))*eps {
				e[m] = 0
				break
			}
		}
		var big float64
		for _, v := range d[l : m+1] {
			big = max(big, math.Abs(v))
		}
		for _, v := range e[l:m] {
			big = max(big, math.Abs(v))
		}
		if math.IsNaN(big) || math.IsInf(big, 0) {
			return false
		}
		if m > l && big > 0 {
			_, s := math.Frexp(big)
			bd, be := d[l:m+1], e[l:m]
			for i := range bd {
				bd[i] = math.Ldexp(bd[i], -s)
			}
			for i := range be {
				be[i] = math.Ldexp(be[i], -s)
			}
			if !gonumLapack.Dsterf(len(bd), bd, be) {
				return false
			}
			for i := range bd {
				bd[i] = math.Ldexp(bd[i], s)
			}
		}
		l = m + 1
	}
	slices.Sort(d)
	return true
}

// pwk is the iteration of TridiagEigen; false asks for the fallback. It
// splits the matrix into unreduced blocks where an off-diagonal entry is
// negligible and runs the QL iteration (pwkQL) on each, or the QR
// iteration (pwkQR) where the block's last diagonal entry is the smaller
// in magnitude, as dsterf does; at most 30n iterations in all.
func pwk(d, e []float64) bool {
	const eps = 0x1p-53 // dlamchE
	n := len(d)
	its := 30 * n
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
		var ok bool
		if math.Abs(d[lend]) < math.Abs(d[l]) {
			its, ok = pwkQR(d, e, lend, l, its)
		} else {
			its, ok = pwkQL(d, e, l, lend, its)
		}
		if !ok {
			return false
		}
	}
	for _, v := range d {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}

// pwkEps2 is ε² for dlamchE's ε = 2⁻⁵³: an off-diagonal entry e_m with
// e_m² <= ε²|d_m d_{m+1}| is negligible.
const pwkEps2 = 0x1p-106

// pwkQL runs the QL iteration on the unreduced block l..lend (l < lend,
// squared off-diagonal entries in e) until it is diagonal, with at most
// its iterations, and returns the iterations left, or false when they run
// out.
//
// Each iteration makes two sweeps over the unreduced block, shifted by
// the two eigenvalues of its leading 2×2 block (the Wilkinson shift
// first), the second pwkLag steps behind the first: a sweep's steps are a
// serial chain of divisions, and the second sweep's chain, which needs
// only entries the first has finished, runs in the first's latency. Per
// eigenvalue the pair of sweeps costs about as much as one sweep: fewer
// iterations, each hardly longer. Blocks shorter than pwkMinDouble take
// one sweep at a time. Every step of every sweep is rootFree.step.
func pwkQL(d, e []float64, l, lend, its int) (int, bool) {
	for {
		m := l
		for ; m < lend; m++ {
			if math.Abs(e[m]) <= pwkEps2*math.Abs(d[m]*d[m+1]) {
				break
			}
		}
		if m < lend {
			e[m] = 0
		}
		p := d[l]
		if m == l {
			if l++; l > lend {
				return its, true
			}
			continue
		}
		if m == l+1 {
			d[l], d[l+1] = gonumLapack.Dlae2(d[l], math.Sqrt(e[l]), d[l+1])
			e[l] = 0
			if l += 2; l > lend {
				return its, true
			}
			continue
		}
		if its == 0 {
			return 0, false
		}
		its--
		sigma := wilkinson(p, d[l+1], e[l])
		w := newRootFree(d[m], sigma)
		if m-l < pwkMinDouble {
			for i := m - 1; i >= l; i-- {
				alpha := d[i]
				next, ei := w.step(e[i], alpha, sigma)
				if i != m-1 {
					e[i+1] = ei
				}
				d[i+1] = w.gamma + (alpha - next.gamma)
				w = next
			}
			e[l], d[l] = w.end(sigma)
			continue
		}
		// Two sweeps (see the doc comment), the second shifted by the
		// block's other eigenvalue and started once the first has
		// updated d_m.
		sigma2 := p + d[l+1] - sigma
		var w2 rootFree
		for i := m - 1; i >= l-pwkLag; i-- {
			if i >= l {
				alpha := d[i]
				next, ei := w.step(e[i], alpha, sigma)
				if i != m-1 {
					e[i+1] = ei
				}
				d[i+1] = w.gamma + (alpha - next.gamma)
				w = next
			} else if i == l-1 {
				e[l], d[l] = w.end(sigma)
			}
			j := i + pwkLag // sweep 2
			if j > m {
				continue
			}
			if j == m {
				w2 = newRootFree(d[m], sigma2)
				continue
			}
			alpha := d[j]
			next, ej := w2.step(e[j], alpha, sigma2)
			if j != m-1 {
				e[j+1] = ej
			}
			d[j+1] = w2.gamma + (alpha - next.gamma)
			w2 = next
		}
		e[l], d[l] = w2.end(sigma2)
	}
}

// pwkQR is pwkQL's mirror image: the QR iteration on the unreduced block
// lend..l (lend < l), its sweeps running upwards to l, with the same
// shifts, the same steps and two sweeps at once on long blocks.
func pwkQR(d, e []float64, l, lend, its int) (int, bool) {
	for {
		m := l
		for ; m > lend; m-- {
			if math.Abs(e[m-1]) <= pwkEps2*math.Abs(d[m]*d[m-1]) {
				break
			}
		}
		if m > lend {
			e[m-1] = 0
		}
		p := d[l]
		if m == l {
			if l--; l < lend {
				return its, true
			}
			continue
		}
		if m == l-1 {
			d[l], d[l-1] = gonumLapack.Dlae2(d[l], math.Sqrt(e[l-1]), d[l-1])
			e[l-1] = 0
			if l -= 2; l < lend {
				return its, true
			}
			continue
		}
		if its == 0 {
			return 0, false
		}
		its--
		sigma := wilkinson(p, d[l-1], e[l-1])
		w := newRootFree(d[m], sigma)
		if l-m < pwkMinDouble {
			for i := m; i < l; i++ {
				alpha := d[i+1]
				next, ei := w.step(e[i], alpha, sigma)
				if i != m {
					e[i-1] = ei
				}
				d[i] = w.gamma + alpha - next.gamma
				w = next
			}
			e[l-1], d[l] = w.end(sigma)
			continue
		}
		sigma2 := p + d[l-1] - sigma
		var w2 rootFree
		for i := m; i <= l+pwkLag-1; i++ {
			if i < l {
				alpha := d[i+1]
				next, ei := w.step(e[i], alpha, sigma)
				if i != m {
					e[i-1] = ei
				}
				d[i] = w.gamma + alpha - next.gamma
				w = next
			} else if i == l {
				e[l-1], d[l] = w.end(sigma)
			}
			j := i - pwkLag // sweep 2
			if j < m-1 {
				continue
			}
			if j == m-1 {
				w2 = newRootFree(d[m], sigma2)
				continue
			}
			alpha := d[j+1]
			next, ej := w2.step(e[j], alpha, sigma2)
			if j != m {
				e[j-1] = ej
			}
			d[j] = w2.gamma + alpha - next.gamma
			w2 = next
		}
		e[l-1], d[l] = w2.end(sigma2)
	}
}

// wilkinson returns the Wilkinson shift of a block with leading diagonal
// entries p and q and squared off-diagonal entry e2: the eigenvalue of
// [[p, √e2], [√e2, q]] nearer to p, with one square root and one
// division.
func wilkinson(p, q, e2 float64) float64 {
	half := 0.5 * (q - p)
	return p - e2/(half+math.Copysign(math.Sqrt(half*half+e2), half))
}

// rootFree is the state that a step of a root-free QL or QR sweep (pwkQL,
// pwkQR) passes to the next: the rotation's c and s, γ and p (dsterf's
// variables; p = γ²/c, or c_prev·e² where c vanished).
type rootFree struct{ c, s, gamma, p float64 }

// newRootFree starts a sweep with shift sigma at the diagonal entry dm:
// c = 1, s = 0, γ = dm − σ, p = γ².
func newRootFree(dm, sigma float64) rootFree {
	g := dm - sigma
	return rootFree{c: 1, gamma: g, p: g * g}
}

// step is one step of a root-free sweep with shift sigma, from the state
// w of the step before, over the squared off-diagonal entry bb = e_i²
// and the diagonal entry alpha it meets. It returns the next state and
// the squared off-diagonal entry s·r that the step before leaves behind
// it (r = p + bb; the sweep's first step has none). The caller updates
// the diagonal entry to w.γ + α − next.γ, added as dsterf adds it:
// w.γ + (α − next.γ) in a QL sweep, (w.γ + α) − next.γ in a QR sweep.
// (Computing it here would keep step from being inlined into the
// sweeps' loops.)
//
// dsterf computes c = p/r, s = bb/r, γ = c(α−σ) − s·γ_prev and
// p = γ²/c, two divisions of which the second waits for the first. Here,
// with N = p(α−σ) − bb·γ_prev, γ = N·(1/r) and p = N²·(1/(r·p_prev)):
// both divisions wait only for the previous p, so the serial chain of a
// sweep is one division and a few multiplications per step.
func (w rootFree) step(bb, alpha, sigma float64) (next rootFree, e float64) {
	r := w.p + bb
	e = w.s * r
	num := w.p*(alpha-sigma) - bb*w.gamma
	ir := 1 / r
	next = rootFree{w.p * ir, bb * ir, num * ir, num * num * (1 / (r * w.p))}
	if w.p == 0 {
		next.p = w.c * bb
	}
	return
}

// end returns the last squared off-diagonal entry s·p and diagonal entry
// σ + γ that a sweep with shift sigma leaves.
func (w rootFree) end(sigma float64) (e, diag float64) {
	return w.s * w.p, sigma + w.gamma
}

// pwkLag is how many steps a double sweep's second sweep runs behind its
// first: one is the least the data allow; two leave the first sweep's
// stores time to settle before the second reloads them.
const pwkLag = 2

// pwkMinDouble is the least block length, less one, for which pwkQL and
// pwkQR make two sweeps at once; on shorter blocks the second sweep's
// start-up costs more than its overlap saves.
const pwkMinDouble = 6

// gonumLapack calls gonum's native LAPACK routines that lapack64 does not
// export.
var gonumLapack lapackgonum.Implementation
