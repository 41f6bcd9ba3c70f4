package method

import (
	"context"
	"fmt"
	"math"
	"weak"

	"github.com/covpipe/covpipe/classify"
	"github.com/covpipe/covpipe/internal/hashkey"
	"github.com/covpipe/covpipe/internal/once"
	"github.com/covpipe/covpipe/param"
	"github.com/covpipe/covpipe/svm"
	"go.yaml.in/yaml/v3"
	"gonum.org/v1/gonum/mat"
)

// steinSVMParams are the parameters of method type stein-svm.
type steinSVMParams struct {
	// Sigma is the Stein kernel parameter σ (Eqn. 5), checked against
	// Theorem 1 unless PseudoKernel; a list gives candidates.
	Sigma param.Floats `yaml:"sigma" json:"sigma"`
	// C is the SVM's box constraint, C > 0; a list gives candidates.
	C param.Floats `yaml:"c" json:"c"`
	// Tolerance is the SMO stopping tolerance ε on the maximal violating
	// pair (default svm.DefaultTol, 1e-3).
	Tolerance float64 `yaml:"tolerance,omitempty" json:"tolerance,omitempty"`
	// PseudoKernel allows a σ outside Theorem 1's set.
	PseudoKernel bool `yaml:"pseudo_kernel,omitempty" json:"pseudo_kernel,omitempty"`
	// Kernel is stein (default) or log-euclidean (see kernelChoice).
	Kernel string `yaml:"kernel,omitempty" json:"kernel,omitempty"`
}

// steinSVM is a one-vs-one C-SVC on the Stein kernel's Gram matrix
// (package svm): the large-margin classifier the paper names as its future
// direction (Section 6), on the Stein divergences that the Data computes
// once. Classes rank by their one-vs-one votes, then by their summed
// decision values.
type steinSVM struct {
	kernelMethod[steinSVMCandidate]
	blocks   classify.Scratch // test blocks of the method's runs
	machines svm.Workspace    // buffers of the binary machines of its runs
	grams    once.Cache[svmGramKey, *mat.SymDense]
	p        steinSVMParams
}

// svmGramKey names a training Gram matrix of a kernel whose Pairs keep
// no training kernel matrix (classify.TrainKernel: the log-Euclidean
// kernel): the candidates that differ only in C share it, within a
// cross-validation fold and on the whole training set, instead of each
// applying the kernel to the same quantities.
type svmGramKey struct {
	data  weak.Pointer[classify.Data]
	train uint64 // hashkey.Ints of the training items
	n     int
	sigma float64
}

// svmGramCacheSize bounds the Gram matrices a steinSVM keeps: the folds and
// final training sets of the splits in progress.
const svmGramCacheSize = 8

type steinSVMCandidate struct {
	sigma, c float64
}

func newSteinSVM(n *yaml.Node) (classify.Method, error) {
	m := &steinSVM{grams: once.Cache[svmGramKey, *mat.SymDense]{Max: svmGramCacheSize}}
	if err := decode(n, &m.p, "stein-svm"); err != nil {
		return nil, err
	}
	var err error
	if m.kernel, err = resolveKernel(&m.p.Kernel, m.p.Sigma, m.p.PseudoKernel); err != nil {
		return nil, err
	}
	if err := m.p.C.Check("c", true, 0, false); err != nil {
		return nil, err
	}
	if t := m.p.Tolerance; t < 0 || t >= 1 {
		return nil, fmt.Errorf("tolerance = %v, want in (0, 1) (default %g)", t, svm.DefaultTol)
	}
	for _, s := range m.p.Sigma {
		for _, c := range m.p.C {
			m.cands = append(m.cands, steinSVMCandidate{s, c})
		}
	}
	return m, nil
}

// Spec declares the parameter candidates, the σ check against Theorem 1
// and the kernel's pairwise quantity.
func (m *steinSVM) Spec() classify.Spec {
	s := m.spec(m.p)
	s.Costs = true // 1 − p_c of the calibrated final run
	return s
}

func (m *steinSVM) Classify(ctx context.Context, s *classify.Split) (*classify.Outcome, error) {
	o, c, d, err := m.choose(ctx, s, func(d *classify.Data, train, test []int, p steinSVMCandidate) (*classify.Outcome, error) {
		return m.run(ctx, s, d, train, test, p, false)
	}, func(d *classify.Data, train, test []int, p steinSVMCandidate) (*classify.Outcome, error) {
		return m.run(ctx, s, d, train, test, p, true)
	})
	if err != nil {
		return nil, err
	}
	o.Params = map[string]float64{"sigma": c.Params.sigma, "c": c.Params.c, "ridge": d.Ridge}
	return o, nil
}

// run trains on train with one candidate's σ and C and classifies test;
// with calibrate (the final run, not the cross-validation folds) it also
// calibrates the model (svm.Options.Probability, its folds drawn from the
// split's seed) and scores each test item by its class probabilities.
// Every test item's decision uses every binary machine, so when any
// machine stopped at its iteration cap all test items count as
// unconverged.
func (m *steinSVM) run(ctx context.Context, s *classify.Split, d *classify.Data, train, test []int, p steinSVMCandidate, calibrate bool) (*classify.Outcome, error) {
	workers := s.Workers
	div, k, err := m.kernel.pairs(s, d, p.sigma)
	if err != nil {
		return nil, err
	}
	labels := classify.Pick(d.Labels, train)
	opts := svm.Options{C: p.c, Tol: m.p.Tolerance, Workers: workers, Workspace: &m.machines, Probability: calibrate, Seed: s.Seed}
	// The Stein kernel's folds and final training set are items of the
	// split's training kernel matrix, which the Pairs keeps: train on it.
	gram, items, err := classify.TrainKernel(ctx, div, train, k)
	if err == nil && gram == nil {
		key := svmGramKey{weak.Make(d), hashkey.Ints(train), len(train), p.sigma}
		gram, err = m.grams.Do(key, func() (*mat.SymDense, error) {
			g, err := div.Block(ctx, train, train, k)
			if err != nil {
				return nil, err
			}
			return mat.NewSymDense(len(train), g.RawMatrix().Data), nil
		})
	}
	if err != nil {
		return nil, err
	}
	model, err := svm.FitOn(ctx, gram, items, labels, opts)
	if err != nil {
		return nil, fmt.Errorf("stein-svm (sigma = %v, c = %v): %w", p.sigma, p.c, err)
	}
	out := &classify.Outcome{Pred: make([]int, len(test)), Ranking: make([][]int, len(test))}
	if calibrate {
		out.Scores = make([]classify.ItemScore, len(test))
		if s.Costs {
			out.Costs, out.CostClasses = make([][]float64, len(test)), model.Classes
		}
	}
	err = classify.ForBlocks(ctx, div, test, train, k, &m.blocks, func(off int, kb *mat.Dense) error {
		ds, err := model.PredictBatch(ctx, kb)
		if err != nil {
			return err
		}
		for q, dec := range ds {
			out.Pred[off+q] = dec.Label
			out.Ranking[off+q] = model.Rank(dec)
			if calibrate {
				out.Scores[off+q] = classify.RankedScore(out.Ranking[off+q], model.Classes, dec.Prob, math.NaN())
				if out.Costs != nil {
					c := make([]float64, len(dec.Prob))
					for k, p := range dec.Prob {
						c[k] = 1 - p
					}
					out.Costs[off+q] = c
				}
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("stein-svm (sigma = %v, c = %v): %w", p.sigma, p.c, err)
	}
	if model.Unconverged() > 0 {
		out.Unconverged = len(test)
	}
	return out, nil
}
