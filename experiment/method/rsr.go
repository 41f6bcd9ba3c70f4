package method

import (
	"github.com/covpipe/covpipe/experiment/classify"
	"go.yaml.in/yaml/v3"
)

// rsrParams are the parameters of method type rsr.
type rsrParams struct {
	// Sigma is the Stein kernel parameter σ (Eqn. 5), checked against
	// Theorem 1 unless PseudoKernel; a list gives candidates.
	Sigma  classify.Floats `yaml:"sigma" json:"sigma"`
	sparse `yaml:",inline"`
	// PseudoKernel allows a σ outside Theorem 1's set.
	PseudoKernel bool `yaml:"pseudo_kernel,omitempty" json:"pseudo_kernel,omitempty"`
	// Kernel is stein (default) or log-euclidean (σ then scales the
	// squared log-Euclidean distance; see kernelKind).
	Kernel kernelKind `yaml:"kernel,omitempty" json:"kernel,omitempty"`
}

// rsrMethod is the paper's RSR: SRC with kernel Lasso codes in the RKHS of
// the Stein kernel (Sections 3–3.1, Eqns. 5–9), on the Stein divergences
// that the Data computes once.
type rsrMethod struct {
	memo   classify.Memo[rsrCandidate]
	blocks classify.Scratch // kernel blocks of the method's runs (src)
	cands  []rsrCandidate
	pseudo bool
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
	if err := checkKernel(m.p.Sigma, &m.p.Kernel); err != nil {
		return nil, err
	}
	if _, ws, err := m.p.options(); err != nil {
		return nil, err
	} else {
		for _, s := range m.p.Sigma {
			for _, w := range ws {
				m.cands = append(m.cands, rsrCandidate{s, w})
			}
		}
	}
	m.pseudo = m.p.PseudoKernel
	return m, nil
}

// Candidates returns the number of parameter settings that
// cross-validation chooses among.
func (m *rsrMethod) Candidates() int { return len(m.cands) }

// Params returns the decoded parameters, for the record of the run.
func (m *rsrMethod) Params() any { return m.p }

// CheckDim checks every σ against Theorem 1 for d×d matrices.
func (m *rsrMethod) CheckDim(d int) error { return m.p.Kernel.checkSigmas(m.p.Sigma, d, m.pseudo) }

// Prepare computes the kernel's pairwise quantity on the split (Stein
// divergences, or squared log-Euclidean distances).
func (m *rsrMethod) Prepare(s *classify.Split) error { return m.p.Kernel.prepare(s) }

func (m *rsrMethod) Classify(s *classify.Split) (*classify.Outcome, error) {
	if err := m.CheckDim(s.Data.Set.Dim()); err != nil {
		return nil, err
	}
	opts, _, _ := m.p.options() // checked in newRSR
	o, c, d, err := classify.Select(s, m.cands, &m.memo, func(d *classify.Data, train, test []int, p rsrCandidate) (*classify.Outcome, error) {
		g, k, err := m.p.Kernel.pairs(s, d, p.sigma, m.pseudo)
		if err != nil {
			return nil, err
		}
		return src(g, k, d.Labels, train, test, p.weight.set(opts), s.Workers, &m.blocks)
	})
	if err != nil {
		return nil, err
	}
	o.Params = map[string]float64{"sigma": c.Params.sigma, c.Params.weight.key(): c.Params.weight.value, "ridge": d.Ridge}
	return o, nil
}
