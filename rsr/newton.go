package rsr

import (
	"math"
	"slices"

	"github.com/covpipe/covpipe/internal/dense"
)

// Feature-sign steps on the active face (Lee, Battle, Raina and Ng, NIPS
// 2007), regularised: the exact solves that settle a support on which
// coordinate descent crawls.

const (
	// faceRidge is μ relative to the largest diagonal entry of K_AA in the
	// regularised face solves (see newton): far above the round-off of a
	// factorisation (|A|·ε), far below the eigenvalues that matter.
	faceRidge = 1e-10
	// faceSlack is how many face steps a Newton call may take beyond one
	// per atom of the support it starts from.
	faceSlack = 16
	// faceDone is the fraction of the KKT tolerance below which the face
	// gradient counts as zero.
	faceDone = 0.1
)

// newton runs feature-sign steps (Lee et al., NIPS 2007) on the support A
// of v. With s_A the signs, the objective restricted to the orthant face is
// the quadratic k(X,X) − 2v_Aᵀk_A + v_Aᵀ K_AA v_A + λ s_Aᵀ v_A. Each step
// solves
//
//	(K_AA + μI) d = k_A − λ s_A/2 − K_AA v_A        (μ = faceRidge·max_i K_ii)
//
// and goes from v along d to the point of lowest objective among those
// where a coordinate reaches zero and v + d; that coordinate leaves the
// support. Steps repeat until the face gradient vanishes. Coordinate
// descent alone crawls when atoms are nearly collinear (classes of
// near-identical samples, consecutive video frames); these steps settle the
// active set, and the next full sweep adds any coordinate whose KKT
// condition still fails.
//
// The ridge μ makes every step well defined when K_AA is singular or
// nearly so (duplicate atoms, more atoms than feature dimensions): it is a
// Levenberg–Marquardt step, equivalently a proximal-point step
// argmin face(v + d) + μ‖d‖². Along eigenvectors of K_AA with eigenvalue
// far above μ it is the Newton step; along a null vector z of K_AA (Φ_A z =
// 0, so k_Aᵀz = 0) the face objective changes only through λ s_Aᵀz, and d
// moves by λ s_Aᵀz/(2μ) against it, so far that the line search stops at
// the first coefficient that reaches zero: the redundant atom leaves at a
// strict decrease, as LARS keeps its active set independent. When s_Aᵀz =
// 0 the face is flat along z and the step leaves that component alone.
// Directions with eigenvalues near μ converge linearly over the steps.
//
// K_AA + μI is factorised once per call: when an atom leaves, its row and
// column are deleted from the Cholesky factor by Givens rotations in
// O(|A|²), so a call costs one O(|A|³) factorisation and O(|A|²) per step.
//
// It reports whether v changed (and g = K v was recomputed); steps that do
// not lower the objective, or a factorisation that fails (an indefinite
// K), leave v as it was.
func (l *Lasso) newton(v, kx []float64, kxx float64, ws *LassoWorkspace, before, kktTol float64) bool {
	copy(ws.prev, v)
	factored := false
	ld := 0 // row stride of the factor in ws.kaa
	limit, lost := 0, 0
loop:
	for step := 0; ; step++ {
		if !factored {
			a := ws.active[:0]
			for j, x := range v {
				if x != 0 {
					a = append(a, j)
				}
			}
			// Deleting position p from the factor costs O((|A|−p)·|A|), and
			// the atoms that leave are mostly the small coefficients that
			// coordinate descent spread over near-duplicates: put them last.
			slices.SortStableFunc(a, func(i, j int) int { return cmpFloat(math.Abs(v[j]), math.Abs(v[i])) })
			ws.active = a
			if len(a) == 0 || !l.factor(ws) {
				break
			}
			if step == 0 {
				limit = len(a) + faceSlack
				for p, i := range a {
					ws.r[p] = ws.g[i] // g = K v on entry
				}
			} else {
				l.faceProduct(v, ws)
			}
			factored, ld = true, len(a)
		}
		if step >= limit {
			break
		}
		switch l.faceStep(v, kx, ws, ld, faceDone*kktTol) {
		case faceSolved:
			break loop
		case faceFailed:
			// Downdates lose accuracy over many deletions: refactorise once.
			if lost++; lost == 2 {
				break loop
			}
			factored = false
		}
		if len(ws.active) == 0 {
			break
		}
	}
	l.gradient(ws.g, v)
	if l.objective(v, kx, kxx, ws.g) >= before {
		copy(v, ws.prev)
		l.gradient(ws.g, v)
		return false
	}
	return true
}

// factor writes the upper Cholesky factor of K_AA + μI, A = ws.active,
// into ws.kaa (row-major, stride |A|) and reports whether the
// factorisation succeeded.
func (l *Lasso) factor(ws *LassoWorkspace) bool {
	a := ws.active
	m := len(a)
	if cap(ws.kaa) < m*m {
		ws.kaa = make([]float64, m*m)
		ws.u = make([]float64, m)
		ws.r = make([]float64, m)
		ws.b = make([]float64, m)
		ws.cross = make([]crossing, 0, m)
	}
	kaa := ws.kaa[:m*m]
	n := l.n
	scale := 0.0
	for _, i := range a {
		if kii := l.k[i*n+i]; kii > scale {
			scale = kii
		}
	}
	ws.mu = faceRidge * scale
	for p, i := range a {
		row := l.k[i*n : i*n+n]
		for q, j := range a[p:] {
			kaa[p*m+p+q] = row[j]
		}
		kaa[p*m+p] += ws.mu
	}
	return dense.CholUpper(kaa, m)
}

// faceResult is the outcome of faceStep.
type faceResult int

const (
	faceMoved  faceResult = iota // a step, and the factor follows the support
	faceSolved                   // the face gradient vanishes; v is unchanged
	faceFailed                   // the factor gives no finite step; v is unchanged
)

// faceStep takes one feature-sign step on the support ws.active, whose
// K_AA + μI has its upper Cholesky factor in ws.kaa with row stride ld and
// for which ws.r holds K_AA v_A. Atoms that reach zero leave ws.active
// and the factor. The face counts as solved when its gradient is at most
// gradTol.
func (l *Lasso) faceStep(v, kx []float64, ws *LassoWorkspace, ld int, gradTol float64) faceResult {
	a := ws.active
	m := len(a)
	d, kv, kd := ws.u[:m], ws.r[:m], ws.b[:m]
	// Every pivot r_ii² of the factor is at least the smallest eigenvalue
	// of K_AA + μI, so at least μ for a positive semi-definite K: one
	// below μ/2 means that downdates lost accuracy, or that K is
	// indefinite.
	if !dense.PivotsAbove(ws.kaa, ld, m, 0.5*ws.mu) {
		return faceFailed
	}
	half := 0.5 * l.opts.Lambda
	rhs := func() (worst float64) { // −½ the face gradient, into kd
		for p, i := range a {
			kd[p] = kx[i] - math.Copysign(half, v[i]) - kv[p]
			if a := math.Abs(kd[p]); a > worst {
				worst = a
			}
		}
		return worst
	}
	if 2*rhs() <= gradTol {
		// K_AA v_A is kept by updates: confirm with the exact product.
		l.faceProduct(v, ws)
		if 2*rhs() <= gradTol {
			return faceSolved
		}
	}
	copy(d, kd)
	dense.CholSolve(ws.kaa, ld, d)
	for _, x := range d {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return faceFailed
		}
	}
	// Discrete line search (Lee et al.): among the points where the
	// segment from v to v + d crosses zero in some coordinate, and v + d
	// itself, take the one with the lowest objective. Along y(t) = v + t·d
	// the smooth part is −2(k·v + t k·d) + vKv + 2t vKd + t² dKd, with
	// K_AA d = rhs − μd from the solve, and ‖y(t)‖₁ is linear between
	// crossings, so one pass over the sorted crossings prices them all.
	// Under NonNegative only the first crossing is feasible.
	var kdot, vkd, dkd, l1, slope float64
	first := 1.0
	cross := ws.cross[:0]
	for p, i := range a {
		kd[p] -= ws.mu * d[p]
		kdot += kx[i] * d[p]
		vkd += kv[p] * d[p]
		dkd += d[p] * kd[p]
		l1 += math.Abs(v[i])
		slope += math.Copysign(1, v[i]) * d[p]
		if d[p]*v[i] < 0 { // reaches zero at v + τd = 0
			c := -v[i] / d[p]
			if c < first {
				first = c
			}
			if c < 1 {
				cross = append(cross, crossing{c, p})
			}
		}
	}
	ws.cross = cross
	lin := 2 * (vkd - kdot)
	f := func(t float64) float64 { // objective at y(t), up to a constant
		return lin*t + dkd*t*t + l.opts.Lambda*(l1+slope*t)
	}
	t := first
	if !l.opts.NonNegative && len(cross) > 0 {
		slices.SortFunc(cross, func(x, y crossing) int {
			if c := cmpFloat(x.t, y.t); c != 0 {
				return c
			}
			return x.p - y.p
		})
		best := math.Inf(1)
		for _, x := range cross {
			// Past its crossing, coordinate p contributes −s_p(v_p + t d_p).
			vi := v[a[x.p]]
			l1 -= 2 * math.Abs(vi)
			slope -= 2 * math.Copysign(1, vi) * d[x.p]
			if fc := f(x.t); fc < best {
				t, best = x.t, fc
			}
		}
		if f1 := f(1); f1 < best {
			t, best = 1, f1
		}
	}
	for p, i := range a {
		next := v[i] + t*d[p]
		if math.Abs(next) <= 1e-14*math.Abs(v[i]) || (l.opts.NonNegative && next < 0) {
			next = 0
		}
		if d[p]*v[i] < 0 && -v[i]/d[p] == t {
			next = 0 // the crossing chosen by the line search, exactly
		}
		v[i] = next
		kv[p] += t * kd[p]
	}
	// Delete the atoms that reached zero, last first so that positions of
	// the others stay valid.
	for p := m - 1; p >= 0; p-- {
		if v[a[p]] == 0 {
			dense.CholDelete(ws.kaa, ld, m, p)
			copy(a[p:], a[p+1:])
			copy(kv[p:], kv[p+1:])
			m--
			a = a[:m]
		}
	}
	ws.active = a
	return faceMoved
}

// crossing is where a coefficient of a face step reaches zero: at step
// length t, coordinate p of the support.
type crossing struct {
	t float64
	p int
}

// faceProduct sets ws.r to K_AA v_A, A = ws.active.
func (l *Lasso) faceProduct(v []float64, ws *LassoWorkspace) {
	n := l.n
	for p, i := range ws.active {
		row := l.k[i*n : i*n+n]
		var s float64
		for _, j := range ws.active {
			s += row[j] * v[j]
		}
		ws.r[p] = s
	}
}
