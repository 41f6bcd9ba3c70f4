package method

import (
	"context"
	"fmt"

	"github.com/covpipe/covpipe/classify"
	"github.com/covpipe/covpipe/param"
	"github.com/covpipe/covpipe/rsr"
	"go.yaml.in/yaml/v3"
)

// rsrParams are the parameters of method type rsr.
type rsrParams struct {
	// Sigma is the Stein kernel parameter σ (Eqn. 5), checked against
	// Theorem 1 unless PseudoKernel; a list gives candidates. Default: the
	// kernel's for the items' d (kernelChoice.sigmasFor).
	Sigma  param.Floats `yaml:"sigma" json:"sigma" help:"the kernel's σ (Theorem 1 for the Stein kernel); a list gives candidates" default:"(d−1)/2 for d×d matrices (0.5 for d ≤ 2) with the Stein kernel"`
	sparse `yaml:",inline"`
	// PseudoKernel allows a σ outside Theorem 1's set.
	PseudoKernel bool `yaml:"pseudo_kernel,omitempty" json:"pseudo_kernel,omitempty" help:"allow a σ outside Theorem 1's set (a pseudo-kernel)"`
	// Kernel is stein (default) or log-euclidean (σ then scales the
	// squared log-Euclidean distance; see kernelChoice).
	Kernel string `yaml:"kernel,omitempty" json:"kernel,omitempty" help:"the kernel: stein (Eqn. 5) or log-euclidean, exp(−σ‖log X − log Y‖²)" default:"stein"`
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

// String says the candidate as a cross-validation table names it.
func (c rsrCandidate) String() string { return fmt.Sprintf("sigma=%g %v", c.sigma, c.weight) }

func newRSR(n *yaml.Node) (classify.Method, error) {
	m := &rsrMethod{}
	if err := decode(n, &m.p, "rsr"); err != nil {
		return nil, err
	}
	var err error
	if m.kernel, err = kernelKeys(&m.p.Kernel, m.p.Sigma, m.p.PseudoKernel); err != nil {
		return nil, err
	}
	sc, err := m.p.resolve()
	if err != nil {
		return nil, err
	}
	m.opts = sc.opts
	m.cross = func(sigmas []float64) (cands []rsrCandidate) {
		for _, s := range sigmas {
			for _, w := range sc.weights {
				cands = append(cands, rsrCandidate{s, w})
			}
		}
		return cands
	}
	return m, nil
}

// Spec declares the parameter candidates, the σ check against Theorem 1
// and the kernel's pairwise quantity (Stein divergences, or squared
// log-Euclidean distances); the class costs are the residuals and the
// class probabilities the energy shares (srcFit.predict).
func (m *rsrMethod) Spec() classify.Spec {
	s := m.spec(m.p)
	s.Costs, s.Probabilities = true, true
	return s
}

func (m *rsrMethod) Fit(ctx context.Context, t *classify.Train) (classify.Fitted, error) {
	fit := func(d *classify.Data, train []int, p rsrCandidate) (predictor, error) {
		f, err := m.kernel.kernelMap(d, p.sigma)
		if err != nil {
			return nil, err
		}
		return fitSRC(ctx, t, d, m.kernel.kernel.Quantity, f, train, p.weight.set(m.opts), trainBlocks(t, &m.blocks))
	}
	c, d, err := m.choose(ctx, t, fit)
	if err != nil {
		return nil, err
	}
	p, err := fit(d, t.Items, c.Params)
	if err != nil {
		return nil, err
	}
	p.(*srcFit).rec = rsrRecord{Sigma: c.Params.sigma, Weight: c.Params.weight.record()}
	return &fitted{p: p, variant: c.Variant, chosen: map[string]float64{"sigma": c.Params.sigma, c.Params.weight.key(): c.Params.weight.value, "ridge": d.Ridge}}, nil
}

// rsrRecord is the chosen candidate, as rsr's saved state records it.
type rsrRecord struct {
	Sigma  float64      `json:"sigma"`
	Weight weightRecord `json:"weight"`
}

func (m *rsrMethod) Load(ctx context.Context, st *classify.State, t *classify.Train) (classify.Fitted, error) {
	return restore(st, func(r rsrRecord) (predictor, error) {
		f, err := m.kernel.kernelMap(t.Data, r.Sigma)
		if err != nil {
			return nil, err
		}
		w, err := r.Weight.weight()
		if err != nil {
			return nil, err
		}
		q := m.kernel.kernel.Quantity
		return loadSRC(st, t, func(d *classify.Data) (classify.Pairs, error) { return t.Pairs(d, q) }, f, w.set(m.opts), trainBlocks(t, &m.blocks), r)
	})
}
