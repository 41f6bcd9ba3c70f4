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
	return classify.Spec{Params: m.p, Candidates: len(m.cands), Quantities: []classify.Quantity{classify.LogCosine{}}, Scores: true, Costs: true}
}

func (m *logESR) Classify(ctx context.Context, s *classify.Split) (*classify.Outcome, error) {
	o, c, d, err := classify.Select(ctx, s, m.cands, &m.memo, func(d *classify.Data, train, test []int, w weight) (*classify.Outcome, error) {
		g, err := s.Pairs(d, classify.LogCosine{})
		if err != nil {
			return nil, err
		}
		return src(ctx, g, classify.Identity, d.Labels, train, test, w.set(m.opts), s, &m.blocks)
	})
	if err != nil {
		return nil, err
	}
	o.Params = map[string]float64{c.Params.key(): c.Params.value, "ridge": d.Ridge}
	return o, nil
}
