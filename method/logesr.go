package method

import (
	"context"

	"github.com/covpipe/covpipe/classify"
	"github.com/covpipe/covpipe/rsr"
	"go.yaml.in/yaml/v3"
)

// logESR is log-Euclidean sparse representation (Guo et al. 2010; Yuan et
// al. 2010): the matrix logarithm, vectorised isometrically, then SRC with
// a Euclidean Lasso on unit-normalised vectors (rsr's solver with the
// linear Gram matrix that the Data computes once).
type logESR struct {
	memo   classify.Memo[weight]
	blocks classify.Scratch // kernel blocks of the method's runs (src)
	cands  []weight
	opts   rsr.ClassifierOptions // without the weight, which cands hold
	p      sparse
}

func newLogESR(n *yaml.Node) (classify.Method, error) {
	m := &logESR{}
	if err := decode(n, &m.p, "logE-SR"); err != nil {
		return nil, err
	}
	sc, err := m.p.resolve()
	if err != nil {
		return nil, err
	}
	m.opts, m.cands = sc.opts, sc.weights
	return m, nil
}

// Spec declares the sparsity candidates and the items' log-Euclidean
// cosines.
func (m *logESR) Spec() classify.Spec {
	return classify.Spec{Params: m.p, Candidates: len(m.cands), Quantities: []classify.Quantity{classify.LogCosine{}}, Scores: true, Costs: true, Probabilities: true}
}

func (m *logESR) Fit(ctx context.Context, t *classify.Train) (classify.Fitted, error) {
	fit := func(d *classify.Data, train []int, w weight) (predictor, error) {
		return fitSRC(ctx, t, d, classify.LogCosine{}, classify.Identity, train, w.set(m.opts), trainBlocks(t, &m.blocks))
	}
	c, d, err := classify.Choose(ctx, t, m.cands, &m.memo, folds(ctx, t, fit))
	if err != nil {
		return nil, err
	}
	p, err := fit(d, t.Items, c.Params)
	if err != nil {
		return nil, err
	}
	p.(*srcFit).rec = c.Params.record()
	return &fitted{p: p, variant: c.Variant, chosen: map[string]float64{c.Params.key(): c.Params.value, "ridge": d.Ridge}}, nil
}

func (m *logESR) Load(ctx context.Context, st *classify.State, t *classify.Train) (classify.Fitted, error) {
	return restore(st, func(r weightRecord) (predictor, error) {
		w, err := r.weight()
		if err != nil {
			return nil, err
		}
		return loadSRC(st, t, func(d *classify.Data) (classify.Pairs, error) { return t.Pairs(d, classify.LogCosine{}) }, classify.Identity, w.set(m.opts), trainBlocks(t, &m.blocks), r)
	})
}
