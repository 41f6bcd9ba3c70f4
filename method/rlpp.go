package method

import (
	"cmp"
	"context"
	"fmt"
	"math"

	"github.com/covpipe/covpipe/classify"
	"github.com/covpipe/covpipe/lpp"
	"github.com/covpipe/covpipe/param"
	"go.yaml.in/yaml/v3"
	"gonum.org/v1/gonum/mat"
)

// rlppParams are the parameters of method type rlpp.
type rlppParams struct {
	// Sigma is the Stein kernel parameter σ (Eqn. 5), checked against
	// Theorem 1 unless PseudoKernel; a list gives candidates.
	Sigma param.Floats `yaml:"sigma" json:"sigma"`
	// Dims is the projection dimension p, a positive integer; a list gives
	// candidates. Default: the number of training classes − 1 (at least
	// 1), the dimension of the supervised graph's near-null space once the
	// constant is centred away, as for LDA.
	Dims param.Floats `yaml:"dims,omitempty" json:"dims,omitempty"`
	// Neighbours is the k of the supervised k-nearest-neighbour graph (own
	// class only), a positive integer; a list gives candidates. Default
	// lpp.DefaultNeighbours (5); a k at least a class's size joins all of
	// its members.
	Neighbours param.Floats `yaml:"neighbours,omitempty" json:"neighbours,omitempty"`
	// Heat is the heat-kernel t of the graph weights exp(−‖φ_i − φ_j‖²/t);
	// a list gives candidates. Default: the mean squared feature-space
	// distance over the graph's edges.
	Heat param.Floats `yaml:"heat,omitempty" json:"heat,omitempty"`
	// PseudoKernel allows a σ outside Theorem 1's set.
	PseudoKernel bool `yaml:"pseudo_kernel,omitempty" json:"pseudo_kernel,omitempty"`
	// Kernel is stein (default) or log-euclidean (see kernelChoice).
	Kernel string `yaml:"kernel,omitempty" json:"kernel,omitempty"`
}

// rlppMethod is Riemannian locality preserving projection (Harandi et
// al., WACV 2012) on the Stein kernel: kernel LPP (package lpp) with a
// supervised heat-kernel graph over the training items, centred in
// feature space, then nearest neighbour in the projected space. Classes
// rank by their nearest training member's Euclidean distance there (the
// CMC of the re-identification protocol).
type rlppMethod struct {
	kernelMethod[rlppCandidate]
	blocks classify.Scratch // test blocks of the method's runs
	p      rlppParams
}

// rlppCandidate is one parameter setting; dims, neighbours and heat are 0
// for their defaults.
type rlppCandidate struct {
	sigma      float64
	dims       int
	neighbours int
	heat       float64
}

func newRLPP(n *yaml.Node) (classify.Method, error) {
	m := &rlppMethod{}
	if err := decode(n, &m.p, "rlpp"); err != nil {
		return nil, err
	}
	var err error
	if m.kernel, err = resolveKernel(&m.p.Kernel, m.p.Sigma, m.p.PseudoKernel); err != nil {
		return nil, err
	}
	dims, err := counts(m.p.Dims, "dims")
	if err != nil {
		return nil, err
	}
	ks, err := counts(m.p.Neighbours, "neighbours")
	if err != nil {
		return nil, err
	}
	if err := m.p.Heat.Check("heat", false, 0, false); err != nil {
		return nil, err
	}
	heats := []float64(m.p.Heat)
	if len(heats) == 0 {
		heats = []float64{0}
	}
	for _, s := range m.p.Sigma {
		for _, p := range dims {
			for _, k := range ks {
				for _, t := range heats {
					m.cands = append(m.cands, rlppCandidate{s, p, k, t})
				}
			}
		}
	}
	return m, nil
}

// counts checks a list of positive integers; none gives the one default 0.
func counts(f param.Floats, name string) ([]int, error) {
	if err := f.Check(name, false, 1, true); err != nil {
		return nil, err
	}
	if len(f) == 0 {
		return []int{0}, nil
	}
	out := make([]int, len(f))
	for i, v := range f {
		if v != math.Trunc(v) || v > 1<<30 {
			return nil, fmt.Errorf("%s = %v, want a positive integer", name, v)
		}
		out[i] = int(v)
	}
	return out, nil
}

// Spec declares the parameter candidates, the σ check against Theorem 1
// and the kernel's pairwise quantity.
func (m *rlppMethod) Spec() classify.Spec {
	return m.spec(m.p)
}

func (m *rlppMethod) Classify(ctx context.Context, s *classify.Split) (*classify.Outcome, error) {
	// Each run records its candidate with the defaults it resolved; Select
	// returns the chosen candidate's run, whose record this is. (Validation
	// runs go in parallel: they must not share a variable.)
	run := func(d *classify.Data, train, test []int, c rlppCandidate) (*classify.Outcome, error) {
		o, c, err := m.run(ctx, s, d, train, test, c)
		if err != nil {
			return nil, err
		}
		o.Params = map[string]float64{"sigma": c.sigma, "dims": float64(c.dims), "neighbours": float64(c.neighbours), "heat": c.heat}
		return o, nil
	}
	o, _, d, err := m.choose(ctx, s, run, run)
	if err != nil {
		return nil, err
	}
	o.Params["ridge"] = d.Ridge
	return o, nil
}

// run fits RLPP on train (a subset of the split's training set) of the
// split's variant d and classifies test by nearest neighbour in the
// projection. It returns the candidate with the defaults it resolved.
func (m *rlppMethod) run(ctx context.Context, s *classify.Split, d *classify.Data, train, test []int, c rlppCandidate) (*classify.Outcome, rlppCandidate, error) {
	workers := s.Workers
	div, f, err := m.kernel.pairs(s, d, c.sigma)
	if err != nil {
		return nil, c, err
	}
	labels := classify.Pick(d.Labels, train)
	if c.dims == 0 {
		c.dims = max(1, len(classify.ByClass(d.Labels, train))-1)
	}
	c.neighbours = cmp.Or(c.neighbours, lpp.DefaultNeighbours)
	ktr, err := div.Block(ctx, train, train, f)
	if err != nil {
		return nil, c, err
	}
	p, err := lpp.Fit(ctx, mat.NewSymDense(len(train), ktr.RawMatrix().Data), labels, lpp.Options{
		Dims: c.dims, Supervised: true, Center: true, Neighbours: c.neighbours, HeatT: c.heat,
	})
	if err != nil {
		return nil, c, fmt.Errorf("rlpp (sigma %v): %w", c.sigma, err)
	}
	c.heat = p.Heat()
	ytr, err := p.Transform(ktr)
	if err != nil {
		return nil, c, err
	}
	yte := mat.NewDense(len(test), c.dims, nil)
	err = classify.ForBlocks(ctx, div, test, train, f, &m.blocks, func(off int, k *mat.Dense) error {
		y, err := p.Transform(k)
		if err != nil {
			return err
		}
		n, _ := y.Dims()
		yte.Slice(off, off+n, 0, c.dims).(*mat.Dense).Copy(y)
		return nil
	})
	if err != nil {
		return nil, c, err
	}
	o, err := nearest(ctx, d.Labels, train, test, workers, false, func(_, q, a int) (float64, error) {
		u, v := yte.RawRowView(q), ytr.RawRowView(a)
		var s float64
		for k := range u {
			s += (u[k] - v[k]) * (u[k] - v[k])
		}
		return s, nil
	})
	return o, c, err
}
