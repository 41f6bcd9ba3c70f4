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
	Sigma param.Floats `yaml:"sigma" json:"sigma" help:"the kernel's σ (Theorem 1 for the Stein kernel); a list gives candidates" default:"(d−1)/2 for d×d matrices (0.5 for d ≤ 2) with the Stein kernel"`
	// Dims is the projection dimension p, a positive integer; a list gives
	// candidates. Default: the number of training classes − 1 (at least
	// 1), the dimension of the supervised graph's near-null space once the
	// constant is centred away, as for LDA.
	Dims param.Floats `yaml:"dims,omitempty" json:"dims,omitempty" help:"the projection's dimension, a positive integer; a list gives candidates" default:"the training classes − 1"`
	// Neighbours is the k of the supervised k-nearest-neighbour graph (own
	// class only), a positive integer; a list gives candidates. Default
	// lpp.DefaultNeighbours (5); a k at least a class's size joins all of
	// its members.
	Neighbours param.Floats `yaml:"neighbours,omitempty" json:"neighbours,omitempty" help:"k of the supervised k-nearest-neighbour graph; a list gives candidates" default:"5"`
	// Heat is the heat-kernel t of the graph weights exp(−‖φ_i − φ_j‖²/t);
	// a list gives candidates. Default: the mean squared feature-space
	// distance over the graph's edges.
	Heat param.Floats `yaml:"heat,omitempty" json:"heat,omitempty" help:"t of the graph's heat-kernel weights exp(−‖φ_i − φ_j‖²/t); a list gives candidates" default:"the mean squared distance over the graph's edges"`
	// PseudoKernel allows a σ outside Theorem 1's set.
	PseudoKernel bool `yaml:"pseudo_kernel,omitempty" json:"pseudo_kernel,omitempty" help:"allow a σ outside Theorem 1's set (a pseudo-kernel)"`
	// Kernel is stein (default) or log-euclidean (see kernelChoice).
	Kernel string `yaml:"kernel,omitempty" json:"kernel,omitempty" help:"the kernel: stein (Eqn. 5) or log-euclidean, exp(−σ‖log X − log Y‖²)" default:"stein"`
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

// String says the candidate as a cross-validation table names it,
// leaving out the values that default (0) to what the fit
// works out.
func (c rlppCandidate) String() string {
	s := fmt.Sprintf("sigma=%g", c.sigma)
	if c.dims > 0 {
		s += fmt.Sprintf(" dims=%d", c.dims)
	}
	if c.neighbours > 0 {
		s += fmt.Sprintf(" neighbours=%d", c.neighbours)
	}
	if c.heat > 0 {
		s += fmt.Sprintf(" heat=%g", c.heat)
	}
	return s
}

func newRLPP(n *yaml.Node) (classify.Method, error) {
	m := &rlppMethod{}
	if err := decode(n, &m.p, "rlpp"); err != nil {
		return nil, err
	}
	var err error
	if m.kernel, err = kernelKeys(&m.p.Kernel, m.p.Sigma, m.p.PseudoKernel); err != nil {
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
	m.cross = func(sigmas []float64) (cands []rlppCandidate) {
		for _, s := range sigmas {
			for _, p := range dims {
				for _, k := range ks {
					for _, t := range heats {
						cands = append(cands, rlppCandidate{s, p, k, t})
					}
				}
			}
		}
		return cands
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
// and the kernel's pairwise quantity. The class probabilities are the
// softmax of −d² over the classes' nearest members in the projection
// (nearest).
func (m *rlppMethod) Spec() classify.Spec {
	s := m.spec(m.p)
	s.Probabilities = true
	return s
}

func (m *rlppMethod) Fit(ctx context.Context, t *classify.Train) (classify.Fitted, error) {
	fit := func(d *classify.Data, train []int, c rlppCandidate) (predictor, error) {
		return m.fit(ctx, t, d, train, c)
	}
	c, d, err := m.choose(ctx, t, fit)
	if err != nil {
		return nil, err
	}
	f, err := m.fit(ctx, t, d, t.Items, c.Params)
	if err != nil {
		return nil, err
	}
	// The record holds the candidate with the defaults the fit resolved.
	r := f.c
	return &fitted{p: f, variant: c.Variant, chosen: map[string]float64{"sigma": r.sigma, "dims": float64(r.dims), "neighbours": float64(r.neighbours), "heat": r.heat, "ridge": d.Ridge}}, nil
}

// rlppFit is RLPP fitted on training items: the projection and the
// projected training items, which test items are nearest-neighbour
// classified among.
type rlppFit struct {
	m     *rlppMethod
	t     *classify.Train
	f     classify.Map
	given rlppCandidate // as fit was given it
	c     rlppCandidate // with the defaults resolved
	train []int
	p     *lpp.Projection
	ytr   *mat.Dense
}

// fit fits RLPP on train (a subset of t's training items) of the ridge
// variant d, resolving the candidate's defaults.
func (m *rlppMethod) fit(ctx context.Context, t *classify.Train, d *classify.Data, train []int, c rlppCandidate) (*rlppFit, error) {
	given := c
	div, f, err := m.kernel.pairs(t, d, c.sigma)
	if err != nil {
		return nil, err
	}
	labels := classify.Pick(d.Labels, train)
	if c.dims == 0 {
		c.dims = max(1, len(classify.ByClass(d.Labels, train))-1)
	}
	c.neighbours = cmp.Or(c.neighbours, lpp.DefaultNeighbours)
	ktr, err := div.Block(ctx, train, train, f)
	if err != nil {
		return nil, err
	}
	p, err := lpp.Fit(ctx, mat.NewSymDense(len(train), ktr.RawMatrix().Data), labels, lpp.Options{
		Dims: c.dims, Supervised: true, Center: true, Neighbours: c.neighbours, HeatT: c.heat,
	})
	if err != nil {
		return nil, fmt.Errorf("rlpp (sigma %v): %w", c.sigma, err)
	}
	c.heat = p.Heat()
	ytr, err := p.Transform(ktr)
	if err != nil {
		return nil, err
	}
	return &rlppFit{m: m, t: t, f: f, given: given, c: c, train: train, p: p, ytr: ytr}, nil
}

// predict classifies test by nearest neighbour in the projection, the
// class probabilities the softmax of minus the squared Euclidean
// distances of the classes' nearest members there.
func (r *rlppFit) predict(ctx context.Context, d *classify.Data, test []int, a answer) (*classify.Outcome, error) {
	div, err := r.t.Pairs(d, r.m.kernel.kernel.Quantity)
	if err != nil {
		return nil, err
	}
	dims := r.c.dims
	yte := mat.NewDense(len(test), dims, nil)
	err = classify.ForBlocks(ctx, div, test, r.train, r.f, &r.m.blocks, func(off int, k *mat.Dense) error {
		y, err := r.p.Transform(k)
		if err != nil {
			return err
		}
		n, _ := y.Dims()
		yte.Slice(off, off+n, 0, dims).(*mat.Dense).Copy(y)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return nearest(ctx, d.Labels, r.train, test, a.workers, false, identitySquares(a), func(_, q, j int, _ float64) (float64, error) {
		u, v := yte.RawRowView(q), r.ytr.RawRowView(j)
		var s float64
		for k := range u {
			s += (u[k] - v[k]) * (u[k] - v[k])
		}
		return s, nil
	})
}

// rlppRecord is the candidate that fitted RLPP, as its saved state
// records it: a fit on the same training items with it, whose
// eigenproblem is deterministic, restores the projection bit for bit.
type rlppRecord struct {
	Sigma      float64 `json:"sigma"`
	Dims       int     `json:"dims"`
	Neighbours int     `json:"neighbours"`
	Heat       float64 `json:"heat"`
}

func (r *rlppFit) save(context.Context, *classify.State) (any, error) {
	g := r.given
	return rlppRecord{g.sigma, g.dims, g.neighbours, g.heat}, nil
}

func (m *rlppMethod) Load(ctx context.Context, st *classify.State, t *classify.Train) (classify.Fitted, error) {
	return restore(st, func(r rlppRecord) (predictor, error) {
		if r.Dims < 0 || r.Neighbours < 0 || r.Heat < 0 {
			return nil, fmt.Errorf("state record: dims %d, neighbours %d, heat %v: want >= 0", r.Dims, r.Neighbours, r.Heat)
		}
		return m.fit(ctx, t, t.Data, t.Items, rlppCandidate{r.Sigma, r.Dims, r.Neighbours, r.Heat})
	})
}
