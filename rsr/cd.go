package rsr

import (
	"fmt"
	"math"
)

// Coordinate descent on the kernel Lasso (the glmnet scheme of Friedman,
// Hastie and Tibshirani, J. Stat. Softw. 2010, in kernel form) and the
// optimality certificate of its codes.

// solvePath solves from the warm start v. From a cold start far below
// λ_max = 2‖k‖∞ (where v = 0 is optimal) it follows the regularisation
// path as glmnet does: loose solves at λ_max/4, λ_max/16, ... warm-start
// the next, so that the sign pattern grows a few atoms at a time instead
// of being guessed all at once.
func (l *Lasso) solvePath(v, kx []float64, kxx float64, ws *LassoWorkspace, kmax float64) (Certificate, error) {
	var sweeps int
	if lam := l.opts.Lambda; lam > 0 && lam < pathFrom*2*kmax && allZero(v) {
		path := *l
		path.opts.Tol = math.Max(l.opts.Tol, 1e-3)
		for step := 0.5 * kmax; step > 2*lam && sweeps < l.opts.MaxSweeps; step /= 4 {
			path.opts.Lambda = step
			path.opts.MaxSweeps = l.opts.MaxSweeps - sweeps
			c, _ := path.solve(v, kx, kxx, ws, kmax)
			sweeps += c.Sweeps
		}
	}
	rest := *l
	rest.opts.MaxSweeps -= sweeps
	c, err := rest.solve(v, kx, kxx, ws, kmax)
	c.Sweeps += sweeps
	if err != nil {
		return c, noConvergence(c, l.kktTol(kmax))
	}
	return c, nil
}

// pathFrom is the fraction of λ_max below which cold starts follow the
// regularisation path.
const pathFrom = 0.05

func allZero(v []float64) bool {
	for _, x := range v {
		if x != 0 {
			return false
		}
	}
	return true
}

// solve runs the solver from the warm start v; kmax is ‖k‖∞.
func (l *Lasso) solve(v, kx []float64, kxx float64, ws *LassoWorkspace, kmax float64) (Certificate, error) {
	lam := l.opts.Lambda
	cert := Certificate{Lambda: lam}
	kktTol := l.kktTol(kmax)
	// Active-set sweeps stop when no coordinate lowers the objective by
	// more than this.
	settle := 1e-3 * l.opts.Tol * math.Max(math.Abs(kxx), math.SmallestNonzeroFloat64)
	l.gradient(ws.g, v)
	prevKKT := math.Inf(1)
	for cert.Sweeps < l.opts.MaxSweeps {
		// A full sweep lets any coordinate enter; a few sweeps over the
		// active set refine it, as in glmnet.
		l.sweep(v, kx, ws.g, nil)
		cert.Sweeps++
		ws.active = ws.active[:0]
		for j, x := range v {
			if x != 0 {
				ws.active = append(ws.active, j)
			}
		}
		for range activeSweeps {
			if cert.Sweeps >= l.opts.MaxSweeps {
				break
			}
			change := l.sweep(v, kx, ws.g, ws.active)
			cert.Sweeps++
			if change <= settle {
				break
			}
		}
		// Round-off accumulates in the incremental updates of g.
		l.gradient(ws.g, v)
		l.certify(&cert, v, kx, kxx, ws.g, kktTol)
		if cert.KKT <= kktTol {
			cert.Converged = true
			return cert, nil
		}
		// Coordinate descent crawls along nearly collinear atoms: resolve
		// the face exactly when the rounds that the last one's rate of
		// decrease projects would cost more (6·N·|A| each) than the
		// factorisation (|A|³/3), or when the face is tiny anyway.
		m := float64(len(ws.active))
		rounds := math.Inf(1)
		if rate := cert.KKT / prevKKT; rate < 1 {
			rounds = math.Log(kktTol/cert.KKT) / math.Log(rate)
		}
		stalled := m <= 8 || rounds*18*float64(l.n) >= m*m
		prevKKT = cert.KKT
		if stalled && l.newton(v, kx, kxx, ws, cert.Objective, kktTol) {
			l.certify(&cert, v, kx, kxx, ws.g, kktTol)
			if cert.KKT <= kktTol {
				cert.Converged = true
				return cert, nil
			}
			prevKKT = math.Inf(1)
		}
	}
	// The cap: certify the last iterate (the loop may not have run).
	l.gradient(ws.g, v)
	l.certify(&cert, v, kx, kxx, ws.g, kktTol)
	return cert, noConvergence(cert, kktTol)
}

// kktTol is the absolute KKT tolerance of LassoOptions.Tol for a query
// with ‖k‖∞ = kmax.
func (l *Lasso) kktTol(kmax float64) float64 {
	return l.opts.Tol * math.Max(math.Max(l.opts.Lambda, 2*kmax), math.SmallestNonzeroFloat64)
}

// noConvergence is the error for a code that reached the sweep cap.
func noConvergence(cert Certificate, kktTol float64) error {
	return fmt.Errorf("%w: %d sweeps reached with KKT violation %.3g (tolerance %.3g), duality gap %.3g",
		ErrNoConvergence, cert.Sweeps, cert.KKT, kktTol, cert.Gap)
}

// activeSweeps bounds the coordinate sweeps over the active set between
// full sweeps and Newton steps.
const activeSweeps = 5

// objective returns f(v) given g = K v.
func (l *Lasso) objective(v, kx []float64, kxx float64, g []float64) float64 {
	f := kxx
	for j, x := range v {
		if x != 0 {
			f += x*(g[j]-2*kx[j]) + l.opts.Lambda*math.Abs(x)
		}
	}
	return f
}

// gradient sets g = K v, visiting only the non-zero coefficients, four
// rows of K at a time (addRows).
func (l *Lasso) gradient(g, v []float64) {
	n := l.n
	clear(g)
	var idx [4]int
	var coef [4]float64
	q := 0
	for j, x := range v {
		if x == 0 {
			continue
		}
		idx[q], coef[q] = j, x
		if q++; q == 4 {
			addRows(g, l.k, n, idx[:], coef[:])
			q = 0
		}
	}
	addRows(g, l.k, n, idx[:q], coef[:q])
}

// sweep runs one cycle of exact coordinate minimisation over idx (all
// coordinates when idx is nil) and returns the largest decrease of the
// objective, Σ-free: max_j K_jj δ_j².
//
// Along coordinate j the objective is K_jj v_j² − 2 c_j v_j + λ|v_j| + const
// with c_j = k_j − (Kv)_j + K_jj v_j, minimised by soft thresholding:
// v_j = sign(c_j) max(|c_j| − λ/2, 0) / K_jj.
func (l *Lasso) sweep(v, kx, g []float64, idx []int) float64 {
	// Plain comparisons replace math.Max: a call per coordinate (or
	// math.Max's NaN and signed-zero handling) would be a sizeable part of
	// the solver's time.
	if idx == nil {
		idx = l.all
	}
	n, k := l.n, l.k
	half, nonneg := 0.5*l.opts.Lambda, l.opts.NonNegative
	var change float64
	for _, j := range idx {
		kjj := k[j*n+j]
		next := soft(kx[j]-g[j]+kjj*v[j], half, kjj, nonneg)
		if d := next - v[j]; d != 0 {
			v[j] = next
			addRow(g, d, k[j*n:j*n+n])
			if c := kjj * d * d; c > change {
				change = c
			}
		}
	}
	return change
}

// soft returns the minimiser of kjj·x² − 2c·x + 2·half·|x| (over x >= 0
// when nonneg), the exact coordinate minimum along coordinate j with
// c_j = k_j − (Kv)_j + K_jj v_j: soft thresholding,
// sign(c) max(|c| − half, 0) / kjj.
func soft(c, half, kjj float64, nonneg bool) float64 {
	switch {
	case c > half:
		return (c - half) / kjj
	case c < -half && !nonneg:
		return (c + half) / kjj
	}
	return 0
}

// certify fills the objective, duality gap and KKT violation of v, given
// g = K v. With s = 1 below, Gap = Σ_j v_j (2(Kv − k)_j + λ sign v_j) <=
// ‖v‖₁·KKT, so the KKT stopping rule also bounds the gap.
//
// Writing the problem as 2·[½‖φ − Φv‖² + α‖v‖₁] with α = λ/2, the residual
// r = φ − Φv scaled to θ = s·r with s = min(1, α/‖Φᵀr‖∞) is dual feasible
// (Φᵀθ <= α componentwise under NonNegative), with dual value
// s φᵀr − ½ s²‖r‖². Everything is a kernel expression: φᵀr = k(X,X) − vᵀk,
// ‖r‖² = k(X,X) − 2vᵀk + vᵀg, Φᵀr = k − g.
//
// As λ → 0 that scaling sends θ to 0 and the gap to ‖r‖², which never
// closes when X is outside the atoms' span (scikit-learn's Lasso has the
// same defect at alpha = 0). So a residual whose correlations exceed α by
// no more than the KKT tolerance (kktTol/2 in these units) counts as
// feasible, s = 1: the gap is then exact up to that tolerance, and λ = 0
// certifies the least-squares solution.
func (l *Lasso) certify(cert *Certificate, v, kx []float64, kxx float64, g []float64, kktTol float64) {
	lam := l.opts.Lambda
	var vk, vg, l1, corr, kkt float64
	nnz := 0
	nonneg := l.opts.NonNegative
	for j, x := range v {
		rj := kx[j] - g[j] // (Φᵀr)_j; the gradient of the smooth part is −2 rj
		if nonneg {
			if rj > corr {
				corr = rj
			}
		} else if a := math.Abs(rj); a > corr {
			corr = a
		}
		var viol float64
		switch {
		case x > 0:
			viol = math.Abs(lam - 2*rj)
		case x < 0:
			viol = math.Abs(lam + 2*rj)
		case nonneg:
			viol = 2*rj - lam
		default:
			viol = 2*math.Abs(rj) - lam
		}
		if viol > kkt {
			kkt = viol
		}
		if x != 0 {
			nnz++
			vk += x * kx[j]
			vg += x * g[j]
			l1 += math.Abs(x)
		}
	}
	r2 := math.Max(0, kxx-2*vk+vg)
	alpha := 0.5 * lam
	s := 1.0
	if corr > alpha+0.5*kktTol {
		s = alpha / corr
	}
	dual := 2 * (s*(kxx-vk) - 0.5*s*s*r2)
	cert.Objective = kxx - 2*vk + vg + lam*l1
	cert.Gap = math.Max(0, cert.Objective-dual)
	cert.KKT = kkt
	cert.NonZeros = nnz
}
