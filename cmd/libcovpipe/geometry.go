package main

/*
#include <stdint.h>
*/
import "C"

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unsafe"

	"github.com/covpipe/covpipe/internal/pool"
	"github.com/covpipe/covpipe/spd"
	"gonum.org/v1/gonum/mat"
)

// covpipe_distance writes into out (na·nb doubles, row-major) the
// distances m(A_i, B_j) of the metric named metric (spd.ParseMetric:
// airm, stein, log-euclidean, thompson) between the na d×d matrices at a
// and the nb at b, on workers goroutines (0: all cores). The entries are
// those of spd.Workspace.Distance (for stein the divergence S itself,
// computed by spd.SteinDivergences, equal to the last bit); they do not
// depend on workers. It returns an error naming A or B and the index of
// a matrix that is not SPD, and a "c:" error once tok is cancelled.
//
//export covpipe_distance
func covpipe_distance(tok uintptr, metric *C.char, a unsafe.Pointer, na int64, b unsafe.Pointer, nb int64, d int64, workers int64, out unsafe.Pointer) *C.char {
	return call(func() error {
		m, err := spd.ParseMetric(goString(metric))
		if err != nil {
			return err
		}
		ctx, sa, sb, err := pairOf(tok, [2]string{"A", "B"}, a, na, b, nb, d)
		if err != nil {
			return err
		}
		dist, err := distances(ctx, m, sa, sb, int(workers))
		if err != nil {
			return err
		}
		dst, err := output(out, len(dist))
		if err != nil {
			return err
		}
		copy(dst, dist)
		return nil
	})
}

// pairOf returns the context of tok and the sets of the na and nb d×d
// matrices at a and b, named by names in errors.
func pairOf(tok uintptr, names [2]string, a unsafe.Pointer, na int64, b unsafe.Pointer, nb, d int64) (context.Context, *spd.Set, *spd.Set, error) {
	ctx, err := contextOf(tok)
	if err != nil {
		return nil, nil, nil, err
	}
	sa, err := matrices(names[0], a, na, d)
	if err != nil {
		return nil, nil, nil, err
	}
	sb, err := matrices(names[1], b, nb, d)
	if err != nil {
		return nil, nil, nil, err
	}
	return ctx, sa, sb, nil
}

// distances returns the |a|×|b| matrix of m(a_i, b_j), row-major: the
// Stein divergences by spd.SteinDivergences, the other metrics row by row
// with a workspace per worker.
func distances(ctx context.Context, m spd.Metric, a, b *spd.Set, workers int) ([]float64, error) {
	if m == spd.SteinMetric {
		s, err := spd.SteinDivergences(ctx, a, b, &spd.GramOptions{Workers: workers})
		if err != nil {
			return nil, err
		}
		return s.RawMatrix().Data, nil
	}
	nb := b.Len()
	out := make([]float64, a.Len()*nb)
	ws := make([]*spd.Workspace, pool.Workers(workers))
	err := pool.ForCtx(ctx, a.Len(), workers, func(w, i int) error {
		if ws[w] == nil {
			ws[w] = spd.NewWorkspace(a.Dim())
		}
		x := a.View(i)
		for j := range nb {
			v, err := ws[w].Distance(m, x, b.View(j))
			if err != nil {
				return fmt.Errorf("A[%d], B[%d]: %w", i, j, err)
			}
			out[i*nb+j] = v
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// meanOptions are covpipe_mean's options: the iterative means' tolerance
// and iteration cap (0: spd's defaults).
type meanOptions struct {
	Tol     float64 `json:"tol"`
	MaxIter int     `json:"max_iter"`
}

// meanInfo is how a mean's iteration ended, covpipe_mean's text: the
// iterations, the final gradient norm (airm) or fixed-point residual
// (stein), whether it converged, and the error of one that did not
// (spd.ErrNoConvergence), whose last iterate is the mean returned.
type meanInfo struct {
	Iterations int     `json:"iterations"`
	Residual   float64 `json:"residual"`
	Converged  bool    `json:"converged"`
	Warning    string  `json:"warning,omitempty"`
}

// covpipe_mean writes into out (d·d doubles) the mean of the n d×d
// matrices at x under the metric named metric: airm, the Karcher mean
// (spd.KarcherMean); stein, the Stein mean (spd.SteinMean);
// log-euclidean, exp of the mean logarithm (spd.LogEuclideanMean).
// options is JSON {"tol": T, "max_iter": N}, both optional (spd's
// defaults), or NULL. *info is set to a JSON meanInfo, which the caller
// frees: an iteration that reaches max_iter returns its last iterate
// with converged false and the warning. It returns an error for another
// metric, for matrices that are not SPD, and a "c:" error once tok is
// cancelled.
//
//export covpipe_mean
func covpipe_mean(tok uintptr, metric *C.char, x unsafe.Pointer, n, d int64, options *C.char, out unsafe.Pointer, info **C.char) *C.char {
	return call(func() error {
		ctx, err := contextOf(tok)
		if err != nil {
			return err
		}
		m, err := spd.ParseMetric(goString(metric))
		if err != nil {
			return err
		}
		var o meanOptions
		if err := decodeJSON(options, "mean options", &o); err != nil {
			return err
		}
		set, err := matrices("X", x, n, d)
		if err != nil {
			return err
		}
		mean, in, err := meanOf(ctx, m, set, o)
		if errors.Is(err, spd.ErrNoConvergence) {
			in.Warning, err = err.Error(), nil
		}
		if err != nil {
			return err
		}
		dst, err := output(out, int(d*d))
		if err != nil {
			return err
		}
		for i := range int(d) {
			for j := range int(d) {
				dst[i*int(d)+j] = mean.At(i, j)
			}
		}
		b, err := json.Marshal(in)
		if err != nil {
			return err
		}
		return setText(info, string(b))
	})
}

// meanOf returns the mean of set under m, with how its iteration ended
// (its certificate: the gradient norm, or the fixed-point residual).
func meanOf(ctx context.Context, m spd.Metric, set *spd.Set, o meanOptions) (*mat.SymDense, meanInfo, error) {
	mean := spd.MeanOf(m)
	if mean == nil {
		return nil, meanInfo{}, fmt.Errorf("mean: %w: no mean for metric %v (want airm, stein, log-euclidean, wasserstein or euclid)", spd.ErrParameter, m)
	}
	xs := make([]*mat.SymDense, set.Len())
	for i := range xs {
		xs[i] = set.View(i)
	}
	x, in, err := mean(ctx, xs, &spd.MeanOptions{Tol: o.Tol, MaxIter: o.MaxIter})
	return x, meanInfo{Iterations: in.Iterations, Residual: max(in.Gradient, in.Residual), Converged: in.Converged}, err
}

// covpipe_stein_kernel writes into out (na·nb doubles, row-major) the
// Stein kernel matrix K_ij = exp(−σ S(A_i, B_j)) of Eqn. 5 between the na
// d×d matrices at a and the nb at b (spd.SteinKernel.Gram), on workers
// goroutines (0: all cores). σ must be valid by Theorem 1 for d unless
// pseudo is non-zero. It returns the errors of spd.SteinKernel.Gram and
// a "c:" error once tok is cancelled.
//
//export covpipe_stein_kernel
func covpipe_stein_kernel(tok uintptr, sigma float64, pseudo int64, a unsafe.Pointer, na int64, b unsafe.Pointer, nb int64, d int64, workers int64, out unsafe.Pointer) *C.char {
	return call(func() error {
		k := spd.SteinKernel{Sigma: sigma, Pseudo: pseudo != 0}
		if err := k.Check(int(max(d, 1))); err != nil {
			return err
		}
		ctx, sa, sb, err := pairOf(tok, [2]string{"X", "Y"}, a, na, b, nb, d)
		if err != nil {
			return err
		}
		g, err := k.Gram(ctx, sa, sb, &spd.GramOptions{Workers: int(workers)})
		if err != nil {
			return err
		}
		dst, err := output(out, int(na*nb))
		if err != nil {
			return err
		}
		copy(dst, g.RawMatrix().Data)
		return nil
	})
}

// decodeJSON decodes the JSON text p (NULL or empty: nothing) strictly
// into v; what names it in errors.
func decodeJSON(p *C.char, what string, v any) error {
	s := goString(p)
	if s == "" {
		return nil
	}
	dec := json.NewDecoder(strings.NewReader(s))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}
