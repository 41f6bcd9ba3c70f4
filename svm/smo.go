package svm

import (
	"context"
	"math"
)

// tau replaces a non-positive curvature a_ij = K_ii + K_jj − 2K_ij in the
// working-set selection and the step (Fan, Chen and Lin 2005, Section 4):
// an indefinite pseudo-kernel then still gives a finite step, which the
// box clips.
const tau = 1e-12

// ctxEvery is how many SMO steps solve takes between looks at its
// context, a power of two: a look costs far less than the steps.
const ctxEvery = 2048

// solution is the outcome of one binary dual problem.
type solution struct {
	alpha     []float64 // α, one per item
	bias      float64   // b
	objective float64   // dual objective D(α) = Σα − ½ αᵀQα
	gap       float64   // final maximal violation m(α) − M(α)
	iters     int
	converged bool
}

// solve minimises ½ αᵀQα − eᵀα over 0 ≤ α ≤ C, yᵀα = 0, with
// Q_ij = y_i y_j K_ij, by SMO with the second-order working-set selection
// of Fan, Chen and Lin (2005), "WSS 2". k is the n×n kernel matrix of the
// items, row-major (k[i*n+j]); y holds ±1.
//
// With v_t = −y_t ∇f(α)_t, I_up = {t : α_t < C, y_t = 1, or α_t > 0,
// y_t = −1} and I_low = {t : α_t < C, y_t = −1, or α_t > 0, y_t = 1}, α
// is optimal iff m(α) = max_{I_up} v ≤ M(α) = min_{I_low} v; the solver
// stops when m − M ≤ tol or after maxIter pair updates.
//
// Each step makes two passes over the items instead of three: the pass
// that updates v also finds the next step's i, m and M, so only the
// choice of j, which needs i's kernel row, takes a pass of its own. It
// keeps v rather than ∇f: since y_t = ±1, v_t − δ(K_ti − K_tj) rounds
// exactly as −y_t(∇f_t + y_t δ (K_ti − K_tj)), so the iterates are those
// of the plain three-pass form on ∇f, bit for bit (TestSolveMatchesPlain).
//
// It returns ctx.Err() and no solution when ctx is cancelled, which it
// looks at every ctxEvery steps.
func solve(ctx context.Context, k []float64, y []float64, c, tol float64, maxIter int) (solution, error) {
	n := len(y)
	alpha := make([]float64, n)
	v := make([]float64, n)    // v_t = −y_t ∇f(α)_t, ∇f(α) = Qα − e
	diag := make([]float64, n) // K_tt, contiguous for the j scan
	up := make([]bool, n)      // t ∈ I_up
	low := make([]bool, n)     // t ∈ I_low
	i, m, bigM := -1, math.Inf(-1), math.Inf(1)
	for t := range n {
		v[t] = y[t] // ∇f(0) = −e
		diag[t] = k[t*n+t]
		up[t], low[t] = inUp(0, y[t], c), inLow(0, y[t], c)
		if up[t] && v[t] > m {
			i, m = t, v[t]
		}
		if low[t] {
			bigM = min(bigM, v[t])
		}
	}
	s := solution{alpha: alpha}
	for s.iters = 0; ; s.iters++ {
		// i maximises v over I_up (first order), m is that maximum and M
		// the minimum of v over I_low: found by the previous pass.
		s.gap = m - bigM
		if i < 0 || s.gap <= tol {
			s.converged = true
			break
		}
		// j minimises −b²/ā over t ∈ I_low with v_t < m, where b = m − v_t
		// is the first-order decrease and ā the curvature along the pair
		// (second order). A candidate beats best only if b²/ā > −best,
		// which b² < lim·ā, lim = (1 − 2⁻¹⁰)(−best), rules out without
		// the division: the two products' roundings (2⁻⁵³ relative each)
		// stay far inside the margin, so exactly the candidates whose
		// quotient would have lost are skipped (none while best is +∞,
		// where lim is −∞), and the choice is the plain scan's.
		ki := k[i*n : (i+1)*n]
		kii := ki[i]
		j, best, lim := -1, math.Inf(1), math.Inf(-1)
		for t, vt := range v {
			if !low[t] || vt >= m {
				continue
			}
			b := m - vt
			a := kii + diag[t] - 2*ki[t]
			if a <= 0 {
				a = tau
			}
			q := b * b
			if q < lim*a {
				continue
			}
			if obj := -q / a; obj < best { // −q is −b·b exactly
				j, best, lim = t, obj, -obj*(1-0x1p-10)
			}
		}
		if j < 0 {
			s.converged = true
			break
		}
		if s.iters >= maxIter {
			break
		}
		if s.iters%ctxEvery == ctxEvery-1 {
			if err := ctx.Err(); err != nil {
				return solution{}, err
			}
		}
		// Move along α_i += y_i δ, α_j −= y_j δ, which keeps yᵀα: the
		// objective falls at rate b = v_i − v_j with curvature a, so the
		// unconstrained step is b/a, clipped to the box.
		kj := k[j*n : (j+1)*n]
		a := kii + kj[j] - 2*ki[j]
		if a <= 0 {
			a = tau
		}
		delta := step(alpha, y, i, j, (m-v[j])/a, c)
		for _, t := range [2]int{i, j} {
			up[t], low[t] = inUp(alpha[t], y[t], c), inLow(alpha[t], y[t], c)
		}
		// ∇f_t changes by Q_ti Δα_i + Q_tj Δα_j = y_t δ (K_ti − K_tj), so
		// v_t by −δ (K_ti − K_tj); the next i, m and M come with it.
		i, m, bigM = -1, math.Inf(-1), math.Inf(1)
		ki, kj, low, up = ki[:n], kj[:n], low[:n], up[:n]
		for t := range v {
			vt := v[t] - float64(delta*(ki[t]-kj[t]))
			v[t] = vt
			if up[t] && vt > m {
				i, m = t, vt
			}
			if low[t] {
				bigM = min(bigM, vt)
			}
		}
	}
	grad := v // ∇f_t = −y_t v_t, in place
	for t := range grad {
		grad[t] = -y[t] * v[t]
	}
	s.bias = bias(alpha, y, grad, c)
	// With ∇f = Qα − e, αᵀQα = αᵀ(∇f + e), so D(α) = −½ αᵀ(∇f − e).
	for t, a := range alpha {
		s.objective -= 0.5 * a * (grad[t] - 1)
	}
	return s, nil
}

// step moves α_i by y_i δ and α_j by −y_j δ, δ clipped so that both stay
// in [0, C], and returns the δ taken. An α that reaches its bound is set
// to it exactly.
func step(alpha, y []float64, i, j int, delta, c float64) float64 {
	capI, capJ := room(alpha[i], y[i], c), room(alpha[j], -y[j], c)
	switch {
	case delta >= capI && capI <= capJ:
		delta = capI
		alpha[i] = bound(y[i], c)
		alpha[j] -= y[j] * delta
		if capJ == capI {
			alpha[j] = bound(-y[j], c)
		}
	case delta >= capJ:
		delta = capJ
		alpha[i] += y[i] * delta
		alpha[j] = bound(-y[j], c)
	default:
		alpha[i] += y[i] * delta
		alpha[j] -= y[j] * delta
	}
	return delta
}

// inUp reports whether α_t may move so that y_t α_t grows.
func inUp(a, y, c float64) bool { return (y > 0 && a < c) || (y < 0 && a > 0) }

// inLow reports whether α_t may move so that y_t α_t shrinks.
func inLow(a, y, c float64) bool { return (y > 0 && a > 0) || (y < 0 && a < c) }

// room returns how far α may move in the direction of sign s (±1)
// inside [0, C].
func room(a, s, c float64) float64 {
	if s > 0 {
		return c - a
	}
	return a
}

// bound returns the bound an α moving in the direction of sign s reaches.
func bound(s, c float64) float64 {
	if s > 0 {
		return c
	}
	return 0
}

// bias returns b of f(x) = Σ α_i y_i k(x_i, x) + b. A free α_i
// (0 < α_i < C) has y_i f(x_i) = 1, that is b = v_i = −y_i ∇f_i; b is
// their mean, which is within m − M of each. Without free α the KKT
// conditions only bound b, by the v of items that may move one way only,
// and b is the midpoint of that interval.
func bias(alpha, y, grad []float64, c float64) float64 {
	var sum float64
	free := 0
	lo, hi := math.Inf(-1), math.Inf(1)
	for t, a := range alpha {
		v := -y[t] * grad[t]
		switch up, low := inUp(a, y[t], c), inLow(a, y[t], c); {
		case up && low:
			sum += v
			free++
		case up:
			lo = max(lo, v)
		case low:
			hi = min(hi, v)
		}
	}
	switch {
	case free > 0:
		return sum / float64(free)
	case math.IsInf(lo, 0):
		return hi
	case math.IsInf(hi, 0):
		return lo
	}
	return (lo + hi) / 2
}
