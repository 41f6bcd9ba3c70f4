package spd

import (
	"context"
	"fmt"
	"math"

	"github.com/covpipe/covpipe/internal/dense"
	"gonum.org/v1/gonum/mat"
)

// GramOptions control the parallel computation of Gram and divergence
// matrices. The zero value uses all cores.
type GramOptions struct {
	// Workers bounds the number of goroutines; <= 0 means GOMAXPROCS.
	Workers int
	// Progress, if not nil, is called after each finished row with the
	// number of entries computed in it. It is called from the worker
	// goroutines and must be safe for concurrent use.
	Progress func(entries int)
}

func (o *GramOptions) workers() int {
	if o == nil {
		return 0
	}
	return o.Workers
}

func (o *GramOptions) progress(n int) {
	if o != nil && o.Progress != nil {
		o.Progress(n)
	}
}

// steinEntry returns S(X, Y) for row-major d×d matrices with cached
// log-determinants, factorising (X+Y)/2 into buf (dense.CholLower: its
// lower triangle; in closed form, writing nothing, for d <= 3). Only the
// upper triangles of x and y are read.
func steinEntry(buf, x, y []float64, d int, ldx, ldy float64) (float64, bool) {
	var ld float64
	var ok bool
	switch {
	case d <= dense.TinyMaxD:
		ld, ok = dense.CholTiny(x, y, d)
	case d <= dense.PlainMaxD:
		ld, ok = dense.CholLower(buf, x, y, d)
	default:
		for i := range d {
			r := i*d + i
			xr, yr, br := x[r:i*d+d], y[r:i*d+d], buf[r:i*d+d]
			for j := range br {
				br[j] = 0.5*xr[j] + 0.5*yr[j] // no overflow near math.MaxFloat64
			}
		}
		ld, ok = dense.CholLogDet(buf, d)
	}
	return nonNegative(ld - 0.5*(ldx+ldy)), ok
}

// SteinDivergences returns the |a|×|b| matrix D with D_ij = S(a_i, b_j), the
// Stein divergence of Eqn. 3, computed on a bounded worker pool. Each entry
// costs one Cholesky factorisation thanks to the cached log-determinants.
// It returns an error wrapping ErrDimension when the sets' matrix sizes
// differ, and ctx.Err() once ctx is cancelled (see SteinBlockTo).
func SteinDivergences(ctx context.Context, a, b *Set, opts *GramOptions) (*mat.Dense, error) {
	if err := sameDim(a, b); err != nil {
		return nil, err
	}
	out := mat.NewDense(a.n, b.n, nil)
	if err := SteinBlockTo(ctx, out, a, seq(a.n), b, seq(b.n), opts); err != nil {
		return nil, err
	}
	return out, nil
}

// SteinDivergencesSym returns the symmetric |a|×|a| matrix of Stein
// divergences S(a_i, a_j): SteinSymBlock over every item.
func SteinDivergencesSym(ctx context.Context, a *Set, opts *GramOptions) (*mat.SymDense, error) {
	if a == nil || a.n == 0 {
		return nil, fmt.Errorf("%w: empty set", ErrEmpty)
	}
	return SteinSymBlock(ctx, a, seq(a.n), opts)
}

// checkCtx returns an error wrapping ErrParameter for a nil ctx, which
// would otherwise panic in a worker.
func checkCtx(ctx context.Context) error {
	if ctx == nil {
		return fmt.Errorf("%w: nil context.Context (use context.Background())", ErrParameter)
	}
	return nil
}

// seq returns the indices 0, 1, ..., n−1.
func seq(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}

// Gram returns the |a|×|b| Stein kernel matrix K_ij = exp(−σ S(a_i, b_j))
// (Eqn. 8: the vector 𝒦(X, 𝔻) of a query against a dictionary is a
// row of it). It returns an error wrapping ErrSigma for a σ invalid on the
// sets' matrix size (see Check), ErrDimension for mismatched sets, and
// ctx.Err() once ctx is cancelled (see SteinBlockTo).
func (k SteinKernel) Gram(ctx context.Context, a, b *Set, opts *GramOptions) (*mat.Dense, error) {
	if err := sameDim(a, b); err != nil {
		return nil, err
	}
	if err := k.Check(a.d); err != nil {
		return nil, err
	}
	g, err := SteinDivergences(ctx, a, b, opts)
	if err != nil {
		return nil, err
	}
	raw := g.RawMatrix()
	k.expInPlace(raw.Data)
	return g, nil
}

// GramSym returns the symmetric Stein kernel matrix 𝕂(𝔻, 𝔻) of Eqn. 8 over
// one set, computing one triangle. For a σ valid by Theorem 1 it is
// positive semi-definite up to round-off. It returns the errors of Gram.
func (k SteinKernel) GramSym(ctx context.Context, a *Set, opts *GramOptions) (*mat.SymDense, error) {
	if a == nil || a.n == 0 {
		return nil, fmt.Errorf("%w: empty set", ErrEmpty)
	}
	if err := k.Check(a.d); err != nil {
		return nil, err
	}
	g, err := SteinDivergencesSym(ctx, a, opts)
	if err != nil {
		return nil, err
	}
	raw := g.RawSymmetric()
	for i := range a.n {
		k.expInPlace(raw.Data[i*raw.Stride+i : i*raw.Stride+a.n])
	}
	return g, nil
}

// FromDivergence returns exp(−σ s): the kernel value for a Stein divergence
// s. Precomputing divergences once and mapping them through FromDivergence
// gives the Gram matrix for any σ without another Cholesky factorisation.
func (k SteinKernel) FromDivergence(s float64) float64 { return math.Exp(-k.Sigma * s) }

func (k SteinKernel) expInPlace(v []float64) {
	for i, s := range v {
		v[i] = math.Exp(-k.Sigma * s)
	}
}

func sameDim(a, b *Set) error {
	switch {
	case a == nil || a.n == 0:
		return fmt.Errorf("first set: %w", ErrEmpty)
	case b == nil || b.n == 0:
		return fmt.Errorf("second set: %w", ErrEmpty)
	case a.d != b.d:
		return fmt.Errorf("%w: sets of %d×%d and %d×%d matrices", ErrDimension, a.d, a.d, b.d, b.d)
	}
	return nil
}

// nonNegative returns max(0, x) as math.Max(0, x) does (NaN stays NaN, −0
// becomes +0), without its call and its NaN and signed-zero handling,
// which are a noticeable part of a Stein entry's cost at d <= 3.
func nonNegative(x float64) float64 {
	if x <= 0 {
		return 0
	}
	return x
}
