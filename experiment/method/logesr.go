package method

import (
	"github.com/covpipe/covpipe/experiment/classify"
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
	p      sparse
}

func newLogESR(n *yaml.Node) (classify.Method, error) {
	m := &logESR{}
	if err := decode(n, &m.p, "logE-SR"); err != nil {
		return nil, err
	}
	_, ws, err := m.p.options()
	if err != nil {
		return nil, err
	}
	m.cands = ws
	return m, nil
}

// Candidates returns the number of parameter settings that
// cross-validation chooses among.
func (m *logESR) Candidates() int { return len(m.cands) }

// Params returns the decoded parameters, for the record of the run.
func (m *logESR) Params() any { return m.p }

// Prepare computes the items' log-vectors.
func (m *logESR) Prepare(s *classify.Split) error {
	return classify.PrepareSplit(s, classify.LogCosine)
}

func (m *logESR) Classify(s *classify.Split) (*classify.Outcome, error) {
	opts, _, _ := m.p.options() // checked in newLogESR
	o, c, d, err := classify.Select(s, m.cands, &m.memo, func(d *classify.Data, train, test []int, w weight) (*classify.Outcome, error) {
		g, err := s.Pairs(d, classify.LogCosine)
		if err != nil {
			return nil, err
		}
		return src(g, classify.Identity, d.Labels, train, test, w.set(opts), s.Workers, &m.blocks)
	})
	if err != nil {
		return nil, err
	}
	o.Params = map[string]float64{c.Params.key(): c.Params.value, "ridge": d.Ridge}
	return o, nil
}
