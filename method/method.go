// Package method holds covpipe's methods, one file each, and the table of
// method types by name (Types): estimators of the contract of package
// classify, which fit on training items, predict any others, save their
// state and are restored from it.
//
// A method type decodes its own parameters from the YAML mapping of its
// entry under `methods:` (strictly: an unknown key is an error naming the
// key, its line and the keys the method takes), checks them, resolves
// them into typed options once, and returns a classify.Method, whose Spec
// declares what it needs from the engine. Its parameters struct declares
// each parameter once (Type.Parameters): configs, covpipe fit's flags and
// their help come from it. Parameters of type param.Floats may be lists,
// which classify.Choose chooses among by cross-validation inside each
// training set. Adding a method is one new file in this package and one
// line in Types; runs, models and the CLI need no change.
package method

import (
	"context"
	"errors"
	"fmt"
	"sort"

	"github.com/covpipe/covpipe/classify"
	"github.com/covpipe/covpipe/internal/strictyaml"
	"github.com/covpipe/covpipe/param"
	"github.com/covpipe/covpipe/rsr"
	"go.yaml.in/yaml/v3"
	"gonum.org/v1/gonum/mat"
)

// Type is a method type: a one-line description for listings, the
// constructor that decodes a config entry's parameters (the mapping
// without its name and type keys), the zero value of the parameters
// struct it decodes them into, which declares them (Parameters), and an
// example of its parameters.
type Type struct {
	Doc    string
	New    func(params *yaml.Node) (classify.Method, error)
	Params any
	// Example is a YAML mapping of parameters that the type accepts and
	// that suit small problems (3×3 matrices, a few dozen items, twenty
	// features a vector), with candidate lists where the type takes them
	// so that a fit chooses. The registry-wide tests fit every type with
	// it (contract, save and load, models, covpipe fit), so that a new
	// type is tested by its registry line alone.
	Example string
}

// Parameters returns the parameters that the type takes, as its
// parameters struct declares them (param.Declare): the config keys, from
// which covpipe fit makes its flags, with their help, kinds and defaults.
func (t Type) Parameters() []param.Decl { return param.Declare(t.Params) }

// Types returns the method types by the name configs give them.
func Types() map[string]Type {
	return map[string]Type{
		"rsr":           {"the paper's Riemannian sparse representation with the Stein kernel (Eqns. 5–9)", newRSR, rsrParams{}, "{sigma: [0.5, 1], lambda_ratio: [0.05, 0.2]}"},
		"logE-SR":       {"log-Euclidean sparse representation (Guo et al. 2010; Yuan et al. 2010)", newLogESR, sparse{}, "{lambda: [0.01, 0.1]}"},
		"mdm":           {"minimum distance to the class means under a metric (metric: airm, log-euclidean, stein; Barachant et al., IEEE TBME 2012)", newMDM, mdmParams{}, "{metric: airm}"},
		"tangent-space": {"multinomial logistic regression on the tangent-space vectors at the training items' Karcher mean (reference: mean) or at the identity (Barachant et al., IEEE TBME 2012; pyRiemann's TangentSpace with LogisticRegression)", newTangentSpace, tangentParams{}, "{c: [0.1, 10]}"},
		"fgmdm":         {"minimum distance to the class means (AIRM) after geodesic filtering: Fisher LDA with Ledoit–Wolf shrinkage on the tangent vectors at the training items' Karcher mean, projected onto the discriminant subspace and mapped back (Barachant et al., LVA/ICA 2010; pyRiemann's FgMDM)", newFgMDM, fgmdmParams{}, "{reference: mean}"},
		"nn":            {"nearest neighbour under a metric of package spd (metric: airm, stein, ...)", newNN, nnParams{}, "{metric: stein}"},
		"rlpp":          {"Riemannian locality preserving projection on the Stein kernel (Harandi et al., WACV 2012), nearest neighbour in the projection", newRLPP, rlppParams{}, "{sigma: [0.5, 1]}"},
		"stein-svm":     {"one-vs-one C-SVM on the Stein kernel's Gram matrix (SMO with second-order working sets; sigma and c by cross-validation; the paper's future direction)", newSteinSVM, steinSVMParams{}, "{sigma: 1, c: [1, 10]}"},
		"tsc":           {"tensor sparse coding: MAXDET codes under the Burg divergence, class-wise Burg residuals (Sivalingam et al., ECCV 2010)", newTSC, tscParams{}, "{lambda: [0.01, 0.1]}"},
		"pca-src":       {"sparse representation of PCA-projected pixel intensities (Wright et al., PAMI 2009)", newPCASRC, pcaParams{}, "{dims: 5, lambda: [0.01, 0.1]}"},
		"gsr":           {"sparse representation of PCA-projected, downsampled Gabor magnitudes (Yang and Zhang, ECCV 2010)", newGSR, pcaParams{}, "{dims: 5, lambda_ratio: 0.1}"},
		"sdalf":         {"symmetry-driven accumulation of local features: weighted HSV histograms and MSCR blobs of the images, nearest identity (Farenzena et al., CVPR 2010)", newSDALF, sdalfParams{}, "{mask: border, step: 1}"},
		"hpe":           {"histogram plus epitome: HSV histograms of torso and legs accumulated over an identity's images, generic and local epitomes of their patches, nearest identity (Bazzani et al., ICPR 2010)", newHPE, hpeParams{}, "{mask: border, step: 1, locals: 3}"},
		"codes":         {"sparse codes against a random, k-means or learned dictionary as features, nearest neighbour (Section 6.2)", newCodes, codesParams{}, "{dictionary: kmeans, sigma: 1, lambda_ratio: 0.05}"},
	}
}

// Names lists the method type names, sorted.
func Names() []string {
	var names []string
	for n := range Types() {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// decode decodes a method's parameters strictly into p.
func decode(n *yaml.Node, p any, typ string) error {
	if n == nil {
		return nil
	}
	return strictyaml.Decode(n, p, "method type "+typ)
}

// sparse holds the sparse-coding parameters that rsr and logE-SR share.
type sparse struct {
	// Lambda is the sparsity weight λ of Eqn. 7 on the paper's scale; a
	// list gives candidates.
	Lambda param.Floats `yaml:"lambda,omitempty" json:"lambda,omitempty" help:"the sparsity weight λ of Eqn. 7 on the paper's scale; a list gives candidates"`
	// LambdaRatio is the weight relative to each query, in (0, 1):
	// λ(x) = ratio·λ_max(x) (rsr.LambdaMax). Give Lambda or LambdaRatio;
	// neither gives LambdaRatio DefaultLambdaRatio.
	LambdaRatio param.Floats `yaml:"lambda_ratio,omitempty" json:"lambda_ratio,omitempty" help:"the sparsity weight relative to each query, in (0, 1), instead of lambda; a list gives candidates" default:"0.1 when lambda is not given"`
	// Tolerance is the relative KKT tolerance of the Lasso solver.
	Tolerance float64 `yaml:"tolerance,omitempty" json:"tolerance,omitempty" help:"the Lasso solver's relative KKT tolerance" default:"1e-6"`
	// Rule is the SRC decision rule: residual (Eqn. 9, default), sum or max.
	Rule string `yaml:"rule,omitempty" json:"rule,omitempty" help:"the SRC decision rule: residual (Eqn. 9), sum or max" default:"residual"`
	// NonNegative constrains sparse codes to v >= 0.
	NonNegative bool `yaml:"nonnegative,omitempty" json:"nonnegative,omitempty" help:"constrain the sparse codes to v >= 0"`
}

// sparseCoding is sparse resolved: the classifier options without a
// weight, and the weight candidates.
type sparseCoding struct {
	opts    rsr.ClassifierOptions
	weights []weight
}

// DefaultLambdaRatio is the sparsity weight relative to each query of
// the methods that take lambda or lambda_ratio for their SRC (rsr,
// logE-SR, pca-src, gsr) when neither is given: the middle of the
// candidates that the shipped configs choose among, and the value the
// scaling config fixes.
const DefaultLambdaRatio = 0.1

// resolve checks the sparse-coding parameters (the values by package rsr)
// and resolves them, setting LambdaRatio to its default when no weight is
// given.
func (c *sparse) resolve() (sparseCoding, error) {
	if len(c.Lambda) == 0 && len(c.LambdaRatio) == 0 {
		c.LambdaRatio = param.Floats{DefaultLambdaRatio}
	}
	ws, err := weights(c.Lambda, c.LambdaRatio)
	if err != nil {
		return sparseCoding{}, err
	}
	o := rsr.ClassifierOptions{Lasso: rsr.LassoOptions{Tol: c.Tolerance, NonNegative: c.NonNegative}}
	if err := o.Lasso.Validate(); err != nil {
		return sparseCoding{}, err
	}
	if c.Rule != "" {
		if o.Rule, err = rsr.ParseRule(c.Rule); err != nil {
			return sparseCoding{}, err
		}
	}
	return sparseCoding{o, ws}, nil
}

// weights resolves the sparsity weight keys, lambda (absolute) and
// lambda_ratio (relative to each query), of which a method takes one:
// each a list of distinct candidates whose values package rsr checks.
func weights(lambda, ratio param.Floats) ([]weight, error) {
	switch {
	case len(lambda) > 0 && len(ratio) > 0:
		return nil, errors.New("give lambda (absolute, the paper's scale) or lambda_ratio (relative to each query), not both")
	case len(lambda) == 0 && len(ratio) == 0:
		return nil, errors.New("lambda (absolute, the paper's scale) or lambda_ratio (relative to each query, in (0, 1)) is required")
	}
	if err := lambda.CheckList("lambda", false); err != nil {
		return nil, err
	}
	if err := ratio.CheckList("lambda_ratio", false); err != nil {
		return nil, err
	}
	var ws []weight
	for _, l := range lambda {
		if err := rsr.CheckLambda(l); err != nil {
			return nil, fmt.Errorf("lambda: %w", err)
		}
		ws = append(ws, weight{value: l})
	}
	for _, r := range ratio {
		if err := rsr.CheckLambdaRatio(r); err != nil {
			return nil, fmt.Errorf("lambda_ratio: %w", err)
		}
		ws = append(ws, weight{value: r, relative: true})
	}
	return ws, nil
}

// weight is a candidate sparsity weight: an absolute λ or a ratio of each
// query's λ_max.
type weight struct {
	value    float64
	relative bool
}

// key names the weight in Outcome.Params.
func (w weight) key() string {
	if w.relative {
		return "lambda_ratio"
	}
	return "lambda"
}

// String says the weight as a cross-validation table names it,
// "lambda=0.1" or "lambda_ratio=0.1".
func (w weight) String() string { return fmt.Sprintf("%s=%g", w.key(), w.value) }

// weightRecord is a weight as a saved state records it.
type weightRecord struct {
	Lambda      float64 `json:"lambda,omitempty"`
	LambdaRatio float64 `json:"lambda_ratio,omitempty"`
}

func (w weight) record() weightRecord {
	if w.relative {
		return weightRecord{LambdaRatio: w.value}
	}
	return weightRecord{Lambda: w.value}
}

// weight returns the recorded weight, checked by package rsr.
func (r weightRecord) weight() (weight, error) {
	ws, err := weights(nonZero(r.Lambda), nonZero(r.LambdaRatio))
	if err != nil {
		return weight{}, err
	}
	return ws[0], nil
}

// set returns o with the weight in force.
func (w weight) set(o rsr.ClassifierOptions) rsr.ClassifierOptions {
	if w.relative {
		o.Lasso.Lambda, o.Lasso.LambdaRatio = 0, w.value
	} else {
		o.Lasso.Lambda, o.Lasso.LambdaRatio = w.value, 0
	}
	return o
}

// srcFit is kernel SRC (rsr.Classifier) fitted on training items, with
// kernel values k(X_i, X_j) = f(P_ij) of a pairwise quantity P: rsr and
// logE-SR. Both kernels used are normalised, k(X, X) = 1: exp(−σ·0) for
// the Stein kernel, unit vectors for logE-SR.
type srcFit struct {
	pairs   func(d *classify.Data) (classify.Pairs, error) // P against the training items
	f       classify.Map
	d       *classify.Data // the training items' ridge variant
	train   []int
	c       *rsr.Classifier
	scratch *classify.Scratch
	rec     any // the method's record of its candidate (save)
}

// fitSRC fits kernel SRC on the items train of d, of the training items
// of t, on t's workers, with the pairwise quantity q of t (Train.Pairs).
func fitSRC(ctx context.Context, t *classify.Train, d *classify.Data, q classify.Quantity, f classify.Map, train []int, opts rsr.ClassifierOptions, scratch *classify.Scratch) (*srcFit, error) {
	return fitSRCOn(ctx, func(d *classify.Data) (classify.Pairs, error) { return t.Pairs(d, q) }, d, f, train, opts, t.Workers, scratch)
}

// fitSRCOn fits kernel SRC on the items train of d with the pairwise
// quantity that pairs gives, on workers goroutines. The training block is
// lent by scratch: rsr.FitClassifier copies it.
func fitSRCOn(ctx context.Context, pairs func(d *classify.Data) (classify.Pairs, error), d *classify.Data, f classify.Map, train []int, opts rsr.ClassifierOptions, workers int, scratch *classify.Scratch) (*srcFit, error) {
	p, err := pairs(d)
	if err != nil {
		return nil, err
	}
	ktr, err := scratch.Block(ctx, p, train, train, f)
	if err != nil {
		return nil, err
	}
	opts.Lasso.Workers = workers
	c, err := rsr.FitClassifier(ktr, classify.Pick(d.Labels, train), opts)
	scratch.Release(ktr)
	if err != nil {
		return nil, err
	}
	return &srcFit{pairs: pairs, f: f, d: d, train: train, c: c, scratch: scratch}, nil
}

// loadSRC restores the kernel SRC that fitSRCOn fitted on t's training
// items from the kernel matrix st keeps (save), which rsr.FitClassifier
// makes it of as it made it of the block.
func loadSRC(st *classify.State, t *classify.Train, pairs func(d *classify.Data) (classify.Pairs, error), f classify.Map, opts rsr.ClassifierOptions, scratch *classify.Scratch, rec any) (*srcFit, error) {
	n := len(t.Items)
	gram, err := st.Get(gramArray, n, n)
	if err != nil {
		return nil, err
	}
	opts.Lasso.Workers = t.Workers
	c, err := rsr.FitClassifier(mat.NewDense(n, n, gram), classify.Pick(t.Data.Labels, t.Items), opts)
	if err != nil {
		return nil, err
	}
	return &srcFit{pairs: pairs, f: f, d: t.Data, train: t.Items, c: c, scratch: scratch, rec: rec}, nil
}

// gramArray names the training kernel matrix in an SRC's saved state.
const gramArray = "gram"

// save keeps the training items' kernel matrix, which the Pairs computed
// for the fit.
func (s *srcFit) save(ctx context.Context, st *classify.State) (any, error) {
	p, err := s.pairs(s.d)
	if err != nil {
		return nil, err
	}
	k, err := p.Block(ctx, s.train, s.train, s.f)
	if err != nil {
		return nil, err
	}
	n := len(s.train)
	st.Put(gramArray, k.RawMatrix().Data, n, n)
	return s.rec, nil
}

// predict classifies the items test of d by the fitted SRC, scoring each
// by its classes' shares of the explained energy and its code's
// concentration (rsr.Classifier.Shares, rsr.Decision.SCI), the shares
// its class probabilities, the items in blocks (classify.ForBlocks),
// each read only while it is classified.
func (s *srcFit) predict(ctx context.Context, d *classify.Data, test []int, a answer) (*classify.Outcome, error) {
	p, err := s.pairs(d)
	if err != nil {
		return nil, err
	}
	c := s.c
	out := &classify.Outcome{Pred: make([]int, len(test)), Ranking: make([][]int, len(test)), Lambdas: make([]float64, len(test)), Scores: make([]classify.ItemScore, len(test))}
	classes := c.Labels()
	if a.costs {
		out.Costs, out.CostClasses = make([][]float64, len(test)), classes
	}
	if a.probs {
		out.Probabilities, out.CostClasses = classify.Rows(len(test), len(classes)), classes
	}
	kxx := make([]float64, min(len(test), classify.BlockSize))
	for i := range kxx {
		kxx[i] = 1
	}
	err = classify.ForBlocks(ctx, p, test, s.train, s.f, s.scratch, func(off int, k *mat.Dense) error {
		n, _ := k.Dims()
		ds, err := c.PredictBatch(ctx, k, kxx[:n])
		if err != nil {
			return err
		}
		for q, d := range ds {
			i := off + q
			out.Pred[i] = d.Label
			out.Ranking[i] = c.Rank(d)
			out.Lambdas[i] = d.Lambda
			var shares []float64
			if out.Probabilities != nil {
				shares = out.Probabilities[i]
				c.SharesTo(shares, d)
			} else {
				shares = c.Shares(d)
			}
			out.Scores[i] = classify.RankedScore(out.Ranking[i], classes, shares, d.SCI)
			if out.Costs != nil {
				out.Costs[i] = c.Costs(d)
			}
			if d.Degenerate {
				out.Degenerate++
			}
			if !d.Converged {
				out.Unconverged++
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
