package spd

import (
	"context"
	"testing"

	"github.com/covpipe/covpipe/internal/canceltest"
	"gonum.org/v1/gonum/mat"
)

// TestCancel proves the package documentation's cancellation contract for
// every call that takes a context: cancelled before the call, on a tiny
// problem, or while it runs, on a problem far too large to finish before
// the cancel, it returns an error wrapping context.Canceled and no result.
func TestCancel(t *testing.T) {
	tiny, tinyMs := randSet(t, 71, 3, 2)
	// On one worker each call on big takes far longer than
	// canceltest.Delay (a Gram matrix of 4 million Stein divergences at
	// d = 24, k-means and means to iteration caps).
	big, bigMs := randSet(t, 72, 2000, 24)
	k := SteinKernel{Sigma: 12}
	calls := []struct {
		name string
		call func(ctx context.Context, s *Set, ms []*mat.SymDense) (any, error)
	}{
		{"SteinKernel.Gram", func(ctx context.Context, s *Set, _ []*mat.SymDense) (any, error) {
			return k.Gram(ctx, s, s, &GramOptions{Workers: 1})
		}},
		{"SteinKernel.GramSym", func(ctx context.Context, s *Set, _ []*mat.SymDense) (any, error) {
			return k.GramSym(ctx, s, &GramOptions{Workers: 1})
		}},
		{"SteinDivergences", func(ctx context.Context, s *Set, _ []*mat.SymDense) (any, error) {
			return SteinDivergences(ctx, s, s, &GramOptions{Workers: 1})
		}},
		{"SteinDivergencesSym", func(ctx context.Context, s *Set, _ []*mat.SymDense) (any, error) {
			return SteinDivergencesSym(ctx, s, &GramOptions{Workers: 1})
		}},
		{"SteinBlockTo", func(ctx context.Context, s *Set, _ []*mat.SymDense) (any, error) {
			return nil, SteinBlockTo(ctx, mat.NewDense(s.Len(), s.Len(), nil), s, seq(s.Len()), s, seq(s.Len()), &GramOptions{Workers: 1})
		}},
		{"SteinSymBlock", func(ctx context.Context, s *Set, _ []*mat.SymDense) (any, error) {
			return SteinSymBlock(ctx, s, seq(s.Len()), &GramOptions{Workers: 1})
		}},
		{"KMeans AIRM", func(ctx context.Context, s *Set, _ []*mat.SymDense) (any, error) {
			return KMeans(ctx, s, KMeansOptions{K: min(s.Len(), 64), Metric: AIRMMetric, Workers: 2})
		}},
		{"KMeans Stein", func(ctx context.Context, s *Set, _ []*mat.SymDense) (any, error) {
			return KMeans(ctx, s, KMeansOptions{K: min(s.Len(), 64), Metric: SteinMetric, Workers: 2})
		}},
		// A tolerance no iterate meets: the means run to their caps.
	}
	for _, c := range calls {
		t.Run(c.name, func(t *testing.T) {
			res, err := c.call(canceltest.Cancelled(t), tiny, tinyMs)
			canceltest.Check(t, "cancelled before, tiny problem", err)
			noResult(t, res)
			res, err = c.call(canceltest.Soon(t), big, bigMs)
			canceltest.Check(t, "cancelled while running, large problem", err)
			noResult(t, res)
		})
	}
}

// noResult fails t unless res is nil or a nil pointer.
func noResult(t *testing.T, res any) {
	t.Helper()
	switch v := res.(type) {
	case nil:
	case *mat.Dense:
		if v != nil {
			t.Error("a result came with the error")
		}
	case *mat.SymDense:
		if v != nil {
			t.Error("a result came with the error")
		}
	case *KMeansResult:
		if v != nil {
			t.Error("a result came with the error")
		}
	default:
		t.Errorf("result of type %T", res)
	}
}

// TestCancelMeans proves the cancellation contract for the means, on
// one worker: cancelled before the call, on a tiny problem, or while it
// runs, on 3000 matrices of 40×40, a tolerance no iterate meets taking
// the iterative means to their caps. ArithmeticMean, one pass of
// additions, ends before canceltest.Delay at any size a test holds in
// memory: only the cancelled context is checked for it.
func TestCancelMeans(t *testing.T) {
	_, tiny := randSet(t, 73, 3, 2)
	_, big := randSet(t, 74, 3000, 40)
	for _, c := range []struct {
		name  string
		mean  func(context.Context, []*mat.SymDense, *MeanOptions) (*mat.SymDense, MeanInfo, error)
		quick bool
	}{
		{"KarcherMean", KarcherMean, false},
		{"SteinMean", SteinMean, false},
		{"WassersteinMean", WassersteinMean, false},
		{"LogEuclideanMean", LogEuclideanMean, false},
		{"HarmonicMean", HarmonicMean, false},
		{"ArithmeticMean", ArithmeticMean, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := &MeanOptions{Tol: 1e-300, Workers: 1}
			m, _, err := c.mean(canceltest.Cancelled(t), tiny, o)
			canceltest.Check(t, "cancelled before, tiny problem", err)
			noResult(t, m)
			if c.quick {
				return
			}
			m, _, err = c.mean(canceltest.Soon(t), big, o)
			canceltest.Check(t, "cancelled while running, large problem", err)
			noResult(t, m)
		})
	}
}
