package rsr

import (
	"errors"
	"fmt"
	"math"
	"reflect"

	"github.com/covpipe/covpipe/internal/pool"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/lapack"
	"gonum.org/v1/gonum/lapack/lapack64"
	"gonum.org/v1/gonum/mat"
)

// Sentinel errors, matched with errors.Is.
var (
	// ErrInput: malformed input (sizes, NaN, negative λ, empty classes).
	ErrInput = errors.New("rsr: invalid input")
	// ErrNoConvergence: the sweep cap was reached before the tolerance.
	ErrNoConvergence = errors.New("rsr: no convergence")
)

// LassoOptions configure the kernel Lasso solver.
type LassoOptions struct {
	// Lambda is the weight λ >= 0 of ‖v‖₁ in Eqn. 7, on the paper's scale.
	Lambda float64
	// LambdaRatio, when set, replaces Lambda by a weight relative to each
	// query: λ(x) = LambdaRatio·λ_max(x), with λ_max(x) the smallest λ for
	// which the all-zero code is optimal (see LambdaMax). It must lie in
	// (0, 1); a ratio carries across kernels, σ, ridges and dimensions,
	// where an absolute λ must follow the scale of the kernel values.
	// Setting both Lambda and LambdaRatio is an error.
	LambdaRatio float64
	// Tol is the relative stopping tolerance (default 1e-6): the solver
	// stops when the largest KKT violation (see Certificate) is at most
	// Tol·max(λ, 2‖k‖∞), the scale of the gradient at v = 0. The duality
	// gap is then at most ‖v‖₁ times that bound.
	Tol float64
	// MaxSweeps caps the number of coordinate sweeps (default 10000).
	MaxSweeps int
	// NonNegative constrains the code to v >= 0.
	NonNegative bool
}

func (o LassoOptions) withDefaults() LassoOptions {
	if o.Tol == 0 {
		o.Tol = 1e-6
	}
	if o.MaxSweeps == 0 {
		o.MaxSweeps = 10000
	}
	return o
}

func (o LassoOptions) validate() error {
	switch {
	case !(o.Lambda >= 0) || math.IsInf(o.Lambda, 0):
		return fmt.Errorf("%w: lambda = %v must be finite and >= 0", ErrInput, o.Lambda)
	case math.IsNaN(o.LambdaRatio) || o.LambdaRatio < 0 || o.LambdaRatio >= 1:
		return fmt.Errorf("%w: lambda ratio = %v must be in (0, 1)", ErrInput, o.LambdaRatio)
	case o.LambdaRatio > 0 && o.Lambda != 0:
		return fmt.Errorf("%w: both lambda = %v and lambda ratio = %v given: give one", ErrInput, o.Lambda, o.LambdaRatio)
	case !(o.Tol > 0) || o.Tol >= 1:
		return fmt.Errorf("%w: tolerance = %v must be in (0, 1)", ErrInput, o.Tol)
	case o.MaxSweeps < 1:
		return fmt.Errorf("%w: MaxSweeps = %d must be >= 1", ErrInput, o.MaxSweeps)
	}
	return nil
}

// Certificate reports the optimality of a returned code v.
type Certificate struct {
	// Lambda is the λ the code was solved for: LassoOptions.Lambda, or
	// LambdaRatio·λ_max(x).
	Lambda float64
	// Objective is f(v) = k(X,X) − 2vᵀk + vᵀKv + λ‖v‖₁ (Eqns. 7–8).
	Objective float64
	// Gap is the duality gap f(v) − g(θ) for the dual point θ obtained by
	// scaling the feature-space residual: an upper bound on f(v) − min f
	// (up to the KKT tolerance when λ is near 0; see certify).
	Gap float64
	// KKT is the largest violation of the optimality conditions
	// 2(Kv − k)_j + λ sign(v_j) = 0 for v_j ≠ 0, |2(Kv − k)_j| <= λ for
	// v_j = 0 (one-sided under NonNegative).
	KKT float64
	// Sweeps counts coordinate sweeps, full and over the active set.
	Sweeps int
	// NonZeros counts the non-zero coefficients of v.
	NonZeros int
	// Converged reports that KKT met the tolerance.
	Converged bool
}

// Lasso solves the kernel Lasso of Eqns. 7–8 for one dictionary Gram
// matrix K and many queries. It is immutable after NewLasso and safe for
// concurrent use with one LassoWorkspace per goroutine.
type Lasso struct {
	n    int
	k    []float64 // row-major n×n copy of K (both triangles)
	opts LassoOptions
}

// NewLasso returns a solver for the dictionary Gram matrix K (N×N,
// symmetric, finite, with a positive diagonal: every atom has non-zero norm
// in feature space). K must be positive semi-definite for the problem to be
// convex; a pseudo-kernel's indefinite K is accepted but the certificate is
// then meaningless. It returns an error wrapping ErrInput for bad K or
// options.
func NewLasso(K mat.Matrix, opts LassoOptions) (*Lasso, error) {
	opts = opts.withDefaults()
	if err := opts.validate(); err != nil {
		return nil, err
	}
	if K == nil {
		return nil, fmt.Errorf("%w: nil Gram matrix", ErrInput)
	}
	if z, ok := K.(interface{ IsEmpty() bool }); ok && z.IsEmpty() {
		return nil, fmt.Errorf("%w: empty Gram matrix", ErrInput)
	}
	r, c := K.Dims()
	if r != c || r == 0 {
		return nil, fmt.Errorf("%w: Gram matrix is %d×%d, want square and non-empty", ErrInput, r, c)
	}
	n := r
	l := &Lasso{n: n, k: make([]float64, n*n), opts: opts}
	for i := range n {
		for j := range n {
			v := K.At(i, j)
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("%w: Gram matrix entry [%d][%d] = %v", ErrInput, i, j, v)
			}
			l.k[i*n+j] = v
		}
	}
	scale := 0.0
	for i := range n {
		scale = math.Max(scale, l.k[i*n+i])
	}
	for i := range n {
		if !(l.k[i*n+i] > 0) {
			return nil, fmt.Errorf("%w: Gram matrix diagonal [%d][%d] = %v: every atom needs k(D,D) > 0", ErrInput, i, i, l.k[i*n+i])
		}
		for j := i + 1; j < n; j++ {
			if math.Abs(l.k[i*n+j]-l.k[j*n+i]) > 1e-10*scale {
				return nil, fmt.Errorf("%w: Gram matrix is not symmetric: [%d][%d] = %v, [%d][%d] = %v", ErrInput, i, j, l.k[i*n+j], j, i, l.k[j*n+i])
			}
		}
	}
	return l, nil
}

// Len returns the dictionary size N (0 for a nil or zero-value Lasso).
func (l *Lasso) Len() int {
	if l == nil {
		return 0
	}
	return l.n
}

// ready reports a nil or zero-value Lasso, which has no dictionary.
func (l *Lasso) ready() error {
	if l == nil || l.n == 0 || len(l.k) != l.n*l.n {
		return fmt.Errorf("%w: zero-value Lasso: make one with NewLasso", ErrInput)
	}
	return nil
}

// Options returns the solver's options with defaults filled in.
func (l *Lasso) Options() LassoOptions { return l.opts }

// LassoWorkspace holds per-goroutine buffers for Lasso.SolveTo.
type LassoWorkspace struct {
	g      []float64 // g = K v
	active []int
	// Newton step on the active set.
	kaa, u, prev []float64
	scale        float64 // largest diagonal entry of the factorised K_AA
	// Null-space step: eigenvalues and LAPACK workspace.
	vals, work []float64
}

// NewWorkspace returns buffers for solving with l.
func (l *Lasso) NewWorkspace() *LassoWorkspace {
	if l == nil {
		return &LassoWorkspace{}
	}
	return &LassoWorkspace{g: make([]float64, l.n), active: make([]int, 0, l.n), prev: make([]float64, l.n)}
}

// Solve returns the kernel Lasso code v of the query with kernel vector
// kx = 𝒦(X, 𝔻) (length N) and kxx = k(X, X), starting from v = 0. See
// SolveTo.
func (l *Lasso) Solve(kx []float64, kxx float64) ([]float64, Certificate, error) {
	if err := l.ready(); err != nil {
		return nil, Certificate{}, err
	}
	v := make([]float64, l.n)
	cert, err := l.SolveTo(v, kx, kxx, l.NewWorkspace())
	return v, cert, err
}

// SolveTo solves the kernel Lasso into v, which on entry is the warm start
// (all zeros for a cold start) and on return the code. It allocates
// nothing once ws has grown to the largest active set it has seen. It returns an error wrapping ErrInput for malformed input
// (lengths, NaN), and the last iterate with an error wrapping
// ErrNoConvergence when MaxSweeps is reached.
func (l *Lasso) SolveTo(v, kx []float64, kxx float64, ws *LassoWorkspace) (Certificate, error) {
	var cert Certificate
	if err := l.ready(); err != nil {
		return cert, err
	}
	if ws == nil {
		return cert, fmt.Errorf("%w: nil workspace: use NewWorkspace", ErrInput)
	}
	n := l.n
	if len(v) != n || len(kx) != n {
		return cert, fmt.Errorf("%w: code length %d and kernel vector length %d, want the dictionary size %d", ErrInput, len(v), len(kx), n)
	}
	if math.IsNaN(kxx) || math.IsInf(kxx, 0) {
		return cert, fmt.Errorf("%w: k(X,X) = %v", ErrInput, kxx)
	}
	kmax := 0.0
	for j := range n {
		if math.IsNaN(kx[j]) || math.IsInf(kx[j], 0) {
			return cert, fmt.Errorf("%w: kernel vector entry %d = %v", ErrInput, j, kx[j])
		}
		if math.IsNaN(v[j]) || math.IsInf(v[j], 0) || (l.opts.NonNegative && v[j] < 0) {
			return cert, fmt.Errorf("%w: warm start entry %d = %v", ErrInput, j, v[j])
		}
		kmax = math.Max(kmax, math.Abs(kx[j]))
	}
	if ws == nil {
		return cert, fmt.Errorf("%w: nil workspace", ErrInput)
	}
	if len(ws.g) != n {
		return cert, fmt.Errorf("%w: workspace for a dictionary of %d atoms, want %d", ErrInput, len(ws.g), n)
	}
	if r := l.opts.LambdaRatio; r > 0 {
		q := *l
		q.opts.Lambda, q.opts.LambdaRatio = r*LambdaMax(kx, l.opts.NonNegative), 0
		return q.SolveTo(v, kx, kxx, ws)
	}
	// From a cold start far below λ_max = 2‖k‖∞ (where v = 0 is optimal),
	// follow the regularisation path as glmnet does: loose solves at
	// λ_max/4, λ_max/16, ... warm-start the next, so that the sign pattern
	// grows a few atoms at a time instead of being guessed all at once.
	if lam := l.opts.Lambda; lam > 0 && lam < pathFrom*2*kmax && allZero(v) {
		path := *l
		path.opts.Tol = math.Max(l.opts.Tol, 1e-3)
		for step := 0.5 * kmax; step > 2*lam; step /= 4 {
			path.opts.Lambda = step
			c, _ := path.solve(v, kx, kxx, ws, kmax)
			cert.Sweeps += c.Sweeps
		}
	}
	c, err := l.solve(v, kx, kxx, ws, kmax)
	c.Sweeps += cert.Sweeps
	return c, err
}

// LambdaMax returns λ_max(x), the smallest λ for which v = 0 minimises
// the kernel Lasso of Eqns. 7–8 for the kernel vector kx = 𝒦(X, 𝔻):
//
//	λ_max(x) = 2·max_j |k(X, D_j)|          (2·max(max_j k(X, D_j), 0) if nonNegative).
//
// Derivation, on the paper's scale (no ½ on the fit, no 1/N): the
// objective f(v) = k(X,X) − 2vᵀ𝒦 + vᵀ𝕂v + λ‖v‖₁ is convex, and the
// gradient of its smooth part at v = 0 is −2𝒦. So v = 0 is optimal iff
// 0 ∈ −2𝒦 + λ·∂‖0‖₁ = −2𝒦 + λ[−1, 1]^N, that is iff 2|𝒦_j| <= λ for
// every j; under v >= 0 the subdifferential is (−∞, λ] per coordinate and
// only 2𝒦_j <= λ is needed. 𝕂 plays no part: at v = 0 no atom is used.
// For the Stein kernel, where k(X, D) = exp(−σ S(X, D)) > 0 (Eqn. 5),
// λ_max(x) = 2·exp(−σ·min_j S(X, D_j)): it follows the query's nearest
// atom, so a fixed λ that suits one σ, ridge or dimension codes every
// query of another as zero. (SPAMS' and scikit-learn's λ_max = ‖Dᵀx‖∞/n
// are this on their scales.)
func LambdaMax(kx []float64, nonNegative bool) float64 {
	var m float64
	for _, x := range kx {
		if !nonNegative {
			x = math.Abs(x)
		}
		if x > m {
			m = x
		}
	}
	return 2 * m
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
	kktTol := l.opts.Tol * math.Max(math.Max(lam, 2*kmax), math.SmallestNonzeroFloat64)
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
		// A round that does not cut the KKT violation fourfold is crawling
		// along nearly collinear atoms: resolve the face exactly.
		stalled := cert.KKT > 0.25*prevKKT || len(ws.active) <= 8
		prevKKT = cert.KKT
		if stalled && len(ws.active) <= newtonMax && l.newton(v, kx, kxx, ws, cert.Objective) {
			l.certify(&cert, v, kx, kxx, ws.g, kktTol)
			if cert.KKT <= kktTol {
				cert.Converged = true
				return cert, nil
			}
			prevKKT = math.Inf(1)
		}
	}
	return cert, fmt.Errorf("%w: %d sweeps reached with KKT violation %.3g (tolerance %.3g), duality gap %.3g",
		ErrNoConvergence, cert.Sweeps, cert.KKT, kktTol, cert.Gap)
}

// activeSweeps bounds the coordinate sweeps over the active set between
// full sweeps and Newton steps.
const activeSweeps = 5

// Newton steps factorise the active block of K, O(m³) each: worth it for
// the sparse codes SRC uses, not for dense ones (a λ far below the kernel's
// scale), which coordinate descent handles in O(m·N) per sweep.
const (
	newtonMax = 256 // largest active set for Newton steps
	faceSteps = 32  // feature-sign steps per Newton call
	nullMax   = 128 // largest active set for null-space steps (an eigendecomposition)
)

// newton runs feature-sign steps (Lee et al., NIPS 2007) on the support of
// v. With A the support and s_A its signs, the objective restricted to the
// orthant face is the quadratic k(X,X) − 2v_Aᵀk_A + v_Aᵀ K_AA v_A +
// λ s_Aᵀ v_A, minimised by u_A = K_AA⁻¹ (k_A − λ s_A/2). Each step goes
// from v towards u and stops where the objective is lowest among the
// points where a coordinate reaches zero, and u itself; that coordinate
// leaves the support. Steps repeat until the face minimiser is
// sign-consistent, at most |A| times. Coordinate descent alone crawls when
// atoms are nearly collinear (classes of near-identical samples,
// consecutive video frames); these steps settle the active set exactly, and
// the next full sweep adds any coordinate whose KKT condition still fails.
//
// K_AA is factorised once per call: when an atom leaves, its row and column
// are deleted from the Cholesky factor by Givens rotations in O(|A|²), so a
// call costs one O(|A|³) factorisation however many atoms it drops.
//
// It reports whether v changed (and g = K v was recomputed); steps that do
// not lower the objective, or a singular K_AA, leave v as it was.
func (l *Lasso) newton(v, kx []float64, kxx float64, ws *LassoWorkspace, before float64) bool {
	copy(ws.prev, v)
	// fresh: the factor was just computed, so a non-finite solve means
	// K_AA is numerically singular rather than that downdates drifted.
	factored, fresh := false, false
	ld := 0 // row stride of the factor in ws.kaa
	for range min(len(ws.active)+1, faceSteps) {
		if !factored {
			a := ws.active[:0]
			for j, x := range v {
				if x != 0 {
					a = append(a, j)
				}
			}
			ws.active = a
			if len(a) == 0 {
				break
			}
			if !l.factor(ws) {
				if !l.dropDependent(v, ws) {
					break
				}
				continue
			}
			factored, fresh, ld = true, true, len(a)
		}
		t, ok := l.faceStep(v, kx, ws, ld)
		if !ok {
			factored = false
			if fresh && !l.dropDependent(v, ws) {
				break
			}
			continue
		}
		fresh = false
		if t == 1 || len(ws.active) == 0 {
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

// dropDependent takes a null-space step on a singular K_AA; when none
// applies it restores v from ws.prev and reports false.
func (l *Lasso) dropDependent(v []float64, ws *LassoWorkspace) bool {
	if len(ws.active) <= nullMax {
		if l.nullStep(v, ws) {
			return true
		}
	}
	copy(v, ws.prev)
	return false
}

// factor writes the upper Cholesky factor of K_AA, A = ws.active, into
// ws.kaa (row-major, stride |A|) and reports whether Potrf succeeded;
// faceStep checks the pivots (pivotsOK) before every solve, fresh factor
// or downdated.
func (l *Lasso) factor(ws *LassoWorkspace) bool {
	a := ws.active
	m := len(a)
	if cap(ws.kaa) < m*m {
		ws.kaa = make([]float64, m*m)
		ws.u = make([]float64, m)
	}
	kaa := ws.kaa[:m*m]
	n := l.n
	for p, i := range a {
		row := l.k[i*n : i*n+n]
		for q, j := range a[p:] {
			kaa[p*m+p+q] = row[j]
		}
	}
	ws.scale = 0
	for _, i := range a {
		ws.scale = math.Max(ws.scale, l.k[i*n+i])
	}
	_, ok := lapack64.Potrf(blas64.Symmetric{Uplo: blas.Upper, N: m, Stride: m, Data: kaa})
	return ok
}

// pivotsOK reports whether every pivot r_ii² of the Cholesky factor r
// (order m, stride ld) is above 1e-10 of the largest diagonal entry of the
// factorised matrix, the threshold nullStep uses for null eigenvalues.
// Below it the block is singular up to round-off: Potrf can still succeed
// on a rank-deficient K_AA, and its solution is then finite but
// meaningless, of a size at which objective values lose all precision.
func pivotsOK(r []float64, ld, m int, scale float64) bool {
	tol := 1e-10 * scale
	for i := range m {
		if p := r[i*ld+i]; !(p*p > tol) {
			return false
		}
	}
	return true
}

// faceStep takes one feature-sign step on the support ws.active, whose K_AA
// has its upper Cholesky factor in ws.kaa with row stride ld, and returns
// its length t in (0, 1] (1: the face minimiser was reached). Atoms that
// reach zero leave ws.active and the factor. It reports false, leaving v
// unchanged, when the factor no longer gives a finite solution.
func (l *Lasso) faceStep(v, kx []float64, ws *LassoWorkspace, ld int) (float64, bool) {
	a := ws.active
	m := len(a)
	u := ws.u[:m]
	n := l.n
	if !pivotsOK(ws.kaa, ld, m, ws.scale) { // rank-deficient K_AA, or downdates lost accuracy
		return 0, false
	}
	half := 0.5 * l.opts.Lambda
	for p, i := range a {
		u[p] = kx[i] - math.Copysign(half, v[i])
	}
	cholSolve(ws.kaa, ld, u)
	for _, x := range u {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return 0, false
		}
	}
	// Discrete line search (Lee et al.): among the points where the
	// segment from v to u crosses zero in some coordinate, and u itself,
	// take the one with the lowest true objective. Along y(t) = v + t·d,
	// d = u − v, the smooth part is −2(k·v + t k·d) + vKv + 2t vKd + t² dKd.
	// Under NonNegative only the first crossing is feasible.
	var kd, vkd, dkd float64
	for p, i := range a {
		d := u[p] - v[i]
		kd += kx[i] * d
		row := l.k[i*n : i*n+n]
		var rd float64
		for q, j := range a {
			rd += row[j] * (u[q] - v[j])
		}
		vkd += v[i] * rd
		dkd += d * rd
	}
	f := func(t float64) float64 { // objective at y(t), up to a constant
		var l1 float64
		for p, i := range a {
			l1 += math.Abs(v[i] + t*(u[p]-v[i]))
		}
		return -2*t*kd + 2*t*vkd + t*t*dkd + 2*half*l1
	}
	first := 1.0
	for p, i := range a {
		if u[p]*v[i] <= 0 { // reaches zero at v + τ(u − v) = 0
			first = math.Min(first, v[i]/(v[i]-u[p]))
		}
	}
	t := first
	if !l.opts.NonNegative {
		best := f(first)
		if f1 := f(1); f1 < best {
			t, best = 1, f1
		}
		for p, i := range a {
			if u[p]*v[i] <= 0 {
				if c := v[i] / (v[i] - u[p]); c > first && c < 1 {
					if fc := f(c); fc < best {
						t, best = c, fc
					}
				}
			}
		}
	}
	for p, i := range a {
		next := v[i] + t*(u[p]-v[i])
		if math.Abs(next) <= 1e-14*math.Abs(v[i]) || (l.opts.NonNegative && next < 0) {
			next = 0
		}
		if t < 1 && u[p]*v[i] <= 0 && v[i]/(v[i]-u[p]) == t {
			next = 0 // the crossing chosen by the line search, exactly
		}
		v[i] = next
	}
	// Delete the atoms that reached zero, last first so that positions of
	// the others stay valid.
	for p := m - 1; p >= 0; p-- {
		if v[a[p]] == 0 {
			cholDelete(ws.kaa, ld, m, p)
			copy(a[p:], a[p+1:])
			m--
			a = a[:m]
		}
	}
	ws.active = a
	return t, true
}

// cholSolve overwrites b with the solution of RᵀR x = b for the upper
// triangular R (row-major, stride ld, order len(b)). Both triangular solves
// run along rows of R, which are contiguous; for one right-hand side this
// is several times faster than lapack64.Potrs.
func cholSolve(r []float64, ld int, b []float64) {
	m := len(b)
	for i := range m { // Rᵀ y = b
		row := r[i*ld : i*ld+m]
		b[i] /= row[i]
		if y := b[i]; y != 0 {
			for k := i + 1; k < m; k++ {
				b[k] -= row[k] * y
			}
		}
	}
	for i := m - 1; i >= 0; i-- { // R x = y
		row := r[i*ld : i*ld+m]
		s := b[i]
		for k := i + 1; k < m; k++ {
			s -= row[k] * b[k]
		}
		b[i] = s / row[i]
	}
}

// cholDelete turns the upper Cholesky factor R (row-major, stride ld) of an
// m×m matrix A into the factor of A without row and column p, in place, in
// O((m−p)·m): deleting column p of R leaves A' = R'ᵀR' with R' upper
// Hessenberg from row p on, and Givens rotations (orthogonal, so R'ᵀR' is
// unchanged) restore the triangle. The result occupies the leading
// (m−1)×(m−1) block.
func cholDelete(r []float64, ld, m, p int) {
	for i := range m {
		row := r[i*ld : i*ld+m]
		copy(row[max(p, i-1):], row[max(p, i-1)+1:])
	}
	for j := p; j < m-1; j++ {
		x, y := r[j*ld+j], r[(j+1)*ld+j]
		h := math.Hypot(x, y)
		if h == 0 {
			continue
		}
		c, s := x/h, y/h
		r[j*ld+j], r[(j+1)*ld+j] = h, 0
		for k := j + 1; k < m-1; k++ {
			x, y := r[j*ld+k], r[(j+1)*ld+k]
			r[j*ld+k] = c*x + s*y
			r[(j+1)*ld+k] = c*y - s*x
		}
	}
}

// nullStep handles a singular K_AA: the atoms of the support are linearly
// dependent in feature space (near-duplicate samples, or more atoms than the
// feature space has dimensions, as for 3×3 log-Euclidean vectors). For a
// null vector z, K_AA z = 0 means Φ_A z = 0, so k_Aᵀz = φᵀΦ_A z = 0 and
// along z the face objective changes only through λ s_Aᵀz: moving in the
// direction that lowers it until the first coefficient reaches zero strictly
// decreases the objective and removes a redundant atom (as LARS keeps its
// active set independent). One eigendecomposition gives the whole null
// space; after each step, Gaussian elimination keeps the remaining null
// vectors zero on the dropped coordinate, so every redundant atom goes for
// O(m·k) more work. It reports whether the support changed (false when
// K_AA is not singular or no step helps).
func (l *Lasso) nullStep(v []float64, ws *LassoWorkspace) bool {
	a := ws.active
	m := len(a)
	n := l.n
	kaa := ws.kaa[:m*m]
	for p, i := range a {
		row := l.k[i*n : i*n+n]
		for q, j := range a {
			kaa[p*m+q] = row[j]
		}
	}
	if cap(ws.vals) < m {
		ws.vals = make([]float64, m)
	}
	vals := ws.vals[:m]
	sym := blas64.Symmetric{Uplo: blas.Upper, N: m, Stride: m, Data: kaa}
	var q [1]float64
	lapack64.Syev(lapack.EVCompute, sym, vals, q[:], -1)
	if len(ws.work) < int(q[0]) {
		ws.work = make([]float64, int(q[0]))
	}
	if !lapack64.Syev(lapack.EVCompute, sym, vals, ws.work, len(ws.work)) {
		return false
	}
	// The eigenvectors are the columns of kaa, ascending eigenvalues: the
	// first k span the (numerical) null space.
	tol := 1e-10 * math.Max(vals[m-1], math.SmallestNonzeroFloat64)
	k := 0
	for k < m && vals[k] <= tol {
		k++
	}
	if k == 0 {
		return false
	}
	z := func(p, c int) float64 { return kaa[p*m+c] }
	changed := false
	for k > 0 {
		// The null direction with the largest effect on the l1 term.
		best, bc := 0.0, -1
		for c := range k {
			var sc float64
			for p, i := range a {
				if v[i] != 0 {
					sc += math.Copysign(1, v[i]) * z(p, c)
				}
			}
			if math.Abs(sc) > math.Abs(best) {
				best, bc = sc, c
			}
		}
		if bc < 0 {
			break
		}
		// With s·z ≈ 0 the face objective is flat along z: moving to the
		// first zero drops a dependent atom at no cost.
		dir := -math.Copysign(1, best)
		if math.Abs(best) < 1e-12 {
			bc, dir = 0, 1
		}
		t, drop := math.Inf(1), -1
		for p, i := range a {
			if d := dir * z(p, bc); v[i] != 0 && d*v[i] < 0 {
				if s := -v[i] / d; s < t {
					t, drop = s, p
				}
			}
		}
		if drop < 0 {
			break
		}
		for p, i := range a {
			if v[i] == 0 {
				continue
			}
			next := v[i] + t*dir*z(p, bc)
			if p == drop || next*v[i] <= 0 || math.Abs(next) <= 1e-14*math.Abs(v[i]) {
				next = 0
			}
			v[i] = next
		}
		changed = true
		// Keep the remaining null vectors zero on the dropped coordinate:
		// pivot on the column with the largest entry there and drop it.
		piv := 0
		for c := 1; c < k; c++ {
			if math.Abs(z(drop, c)) > math.Abs(z(drop, piv)) {
				piv = c
			}
		}
		if zp := z(drop, piv); zp != 0 {
			for c := range k {
				if c == piv {
					continue
				}
				f := z(drop, c) / zp
				for p := range m {
					kaa[p*m+c] -= f * kaa[p*m+piv]
				}
			}
		}
		k--
		for p := range m {
			kaa[p*m+piv] = kaa[p*m+k]
		}
	}
	return changed
}

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

// gradient sets g = K v, visiting only the non-zero coefficients.
func (l *Lasso) gradient(g, v []float64) {
	n := l.n
	clear(g)
	for j, x := range v {
		if x == 0 {
			continue
		}
		floats.AddScaled(g, x, l.k[j*n:j*n+n])
	}
}

// sweep runs one cycle of exact coordinate minimisation over idx (all
// coordinates when idx is nil) and returns the largest decrease of the
// objective, Σ-free: max_j K_jj δ_j².
//
// Along coordinate j the objective is K_jj v_j² − 2 c_j v_j + λ|v_j| + const
// with c_j = k_j − (Kv)_j + K_jj v_j, minimised by soft thresholding:
// v_j = sign(c_j) max(|c_j| − λ/2, 0) / K_jj.
func (l *Lasso) sweep(v, kx, g []float64, idx []int) float64 {
	// Plain comparisons: math.Max's NaN and signed-zero handling is a
	// tenth of the solver's time here.
	var change float64
	if idx == nil {
		for j := range l.n {
			if c := l.update(j, v, kx, g); c > change {
				change = c
			}
		}
		return change
	}
	for _, j := range idx {
		if c := l.update(j, v, kx, g); c > change {
			change = c
		}
	}
	return change
}

// update minimises the objective along coordinate j, keeps g = K v, and
// returns the decrease K_jj δ².
func (l *Lasso) update(j int, v, kx, g []float64) float64 {
	n := l.n
	kjj := l.k[j*n+j]
	half := 0.5 * l.opts.Lambda
	c := kx[j] - g[j] + kjj*v[j]
	var next float64
	switch {
	case c > half:
		next = (c - half) / kjj
	case c < -half && !l.opts.NonNegative:
		next = (c + half) / kjj
	}
	delta := next - v[j]
	if delta == 0 {
		return 0
	}
	v[j] = next
	floats.AddScaled(g, delta, l.k[j*n:j*n+n])
	return kjj * delta * delta
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

// SolveBatch solves the kernel Lasso for Q queries in parallel: row q of Kx
// (Q×N) is 𝒦(X_q, 𝔻) and kxx[q] = k(X_q, X_q). Row q of the returned Q×N
// matrix is the code of query q. Results do not depend on the worker count
// (<= 0 means GOMAXPROCS). The error names the first failing query.
func (l *Lasso) SolveBatch(Kx mat.Matrix, kxx []float64, workers int) (*mat.Dense, []Certificate, error) {
	q, err := l.checkBatch(Kx, kxx)
	if err != nil {
		return nil, nil, err
	}
	codes := mat.NewDense(q, l.n, nil)
	certs := make([]Certificate, q)
	wss := make([]*LassoWorkspace, pool.Workers(workers))
	rows := make([][]float64, len(wss))
	err = pool.ForErr(q, workers, func(w, i int) error {
		if wss[w] == nil {
			wss[w] = l.NewWorkspace()
			rows[w] = make([]float64, l.n)
		}
		kx := rowOf(Kx, i, rows[w])
		var err error
		certs[i], err = l.SolveTo(codes.RawRowView(i), kx, kxx[i], wss[w])
		if err != nil {
			return fmt.Errorf("query %d: %w", i, err)
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return codes, certs, nil
}

func (l *Lasso) checkBatch(Kx mat.Matrix, kxx []float64) (int, error) {
	if err := l.ready(); err != nil {
		return 0, err
	}
	if Kx == nil || reflect.ValueOf(Kx).Kind() == reflect.Pointer && reflect.ValueOf(Kx).IsNil() {
		return 0, fmt.Errorf("%w: nil query kernel matrix", ErrInput)
	}
	if z, ok := Kx.(interface{ IsEmpty() bool }); ok && z.IsEmpty() {
		return 0, fmt.Errorf("%w: empty query kernel matrix", ErrInput)
	}
	q, n := Kx.Dims()
	if n != l.n {
		return 0, fmt.Errorf("%w: query kernel matrix has %d columns, want the dictionary size %d", ErrInput, n, l.n)
	}
	if len(kxx) != q {
		return 0, fmt.Errorf("%w: %d values of k(X,X) for %d queries", ErrInput, len(kxx), q)
	}
	return q, nil
}

// rowOf returns row i of m, without copying when m is a *mat.Dense.
func rowOf(m mat.Matrix, i int, buf []float64) []float64 {
	if d, ok := m.(mat.RawMatrixer); ok {
		raw := d.RawMatrix()
		return raw.Data[i*raw.Stride : i*raw.Stride+raw.Cols]
	}
	for j := range buf {
		buf[j] = m.At(i, j)
	}
	return buf
}
