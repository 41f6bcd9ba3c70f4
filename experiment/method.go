package experiment

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/covpipe/covpipe/rsr"
	"github.com/covpipe/covpipe/spd"
	"gonum.org/v1/gonum/mat"
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
	"rsr":      newRSR,
	"logE-SR":  newLogESR,
	"nn-stein": newNNStein,
	"nn-airm":  newNNAIRM,
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

// unused reports the first of the sparse-coding parameters a method does
// not take.
func unused(c MethodConfig, keep ...string) error {
	set := map[string]bool{
		"sigma": len(c.Sigma) > 0, "lambda": len(c.Lambda) > 0, "lambda_ratio": len(c.LambdaRatio) > 0,
		"tolerance": c.Tolerance != 0, "rule": c.Rule != "", "nonnegative": c.NonNegative, "pseudo_kernel": c.PseudoKernel,
	}
	for _, k := range keep {
		delete(set, k)
	}
	for _, k := range []string{"sigma", "lambda", "lambda_ratio", "tolerance", "rule", "nonnegative", "pseudo_kernel"} {
		if set[k] {
			return fmt.Errorf("%s does not apply to method type %s", k, c.Type)
		}
	}
	return nil
}

// srcOptions parses the sparse-coding parameters shared by rsr and logE-SR.
func srcOptions(c MethodConfig) (rsr.ClassifierOptions, error) {
	var o rsr.ClassifierOptions
	switch {
	case len(c.Lambda) > 0 && len(c.LambdaRatio) > 0:
		return o, errors.New("give lambda (absolute, the paper's scale) or lambda_ratio (relative to each query), not both")
	case len(c.Lambda) == 0 && len(c.LambdaRatio) == 0:
		return o, errors.New("lambda (absolute, the paper's scale) or lambda_ratio (relative to each query, in (0, 1)) is required")
	}
	if err := checkFloats("lambda", c.Lambda, false, 0, true); err != nil {
		return o, err
	}
	if err := checkFloats("lambda_ratio", c.LambdaRatio, false, 0, false); err != nil {
		return o, err
	}
	for _, r := range c.LambdaRatio {
		if r >= 1 {
			return o, fmt.Errorf("lambda_ratio = %v, want in (0, 1): 1 codes every query as all zeros", r)
		}
	}
	if c.Tolerance < 0 || c.Tolerance >= 1 {
		return o, fmt.Errorf("tolerance = %v, want in (0, 1) (default 1e-6)", c.Tolerance)
	}
	o.Lasso = rsr.LassoOptions{Tol: c.Tolerance, NonNegative: c.NonNegative}
	if c.Rule != "" {
		r, err := rsr.ParseRule(c.Rule)
		if err != nil {
			return o, err
		}
		o.Rule = r
	}
	return o, nil
}

// rsrMethod is the paper's RSR: SRC with kernel Lasso codes in the RKHS of
// the Stein kernel (Sections 3–3.1, Eqns. 4–8).
type rsrMethod struct {
	memo    selections
	sigmas  []float64
	weights []weight
	pseudo  bool
	opts    rsr.ClassifierOptions
}

// weight is a candidate sparsity weight: an absolute λ or a ratio of each
// query's λ_max.
type weight struct {
	value    float64
	relative bool
}

// weights lists a method's sparsity candidates, absolute or relative.
func weights(c MethodConfig) []weight {
	var out []weight
	for _, l := range c.Lambda {
		out = append(out, weight{value: l})
	}
	for _, r := range c.LambdaRatio {
		out = append(out, weight{value: r, relative: true})
	}
	return out
}

// key names the weight in Outcome.Params.
func (w weight) key() string {
	if w.relative {
		return "lambda_ratio"
	}
	return "lambda"
}

// options returns o with the weight set.
func (w weight) options(o rsr.ClassifierOptions) rsr.ClassifierOptions {
	if w.relative {
		o.Lasso.Lambda, o.Lasso.LambdaRatio = 0, w.value
	} else {
		o.Lasso.Lambda, o.Lasso.LambdaRatio = w.value, 0
	}
	return o
}

func newRSR(c MethodConfig) (Method, error) {
	if err := unused(c, "sigma", "lambda", "lambda_ratio", "tolerance", "rule", "nonnegative", "pseudo_kernel"); err != nil {
		return nil, err
	}
	if err := checkFloats("sigma", c.Sigma, true, 0, false); err != nil {
		return nil, err
	}
	opts, err := srcOptions(c)
	if err != nil {
		return nil, err
	}
	return &rsrMethod{sigmas: c.Sigma, weights: weights(c), pseudo: c.PseudoKernel, opts: opts}, nil
}

func (m *rsrMethod) CheckDim(d int) error {
	for _, s := range m.sigmas {
		if err := (spd.SteinKernel{Sigma: s, Pseudo: m.pseudo}).Check(d); err != nil {
			return err
		}
	}
	return nil
}

func (m *rsrMethod) Classify(s *Split) (*Outcome, error) {
	if err := m.CheckDim(s.Data.Set.Dim()); err != nil {
		return nil, err
	}
	var cands []params
	for v := range s.variants() {
		for _, sg := range m.sigmas {
			for _, w := range m.weights {
				cands = append(cands, params{variant: v, sigma: sg, weight: w})
			}
		}
	}
	run := func(d *Data, train, test []int, p params) (*Outcome, error) {
		div, err := d.SteinDivergences()
		if err != nil {
			return nil, err
		}
		k := spd.SteinKernel{Sigma: p.sigma, Pseudo: m.pseudo}.FromDivergence
		return kernelSRC(div, k, d.Labels, train, test, p.weight.options(m.opts), s.Workers)
	}
	return withSelection(s, cands, &m.memo, run, func(p params, o *Outcome, d *Data) {
		o.Params = map[string]float64{"sigma": p.sigma, p.weight.key(): p.weight.value, "ridge": d.Ridge}
	})
}

// logESR is log-Euclidean sparse representation (Guo et al. 2010; Yuan et
// al. 2010): the matrix logarithm, vectorised isometrically, then SRC with
// a Euclidean Lasso on unit-normalised vectors (the rsr solver with the
// linear Gram matrix).
type logESR struct {
	memo    selections
	weights []weight
	opts    rsr.ClassifierOptions
}

func newLogESR(c MethodConfig) (Method, error) {
	if err := unused(c, "lambda", "lambda_ratio", "tolerance", "rule", "nonnegative"); err != nil {
		return nil, err
	}
	opts, err := srcOptions(c)
	if err != nil {
		return nil, err
	}
	return &logESR{weights: weights(c), opts: opts}, nil
}

func (m *logESR) Classify(s *Split) (*Outcome, error) {
	var cands []params
	for v := range s.variants() {
		for _, w := range m.weights {
			cands = append(cands, params{variant: v, weight: w})
		}
	}
	run := func(d *Data, train, test []int, p params) (*Outcome, error) {
		g, err := d.LogEuclideanGram()
		if err != nil {
			return nil, err
		}
		return kernelSRC(g, identity, d.Labels, train, test, p.weight.options(m.opts), s.Workers)
	}
	return withSelection(s, cands, &m.memo, run, func(p params, o *Outcome, d *Data) {
		o.Params = map[string]float64{p.weight.key(): p.weight.value, "ridge": d.Ridge}
	})
}

// kernelSRC classifies the test items by SRC with options opts over the
// training items, with kernel k(X_i, X_j) = f(g_ij) of the pairwise matrix
// g over all items. Both kernels used are normalised, k(X, X) = 1:
// exp(−σ·0) for the Stein kernel, unit vectors for logE-SR.
func kernelSRC(g mat.Symmetric, f func(float64) float64, labels, train, test []int, opts rsr.ClassifierOptions, workers int) (*Outcome, error) {
	c, err := rsr.NewClassifier(gather(g, train, train, f), pick(labels, train), opts)
	if err != nil {
		return nil, err
	}
	ds, err := c.ClassifyBatch(gather(g, test, train, f), ones(len(test)), workers)
	if err != nil {
		return nil, err
	}
	out := &Outcome{Pred: make([]int, len(ds)), Ranking: make([][]int, len(ds)), Lambdas: make([]float64, len(ds))}
	for i, d := range ds {
		out.Pred[i] = d.Label
		out.Lambdas[i] = d.Lambda
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

// nnStein is the nearest neighbour under the Stein divergence; classes
// rank by their nearest member.
type nnStein struct{ memo *selections }

func newNNStein(c MethodConfig) (Method, error) {
	if err := unused(c); err != nil {
		return nil, err
	}
	return nnStein{memo: &selections{}}, nil
}

func (m nnStein) Classify(s *Split) (*Outcome, error) {
	return withRidgeSelection(s, m.memo, func(d *Data, train, test []int) (*Outcome, error) {
		div, err := d.SteinDivergences()
		if err != nil {
			return nil, err
		}
		labels := sortedKeys(byClass(d.Labels, train))
		class := make([]int, len(train)) // position in labels of each training item
		for a, j := range train {
			class[a], _ = slices.BinarySearch(labels, d.Labels[j])
		}
		best := make([]float64, len(labels))
		out := &Outcome{Pred: make([]int, len(test)), Ranking: make([][]int, len(test))}
		for q, i := range test {
			for k := range best {
				best[k] = math.Inf(1)
			}
			for a, j := range train {
				if v := div.At(i, j); v < best[class[a]] {
					best[class[a]] = v
				}
			}
			// Classes by ascending divergence, ties by label.
			r := make([]int, len(labels))
			for k := range r {
				r[k] = k
			}
			slices.SortFunc(r, func(a, b int) int { return cmp.Or(cmp.Compare(best[a], best[b]), a-b) })
			for k, c := range r {
				r[k] = labels[c]
			}
			out.Ranking[q], out.Pred[q] = r, r[0]
		}
		return out, nil
	})
}

func pick(labels, idx []int) []int {
	out := make([]int, len(idx))
	for i, j := range idx {
		out[i] = labels[j]
	}
	return out
}

func ones(n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = 1
	}
	return out
}

// params is one candidate of a parameter search.
type params struct {
	variant int
	sigma   float64
	weight  weight
}

// selections memoises parameter choices: tasks that share a training set
// (FERET's four test poses) share the choice instead of repeating the
// cross-validation. It is safe for concurrent use.
type selections struct {
	mu     sync.Mutex
	chosen map[selectionKey]params
}

type selectionKey struct {
	data  *Data
	train uint64 // hash of the training indices
	folds int
	seed  uint64
}

func (m *selections) lookup(k selectionKey) (params, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	p, ok := m.chosen[k]
	return p, ok
}

func (m *selections) store(k selectionKey, p params) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.chosen == nil {
		m.chosen = map[selectionKey]params{}
	}
	m.chosen[k] = p
}

// hashInts is FNV-1a over the integers.
func hashInts(v []int) uint64 {
	h := uint64(14695981039346656037)
	for _, x := range v {
		for k := 0; k < 64; k += 8 {
			h ^= uint64(x) >> k & 0xff
			h *= 1099511628211
		}
	}
	return h
}

// withRidgeSelection runs a method without parameters of its own, choosing
// only among the split's ridge variants.
func withRidgeSelection(s *Split, memo *selections, run func(d *Data, train, test []int) (*Outcome, error)) (*Outcome, error) {
	cands := make([]params, len(s.variants()))
	for v := range cands {
		cands[v].variant = v
	}
	return withSelection(s, cands, memo,
		func(d *Data, train, test []int, _ params) (*Outcome, error) { return run(d, train, test) },
		func(_ params, o *Outcome, d *Data) { o.Params = map[string]float64{"ridge": d.Ridge} })
}

// withSelection runs a method on the split with the one candidate given, or
// picks the candidate with the best mean accuracy over stratified folds of
// the training set (never looking at the test items; ties go to the first
// candidate) and runs it. The folds depend on the training set and the
// split's seed only, so the choice is memoised in memo. record fills the
// outcome's Params.
func withSelection(s *Split, cands []params, memo *selections, run func(d *Data, train, test []int, p params) (*Outcome, error), record func(params, *Outcome, *Data)) (*Outcome, error) {
	if len(cands) == 0 {
		return nil, errors.New("no parameter candidates")
	}
	data := s.variants()
	best := cands[0]
	if len(cands) > 1 {
		key := selectionKey{data[0], hashInts(s.Train), s.Folds, s.Seed}
		p, ok := memo.lookup(key)
		if !ok {
			var err error
			if p, err = selectParams(data, s.Train, s.Folds, s.Seed, cands, run); err != nil {
				return nil, err
			}
			memo.store(key, p)
		}
		best = p
	}
	d := data[best.variant]
	o, err := run(d, s.Train, s.Test, best)
	if err != nil {
		return nil, err
	}
	record(best, o, d)
	return o, nil
}

// selectParams returns the candidate with the best mean accuracy over
// stratified folds of train (ties go to the first candidate).
func selectParams(data []*Data, train []int, nfolds int, seed uint64, cands []params, run func(d *Data, train, test []int, p params) (*Outcome, error)) (params, error) {
	if nfolds < 2 {
		return params{}, fmt.Errorf("%d parameter candidates but %d validation folds: want folds >= 2", len(cands), nfolds)
	}
	fs := folds(data[0].Labels, train, nfolds, seed)
	trains := make([][]int, len(fs))
	for k, f := range fs {
		trains[k] = without(train, f)
	}
	best, bestAcc := cands[0], math.Inf(-1)
	for _, p := range cands {
		var acc float64
		for k, f := range fs {
			o, err := run(data[p.variant], trains[k], f, p)
			if err != nil {
				return params{}, fmt.Errorf("validation: %w", err)
			}
			acc += accuracy(o.Pred, pick(data[p.variant].Labels, f)) / float64(len(fs))
		}
		if acc > bestAcc {
			best, bestAcc = p, acc
		}
	}
	return best, nil
}

func (m *rsrMethod) prepare(d *Data) error { _, err := d.SteinDivergences(); return err }
func (nnStein) prepare(d *Data) error      { _, err := d.SteinDivergences(); return err }
func (nnAIRM) prepare(d *Data) error       { _, err := d.SteinDivergences(); return err }
func (m *logESR) prepare(d *Data) error    { _, err := d.LogEuclideanGram(); return err }
