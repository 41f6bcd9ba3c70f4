package method

import (
	"context"

	"github.com/covpipe/covpipe/classify"
	"github.com/covpipe/covpipe/param"
	"github.com/covpipe/covpipe/rsr"
	"go.yaml.in/yaml/v3"
)

// rsrParams are the parameters of method type rsr.
type rsrParams struct {
	// Sigma is the Stein kernel parameter σ (Eqn. 5), checked against
	// Theorem 1 unless PseudoKernel; a list gives candidates.
	Sigma  param.Floats `yaml:"sigma" json:"sigma"`
	sparse `yaml:",inline"`
	// PseudoKernel allows a σ outside Theorem 1's set.
	PseudoKernel bool `yaml:"pseudo_kernel,omitempty" json:"pseudo_kernel,omitempty"`
	// Kernel is stein (default) or log-euclidean (σ then scales the
	// squared log-Euclidean distance; see kernelChoice).
	Kernel string `yaml:"kernel,omitempty" json:"kernel,omitempty"`
}

// rsrMethod is the paper's RSR: SRC with kernel Lasso codes in the RKHS of
// the Stein kernel (Sections 3–3.1, Eqns. 5–9), on the Stein divergences
// that the Data computes once.
type rsrMethod struct {
	kernelMethod[rsrCandidate]
	blocks classify.Scratch      // kernel blocks of the method's runs (src)
	opts   rsr.ClassifierOptions // without the weight, which cands hold
	p      rsrParams
}

type rsrCandidate struct {
	sigma  float64
	weight weight
}

func newRSR(n *yaml.Node) (classify.Method, error) {
	m := &rsrMethod{}
	if err := decode(n, &m.p, "rsr"); err != nil {
		return nil, err
	}
	var err error
	if m.kernel, err = resolveKernel(&m.p.Kernel, m.p.Sigma, m.p.PseudoKernel); err != nil {
		return nil, err
	}
	sc, err := m.p.resolve()
	if err != nil {
		return nil, err
	}
	m.opts = sc.opts
	for _, s := range m.p.Sigma {
		for _, w := range sc.weights {
			m.cands = append(m.cands, rsrCandidate{s, w})
		}
	}
	return m, nil
}

// Spec declares the parameter candidates, the σ check against Theorem 1
// and the kernel's pairwise quantity (Stein divergences, or squared
// log-Euclidean distances).
func (m *rsrMethod) Spec() classify.Spec {
	s := m.spec(m.p)
	s.Costs = true
	return s
}

func (m *rsrMethod) Classify(ctx context.Context, s *classify.Split) (*classify.Outcome, error) {
	run := func(d *classify.Data, train, test []int, p rsrCandidate) (*classify.Outcome, error) {
		g, k, err := m.kernel.pairs(s, d, p.sigma)
		if err != nil {
			return nil, err
		}
		return src(ctx, g, k, d.Labels, train, test, p.weight.set(m.opts), s, &m.blocks)
	}
	o, c, d, err := m.choose(ctx, s, run, run)
	if err != nil {
		return nil, err
	}
	o.Params = map[string]float64{"sigma": c.Params.sigma, c.Params.weight.key(): c.Params.weight.value, "ridge": d.Ridge}
	return o, nil
}
