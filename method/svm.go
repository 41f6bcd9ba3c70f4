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
	Sigma param.Floats `yaml:"sigma" json:"sigma" help:"the kernel's σ (Theorem 1 for the Stein kernel); a list gives candidates" default:"(d−1)/2 for d×d matrices (0.5 for d ≤ 2) with the Stein kernel"`
	// C is the SVM's box constraint, C > 0; a list gives candidates.
	C param.Floats `yaml:"c" json:"c" help:"the SVM's box constraint C > 0; a list gives candidates"`
	// Tolerance is the SMO stopping tolerance ε on the maximal violating
	// pair (default svm.DefaultTol, 1e-3).
	Tolerance float64 `yaml:"tolerance,omitempty" json:"tolerance,omitempty" help:"SMO's stopping tolerance on the maximal violating pair" default:"1e-3"`
	// PseudoKernel allows a σ outside Theorem 1's set.
	PseudoKernel bool `yaml:"pseudo_kernel,omitempty" json:"pseudo_kernel,omitempty" help:"allow a σ outside Theorem 1's set (a pseudo-kernel)"`
	// Kernel is stein (default) or log-euclidean (see kernelChoice).
	Kernel string `yaml:"kernel,omitempty" json:"kernel,omitempty" help:"the kernel: stein (Eqn. 5) or log-euclidean, exp(−σ‖log X − log Y‖²)" default:"stein"`
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

// String says the candidate as a cross-validation table names it.
func (c steinSVMCandidate) String() string { return fmt.Sprintf("sigma=%g c=%g", c.sigma, c.c) }

func newSteinSVM(n *yaml.Node) (classify.Method, error) {
	m := &steinSVM{grams: once.Cache[svmGramKey, *mat.SymDense]{Max: svmGramCacheSize}}
	if err := decode(n, &m.p, "stein-svm"); err != nil {
		return nil, err
	}
	var err error
	if m.kernel, err = kernelKeys(&m.p.Kernel, m.p.Sigma, m.p.PseudoKernel, required{"c", len(m.p.C) > 0}); err != nil {
		return nil, err
	}
	if err := m.p.C.Check("c", true, 0, false); err != nil {
		return nil, err
	}
	if t := m.p.Tolerance; t < 0 || t >= 1 {
		return nil, fmt.Errorf("tolerance = %v, want in (0, 1) (default %g)", t, svm.DefaultTol)
	}
	m.cross = func(sigmas []float64) (cands []steinSVMCandidate) {
		for _, s := range sigmas {
			for _, c := range m.p.C {
				cands = append(cands, steinSVMCandidate{s, c})
			}
		}
		return cands
	}
	return m, nil
}

// Spec declares the parameter candidates, the σ check against Theorem 1
// and the kernel's pairwise quantity.
func (m *steinSVM) Spec() classify.Spec {
	s := m.spec(m.p)
	s.Costs = true         // 1 − p_c of the calibrated final run
	s.Probabilities = true // p_c, svm.Decision.Prob
	return s
}

func (m *steinSVM) Fit(ctx context.Context, t *classify.Train) (classify.Fitted, error) {
	c, d, err := m.choose(ctx, t, func(d *classify.Data, train []int, p steinSVMCandidate) (predictor, error) {
		return m.fit(ctx, t, d, train, p, false)
	})
	if err != nil {
		return nil, err
	}
	f, err := m.fit(ctx, t, d, t.Items, c.Params, true)
	if err != nil {
		return nil, err
	}
	return &fitted{p: f, variant: c.Variant, chosen: map[string]float64{"sigma": c.Params.sigma, "c": c.Params.c, "ridge": d.Ridge}}, nil
}

// svmFit is the SVM trained on training items with one candidate's σ
// and C.
type svmFit struct {
	m         *steinSVM
	t         *classify.Train
	p         steinSVMCandidate
	f         classify.Map
	train     []int
	model     *svm.Model
	calibrate bool
}

// fit trains on train with one candidate's σ and C; with calibrate (the
// final fit, not the cross-validation folds) it also calibrates the
// model (svm.Options.Probability, its folds drawn from t's seed), so
// that predictions score each item by its class probabilities.
func (m *steinSVM) fit(ctx context.Context, t *classify.Train, d *classify.Data, train []int, p steinSVMCandidate, calibrate bool) (*svmFit, error) {
	div, k, err := m.kernel.pairs(t, d, p.sigma)
	if err != nil {
		return nil, err
	}
	labels := classify.Pick(d.Labels, train)
	opts := svm.Options{C: p.c, Tol: m.p.Tolerance, Workers: t.Workers, Workspace: &m.machines, Probability: calibrate, Seed: t.Seed}
	// The Stein kernel's folds and final training set are items of the
	// training kernel matrix, which the Pairs keeps: train on it.
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
	return &svmFit{m: m, t: t, p: p, f: k, train: train, model: model, calibrate: calibrate}, nil
}

// predict classifies test. Every item's decision uses every binary
// machine, so when any machine stopped at its iteration cap all items
// count as unconverged.
func (f *svmFit) predict(ctx context.Context, d *classify.Data, test []int, a answer) (*classify.Outcome, error) {
	div, err := f.t.Pairs(d, f.m.kernel.kernel.Quantity)
	if err != nil {
		return nil, err
	}
	model, p := f.model, f.p
	out := &classify.Outcome{Pred: make([]int, len(test)), Ranking: make([][]int, len(test))}
	if f.calibrate {
		out.Scores = make([]classify.ItemScore, len(test))
		if a.costs {
			out.Costs, out.CostClasses = make([][]float64, len(test)), model.Classes
		}
		if a.probs {
			out.Probabilities, out.CostClasses = classify.Rows(len(test), len(model.Classes)), model.Classes
		}
	}
	err = classify.ForBlocks(ctx, div, test, f.train, f.f, a.blocks(&f.m.blocks), func(off int, kb *mat.Dense) error {
		ds, err := model.PredictBatch(ctx, kb)
		if err != nil {
			return err
		}
		for q, dec := range ds {
			out.Pred[off+q] = dec.Label
			out.Ranking[off+q] = model.Rank(dec)
			if f.calibrate {
				out.Scores[off+q] = classify.RankedScore(out.Ranking[off+q], model.Classes, dec.Prob, math.NaN())
				if out.Costs != nil {
					c := make([]float64, len(dec.Prob))
					for k, p := range dec.Prob {
						c[k] = 1 - p
					}
					out.Costs[off+q] = c
				}
				if out.Probabilities != nil {
					copy(out.Probabilities[off+q], dec.Prob)
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

// svmRecord is a calibrated SVM as its saved state records it: the
// candidate and the machines over the training items.
type svmRecord struct {
	Sigma    float64      `json:"sigma"`
	C        float64      `json:"c"`
	Classes  []int        `json:"classes"`
	Machines []svm.Binary `json:"machines"`
}

func (f *svmFit) save(context.Context, *classify.State) (any, error) {
	if !f.calibrate {
		return nil, fmt.Errorf("stein-svm: a cross-validation fold's SVM is not saved")
	}
	return svmRecord{f.p.sigma, f.p.c, f.model.Classes, f.model.Machines}, nil
}

func (m *steinSVM) Load(_ context.Context, st *classify.State, t *classify.Train) (classify.Fitted, error) {
	return restore(st, func(r svmRecord) (predictor, error) {
		k, err := m.kernel.kernelMap(t.Data, r.Sigma)
		if err != nil {
			return nil, err
		}
		if !(r.C > 0) || math.IsInf(r.C, 0) {
			return nil, fmt.Errorf("state record: c = %v, want finite and > 0", r.C)
		}
		model, err := svm.Restore(r.Classes, r.Machines, len(t.Items), svm.Options{Probability: true, Workers: t.Workers})
		if err != nil {
			return nil, err
		}
		return &svmFit{m: m, t: t, p: steinSVMCandidate{r.Sigma, r.C}, f: k, train: t.Items, model: model, calibrate: true}, nil
	})
}
