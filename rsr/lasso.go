package rsr

import (
	"context"
	"errors"
	"fmt"
	"math"
	"reflect"

	"github.com/covpipe/covpipe/internal/dense"
	"github.com/covpipe/covpipe/internal/memlimit"
	"github.com/covpipe/covpipe/internal/pool"
	"gonum.org/v1/gonum/mat"
)

// Sentinel errors, matched with errors.Is.
var (
	// ErrInput: malformed input (sizes, NaN, negative λ, empty classes).
	ErrInput = errors.New("rsr: invalid input")
	// ErrNoConvergence: the sweep cap was reached before the tolerance.
	ErrNoConvergence = errors.New("rsr: no convergence")
	// ErrMemory: a size (atoms, iterations, a Gram matrix's) whose
	// estimated memory exceeds 4 GiB, refused before it is allocated; the
	// error also wraps ErrInput. It is describe.ErrMemory.
	ErrMemory = memlimit.ErrMemory
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
	// Workers bounds the goroutines that code many queries at once
	// (SolveBatch, and through it Encode, Dictionary.Transform and
	// Classifier.PredictBatch); 0 (or less) means GOMAXPROCS. The codes
	// do not depend on it.
	Workers int
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
	all  []int     // 0, ..., n−1: the coordinates of a full sweep
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
// options, and also ErrMemory for a K whose copy would take more than 4
// GiB (more than 23,170 atoms), before copying it.
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
	if err := checkSize("K", fmt.Sprintf("a %d×%d Gram matrix is copied", n, n), 8*float64(n)*float64(n)); err != nil {
		return nil, err
	}
	l := &Lasso{n: n, k: make([]float64, n*n), all: make([]int, n), opts: opts}
	for j := range l.all {
		l.all[j] = j
	}
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
	l.lowRank = dense.RankAtMost(l.k, n, homotopyMaxActive, homotopyDegenerate*scale)
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

// SolveBatch solves the kernel Lasso for Q queries in parallel, on
// LassoOptions.Workers goroutines: row q of Kx (Q×N) is 𝒦(X_q, 𝔻) and
// kxx[q] = k(X_q, X_q). Row q of the returned Q×N matrix is the code of
// query q, cold-started. Results do not depend on the worker count. The
// error names the first failing query; once ctx is cancelled SolveBatch
// starts no more queries and returns an error wrapping ctx.Err() and no
// codes.
func (l *Lasso) SolveBatch(ctx context.Context, Kx mat.Matrix, kxx []float64) (*mat.Dense, []Certificate, error) {
	q, err := l.checkBatch(Kx, kxx)
	if err != nil {
		return nil, nil, err
	}
	codes := mat.NewDense(q, l.n, nil)
	certs := make([]Certificate, q)
	workers := l.opts.Workers
	wss := make([]*LassoWorkspace, pool.Workers(workers))
	rows := make([][]float64, len(wss))
	err = pool.ForCtx(ctx, q, workers, func(w, i int) error {
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
