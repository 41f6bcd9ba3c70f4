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
	// The norm is of the whitened gradient, free of the data's scale; where
	// float64 cannot bring it below Tol the iteration stops at the least
	// it can reach (KarcherInfo.AtLimit).
	Tol float64
	// MaxIter caps the number of iterations. Default 100.
	MaxIter int
	// Weights are optional non-negative weights, normalised to sum to 1;
	// nil means equal weights.
	Weights []float64
}

// KarcherInfo reports how a Karcher mean iteration ended.
type KarcherInfo struct {
	Iterations int     // updates performed
	GradNorm   float64 // final Riemannian gradient norm: the certificate
	Converged  bool    // GradNorm < Tol, or AtLimit
	// AtLimit says that the iteration stopped where float64 resolves no
	// further progress: neither the cost nor the gradient norm decreases
	// along the gradient at any step, and GradNorm is the least the
	// arithmetic reaches.
	AtLimit bool
	// Steps counts the updates whose step was shortened below 1 by the
	// line search (spread data, where the step of 1 overshoots).
	Steps int
}

// KarcherMean returns the Karcher (Fréchet) mean of SPD matrices under the
// AIRM, the minimiser of f(M) = Σ_i w_i d_g²(M, X_i) (Pennec et al. 2006),
// by Riemannian gradient descent started from the log-Euclidean mean
// exp(Σ_i w_i log X_i): with J = Σ_i w_i log(M^{−1/2} X_i M^{−1/2}), the
// whitened negative half-gradient,
//
//	M ← M^{1/2} exp(t J) M^{1/2},
//
// t = 1 the standard fixed-point step, shortened by halving until Armijo's
// condition f(M(t)) ≤ f(M) − 10⁻⁴·2t‖J‖²_F holds (the directional
// derivative of f along J is −2‖J‖²_F). The step of 1 is Newton's on flat
// data but overshoots on spread sets, where the curvature makes the
// Hessian of f larger than 2 (the fixed point then diverges from condition
// numbers of about 10²); the line search never lets f rise, and the first
// trial of each update is t = 1, so data the fixed point handles take the
// same iterates. Near the mean, where float64 no longer resolves the
// decrease of f, a step is accepted when it lowers ‖J‖_F instead, and
// the iteration stops, with the certificate reached (KarcherInfo.AtLimit),
// when neither decreases. It stops with KarcherInfo.Converged when ‖J‖_F
// < Tol. pyRiemann's mean_riemann takes the same update with a step that
// it shrinks by the size of the last update rather than by a descent test,
// and stops on ‖J‖_F or on the step.
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
	k := &karcher{w: NewWorkspace(d), xs: xs, weights: weights, tmp: mat.NewSymDense(d, nil)}
	acc := mat.NewSymDense(d, nil)
	if _, err := k.logSum(acc, nil); err != nil {
		return nil, info, fmt.Errorf("Karcher mean: %w", err)
	}
	m := mat.NewSymDense(d, nil)
	if err := k.w.ExpTo(m, acc); err != nil {
		return nil, info, fmt.Errorf("Karcher mean: %w", err)
	}
	cur, err := k.at(m)
	if err != nil {
		return nil, info, fmt.Errorf("Karcher mean: %w", err)
	}
	next := &karcherPoint{j: mat.NewSymDense(d, nil)}
	trial := &karcherPoint{j: mat.NewSymDense(d, nil)}
	last := 1.0 // the last step taken
	for {
		if err := ctx.Err(); err != nil {
			return nil, info, fmt.Errorf("Karcher mean: %w", err)
		}
		info.GradNorm = cur.g
		if cur.g < o.Tol {
			info.Converged = true
			return cur.m, info, nil
		}
		if info.Iterations == o.MaxIter {
			return cur.m, info, fmt.Errorf("Karcher mean: %w after %d iterations (gradient norm %.3g, tolerance %.3g)", ErrNoConvergence, o.MaxIter, cur.g, o.Tol)
		}
		t, ok, err := k.search(next, trial, cur, min(1, 2*last))
		if err != nil {
			return nil, info, fmt.Errorf("Karcher mean: %w", err)
		}
		if !ok {
			info.Converged, info.AtLimit = true, true
			return cur.m, info, nil
		}
		if t < 1 {
			info.Steps++
		}
		last = t
		cur, next = next, cur
		info.Iterations++
	}
}

// search makes next the iterate along cur's gradient that the line
// search accepts, starting from the step t (trial is a buffer), and
// returns its step, or false when no step is accepted. While float64
// resolves the decrease of the cost f, the step minimises the quadratic
// through f(0), f'(0) = −2‖J‖² and f(t) when that is not t within 10%,
// and is then halved until Armijo's condition holds; near the mean, where
// it does not, it is halved until ‖J‖ decreases.
func (k *karcher) search(next, trial, cur *karcherPoint, t float64) (float64, bool, error) {
	g2 := cur.g * cur.g
	if err := k.step(next, cur, t); err != nil {
		return 0, false, err
	}
	if 2*t*g2 > 64*eps*math.Abs(cur.f) {
		if c := (next.f - cur.f + 2*g2*t) / (t * t); c > 0 {
			if q := min(1, g2/c); q < 0.9*t || q > 1.1*t {
				if err := k.step(trial, cur, q); err != nil {
					return 0, false, err
				}
				if trial.f < next.f {
					*next, *trial = *trial, *next
					t = q
				}
			}
		}
		for next.f > cur.f-1e-4*2*t*g2 {
			if t /= 2; t < minKarcherStep || 2*t*g2 <= 64*eps*math.Abs(cur.f) {
				break
			}
			if err := k.step(next, cur, t); err != nil {
				return 0, false, err
			}
		}
		if next.f <= cur.f-1e-4*2*t*g2 {
			return t, true, nil
		}
	}
	// Near the mean the cost no longer tells steps apart: the gradient
	// norm does, down to the arithmetic's floor.
	for ; t >= minKarcherStep; t /= 2 {
		if err := k.step(next, cur, t); err != nil {
			return 0, false, err
		}
		if next.g < cur.g {
			return t, true, nil
		}
	}
	return 0, false, nil
}

// minKarcherStep is the shortest step the line search tries: 2⁻⁴⁰.
const minKarcherStep = 0x1p-40

// eps is float64's machine epsilon, 2⁻⁵².
const eps = 0x1p-52

// karcher is the state of a Karcher mean iteration: the matrices, their
// weights and a workspace.
type karcher struct {
	w       *Workspace
	xs      []*mat.SymDense
	weights []float64
	tmp     *mat.SymDense
}

// karcherPoint is an iterate M with M^{1/2}, its whitened half-gradient
// J, ‖J‖_F and the cost f(M).
type karcherPoint struct {
	m, s *mat.SymDense
	j    *mat.SymDense
	g, f float64
}

// logSum writes Σ_i w_i log(P X_i P) into acc (P = pre, or the identity
// for nil) and returns Σ_i w_i ‖log(P X_i P)‖²_F, the cost f at
// M = P^{−2}.
func (k *karcher) logSum(acc *mat.SymDense, pre mat.Symmetric) (float64, error) {
	acc.Zero()
	var f float64
	for i, x := range k.xs {
		var in mat.Symmetric = x
		if pre != nil {
			in = congruence(pre, x)
		}
		if err := k.w.apply(fmt.Sprintf("matrix %d", i), k.tmp, in, fnLog, 0); err != nil {
			return 0, err
		}
		n := frobenius(k.tmp)
		f += k.weights[i] * n * n
		k.tmp.ScaleSym(k.weights[i], k.tmp)
		acc.AddSym(acc, k.tmp)
	}
	return f, nil
}

// at returns the iterate m with its gradient and cost.
func (k *karcher) at(m *mat.SymDense) (*karcherPoint, error) {
	p := &karcherPoint{j: mat.NewSymDense(k.w.d, nil)}
	return p, k.set(p, m)
}

// set makes p the iterate m.
func (k *karcher) set(p *karcherPoint, m *mat.SymDense) error {
	s, si, err := sqrtPair(k.w, "mean", m)
	if err != nil {
		return err
	}
	f, err := k.logSum(p.j, si)
	if err != nil {
		return err
	}
	p.m, p.s, p.g, p.f = m, s, frobenius(p.j), f
	return nil
}

// step makes next the point M^{1/2} exp(t J) M^{1/2} from cur.
func (k *karcher) step(next, cur *karcherPoint, t float64) error {
	k.tmp.ScaleSym(t, cur.j)
	e := mat.NewSymDense(k.w.d, nil)
	if err := k.w.ExpTo(e, k.tmp); err != nil {
		return err
	}
	return k.set(next, congruence(cur.s, e))
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
