// Package tsc is tensor sparse coding (Sivalingam, Boley, Morellas and
// Papanikolopoulos, "Tensor sparse coding for region covariances", ECCV
// 2010): a query S is approximated by a nonnegative combination of SPD
// atoms A_i under the Burg (log-det) divergence, the paper's Riemannian
// baseline (Harandi et al. ECCV 2012, Tables 1 and 2, Fig. 4).
//
// With the atoms whitened by the query, Â_i = W A_i Wᵀ for any W with
// WᵀW = S⁻¹, the query becomes I and the code x solves the MAXDET problem
//
//	minimise  f(x) = Σ_i x_i (tr Â_i + λ) − log det M(x)
//	subject to x ≥ 0,  M(x) ⪯ I,      M(x) = Σ_i x_i Â_i,
//
// which is D_Burg(M(x), I) + λ Σ_i x_i + d. Every quantity in it (traces,
// determinants, the order ⪯ I) is invariant under W → QW with Q
// orthogonal, so the Cholesky factor S = LLᵀ, W = L⁻¹, gives the same
// problem as the S^{-1/2} of the paper, at a fraction of the cost.
//
// A Coder, made by NewCoder over the atoms, is a solver: Coder.Solve (and
// SolveTo, into a caller's buffers) solves it for one query by a barrier
// method: Newton's method with backtracking on
// t·f(x) − Σ log x_i − log det(I − M(x)), t increased geometrically
// (μ = 1/t decreased), and returns with the code a Certificate holding a
// dual feasible point's duality gap, a bound on f(x) − f(x*). With more
// than d(d+1) atoms it runs the barrier method on the Lagrange dual
// instead, whose d(d+1) unknowns do not grow with the number of atoms
// (Options.Solver). One query of a large dictionary takes many Newton
// steps, so Solve and SolveTo take a context, which they look at between
// steps.
package tsc

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/covpipe/covpipe/internal/dense"
	"github.com/covpipe/covpipe/internal/enum"
	"github.com/covpipe/covpipe/spd"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"
	"gonum.org/v1/gonum/mat"
)

// Options configure a Coder. The zero value, apart from Lambda, takes the
// defaults.
type Options struct {
	// Lambda is the sparsity weight λ >= 0.
	Lambda float64
	// Tol is the relative duality gap at which Solve stops:
	// Gap <= Tol·(1 + |Objective|). Default 1e-8.
	Tol float64
	// Factor divides the barrier parameter μ after each centring.
	// Default 20.
	Factor float64
	// MaxIter caps the Newton steps of one barrier solve. Default 500.
	MaxIter int
	// WorkingSet is the number of atoms the first barrier solve of a
	// query uses when the dictionary has more than twice as many and no
	// more than d(d+1) (see SolveTo); 0 means 32, a negative value always
	// uses every atom.
	WorkingSet int
	// Solver chooses the barrier method; the zero value, AutoSolver,
	// chooses by the sizes (see SolveTo).
	Solver Solver
}

// Solver names a barrier method of Coder.SolveTo.
type Solver int

const (
	// AutoSolver is DualBarrier when N > d(d+1) and PrimalBarrier
	// otherwise (see SolveTo).
	AutoSolver Solver = iota
	// PrimalBarrier is the barrier method on the code x: Newton systems
	// of N×N, or of the working set's size (see SolveTo).
	PrimalBarrier
	// DualBarrier is the barrier method on the Lagrange dual, whose
	// Newton systems are 2m×2m, m = d(d+1)/2, whatever N (see SolveTo).
	DualBarrier
)

var solverNames = enum.Names[Solver]{AutoSolver: "auto", PrimalBarrier: "primal", DualBarrier: "dual"}

func (s Solver) String() string { return solverNames.String(s) }

// Certificate reports how good a code is.
type Certificate struct {
	// Objective is f(x) at the returned code.
	Objective float64
	// Dual is the dual objective d + log det Y − tr Z at a dual feasible
	// point: built from x by PrimalBarrier, the last iterate of
	// DualBarrier (see Coder.SolveTo); Dual <= f(x*) <= Objective.
	Dual float64
	// Gap is Objective − Dual, a bound on the suboptimality f(x) − f(x*).
	Gap float64
	// Mu is the final barrier parameter μ = 1/t.
	Mu float64
	// Bound is (N + d)·μ, the duality gap of the exact barrier minimiser
	// for μ (the barrier's degree N + d times μ).
	Bound float64
	// Iterations counts Newton steps, over all barrier solves.
	Iterations int
	// Atoms is the number of atoms of the last barrier solve: every atom,
	// or the final working set (SolveTo).
	Atoms int
	// Converged reports Gap <= Tol·(1 + |Objective|) within MaxIter steps.
	Converged bool
	// Solver is the method that produced the code: PrimalBarrier or
	// DualBarrier.
	Solver Solver
}

// Coder codes queries against a fixed dictionary of SPD atoms. A Coder is
// safe for concurrent use; each goroutine needs its own Workspace.
type Coder struct {
	d, n  int
	atoms []float64 // n row-major d×d blocks
	// logdets are log det A_i, which order the atoms for working sets:
	// D_Burg(Â_i, I) = tr Â_i − log det A_i + log det S − d.
	logdets []float64
	opt     Options
}

// NewCoder returns a coder over the atoms of set. It returns an error when
// an option is invalid.
func NewCoder(atoms *spd.Set, o Options) (*Coder, error) {
	if atoms == nil || atoms.Len() == 0 {
		return nil, errors.New("tsc: no atoms")
	}
	if err := CheckLambda(o.Lambda); err != nil {
		return nil, err
	}
	if o.Tol == 0 {
		o.Tol = 1e-8
	}
	if !(o.Tol > 0 && o.Tol < 1) {
		return nil, fmt.Errorf("tsc: tolerance = %v, want in (0, 1)", o.Tol)
	}
	if o.Factor == 0 {
		o.Factor = 20
	}
	if !(o.Factor > 1) || math.IsInf(o.Factor, 1) {
		return nil, fmt.Errorf("tsc: factor = %v, want finite and > 1", o.Factor)
	}
	if o.MaxIter == 0 {
		o.MaxIter = 500
	}
	if o.MaxIter < 0 {
		return nil, fmt.Errorf("tsc: max iterations = %d, want > 0", o.MaxIter)
	}
	if o.WorkingSet == 0 {
		o.WorkingSet = 32
	}
	if o.Solver < 0 || int(o.Solver) >= len(solverNames) {
		return nil, fmt.Errorf("tsc: solver = %v, want auto, primal or dual", o.Solver)
	}
	logdets := make([]float64, atoms.Len())
	for i := range logdets {
		logdets[i] = atoms.LogDet(i)
	}
	return &Coder{d: atoms.Dim(), n: atoms.Len(), atoms: atoms.Data(), logdets: logdets, opt: o}, nil
}

// Workspace holds the buffers of one Solve at a time. It is not safe for
// concurrent use.
type Workspace struct {
	d, n, m int
	ls      []float64 // Cholesky factor of the query
	b       []float64 // whitened atoms, n row-major d×d blocks
	bu      []float64 // their upper triangles packed, n×m
	cost    []float64 // c_i = tr Â_i + λ
	lm, lr  []float64 // Cholesky factors of M and R = I − M
	linv    []float64 // rows: the columns of L_R⁻¹
	mu, dmu []float64 // M and the step's ΔM, packed
	full    []float64 // d×d scratch
	tmp     []float64 // d×d scratch
	wm, wr  []float64 // L_M⁻¹ and L_R⁻¹, d×d
	u       []float64 // n×2m: scaled vec(P_i), vec(Q_i)
	us      []float64 // the same scaled by x (and √t)
	trP     []float64 // tr M⁻¹Â_i
	trQ     []float64 // tr R⁻¹Â_i
	g, y    []float64 // gradient; Newton system solution
	dx, xt  []float64 // step; trial point
	h       []float64 // Newton matrix: N×N, or 2m×2m when N > 2m
	tau     []float64 // Householder scales of the QR of Ũ (N > 2m)
	work    []float64 // LAPACK scratch
	v       []float64 // length 2m
	acc     []float64 // the classes' reconstructions, k×d×d

	// Working-set solves (SolveTo): the sub-problems' workspaces by size,
	// the atoms' order, the working set, its code, and d×d matrices of the
	// full problem's dual point.
	subs           map[int]*Workspace
	code           []float64 // a sub-problem's code, in its own workspace
	order, set     []int
	worst          []int
	in             []bool // membership of the working set
	score, sn      []float64
	yn, zn, rinv   []float64
	minv, dm, tmp2 []float64

	dual *dualBuffers // DualBarrier's buffers, made by its first solve
}

// NewWorkspace returns a workspace for c.
func (c *Coder) NewWorkspace() *Workspace { return newWorkspace(c.d, c.n) }

func newWorkspace(d, n int) *Workspace {
	m := d * (d + 1) / 2
	ws := &Workspace{
		d: d, n: n, m: m,
		ls: make([]float64, d*d), b: make([]float64, n*d*d), bu: make([]float64, n*m), cost: make([]float64, n),
		lm: make([]float64, d*d), lr: make([]float64, d*d), linv: make([]float64, d*d), mu: make([]float64, m), dmu: make([]float64, m),
		full: make([]float64, d*d), tmp: make([]float64, d*d), wm: make([]float64, d*d), wr: make([]float64, d*d),
		u: make([]float64, n*2*m), us: make([]float64, n*2*m),
		trP: make([]float64, n), trQ: make([]float64, n),
		g: make([]float64, n), y: make([]float64, n), dx: make([]float64, n), xt: make([]float64, n),
		v: make([]float64, 2*m),
	}
	if k := 2 * m; n > k {
		ws.h, ws.tau = make([]float64, k*k), make([]float64, k)
		u := blas64.General{Rows: n, Cols: k, Stride: k, Data: ws.us}
		var q [1]float64
		lapack64.Geqrf(u, ws.tau, q[:], -1)
		lw := max(int(q[0]), k)
		lapack64.Ormqr(blas.Left, blas.Trans, u, ws.tau, blas64.General{Rows: n, Cols: 1, Stride: 1, Data: ws.y}, q[:], -1)
		ws.work = make([]float64, max(lw, int(q[0])))
	} else {
		ws.h = make([]float64, n*n)
	}
	return ws
}

// Solve returns the tensor sparse code x of the query and its
// certificate; see SolveTo.
func (c *Coder) Solve(ctx context.Context, query mat.Symmetric) ([]float64, Certificate, error) {
	x := make([]float64, c.n)
	cert, err := c.SolveTo(ctx, x, query, c.NewWorkspace())
	return x, cert, err
}

// SolveTo writes the code of the query into x (length N) and returns its
// certificate. It returns an error when the query is not a finite SPD
// matrix of the atoms' size, and an error wrapping ctx.Err() once ctx is
// cancelled, which it looks at between Newton steps (x is then not a
// code); a code that misses the tolerance within MaxIter steps is
// returned with Converged false and no error.
//
// The barrier method minimises t·f(x) − Σ log x_i − log det R(x), R = I −
// M, from x_i = 1/(2 tr Σ_j Â_j), which makes M ⪯ I/2. Its Newton system,
// scaled by X = diag(x), is I + ŨŨᵀ with Ũ_i = x_i(√t vec P_i, vec Q_i),
// P_i = L_M⁻¹ Â_i L_M⁻ᵀ and Q_i = L_R⁻¹ Â_i L_R⁻ᵀ for the Cholesky factors
// of M and R (vec weighting off-diagonals by √2, so vec P·vec Q =
// tr PQ). After every step a dual feasible point is built: Y = M⁻¹,
// Z = s R⁻¹ with the least s >= 0 for which
// z_i = tr Â_i + λ − tr(Y Â_i) + tr(Z Â_i) >= 0, whose dual objective
// d + log det Y − tr Z bounds f(x*) from below, giving
// Gap = Σ x_i c_i − d + s tr R⁻¹.
//
// Forming the N×N Newton matrix costs O(N²m) per step, m = d(d+1)/2, for
// N <= 2m (above, solve's QR makes it O(Nm²)). There, when N is more than
// twice Options.WorkingSet, SolveTo generates columns: it solves the
// problem on the WorkingSet atoms nearest the query in the Burg
// divergence, checks the solution's dual point against every other atom
// (its slack z_i must be nonnegative), adds up to WorkingSet of the atoms
// that violate it, and solves again, until none does. The final dual
// point is then feasible for the whole problem, so the certificate is the
// whole problem's; the code is zero outside the final set. A solve then
// forms Newton matrices of the set's size, not of every atom's.
//
// That is Options.Solver PrimalBarrier. DualBarrier runs the barrier
// method on the Lagrange dual instead (derived in dual.go): maximise
// d + log det Y − tr Z over Y ≻ 0, Z ⪰ 0 with tr Â_i(Y − Z) <= c_i, two
// symmetric d×d unknowns whatever N, so that every Newton system is 2m×2m
// and a step costs O(N m²) for the atoms' Gram matrix plus O(m³) for its
// factorisation. The code is recovered from the dual's slacks s_i by
// complementary slackness, x_i = 1/(t s_i) on the central path, and the
// certificate is the duality gap between that code, checked feasible, and
// the dual iterate. If the dual method misses the tolerance within
// MaxIter steps, the primal method solves the query from the start (the
// certificate then says PrimalBarrier, and Iterations counts both).
// AutoSolver, the default, takes DualBarrier when N > 2m, where its
// Newton system is the smaller and the primal method's steps cost
// O(N m²) too (by QR), and PrimalBarrier otherwise, where the primal
// method's working sets keep its systems small. Against 100 to 600
// random atoms at d = 3 to 20 the dual method took 5 to 30 times less
// time than the primal one; at d = 17 against 256 atoms (N < 2m) three
// times more.
func (c *Coder) SolveTo(ctx context.Context, x []float64, query mat.Symmetric, ws *Workspace) (Certificate, error) {
	if len(x) != c.n {
		return Certificate{}, fmt.Errorf("tsc: code of length %d, want %d", len(x), c.n)
	}
	if err := c.whiten(query, ws); err != nil {
		return Certificate{}, err
	}
	for i := range c.n {
		ws.cost[i] += c.opt.Lambda
	}
	iters := 0
	if c.solver() == DualBarrier {
		cert, err := c.dualBarrier(ctx, x, ws)
		if err != nil || cert.Converged {
			return cert, err
		}
		iters = cert.Iterations
	}
	var cert Certificate
	var err error
	if k := c.opt.WorkingSet; k > 0 && c.n > 2*k && c.n <= 2*ws.m {
		cert, err = c.codeWorking(ctx, x, k, ws)
	} else {
		cert, err = c.barrier(ctx, x, ws, false)
		cert.Atoms = c.n
	}
	cert.Iterations += iters
	cert.Solver = PrimalBarrier
	return cert, err
}

// solver returns the method Options.Solver names, AutoSolver resolved.
func (c *Coder) solver() Solver {
	if s := c.opt.Solver; s != AutoSolver {
		return s
	}
	if c.n > c.d*(c.d+1) {
		return DualBarrier
	}
	return PrimalBarrier
}

// ClassResidualsTo writes into dst the class-wise Burg residuals of the
// code x of query (Sivalingam et al., Section 4): for class k, with
// R_k = Σ_{class[i]=k} x_i Â_i its part of the whitened reconstruction,
//
//	dst[k] = D_Burg(R_k, I) = tr R_k − log det R_k − d,
//
// which equals tr(S⁻¹X_k) − log det(S⁻¹X_k) − d for the unwhitened
// X_k = Σ x_i A_i. class[i] in [0, len(dst)) names atom i's class. A class
// whose part is singular (it has no atom, or all its coefficients are
// zero) gets +Inf: it explains nothing of the query. Codes solved on
// every atom are strictly positive, so every class that has atoms gets a
// finite residual, large for the classes the code dropped (of order
// −d·log x_i for their tiny coefficients); with a working set (SolveTo)
// the classes with no atom in the set get +Inf. It returns an error for a bad
// query or class index.
func (c *Coder) ClassResidualsTo(dst []float64, query mat.Symmetric, x []float64, class []int, ws *Workspace) error {
	d, dd := c.d, c.d*c.d
	if len(x) != c.n || len(class) != c.n {
		return fmt.Errorf("tsc: %d coefficients and %d classes for %d atoms", len(x), len(class), c.n)
	}
	if err := c.whiten(query, ws); err != nil {
		return err
	}
	if len(dst)*dd > cap(ws.acc) {
		ws.acc = make([]float64, len(dst)*dd)
	}
	acc := ws.acc[:len(dst)*dd]
	for i := range acc {
		acc[i] = 0
	}
	for i, k := range class {
		if k < 0 || k >= len(dst) {
			return fmt.Errorf("tsc: atom %d of class %d, want in [0, %d)", i, k, len(dst))
		}
		axpy(x[i], ws.b[i*dd:(i+1)*dd], acc[k*dd:(k+1)*dd])
	}
	for k := range dst {
		r := acc[k*dd : (k+1)*dd]
		tr := trace(r, d)
		if !dense.CholRows(r, d) {
			dst[k] = math.Inf(1)
			continue
		}
		dst[k] = tr - dense.LogDetRows(r, d) - float64(d)
	}
	return nil
}
