package experiment

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/covpipe/covpipe/rsr"
	"github.com/covpipe/covpipe/spd"
)

// Method is a classifier compared in an experiment. Adding a method means
// adding a type that implements it and a constructor in methodTypes; the
// engine needs no other change.
type Method interface {
	// Classify predicts the labels of split.Test from split.Train.
	Classify(split *Split) (*Outcome, error)
}

// dimChecker is implemented by methods whose parameters depend on the
// matrix size d (the Stein kernel's σ, Theorem 1), so that configs fail
// before any computation.
type dimChecker interface {
	CheckDim(d int) error
}

// methodTypes maps a config's method type to its constructor, which
// validates the parameters that apply to it and rejects the rest.
var methodTypes = map[string]func(MethodConfig) (Method, error){
	"rsr": newRSR,
}

// MethodTypes lists the method types a config may use.
func MethodTypes() []string {
	names := make([]string, 0, len(methodTypes))
	for n := range methodTypes {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// NewMethod returns the method a config describes.
func NewMethod(c MethodConfig) (Method, error) {
	ctor, ok := methodTypes[c.Type]
	if !ok {
		return nil, fmt.Errorf("unknown method type %q (known: %s)", c.Type, strings.Join(MethodTypes(), ", "))
	}
	m, err := ctor(c)
	if err != nil {
		return nil, fmt.Errorf("method %q: %w", c.Name, err)
	}
	return m, nil
}

// rsrMethod is the paper's RSR: SRC with kernel Lasso codes in the RKHS of
// the Stein kernel (Sections 3–3.1, Eqns. 4–8).
type rsrMethod struct {
	kernel spd.SteinKernel
	opts   rsr.ClassifierOptions
}

func newRSR(c MethodConfig) (Method, error) {
	if err := checkFloats("sigma", c.Sigma, true, 0, false); err != nil {
		return nil, err
	}
	if err := checkFloats("lambda", c.Lambda, true, 0, true); err != nil {
		return nil, err
	}
	if len(c.Sigma) > 1 || len(c.Lambda) > 1 {
		return nil, errors.New("lists of sigma or lambda candidates need parameter selection, which this protocol does not offer: give one value each")
	}
	if c.Tolerance < 0 || c.Tolerance >= 1 {
		return nil, fmt.Errorf("tolerance = %v, want in (0, 1) (default 1e-6)", c.Tolerance)
	}
	rule := rsr.MinResidual
	if c.Rule != "" {
		var err error
		if rule, err = rsr.ParseRule(c.Rule); err != nil {
			return nil, err
		}
	}
	if err := (spd.SteinKernel{Sigma: c.Sigma[0], Pseudo: c.PseudoKernel}).Check(1); err != nil {
		return nil, err
	}
	return &rsrMethod{
		kernel: spd.SteinKernel{Sigma: c.Sigma[0], Pseudo: c.PseudoKernel},
		opts: rsr.ClassifierOptions{Rule: rule, Lasso: rsr.LassoOptions{
			Lambda: c.Lambda[0], Tol: c.Tolerance, NonNegative: c.NonNegative,
		}},
	}, nil
}

func (m *rsrMethod) CheckDim(d int) error { return m.kernel.Check(d) }

func (m *rsrMethod) Classify(s *Split) (*Outcome, error) {
	if err := m.kernel.Check(s.Data.Set.Dim()); err != nil {
		return nil, err
	}
	div, err := s.Data.SteinDivergences()
	if err != nil {
		return nil, err
	}
	k := m.kernel.FromDivergence
	K := gather(div, s.Train, s.Train, k)
	Kx := gather(div, s.Test, s.Train, k)
	labels := pick(s.Data.Labels, s.Train)
	c, err := rsr.NewClassifier(K, labels, m.opts)
	if err != nil {
		return nil, err
	}
	kxx := make([]float64, len(s.Test))
	for i := range kxx {
		kxx[i] = 1 // exp(−σ S(X, X)), S(X, X) = 0
	}
	ds, err := c.ClassifyBatch(Kx, kxx, s.Workers)
	if err != nil {
		return nil, err
	}
	out := &Outcome{
		Pred:    make([]int, len(ds)),
		Ranking: make([][]int, len(ds)),
		Params:  map[string]float64{"sigma": m.kernel.Sigma, "lambda": m.opts.Lasso.Lambda},
	}
	for i, d := range ds {
		out.Pred[i] = d.Label
		out.Ranking[i] = c.Rank(d)
		if d.Degenerate {
			out.Degenerate++
		}
		if !d.Converged {
			out.Unconverged++
		}
	}
	return out, nil
}

func pick(labels, idx []int) []int {
	out := make([]int, len(idx))
	for i, j := range idx {
		out[i] = labels[j]
	}
	return out
}
