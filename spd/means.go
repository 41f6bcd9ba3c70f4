package spd

import (
	"context"
	"fmt"
	"math"

	"github.com/covpipe/covpipe/internal/dense"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// LogEuclideanMean returns the log-Euclidean mean of SPD matrices X_i with
// weights w_i (MeanOptions.Weights, normalised), in closed form,
//
//	M = exp(Σ_i w_i log X_i)
//
// (Arsigny, Fillard, Pennec and Ayache, "Geometric means in a novel vector
// space structure on symmetric positive-definite matrices", SIAM J.
// Matrix Anal. Appl. 2007, Eqn. 3.6): the minimiser of
// Σ_i w_i d_LE²(M, X_i), d_LE(M, X) = ‖log M − log X‖_F, the Euclidean
// mean of the logarithms mapped back. It equals the Karcher mean when the
// X_i commute, and it is invariant to orthogonal similarity and scaling
// (log(cQXQᵀ) = Q log X Qᵀ + log c·I) but not to congruence. The
// logarithms are taken on Workers goroutines and summed in fixed chunks.
// Its certificate, MeanInfo.Gradient, is ‖Σ_i w_i log X_i − log M‖_F, the
// gradient of the cost in the log domain recomputed from M (round-off
// only); Tol and MaxIter are not used. pyRiemann's mean_logeuclid is the
// same formula.
//
// It returns an error naming the offending matrix for bad input (see
// MeanOptions for the weights), ErrNotFinite when the exponential
// overflows, and an error wrapping ctx.Err() once ctx is cancelled.
func LogEuclideanMean(ctx context.Context, xs []*mat.SymDense, opts *MeanOptions) (*mat.SymDense, MeanInfo, error) {
	const name = "log-Euclidean mean"
	in, err := newMeanInput(ctx, name, xs, opts, 1)
	if err != nil {
		return nil, MeanInfo{}, err
	}
	d := in.d
	wh := newUnfactored(in)
	err = wh.sum.run(ctx, in.o.Workers, func(w, i int, acc []float64, _ *[2]float64) error {
		wi := wh.weights[i]
		if wi == 0 {
			return nil
		}
		b := wh.buf(w)
		if err := wh.decompose(b, i, nil, nil); err != nil {
			return fmt.Errorf("matrix %d: %w", i, err)
		}
		for j := range b.e.vals {
			v, ok := b.e.logAt(j)
			if !ok {
				return fmt.Errorf("matrix %d: %w: computed eigenvalue %g <= 0", i, ErrNotSPD, b.e.val(j))
			}
			b.e.fv[j] = v
		}
		b.e.addFunc(acc, wi)
		return nil
	})
	info := MeanInfo{Evaluations: 1}
	if err != nil {
		return nil, info, fmt.Errorf("%s: %w", name, err)
	}
	dd := d * d
	j, m, back := make([]float64, dd), make([]float64, dd), make([]float64, dd)
	wh.sum.total(back)
	wh.unreverse(j, back, false)
	e := newEig(d)
	if err := e.symFuncTo(m, j, false); err != nil {
		return nil, info, fmt.Errorf("%s: exp: %w", name, err)
	}
	if err := e.symFuncTo(back, m, true); err != nil {
		return nil, info, fmt.Errorf("%s: log of the mean: %w", name, err)
	}
	var g float64
	for i, v := range back {
		g += (j[i] - v) * (j[i] - v)
	}
	info.Gradient, info.Converged = math.Sqrt(g), true
	return symFrom(m, d), info, nil
}

// ArithmeticMean returns the arithmetic (Euclidean) mean of SPD matrices
// X_i with weights w_i (MeanOptions.Weights, normalised),
//
//	M = Σ_i w_i X_i,
//
// the minimiser of Σ_i w_i ‖M − X_i‖²_F, SPD as a convex combination of
// SPD matrices. It is equivariant to congruence, A M Aᵀ for the A X_i Aᵀ,
// and it bounds the Karcher mean from above in the Loewner order
// (Bhatia, Positive Definite Matrices, 2007, Ch. 4: the harmonic mean
// ≤ the Karcher mean ≤ the arithmetic mean). Its certificate,
// MeanInfo.Residual, is ‖L⁻¹(Σ_i w_i X_i)L⁻ᵀ − I‖_F for the Cholesky
// factor M = LLᵀ, the whitened fixed-point residual of M = Σ_i w_i X_i
// (round-off only); Tol and MaxIter are not used. pyRiemann's mean_euclid
// is the same formula.
//
// It returns an error naming the offending matrix for bad input (see
// MeanOptions for the weights) and an error wrapping ctx.Err() once ctx is
// cancelled.
func ArithmeticMean(ctx context.Context, xs []*mat.SymDense, opts *MeanOptions) (*mat.SymDense, MeanInfo, error) {
	const name = "arithmetic mean"
	in, err := newMeanInput(ctx, name, xs, opts, 1)
	if err != nil {
		return nil, MeanInfo{}, err
	}
	d := in.d
	info := MeanInfo{Evaluations: 1}
	m := make([]float64, d*d)
	if err := in.arithmetic(ctx, m); err != nil {
		return nil, info, fmt.Errorf("%s: %w", name, err)
	}
	l := make([]float64, d*d)
	if !dense.CholLowerTo(l, m, d) {
		return nil, info, fmt.Errorf("%s: %w: %s", name, ErrNotSPD, notSPDEnough(d))
	}
	y := make([]float64, d*d)
	copy(y, m)
	triCongruence(y, l, d, blas.Lower, false, true)
	info.Residual, info.Converged = normMinusI(y, d), true
	return symFrom(m, d), info, nil
}

// HarmonicMean returns the harmonic mean of SPD matrices X_i with weights
// w_i (MeanOptions.Weights, normalised),
//
//	M = (Σ_i w_i X_i⁻¹)⁻¹,
//
// the inverse of the arithmetic mean of the inverses (Ando, "Concavity of
// certain maps on positive definite matrices", Linear Algebra Appl. 1979;
// Bhatia, Positive Definite Matrices, 2007, Ch. 4), which bounds the
// Karcher mean from below in the Loewner order. It is equivariant to
// congruence, A M Aᵀ for the A X_i Aᵀ, and the inverse of the arithmetic
// mean of the inverses. The inverses, by Cholesky factorisation, are
// taken on Workers goroutines and summed in fixed chunks. Its
// certificate, MeanInfo.Residual, is ‖Lᵀ(Σ_i w_i X_i⁻¹)L − I‖_F for the
// Cholesky factor M = LLᵀ, the whitened fixed-point residual of
// M⁻¹ = Σ_i w_i X_i⁻¹ (round-off only); Tol and MaxIter are not used.
// pyRiemann's mean_harmonic is the same formula, through linear solves
// with the identity.
//
// It returns an error naming the offending matrix for bad input (see
// MeanOptions for the weights), ErrNotSPD when a factorisation fails, and
// an error wrapping ctx.Err() once ctx is cancelled.
func HarmonicMean(ctx context.Context, xs []*mat.SymDense, opts *MeanOptions) (*mat.SymDense, MeanInfo, error) {
	const name = "harmonic mean"
	in, err := newMeanInput(ctx, name, xs, opts, 1)
	if err != nil {
		return nil, MeanInfo{}, err
	}
	d := in.d
	dd := d * d
	info := MeanInfo{Evaluations: 1}
	h := make([]float64, dd)
	if err := in.inverseSum(ctx, h); err != nil {
		return nil, info, fmt.Errorf("%s: %w", name, err)
	}
	m := make([]float64, dd)
	copy(m, h)
	if !invertUpper(m, d) {
		return nil, info, fmt.Errorf("%s: %w: Σ_i w_i X_i⁻¹ is not SPD enough", name, ErrNotSPD)
	}
	mirrorUpper(m, d)
	l := make([]float64, dd)
	if !dense.CholLowerTo(l, m, d) {
		return nil, info, fmt.Errorf("%s: %w: %s", name, ErrNotSPD, notSPDEnough(d))
	}
	triCongruence(h, l, d, blas.Lower, true, false)
	info.Residual, info.Converged = normMinusI(h, d), true
	return symFrom(m, d), info, nil
}

// WassersteinMean returns the Bures–Wasserstein barycentre of SPD
// matrices X_i with weights w_i (MeanOptions.Weights, normalised): the
// covariance of the Wasserstein-2 barycentre of the centred Gaussians
// N(0, X_i), the minimiser of
//
//	F(M) = Σ_i w_i W²(M, X_i),  W²(M, X) = tr M + tr X − 2 tr (M^{1/2} X M^{1/2})^{1/2}
//
// (Agueh and Carlier, SIAM J. Math. Anal. 2011; Bhatia, Jain and Lim,
// "On the Bures–Wasserstein distance between positive definite
// matrices", Expo. Math. 2019), the unique SPD solution of
// M = Σ_i w_i (M^{1/2} X_i M^{1/2})^{1/2}. It is computed by the
// fixed-point iteration of Álvarez-Esteban, del Barrio, Cuesta-Albertos
// and Matrán ("A fixed-point approach to barycenters in Wasserstein
// space", J. Math. Anal. Appl. 2016, Theorem 4.2), which converges from
// any SPD start and which we start from the arithmetic mean:
//
//	M ← T M T,  T = Σ_i w_i T_i,  T_i = M^{−1/2} (M^{1/2} X_i M^{1/2})^{1/2} M^{−1/2},
//
// T_i the optimal transport map from N(0, M) to N(0, X_i); it is the
// Riemannian gradient step of unit length in the Bures–Wasserstein
// geometry, whose gradient of F at M is 2(I − T). With the Cholesky
// factor M = LLᵀ, T = L⁻ᵀ S L⁻¹, S = Σ_i w_i (Lᵀ X_i L)^{1/2}, so that one
// square root of an SPD matrix per X_i and iteration suffices, taken on
// Workers goroutines and summed in fixed chunks, and the update is the
// Gram matrix TMT = BᵀB, B = S L⁻¹. It is accelerated by Anderson mixing
// (see wasserstein.run): 6 updates on FERET's 600 descriptors where the
// plain one takes 8. The iteration stops when
// the relative gradient
//
//	2‖(T − I) M^{1/2}‖_F / ‖M^{1/2}‖_F = 2‖L⁻ᵀ(S − LᵀL)‖_F / ‖L‖_F
//
// (MeanInfo.Gradient: the Bures–Wasserstein norm of the gradient divided
// by W(M, 0) = ‖M^{1/2}‖_F, free of the data's scale), which round-off
// leaves at about ε√κ(M), falls below Tol (default 1e-10), or stalls
// there (MeanInfo.AtLimit). MeanInfo.Residual is ‖T − I‖_F, zero exactly
// at the barycentre but computed through L⁻ᵀ and L⁻¹, whose round-off,
// about εκ(M), weighs the directions of M's small eigenvalues as much as
// the others (2e-8 on FERET). For
// commuting matrices the barycentre is (Σ_i w_i X_i^{1/2})², for two
// matrices A and B the midpoint of their Bures–Wasserstein geodesic,
// ¼(A + B + (AB)^{1/2} + (BA)^{1/2}); it is equivariant to orthogonal
// similarity and scaling, not to congruence.
//
// pyRiemann's mean_wasserstein takes the same update, written as the
// exponential map of the mean of the logarithmic maps, from the same
// start, and stops when the norm of that mean, ‖(T−I)M + M(T−I)‖_F,
// which has the units of the data, is <= tol (10e-9, i.e. 1e-8), after
// 50 iterations at most.
//
// It returns an error naming the offending matrix for bad input (see
// MeanOptions for the weights), ErrNotSPD when an iterate or a square
// root is not positive definite in floating point, the last iterate with
// an error wrapping ErrNoConvergence when MaxIter (default 100) is
// reached, and an error wrapping ctx.Err() between iterations once ctx is
// cancelled.
func WassersteinMean(ctx context.Context, xs []*mat.SymDense, opts *MeanOptions) (*mat.SymDense, MeanInfo, error) {
	const name = "Wasserstein mean"
	in, err := newMeanInput(ctx, name, xs, opts, 100)
	if err != nil {
		return nil, MeanInfo{}, err
	}
	w := newWasserstein(in)
	m, info, err := w.run(ctx)
	if err != nil {
		err = fmt.Errorf("%s: %w", name, err)
	}
	return m, info, err
}

// wassersteinStall is the number of updates in a row that do not lower
// the least gradient so far after which WassersteinMean stops at
// float64's limit: the plain update lowers the cost F at every step and
// the gradient with it, at a linear rate, so only round-off stalls it.
const wassersteinStall = 5

// wasserstein is the state of a Wasserstein mean iteration: the accepted
// iterate cur and a candidate, each M with its map T and residual.
type wasserstein struct {
	in        *meanInput
	wh        *whitened
	d         int
	info      MeanInfo
	cur, cand *wassersteinPoint
	tmp       []float64 // d×d scratch
	plain, r  []float64 // the plain update T M T of cur and T M T − M
	and       *anderson
}

// wassersteinPoint is an iterate M, full, with its Cholesky factor L,
// S = Σ_i w_i (Lᵀ X_i L)^{1/2} (full), the gradient certificate and the
// residual ‖T − I‖_F.
type wassersteinPoint struct {
	m, l, s   []float64
	grad, res float64
}

func newWasserstein(in *meanInput) *wasserstein {
	dd := in.d * in.d
	buf := make([]float64, 9*dd)
	next := func() []float64 {
		b := buf[:dd:dd]
		buf = buf[dd:]
		return b
	}
	return &wasserstein{in: in, wh: newUnfactored(in), d: in.d,
		cur: &wassersteinPoint{m: next(), l: next(), s: next()}, cand: &wassersteinPoint{m: next(), l: next(), s: next()},
		tmp: next(), plain: next(), r: next(), and: newAnderson(dd)}
}

// run iterates from the arithmetic mean; see WassersteinMean.
//
// The plain update M ← TMT converges linearly, so it is accelerated by
// Anderson mixing of the last updates, M and TMT − M, as the Stein
// mean's are: a mixed candidate is kept when it is
// SPD and lowers the gradient certificate, and is otherwise replaced by
// the plain update, which is always kept (it never raises the cost F),
// the history restarting. When wassersteinStall updates in a row do not
// lower the certificate, round-off bounds it and the iteration stops
// (MeanInfo.AtLimit).
func (w *wasserstein) run(ctx context.Context) (*mat.SymDense, MeanInfo, error) {
	d, o := w.d, w.in.o
	if err := w.in.arithmetic(ctx, w.cur.m); err != nil {
		return nil, w.info, err
	}
	if ok, err := w.eval(ctx, w.cur); err != nil {
		return nil, w.info, err
	} else if !ok {
		return nil, w.info, fmt.Errorf("%w: the arithmetic mean is not SPD enough", ErrNotSPD)
	}
	best, stalled := math.Inf(1), 0
	for {
		cur := w.cur
		w.info.Gradient, w.info.Residual = cur.grad, cur.res
		if cur.grad < o.Tol {
			w.info.Converged = true
			return symFrom(cur.m, d), w.info, nil
		}
		if cur.grad < best {
			best, stalled = cur.grad, 0
		} else if stalled++; stalled == wassersteinStall {
			w.info.Converged, w.info.AtLimit = true, true
			return symFrom(cur.m, d), w.info, nil
		}
		if w.info.Iterations == o.MaxIter {
			return symFrom(cur.m, d), w.info, fmt.Errorf("%w after %d iterations (gradient %.3g, tolerance %.3g)", ErrNoConvergence, o.MaxIter, cur.grad, o.Tol)
		}
		if err := ctx.Err(); err != nil {
			return nil, w.info, err
		}
		// The plain update T M T = BᵀB, B = S L⁻¹: a Gram matrix, SPD
		// however ill-conditioned L.
		copy(w.tmp, cur.s)
		blas64.Trsm(blas.Right, blas.NoTrans, 1, blas64.Triangular{Uplo: blas.Lower, Diag: blas.NonUnit, N: d, Stride: d, Data: cur.l},
			blas64.General{Rows: d, Cols: d, Stride: d, Data: w.tmp})
		blas64.Syrk(blas.Trans, 1, blas64.General{Rows: d, Cols: d, Stride: d, Data: w.tmp},
			0, blas64.Symmetric{Uplo: blas.Upper, N: d, Stride: d, Data: w.plain})
		mirrorUpper(w.plain, d)
		if w.and.step(w.cand.m, cur.m, w.plain, w.r) {
			ok, err := w.eval(ctx, w.cand)
			if err != nil {
				return nil, w.info, err
			}
			if ok && w.cand.grad < cur.grad {
				w.cur, w.cand = w.cand, cur
				w.info.Iterations++
				continue
			}
			w.and.reset()
			w.and.push(cur.m, w.r)
		}
		copy(w.cand.m, w.plain)
		ok, err := w.eval(ctx, w.cand)
		if err != nil {
			return nil, w.info, err
		}
		if !ok {
			return nil, w.info, fmt.Errorf("%w: iterate %d is not SPD enough", ErrNotSPD, w.info.Iterations+1)
		}
		w.cur, w.cand = w.cand, cur
		w.info.Iterations++
	}
}

// eval computes S = Σ_i w_i (Lᵀ X_i L)^{1/2} at p, for the Cholesky
// factor M = LLᵀ, over all matrices, and the certificates: the residual
// ‖T − I‖_F, T = L⁻ᵀ S L⁻¹, and the relative gradient
// 2‖(T − I)L‖_F / ‖L‖_F = 2‖L⁻ᵀ(S − LᵀL)‖_F / ‖L‖_F. It reports false,
// and no error, when M is not SPD enough.
func (w *wasserstein) eval(ctx context.Context, p *wassersteinPoint) (bool, error) {
	d, wh := w.d, w.wh
	if !dense.CholLowerTo(p.l, p.m, d) {
		return false, nil
	}
	err := wh.sum.run(ctx, w.in.o.Workers, func(wk, i int, acc []float64, _ *[2]float64) error {
		wi := wh.weights[i]
		if wi == 0 {
			return nil
		}
		e := wh.buf(wk).e
		loadFull(e.a, d, wh.xs[i])
		triCongruence(e.a, p.l, d, blas.Lower, true, false) // Lᵀ X L
		if err := e.decompose(0); err != nil {
			return fmt.Errorf("matrix %d: %w", i, err)
		}
		for j := range e.vals {
			v := e.val(j)
			if !(v > 0) {
				return fmt.Errorf("matrix %d: %w: Lᵀ X L has a computed eigenvalue %g <= 0", i, ErrNotSPD, v)
			}
			e.fv[j] = math.Sqrt(v)
		}
		e.addFunc(acc, wi)
		return nil
	})
	w.info.Evaluations++
	if err != nil {
		return false, err
	}
	wh.sum.total(w.tmp)
	wh.unreverse(p.s, w.tmp, false)
	lt := blas64.Triangular{Uplo: blas.Lower, Diag: blas.NonUnit, N: d, Stride: d, Data: p.l}
	// The gradient: S − LᵀL, then L⁻ᵀ from the left.
	copy(w.tmp, p.s)
	var ll float64
	for r := range d {
		for c := range d {
			var v float64 // (LᵀL)_rc = Σ_k L_kr L_kc, k >= max(r, c)
			for k := max(r, c); k < d; k++ {
				v += p.l[k*d+r] * p.l[k*d+c]
			}
			w.tmp[r*d+c] -= v
		}
		ll += dense.Dot(p.l[r*d:r*d+r+1], p.l[r*d:r*d+r+1])
	}
	blas64.Trsm(blas.Left, blas.Trans, 1, lt, blas64.General{Rows: d, Cols: d, Stride: d, Data: w.tmp})
	p.grad = 2 * math.Sqrt(dense.Dot(w.tmp, w.tmp)/ll)
	copy(w.tmp, p.s)
	triCongruence(w.tmp, p.l, d, blas.Lower, true, true) // T = L⁻ᵀ S L⁻¹
	p.res = normMinusI(w.tmp, d)
	if math.IsNaN(p.grad) || math.IsInf(p.grad, 0) || math.IsNaN(p.res) || math.IsInf(p.res, 0) {
		return false, fmt.Errorf("%w: gradient %v, residual %v", ErrNotFinite, p.grad, p.res)
	}
	return true, nil
}

// symFrom returns the upper triangle of the row-major d×d a as a SymDense.
func symFrom(a []float64, d int) *mat.SymDense {
	m := mat.NewSymDense(d, nil)
	for r := range d {
		for c := r; c < d; c++ {
			m.SetSym(r, c, a[r*d+c])
		}
	}
	return m
}
