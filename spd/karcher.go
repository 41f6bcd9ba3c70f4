package spd

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/covpipe/covpipe/internal/dense"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/mat"
)

// ErrNoConvergence is returned (wrapped) by iterative routines that reach
// their iteration cap before their tolerance; the last iterate is returned
// with it.
var ErrNoConvergence = errors.New("spd: no convergence")

// KarcherMean returns the affine-invariant (Karcher, Fréchet) mean of SPD
// matrices X_i with weights w_i (MeanOptions.Weights, normalised), the
// minimiser of
//
//	f(M) = Σ_i w_i d_g²(M, X_i),  d_g(M, X) = ‖log(M^{−1/2} X M^{−1/2})‖_F
//
// (Pennec, Fillard and Ayache, IJCV 2006; Moakher, SIAM J. Matrix Anal.
// Appl. 2005; the paper's Section 2.1). Its first-order condition is that
// the whitened gradient
//
//	J(M) = Σ_i w_i log(L⁻¹ X_i L⁻ᵀ),  M = LLᵀ,
//
// vanish (−2J is the Riemannian gradient of f at M in the frame of the
// Cholesky factor L; with M^{1/2} in place of L it is the same matrix up
// to an orthogonal similarity, so ‖J‖_F is the norm of the Riemannian
// gradient divided by 2, invariant to congruence X_i → AX_iAᵀ and free of
// the data's scale). ‖J(M)‖_F at the result is the certificate,
// MeanInfo.Gradient; Tol bounds it (default 1e-10). The mean of two
// matrices is the geodesic midpoint A # B = A^{1/2}(A^{−1/2}BA^{−1/2})^{1/2}
// A^{1/2} (Bhatia, Positive Definite Matrices, 2007, Ch. 4); for commuting
// matrices it is exp(Σ_i w_i log X_i).
//
// The iteration starts from A # H, the geometric mean of the arithmetic
// mean A = Σ_i w_i X_i and the harmonic mean H = (Σ_i w_i X_i⁻¹)⁻¹, which
// bound the Karcher mean in the Loewner order: for two matrices A # H is
// their mean (Bhatia 2007, Ch. 4), and on FERET's descriptors it is 6
// times nearer to the mean in gradient norm than A is, for the cost of one
// pass of Cholesky inverses. It takes the Riemannian gradient step
//
//	L ← L C,  CCᵀ = exp(t J(M))  (M ← M^{1/2} exp(tJ) M^{1/2}),
//
// t = 1 the standard fixed-point step (Newton's on commuting matrices),
// accelerated by Anderson mixing of the last five steps in the chart
// S = log(L₀⁻¹ M L₀⁻ᵀ) at the start L₀: on a linear problem the mixing is
// GMRES, which takes the Hessian's spread into account where the plain
// step contracts only by max |1 − tλ|. A mixed iterate is kept only if
// it lowers ‖J‖_F (f is geodesically strictly convex, so ‖J‖_F falls
// along the gradient for a short enough step and vanishes only at the
// mean); otherwise the history restarts with the plain step, whose t is
// halved until it lowers ‖J‖_F. On FERET's 600 face descriptors (d = 43)
// the plain step from A takes 18 iterations to 1e-10, the mixed one from
// A # H 8 (docs/benchmarks.md).
//
// Where float64 resolves no further decrease, the iteration stops with
// MeanInfo.AtLimit: a halved step fails while its expected decrease,
// t‖J‖_F, is below the rounding error of ‖J‖_F, estimated as
// ε Σ_i w_i κ(L⁻¹X_iL⁻ᵀ) (κ the condition number of the whitened
// matrices, whose small eigenvalues the eigensolver resolves only to
// ε λ_max). The whitened matrices are formed through Cholesky factors,
// L⁻¹X_iL⁻ᵀ = ZZᵀ with Z = L⁻¹R_i and X_i = R_iR_iᵀ, not through
// M^{−1/2}, and diagonalised by dense.SymEigen on Workers goroutines, the
// sum taken in fixed chunks (MeanOptions.Workers). MeanInfo.Evaluations
// counts the passes of whitened logarithms and the pass of inverses.
//
// pyRiemann's mean_riemann minimises the same f with the same update,
// but from the arithmetic mean, with a step ν that it shrinks by a
// factor 0.95 after each iteration that lowered ν‖J‖ and halves
// otherwise, without acceleration; it stops when ‖J‖_F <= tol (10e-9,
// i.e. 1e-8) or ν <= tol, after 50 iterations at most, and returns the
// iterate after the last update.
//
// It returns an error naming the offending matrix for bad input (see
// MeanOptions for the weights), ErrNotSPD when a whitened matrix has a
// computed eigenvalue that is not positive (beyond float64's resolution),
// the last iterate with an error wrapping ErrNoConvergence when MaxIter
// (default 100) is reached, and an error wrapping ctx.Err() once ctx is
// cancelled.
func KarcherMean(ctx context.Context, xs []*mat.SymDense, opts *MeanOptions) (*mat.SymDense, MeanInfo, error) {
	in, err := newMeanInput(ctx, "Karcher mean", xs, opts, 100)
	if err != nil {
		return nil, MeanInfo{}, err
	}
	k, err := newKarcher(ctx, in)
	if err != nil {
		return nil, MeanInfo{}, fmt.Errorf("Karcher mean: %w", err)
	}
	m, info, err := k.run(ctx)
	if err != nil {
		err = fmt.Errorf("Karcher mean: %w", err)
	}
	return m, info, err
}

// minKarcherStep is the shortest step the iteration tries: 2⁻⁴⁰.
const minKarcherStep = 0x1p-40

// eps is float64's machine epsilon, 2⁻⁵².
const eps = 0x1p-52

// karcher is the state of a Karcher mean iteration.
type karcher struct {
	wh   *whitened
	d    int
	o    MeanOptions
	info MeanInfo
	e    *eig // for the d×d functions of the steps and the chart
	acc  []float64
	linv []float64 // L⁻¹ beyond dense.PlainMaxD
	// The chart S = log(W Wᵀ), W = L₀⁻¹L, at L₀ = lb0 (lb0inv = L₀⁻¹).
	lb0, lb0inv   []float64
	t1, t2        []float64 // d×d scratch
	and           *anderson
	cur, pl, cand *karcherPoint
}

// karcherPoint is an iterate: its Cholesky factor L (full row-major,
// zeros above the diagonal), chart coordinates x, whitened gradient j
// (full), ‖J‖_F, the cost f and the rounding estimate eta of ‖J‖_F.
type karcherPoint struct {
	l, x, j   []float64
	g, f, eta float64
}

func newKarcher(ctx context.Context, in *meanInput) (*karcher, error) {
	d := in.d
	dd := d * d
	wh, err := newWhitened(ctx, in)
	if err != nil {
		return nil, err
	}
	k := &karcher{wh: wh, d: d, o: in.o, e: newEig(d), acc: make([]float64, dd), lb0: make([]float64, dd), lb0inv: make([]float64, dd),
		t1: make([]float64, dd), t2: make([]float64, dd), and: newAnderson(dd)}
	if d > dense.PlainMaxD {
		k.linv = make([]float64, dd)
	}
	newPoint := func() *karcherPoint {
		return &karcherPoint{l: make([]float64, dd), x: make([]float64, dd), j: make([]float64, dd)}
	}
	k.cur, k.pl, k.cand = newPoint(), newPoint(), newPoint()
	// The start: the geometric mean A # H of the arithmetic mean A and
	// the harmonic mean H, A # H = L_A (L_A⁻¹ H L_A⁻ᵀ)^{1/2} L_Aᵀ for the
	// Cholesky factor A = L_A L_Aᵀ; its factor L₀ and the chart's origin.
	if err := in.arithmetic(ctx, k.t1); err != nil {
		return nil, err
	}
	la := make([]float64, dd)
	if !dense.CholLowerTo(la, k.t1, d) {
		return nil, fmt.Errorf("the arithmetic mean: %w: %s", ErrNotSPD, notSPDEnough(d))
	}
	if err := in.inverseSum(ctx, k.t2); err != nil {
		return nil, err
	}
	k.info.Evaluations++
	if !invertUpper(k.t2, d) {
		return nil, fmt.Errorf("the harmonic mean: %w: Σ_i w_i X_i⁻¹ is not SPD enough", ErrNotSPD)
	}
	mirrorUpper(k.t2, d)
	triCongruence(k.t2, la, d, blas.Lower, false, true)
	if err := k.e.funcOf(k.t1, k.t2, fnSqrt); err != nil {
		return nil, fmt.Errorf("the start: %w", err)
	}
	triCongruence(k.t1, la, d, blas.Lower, false, false)
	if !dense.CholLowerTo(k.cur.l, k.t1, d) {
		return nil, fmt.Errorf("the start: %w: %s", ErrNotSPD, notSPDEnough(d))
	}
	copy(k.lb0, k.cur.l)
	lowerInverse(k.lb0inv, k.lb0, d)
	return k, nil
}

// run iterates from k.cur; see KarcherMean.
func (k *karcher) run(ctx context.Context) (*mat.SymDense, MeanInfo, error) {
	tol := k.o.Tol
	if err := k.eval(ctx, k.cur); err != nil {
		return nil, k.info, err
	}
	t := 1.0
	for {
		cur := k.cur
		k.info.Gradient = cur.g
		if cur.g < tol {
			k.info.Converged = true
			return k.mean(), k.info, nil
		}
		if k.info.Iterations == k.o.MaxIter {
			return k.mean(), k.info, fmt.Errorf("%w after %d iterations (gradient norm %.3g, tolerance %.3g)", ErrNoConvergence, k.o.MaxIter, cur.g, tol)
		}
		if err := ctx.Err(); err != nil {
			return nil, k.info, err
		}
		if err := k.plain(k.pl, cur, t); err != nil {
			return nil, k.info, err
		}
		if k.and.step(k.cand.x, cur.x, k.pl.x, k.t1) {
			if err := k.fromChart(k.cand); err != nil {
				return nil, k.info, err
			}
			if err := k.eval(ctx, k.cand); err != nil {
				return nil, k.info, err
			}
			if k.cand.g < cur.g {
				k.cur, k.cand = k.cand, cur
				k.info.Iterations++
				continue
			}
			k.and.reset()
			k.and.push(cur.x, k.t1)
		}
		// The plain step, halved until it lowers ‖J‖_F.
		for {
			if err := k.eval(ctx, k.pl); err != nil {
				return nil, k.info, err
			}
			if k.pl.g < cur.g {
				k.cur, k.pl = k.pl, cur
				k.info.Iterations++
				break
			}
			if t*cur.g <= cur.eta || t < minKarcherStep {
				k.info.Converged, k.info.AtLimit = true, true
				return k.mean(), k.info, nil
			}
			t /= 2
			k.and.reset()
			if err := k.plain(k.pl, cur, t); err != nil {
				return nil, k.info, err
			}
		}
	}
}

// eval computes p's gradient J, its norm, the cost and the rounding
// estimate, over all matrices.
func (k *karcher) eval(ctx context.Context, p *karcherPoint) error {
	wh := k.wh
	if k.linv != nil {
		lowerInverse(k.linv, p.l, k.d)
	}
	err := wh.sum.run(ctx, wh.workers, func(w, i int, acc []float64, s *[2]float64) error {
		wi := wh.weights[i]
		if wi == 0 {
			return nil
		}
		b := wh.buf(w)
		if err := wh.decompose(b, i, p.l, k.linv); err != nil {
			return fmt.Errorf("matrix %d: %w", i, err)
		}
		e := b.e
		var sq float64
		for j := range e.vals {
			v, ok := e.logAt(j)
			if !ok {
				return fmt.Errorf("matrix %d: %w: its whitened form L⁻¹XL⁻ᵀ has a computed eigenvalue %g <= 0 (beyond float64's resolution)", i, ErrNotSPD, e.val(j))
			}
			e.fv[j] = v
			sq += v * v
		}
		s[0] += wi * sq
		s[1] += wi * e.cond()
		e.addFunc(acc, wi)
		return nil
	})
	k.info.Evaluations++
	if err != nil {
		return err
	}
	tot := wh.sum.total(k.acc)
	wh.unreverse(p.j, k.acc, wh.flipped())
	p.f, p.eta = tot[0], eps*tot[1]
	p.g = math.Sqrt(dense.Dot(p.j, p.j))
	if math.IsNaN(p.g) || math.IsInf(p.g, 0) {
		return fmt.Errorf("%w: gradient norm %v", ErrNotFinite, p.g)
	}
	return nil
}

// plain makes q the plain step from p, L_q = L_p C with CCᵀ = exp(tJ),
// with its chart coordinates.
func (k *karcher) plain(q, p *karcherPoint, t float64) error {
	for i, v := range p.j {
		k.t1[i] = t * v
	}
	if err := k.e.symFuncTo(k.t2, k.t1, false); err != nil {
		return fmt.Errorf("step: %w", err)
	}
	if !dense.CholLowerTo(k.t1, k.t2, k.d) {
		return fmt.Errorf("step: %w: exp(tJ) is not SPD enough", ErrNotSPD)
	}
	lowerMul(q.l, p.l, k.t1, k.d)
	return k.toChart(q)
}

// toChart sets p.x = log(W Wᵀ), W = L₀⁻¹ L_p.
func (k *karcher) toChart(p *karcherPoint) error {
	d := k.d
	lowerMul(k.t1, k.lb0inv, p.l, d)
	for a := range d {
		for c := a; c < d; c++ {
			ra, rc := k.t1[a*d:a*d+a+1], k.t1[c*d:c*d+a+1]
			var s float64
			for i, v := range ra {
				s += v * rc[i]
			}
			k.t2[a*d+c] = s
		}
	}
	if err := k.e.symFuncTo(p.x, k.t2, true); err != nil {
		return fmt.Errorf("chart: %w", err)
	}
	return nil
}

// fromChart sets L_p = L₀ C, CCᵀ = exp(p.x).
func (k *karcher) fromChart(p *karcherPoint) error {
	d := k.d
	if err := k.e.symFuncTo(k.t2, p.x, false); err != nil {
		return fmt.Errorf("chart: %w", err)
	}
	if !dense.CholLowerTo(k.t1, k.t2, d) {
		return fmt.Errorf("chart: %w: exp(S) is not SPD enough", ErrNotSPD)
	}
	lowerMul(p.l, k.lb0, k.t1, d)
	return nil
}

// mean returns M = LLᵀ of the current iterate.
func (k *karcher) mean() *mat.SymDense {
	d := k.d
	l := k.cur.l
	m := mat.NewSymDense(d, nil)
	for a := range d {
		for c := a; c < d; c++ {
			ra, rc := l[a*d:a*d+a+1], l[c*d:c*d+a+1]
			var s float64
			for i, v := range ra {
				s += v * rc[i]
			}
			m.SetSym(a, c, s)
		}
	}
	return m
}

// lowerMul writes the product AB of the lower triangular a and b
// (row-major d×d, zeros above the diagonal) into dst, which must not be
// either.
func lowerMul(dst, a, b []float64, d int) {
	clear(dst[:d*d])
	for i := range d {
		row := dst[i*d : i*d+i+1]
		for k, aik := range a[i*d : i*d+i+1] {
			if aik == 0 {
				continue
			}
			bk := b[k*d : k*d+k+1]
			for j, v := range bk {
				row[j] += aik * v
			}
		}
	}
}
