package rsr

import (
	"context"
	"testing"

	"github.com/covpipe/covpipe/internal/canceltest"
	"github.com/covpipe/covpipe/spd"
	"gonum.org/v1/gonum/mat"
)

// TestCancel proves the package documentation's cancellation contract for
// every call that takes a context: cancelled before the call, on a tiny
// problem, or while it runs, on a problem far too large to finish before
// the cancel, it returns an error wrapping context.Canceled and no result.
func TestCancel(t *testing.T) {
	type problem struct {
		train, queries *spd.Set
		K              *mat.SymDense // the Stein kernel's Gram matrix of train
		kx             *mat.Dense    // its kernel values of queries against train
		kxx            []float64
		labels         []int
	}
	k := spd.SteinKernel{Sigma: 2}
	newProblem := func(seed uint64, m, q, d int) problem {
		all := mixtureSet(t, seed, m+q, d, 16, 3)
		p := problem{train: all.Subset(seq(0, m)), queries: all.Subset(seq(m, m+q)), kxx: make([]float64, q), labels: make([]int, m)}
		var err error
		if p.K, err = k.GramSym(context.Background(), p.train, nil); err != nil {
			t.Fatal(err)
		}
		if p.kx, err = k.Gram(context.Background(), p.queries, p.train, nil); err != nil {
			t.Fatal(err)
		}
		for i := range p.kxx {
			p.kxx[i] = 1
		}
		for j := range p.labels {
			p.labels[j] = j % 7
		}
		return p
	}
	tiny := newProblem(1, 8, 3, 3)
	// On one worker each call on big codes thousands of queries against
	// hundreds of atoms, or learns a dictionary for 20 iterations, far
	// longer than canceltest.Delay.
	big := newProblem(2, 400, 4000, 8)
	// A small weight relative to each query: dense codes, slow solves.
	lasso := LassoOptions{LambdaRatio: 1e-3, Workers: 1}
	calls := []struct {
		name string
		call func(ctx context.Context, p problem) (any, error)
	}{
		{"Lasso.SolveBatch", func(ctx context.Context, p problem) (any, error) {
			l, err := NewLasso(p.K, lasso)
			if err != nil {
				return nil, err
			}
			codes, _, err := l.SolveBatch(ctx, p.kx, p.kxx)
			return codes, err
		}},
		{"Classifier.PredictBatch", func(ctx context.Context, p problem) (any, error) {
			c, err := FitClassifier(p.K, p.labels, ClassifierOptions{Lasso: lasso})
			if err != nil {
				return nil, err
			}
			return c.PredictBatch(ctx, p.kx, p.kxx)
		}},
		{"FitStein", func(ctx context.Context, p problem) (any, error) {
			return FitStein(ctx, p.queries, make([]int, p.queries.Len()), k, ClassifierOptions{Lasso: lasso})
		}},
		{"SteinClassifier.Predict", func(ctx context.Context, p problem) (any, error) {
			c, err := FitStein(context.Background(), p.train, p.labels, k, ClassifierOptions{Lasso: lasso})
			if err != nil {
				return nil, err
			}
			return c.Predict(ctx, p.queries)
		}},
		{"Encode", func(ctx context.Context, p problem) (any, error) {
			codes, _, err := Encode(ctx, p.queries, p.train, k, lasso)
			return codes, err
		}},
		{"Dictionary.Transform", func(ctx context.Context, p problem) (any, error) {
			d := &Dictionary{Atoms: p.train, Kernel: k, Lasso: lasso}
			codes, _, err := d.Transform(ctx, p.queries)
			return codes, err
		}},
		{"FitDictionary", func(ctx context.Context, p problem) (any, error) {
			return FitDictionary(ctx, p.queries, DictionaryOptions{Atoms: p.train.Len() / 4, Kernel: k, Lasso: LassoOptions{LambdaRatio: 0.1}, Workers: 1})
		}},
		{"FitDictionary k-means", func(ctx context.Context, p problem) (any, error) {
			return FitDictionary(ctx, p.queries, DictionaryOptions{Atoms: p.train.Len() / 4, Kernel: k, Lasso: LassoOptions{LambdaRatio: 0.1}, Init: InitKMeans, Workers: 1})
		}},
	}
	for _, c := range calls {
		t.Run(c.name, func(t *testing.T) {
			res, err := c.call(canceltest.Cancelled(t), tiny)
			canceltest.Check(t, "cancelled before, tiny problem", err)
			noResult(t, res)
			res, err = c.call(canceltest.Soon(t), big)
			canceltest.Check(t, "cancelled while running, large problem", err)
			noResult(t, res)
		})
	}
}

// noResult fails t unless res is nil or a nil pointer or slice.
func noResult(t *testing.T, res any) {
	t.Helper()
	var none bool
	switch v := res.(type) {
	case nil:
		none = true
	case *mat.Dense:
		none = v == nil
	case []Decision:
		none = v == nil
	case *SteinClassifier:
		none = v == nil
	case *Dictionary:
		none = v == nil
	}
	if !none {
		t.Errorf("a result of type %T came with the error", res)
	}
}
