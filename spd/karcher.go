package spd

import (
	"context"
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// ErrNoConvergence is returned (wrapped) by iterative routines that reach
// their iteration cap before their tolerance; the last iterate is returned
// with it.
var ErrNoConvergence = errors.New("spd: no convergence")

// KarcherOptions configure KarcherMean. The zero value is usable.
type KarcherOptions struct {
	// Tol stops the iteration when the Riemannian gradient norm
	// ‖Σ_i w_i log(M^{−1/2} X_i M^{−1/2})‖_F falls below it. Default 1e-10.
	Tol float64
	// MaxIter caps the number of fixed-point iterations. Default 100.
	MaxIter int
	// Weights are optional non-negative weights, normalised to sum to 1;
	// nil means equal weights.
	Weights []float64
}

// KarcherInfo reports how a Karcher mean iteration ended.
type KarcherInfo struct {
	Iterations int     // fixed-point updates performed
	GradNorm   float64 // final Riemannian gradient norm
	Converged  bool    // GradNorm < Tol
}

// KarcherMean returns the Karcher (Fréchet) mean of SPD matrices under the
// AIRM, the minimiser of Σ_i w_i d_g²(M, X_i) (Pennec et al. 2006), by the
// standard fixed-point iteration started from the log-Euclidean mean
// exp(Σ_i w_i log X_i):
//
//	M ← M^{1/2} exp(Σ_i w_i log(M^{−1/2} X_i M^{−1/2})) M^{1/2}.
//
// The mean of two matrices is the geodesic midpoint γ(½) of Property 2. It
// returns an error naming the offending matrix for bad input, the last
// iterate with an error wrapping ErrNoConvergence when MaxIter is reached,
// and an error wrapping ctx.Err() between iterations once ctx is
// cancelled.
func KarcherMean(ctx context.Context, xs []*mat.SymDense, opts *KarcherOptions) (*mat.SymDense, KarcherInfo, error) {
	if err := checkCtx(ctx); err != nil {
		return nil, KarcherInfo{}, err
	}
	var o KarcherOptions
	if opts != nil {
		o = *opts
	}
	if o.Tol == 0 {
		o.Tol = 1e-10
	}
	if o.MaxIter == 0 {
		o.MaxIter = 100
	}
	var info KarcherInfo
	if !(o.Tol > 0) || math.IsInf(o.Tol, 0) || o.MaxIter < 0 {
		return nil, info, fmt.Errorf("%w: Karcher tolerance %v and iteration cap %d must be positive", ErrParameter, o.Tol, o.MaxIter)
	}
	if len(xs) == 0 {
		return nil, info, fmt.Errorf("Karcher mean: %w: no matrices", ErrEmpty)
	}
	weights, err := normalisedWeights(o.Weights, len(xs))
	if err != nil {
		return nil, info, err
	}
	d, _ := dims(xs[0])
	for i, x := range xs {
		if err := Validate(x); err != nil {
			return nil, info, fmt.Errorf("Karcher mean: matrix %d: %w", i, err)
		}
		if n, _ := x.Dims(); n != d {
			return nil, info, fmt.Errorf("Karcher mean: matrix %d: %w: %d×%d, matrix 0 is %d×%d", i, ErrDimension, n, n, d, d)
		}
	}
	w := NewWorkspace(d)
	acc := mat.NewSymDense(d, nil)
	tmp := mat.NewSymDense(d, nil)
	weightedLogSum := func(pre mat.Symmetric) error {
		acc.Zero()
		for i, x := range xs {
			var in mat.Symmetric = x
			if pre != nil {
				in = congruence(pre, x)
			}
			if err := w.apply(fmt.Sprintf("matrix %d", i), tmp, in, fnLog, 0); err != nil {
				return err
			}
			tmp.ScaleSym(weights[i], tmp)
			acc.AddSym(acc, tmp)
		}
		return nil
	}
	if err := weightedLogSum(nil); err != nil {
		return nil, info, fmt.Errorf("Karcher mean: %w", err)
	}
	m := mat.NewSymDense(d, nil)
	if err := w.ExpTo(m, acc); err != nil {
		return nil, info, fmt.Errorf("Karcher mean: %w", err)
	}
	for {
		if err := ctx.Err(); err != nil {
			return nil, info, fmt.Errorf("Karcher mean: %w", err)
		}
		s, si, err := sqrtPair(w, "mean", m)
		if err != nil {
			return nil, info, fmt.Errorf("Karcher mean: %w", err)
		}
		if err := weightedLogSum(si); err != nil {
			return nil, info, fmt.Errorf("Karcher mean: %w", err)
		}
		info.GradNorm = frobenius(acc)
		if info.GradNorm < o.Tol {
			info.Converged = true
			return m, info, nil
		}
		if info.Iterations == o.MaxIter {
			return m, info, fmt.Errorf("Karcher mean: %w after %d iterations (gradient norm %.3g, tolerance %.3g)", ErrNoConvergence, o.MaxIter, info.GradNorm, o.Tol)
		}
		if err := w.ExpTo(tmp, acc); err != nil {
			return nil, info, fmt.Errorf("Karcher mean: %w", err)
		}
		m = congruence(s, tmp)
		info.Iterations++
	}
}

func normalisedWeights(w []float64, n int) ([]float64, error) {
	out := make([]float64, n)
	if w == nil {
		for i := range out {
			out[i] = 1 / float64(n)
		}
		return out, nil
	}
	if len(w) != n {
		return nil, fmt.Errorf("%w: %d weights for %d matrices", ErrParameter, len(w), n)
	}
	var sum float64
	for i, v := range w {
		if !(v >= 0) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("%w: weight %d = %v must be finite and >= 0", ErrParameter, i, v)
		}
		sum += v
	}
	if !(sum > 0) {
		return nil, fmt.Errorf("%w: weights sum to %v", ErrParameter, sum)
	}
	for i, v := range w {
		out[i] = v / sum
	}
	return out, nil
}

// frobenius returns ‖x‖_F (gonum's matrix 2-norm is the Frobenius norm).
func frobenius(x mat.Symmetric) float64 {
	return mat.Norm(x, 2)
}
