package spd

import (
	"context"
	"fmt"
	"math"

	"github.com/covpipe/covpipe/internal/pool"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// MeanOptions configure the means of SPD matrices: KarcherMean,
// LogEuclideanMean, SteinMean, WassersteinMean, HarmonicMean and
// ArithmeticMean. The zero value is usable.
type MeanOptions struct {
	// Tol stops an iterative mean when its certificate (MeanInfo.Gradient
	// or MeanInfo.Residual, as the mean's documentation says) falls below
	// it. Default 1e-10. The closed forms ignore it.
	Tol float64
	// MaxIter caps an iterative mean's updates. Default 100 (KarcherMean,
	// WassersteinMean) or 200 (SteinMean). The closed forms ignore it.
	MaxIter int
	// Weights are optional non-negative weights w_i, one per matrix,
	// normalised to sum to 1; nil means equal weights 1/n. A matrix of
	// weight 0 is validated but takes no part in the mean.
	Weights []float64
	// Workers bounds the goroutines over the matrices; 0 means
	// GOMAXPROCS. The result does not depend on it: the matrices are
	// summed in fixed chunks of meanChunk, each in order, and the chunks'
	// sums in order.
	Workers int
}

// MeanInfo reports how a mean was computed and certifies it: each mean's
// documentation says which of Gradient and Residual it reports, what
// they measure, and which one Tol bounds.
type MeanInfo struct {
	// Iterations counts the updates of an iterative mean (0 for a closed
	// form).
	Iterations int
	// Evaluations counts the passes over all the matrices (each a matrix
	// function or factorisation per matrix), the measure of the work.
	Evaluations int
	// Gradient is the norm of the Riemannian gradient of the mean's cost
	// at the result, whitened so that it is free of the data's scale.
	Gradient float64
	// Residual is the fixed-point residual at the result.
	Residual float64
	// Converged reports that the certificate fell below Tol, or AtLimit.
	Converged bool
	// AtLimit says that an iteration stopped where float64 resolves no
	// further progress: a step that should lower the certificate by more
	// than its rounding error did not, and the certificate is the least
	// the arithmetic reaches (KarcherMean).
	AtLimit bool
}

// meanChunk is the number of matrices whose terms one goroutine sums in
// order before the chunks' sums are added, in order: the grain of the
// means' parallel sums, fixed so that their rounding does not depend on
// the number of workers.
const meanChunk = 8

// resolve fills in the defaults of o (maxIter for MaxIter) and checks
// Tol, MaxIter and Workers.
func (o *MeanOptions) resolve(maxIter int) (MeanOptions, error) {
	var r MeanOptions
	if o != nil {
		r = *o
	}
	if r.Tol == 0 {
		r.Tol = 1e-10
	}
	if r.MaxIter == 0 {
		r.MaxIter = maxIter
	}
	if !(r.Tol > 0) || math.IsInf(r.Tol, 0) || r.MaxIter < 0 {
		return r, fmt.Errorf("%w: tolerance %v and iteration cap %d must be positive", ErrParameter, r.Tol, r.MaxIter)
	}
	if r.Workers < 0 {
		return r, fmt.Errorf("%w: Workers %d must be >= 0", ErrParameter, r.Workers)
	}
	return r, nil
}

// meanInput holds validated inputs of a mean: the matrices, their size
// and their normalised weights.
type meanInput struct {
	xs      []*mat.SymDense
	d       int
	weights []float64
	o       MeanOptions
}

// newMeanInput validates the matrices (each SPD enough, all of one size)
// and the options of the mean called name, with maxIter the default cap.
func newMeanInput(ctx context.Context, name string, xs []*mat.SymDense, opts *MeanOptions, maxIter int) (*meanInput, error) {
	if err := checkCtx(ctx); err != nil {
		return nil, err
	}
	o, err := opts.resolve(maxIter)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(xs) == 0 {
		return nil, fmt.Errorf("%s: %w: no matrices", name, ErrEmpty)
	}
	weights, err := normalisedWeights(o.Weights, len(xs))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	d, _ := dims(xs[0])
	for i, x := range xs {
		if i%64 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
		}
		if err := Validate(x); err != nil {
			return nil, fmt.Errorf("%s: matrix %d: %w", name, i, err)
		}
		if n, _ := x.Dims(); n != d {
			return nil, fmt.Errorf("%s: matrix %d: %w: %d×%d, matrix 0 is %d×%d", name, i, ErrDimension, n, n, d, d)
		}
	}
	return &meanInput{xs: xs, d: d, weights: weights, o: o}, nil
}

// normalisedWeights returns w divided by its sum, or n equal weights for
// a nil w; an error wrapping ErrParameter for a length other than n, a
// weight that is negative, NaN or infinite, or weights that sum to 0.
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

// chunkSum sums, over n items, terms that add a d×d matrix (row-major)
// and two scalars, in chunks of meanChunk items: each chunk's terms are
// added in item order into the chunk's own accumulator, by one of the
// workers, and the chunks' accumulators in chunk order by total, so that
// the rounding is the same whatever the number of workers.
type chunkSum struct {
	n, dd int
	acc   [][]float64
	s     [][2]float64
}

func newChunkSum(n, dd int) *chunkSum {
	k := (n + meanChunk - 1) / meanChunk
	c := &chunkSum{n: n, dd: dd, acc: make([][]float64, k), s: make([][2]float64, k)}
	buf := make([]float64, k*dd)
	for i := range c.acc {
		c.acc[i] = buf[i*dd : (i+1)*dd : (i+1)*dd]
	}
	return c
}

// run calls term(worker, i, acc, s) for every item i, acc and s its
// chunk's accumulators, on workers goroutines (0: GOMAXPROCS); worker is
// in [0, pool.Workers(workers)). It returns the first error of a term by
// item, or one wrapping ctx.Err() once ctx is cancelled.
func (c *chunkSum) run(ctx context.Context, workers int, term func(worker, i int, acc []float64, s *[2]float64) error) error {
	return pool.ForCtx(ctx, len(c.acc), workers, func(w, k int) error {
		acc, s := c.acc[k], &c.s[k]
		clear(acc)
		*s = [2]float64{}
		for i := k * meanChunk; i < min(c.n, (k+1)*meanChunk); i++ {
			if err := term(w, i, acc, s); err != nil {
				return err
			}
		}
		return nil
	})
}

// total writes the sum of the chunks' matrices into dst and returns that
// of their scalars.
func (c *chunkSum) total(dst []float64) [2]float64 {
	clear(dst[:c.dd])
	var s [2]float64
	for k, acc := range c.acc {
		for i, v := range acc {
			dst[i] += v
		}
		s[0] += c.s[k][0]
		s[1] += c.s[k][1]
	}
	return s
}

// addUpper adds w times the upper triangle of the row-major d×d x to
// that of acc.
func addUpper(acc []float64, w float64, x []float64, d int) {
	for r := range d {
		row, a := x[r*d+r:r*d+d], acc[r*d+r:r*d+d]
		for c, v := range row {
			a[c] += w * v
		}
	}
}

// weightedSum writes Σ_i w_i t_i, full, into dst (d×d), term(w, i, acc,
// wi) adding w_i t_i (upper triangle) to acc on worker w for the matrices
// of non-zero weight, in chunks on in.o.Workers goroutines.
func (in *meanInput) weightedSum(ctx context.Context, dst []float64, term func(w, i int, acc []float64, wi float64) error) error {
	sum := newChunkSum(len(in.xs), in.d*in.d)
	err := sum.run(ctx, in.o.Workers, func(w, i int, acc []float64, _ *[2]float64) error {
		if wi := in.weights[i]; wi != 0 {
			return term(w, i, acc, wi)
		}
		return nil
	})
	if err != nil {
		return err
	}
	sum.total(dst)
	mirrorUpper(dst, in.d)
	return nil
}

// arithmetic writes Σ_i w_i X_i, full, into dst (d×d): ArithmeticMean,
// and the start of the iterative means.
func (in *meanInput) arithmetic(ctx context.Context, dst []float64) error {
	d := in.d
	return in.weightedSum(ctx, dst, func(_, i int, acc []float64, wi float64) error {
		raw := in.xs[i].RawSymmetric()
		for r := range d {
			row, a := raw.Data[r*raw.Stride+r:r*raw.Stride+d], acc[r*d+r:r*d+d]
			for c, v := range row {
				a[c] += wi * v
			}
		}
		return nil
	})
}

// inverseSum writes Σ_i w_i X_i⁻¹, full, into dst (d×d), the inverses by
// Cholesky factorisation: HarmonicMean, and the start of KarcherMean.
func (in *meanInput) inverseSum(ctx context.Context, dst []float64) error {
	d := in.d
	bufs := make([][]float64, pool.Workers(in.o.Workers))
	return in.weightedSum(ctx, dst, func(w, i int, acc []float64, wi float64) error {
		if bufs[w] == nil {
			bufs[w] = make([]float64, d*d)
		}
		f := bufs[w]
		loadUpperTo(f, d, in.xs[i])
		if !invertUpper(f, d) {
			return fmt.Errorf("matrix %d: %w: %s", i, ErrNotSPD, notSPDEnough(d))
		}
		addUpper(acc, wi, f, d)
		return nil
	})
}

// triCongruence replaces the full symmetric d×d y by op(T) y op(T)ᵀ,
// symmetrised, for the triangular t (row-major; the triangle uplo read):
// op(T) = T, or Tᵀ when trans, or their inverses (triangular solves) when
// inverse.
func triCongruence(y, t []float64, d int, uplo blas.Uplo, trans, inverse bool) {
	tr := blas64.Triangular{Uplo: uplo, Diag: blas.NonUnit, N: d, Stride: d, Data: t}
	g := blas64.General{Rows: d, Cols: d, Stride: d, Data: y}
	left, right := blas.NoTrans, blas.Trans
	if trans {
		left, right = blas.Trans, blas.NoTrans
	}
	if inverse {
		blas64.Trsm(blas.Left, left, 1, tr, g)
		blas64.Trsm(blas.Right, right, 1, tr, g)
	} else {
		blas64.Trmm(blas.Left, left, 1, tr, g)
		blas64.Trmm(blas.Right, right, 1, tr, g)
	}
	for r := range d {
		for c := r + 1; c < d; c++ {
			v := 0.5 * (y[r*d+c] + y[c*d+r])
			y[r*d+c], y[c*d+r] = v, v
		}
	}
}

// normMinusI returns ‖A − I‖_F for the row-major d×d a.
func normMinusI(a []float64, d int) float64 {
	var r2 float64
	for r := range d {
		for c := range d {
			v := a[r*d+c]
			if r == c {
				v--
			}
			r2 += v * v
		}
	}
	return math.Sqrt(r2)
}

// MeanFunc is the signature of the means of this package (KarcherMean,
// LogEuclideanMean, SteinMean, WassersteinMean, HarmonicMean,
// ArithmeticMean).
type MeanFunc func(ctx context.Context, xs []*mat.SymDense, o *MeanOptions) (*mat.SymDense, MeanInfo, error)

// MeanOf returns the mean that minimises the sum of squared distances of
// metric m (of divergences, for the Stein divergence): KarcherMean for
// AIRMMetric, LogEuclideanMean, SteinMean, WassersteinMean, and
// ArithmeticMean for EuclidMetric; nil for a metric without one here
// (ThompsonMetric).
func MeanOf(m Metric) MeanFunc {
	switch m {
	case AIRMMetric:
		return KarcherMean
	case LogEuclideanMetric:
		return LogEuclideanMean
	case SteinMetric:
		return SteinMean
	case WassersteinMetric:
		return WassersteinMean
	case EuclidMetric:
		return ArithmeticMean
	}
	return nil
}
