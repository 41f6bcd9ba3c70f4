package rsr

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"

	"github.com/covpipe/covpipe/internal/pool"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
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
	// MaxSweeps caps the number of coordinate sweeps (default 10000),
	// summed over the regularisation path's stages and the working sets'
	// subproblems (see SolveTo).
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
	// Sweeps counts coordinate sweeps, full and over the active set, of
	// the whole dictionary or of a working set's subproblem: 0 for a code
	// that the homotopy solved (see SolveTo).
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
	// lowRank reports a numerical rank of K of at most
	// homotopyMaxActive, for which cold starts follow the homotopy.
	lowRank bool
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
	// A dense K is copied row by row: At costs an interface call and
	// bounds checks per entry.
	if d, ok := K.(mat.RawMatrixer); ok {
		raw := d.RawMatrix()
		for i := range n {
			copy(l.k[i*n:i*n+n], raw.Data[i*raw.Stride:i*raw.Stride+n])
		}
	} else {
		for i := range n {
			for j := range n {
				l.k[i*n+j] = K.At(i, j)
			}
		}
	}
	for t, v := range l.k {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("%w: Gram matrix entry [%d][%d] = %v", ErrInput, t/n, t%n, v)
		}
	}
	scale := 0.0
	for i := range n {
		if kii := l.k[i*n+i]; kii > scale {
			scale = kii
		}
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
	l.lowRank = rankAtMost(l.k, n, homotopyMaxActive, homotopyDegenerate*scale)
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
	// Newton steps on the active set: the factor of K_AA + μI, the step
	// and K_AA v_A, the iterate to return to.
	kaa, u, r, b, prev []float64
	cross              []crossing
	mu                 float64
	// The working-set solver's and the homotopy's buffers, made on first
	// use.
	*setBuffers
	*pathBuffers
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
// (all zeros for a cold start) and on return the code. Cold starts on a
// Gram matrix of numerical rank at most 16 follow the exact homotopy
// (LARS-Lasso) path from λ_max down to λ; otherwise, or when the
// homotopy stops early (degenerate atoms), dictionaries of more than 64
// atoms are solved over working sets (solveWorkingSet), smaller ones by
// coordinate descent and feature-sign steps on the whole dictionary.
// Either way the certificate is the whole problem's. It
// allocates nothing once ws has grown to the largest working and active
// sets it has seen. It returns an error wrapping ErrInput for malformed
// input (lengths, NaN), and the last iterate with an error wrapping
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
		if a := math.Abs(kx[j]); a > kmax {
			kmax = a
		}
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
	if l.lowRank && allZero(v) && l.homotopy(v, kx, ws) {
		l.gradient(ws.g, v)
		cert := Certificate{Lambda: l.opts.Lambda}
		kktTol := l.kktTol(kmax)
		l.certify(&cert, v, kx, kxx, ws.g, kktTol)
		if cert.KKT <= kktTol {
			cert.Converged = true
			return cert, nil
		}
	}
	if n > workingSetFrom {
		return l.solveWorkingSet(v, kx, kxx, ws, kmax)
	}
	return l.solvePath(v, kx, kxx, ws, kmax)
}

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
// into ws.kaa (row-major, stride |A|) and reports whether Potrf succeeded.
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
	_, ok := lapack64.Potrf(blas64.Symmetric{Uplo: blas.Upper, N: m, Stride: m, Data: kaa})
	return ok
}

// pivotsOK reports whether every pivot r_ii² of the Cholesky factor r
// (order m, stride ld) of K_AA + μI is above μ/2. In exact arithmetic each
// is at least the smallest eigenvalue, so at least μ for a positive
// semi-definite K: a smaller one means that downdates lost accuracy, or that
// K is indefinite.
func pivotsOK(r []float64, ld, m int, mu float64) bool {
	for i := range m {
		if p := r[i*ld+i]; !(p*p > 0.5*mu) {
			return false
		}
	}
	return true
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
	if !pivotsOK(ws.kaa, ld, m, ws.mu) {
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
	cholSolve(ws.kaa, ld, d)
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
			cholDelete(ws.kaa, ld, m, p)
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
			floats.AddScaled(b[i+1:], -y, row[i+1:])
		}
	}
	for i := m - 1; i >= 0; i-- { // R x = y
		row := r[i*ld : i*ld+m]
		b[i] = (b[i] - floats.Dot(row[i+1:], b[i+1:])) / row[i]
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
	// The coordinate update is written out in both loops, and plain
	// comparisons replace math.Max: a call per coordinate (or math.Max's
	// NaN and signed-zero handling) costs a tenth of the solver's time.
	n, k := l.n, l.k
	half, nonneg := 0.5*l.opts.Lambda, l.opts.NonNegative
	var change float64
	if idx == nil {
		for j := range n {
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
