package rsr

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/covpipe/covpipe/internal/pool"
	"gonum.org/v1/gonum/mat"
)

// Rule is how a Classifier turns a sparse code into class scores.
type Rule int

const (
	// MinResidual scores class i by the residual of Eqn. 9,
	// ε_i(X) = k(X,X) − 2 v_iᵀk + v_iᵀK v_i, where v_i keeps only class
	// i's coefficients (Wright et al. 2009). The smallest residual wins.
	MinResidual Rule = iota
	// SumCoefficients scores class i by the similarity Σ_{l(j)=i} v_j (the
	// paper's linear h_i). The largest wins.
	SumCoefficients
	// MaxCoefficient scores class i by max_{l(j)=i} v_j (the paper's
	// non-linear h_i). The largest wins.
	MaxCoefficient
)

func (r Rule) String() string {
	switch r {
	case MinResidual:
		return "residual"
	case SumCoefficients:
		return "sum"
	case MaxCoefficient:
		return "max"
	}
	return fmt.Sprintf("Rule(%d)", int(r))
}

// ParseRule parses "residual", "sum" or "max".
func ParseRule(s string) (Rule, error) {
	for _, r := range []Rule{MinResidual, SumCoefficients, MaxCoefficient} {
		if r.String() == s {
			return r, nil
		}
	}
	return 0, fmt.Errorf("%w: unknown classification rule %q (want residual, sum or max)", ErrInput, s)
}

// Decision is the outcome of classifying one query.
type Decision struct {
	// Label is the predicted class label.
	Label int
	// Scores holds one score per class, in the order of
	// Classifier.Labels: residuals ε_i for MinResidual (lower is better),
	// similarities for the other rules (higher is better).
	Scores []float64
	// Degenerate reports an all-zero code: every residual equals k(X,X)
	// and the prediction is arbitrary (the lowest label). It means λ is too
	// large for the scale of the kernel values.
	Degenerate bool
	// SCI is the sparsity concentration index of the code v (Wright et
	// al., TPAMI 2009, Sec. 2.4, Definition 1):
	// SCI(v) = (k·max_i ‖δ_i(v)‖₁/‖v‖₁ − 1)/(k − 1) for k classes, where
	// δ_i(v) keeps class i's coefficients: 1 when the code lies in one
	// class, 0 when it is spread evenly over all of them. It is 0 for an
	// all-zero code and 1 for a single class. Thresholding it rejects
	// queries of classes the dictionary does not hold.
	SCI float64
	// kxx is the query's k(X, X), the residual of an all-zero class code,
	// which Shares measures the residuals against.
	kxx float64
	Certificate
}

// Costs returns the cost of each class of d, in the order of Labels,
// lower meaning more likely, for adding up decisions on several regions
// of an image: the residuals ε_i of Eqn. 9 themselves for MinResidual,
// and for the similarity rules each class's shortfall from the best,
// max_j h_j − h_i, so that costs are non-negative either way.
func (c *Classifier) Costs(d Decision) []float64 {
	out := slices.Clone(d.Scores)
	if c.rule == MinResidual {
		return out
	}
	best := slices.Max(d.Scores)
	for i, h := range d.Scores {
		out[i] = best - h
	}
	return out
}

// Rank returns the class labels of d ordered from best to worst score, ties
// broken by ascending label: the input of a cumulative matching
// characteristic (CMC) curve. It panics when d has more scores than c has
// classes (a Decision of another classifier), like slice indexing.
func (c *Classifier) Rank(d Decision) []int {
	idx := make([]int, len(d.Scores))
	for i := range idx {
		idx[i] = i
	}
	sign := 1.0
	if c.rule != MinResidual {
		sign = -1
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		return cmpFloat(sign*d.Scores[a], sign*d.Scores[b])
	})
	out := make([]int, len(idx))
	for i, k := range idx {
		out[i] = c.labels[k]
	}
	return out
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// ClassifierOptions configure a Classifier.
type ClassifierOptions struct {
	// Lasso configures the sparse codes; its Workers bounds the goroutines
	// of PredictBatch.
	Lasso LassoOptions
	// Rule turns a code into class scores (default MinResidual).
	Rule Rule
}

// Classifier is a sparse-representation classifier (SRC, Wright et al.
// 2009) in kernel form: the dictionary atoms are labelled training samples,
// a query is coded by the kernel Lasso and assigned by Rule. FitClassifier
// makes one; it is immutable and safe for concurrent use.
type Classifier struct {
	lasso  *Lasso
	rule   Rule
	labels []int // distinct labels, ascending
	class  []int // class index of each atom
	// members[c] lists the atoms of class c.
	members [][]int
}

// FitClassifier returns the classifier of the training samples with Gram
// matrix K = 𝕂(𝔻, 𝔻) (Eqn. 8) whose sample j has label labels[j]: the
// samples are the dictionary's atoms. Labels are class numbers, 0 ≤ label
// ≤ math.MaxInt32, not necessarily consecutive; every label that occurs is
// a class. It returns an error wrapping ErrInput for mismatched lengths,
// a label out of that range, bad K or options.
func FitClassifier(K mat.Matrix, labels []int, opts ClassifierOptions) (*Classifier, error) {
	for j, l := range labels {
		if l < 0 || l > math.MaxInt32 {
			return nil, fmt.Errorf("%w: label %d of sample %d: want a class number 0..%d", ErrInput, l, j, math.MaxInt32)
		}
	}
	if opts.Rule < MinResidual || opts.Rule > MaxCoefficient {
		return nil, fmt.Errorf("%w: unknown rule %d", ErrInput, int(opts.Rule))
	}
	lasso, err := NewLasso(K, opts.Lasso)
	if err != nil {
		return nil, err
	}
	if len(labels) != lasso.n {
		return nil, fmt.Errorf("%w: %d labels for a dictionary of %d atoms", ErrInput, len(labels), lasso.n)
	}
	distinct := slices.Clone(labels)
	slices.Sort(distinct)
	distinct = slices.Compact(distinct)
	c := &Classifier{lasso: lasso, rule: opts.Rule, labels: distinct, class: make([]int, len(labels)), members: make([][]int, len(distinct))}
	for j, l := range labels {
		k, _ := slices.BinarySearch(distinct, l)
		c.class[j] = k
		c.members[k] = append(c.members[k], j)
	}
	return c, nil
}

// ready reports a nil or zero-value Classifier, which has no dictionary.
func (c *Classifier) ready() error {
	if c == nil || c.lasso == nil {
		return fmt.Errorf("%w: zero-value Classifier: make one with FitClassifier", ErrInput)
	}
	return c.lasso.ready()
}

// Labels returns the distinct class labels in ascending order: the order of
// Decision.Scores.
func (c *Classifier) Labels() []int { return slices.Clone(c.labels) }

// Lasso returns the underlying solver.
func (c *Classifier) Lasso() *Lasso { return c.lasso }

// Predict codes one query (kernel vector kx = 𝒦(X, 𝔻) against the
// training samples, and kxx = k(X,X)) by the kernel Lasso (Eqns. 7–8) and
// scores every class by the Rule (Eqn. 9 for MinResidual). A code that did
// not converge within the sweep cap is still used; Decision.Converged
// reports it. Malformed input, and a nil or zero-value Classifier, give an
// error wrapping ErrInput.
func (c *Classifier) Predict(kx []float64, kxx float64) (Decision, error) {
	if err := c.ready(); err != nil {
		return Decision{}, err
	}
	v := make([]float64, c.lasso.n)
	return c.predictTo(v, kx, kxx, c.lasso.NewWorkspace())
}

func (c *Classifier) predictTo(v, kx []float64, kxx float64, ws *LassoWorkspace) (Decision, error) {
	clear(v)
	var d Decision
	cert, err := c.lasso.SolveTo(v, kx, kxx, ws)
	d.Certificate = cert
	// An unconverged code is still the best iterate: classify with it and
	// let the caller count Converged == false.
	if err != nil && !errors.Is(err, ErrNoConvergence) {
		return d, err
	}
	d.Scores = make([]float64, len(c.labels))
	c.score(d.Scores, v, kx, kxx)
	d.Degenerate = cert.NonZeros == 0
	d.SCI, d.kxx = c.sci(v), kxx
	best := 0
	for i, s := range d.Scores {
		if (c.rule == MinResidual && s < d.Scores[best]) || (c.rule != MinResidual && s > d.Scores[best]) {
			best = i
		}
	}
	d.Label = c.labels[best]
	return d, nil
}

// score writes the class scores of code v.
func (c *Classifier) score(dst, v, kx []float64, kxx float64) {
	n := c.lasso.n
	for ci, atoms := range c.members {
		switch c.rule {
		case MinResidual:
			// ε_i = k(X,X) − 2 Σ_j v_j k_j + Σ_{j,l} v_j v_l K_jl over class i.
			var lin, quad float64
			for _, j := range atoms {
				vj := v[j]
				if vj == 0 {
					continue
				}
				lin += vj * kx[j]
				row := c.lasso.k[j*n : j*n+n]
				for _, l := range atoms {
					quad += vj * v[l] * row[l]
				}
			}
			dst[ci] = kxx - 2*lin + quad
		case SumCoefficients:
			var s float64
			for _, j := range atoms {
				s += v[j]
			}
			dst[ci] = s
		case MaxCoefficient:
			s := math.Inf(-1)
			for _, j := range atoms {
				s = math.Max(s, v[j])
			}
			dst[ci] = s
		}
	}
}

// PredictBatch is Predict for Q queries in parallel, on the Lasso
// options' Workers goroutines: row q of Kx (Q×N) is the kernel vector of
// query q and kxx[q] its k(X,X). Results do not depend on the worker
// count. The error names the first failing query; a nil or zero-value
// Classifier is an error wrapping ErrInput. Once ctx is cancelled it
// starts no more queries and returns an error wrapping ctx.Err() and no
// decisions.
func (c *Classifier) PredictBatch(ctx context.Context, Kx mat.Matrix, kxx []float64) ([]Decision, error) {
	if err := c.ready(); err != nil {
		return nil, err
	}
	q, err := c.lasso.checkBatch(Kx, kxx)
	if err != nil {
		return nil, err
	}
	out := make([]Decision, q)
	type state struct {
		ws     *LassoWorkspace
		v, row []float64
	}
	workers := c.lasso.opts.Workers
	states := make([]*state, pool.Workers(workers))
	err = pool.ForCtx(ctx, q, workers, func(w, i int) error {
		st := states[w]
		if st == nil {
			st = &state{ws: c.lasso.NewWorkspace(), v: make([]float64, c.lasso.n), row: make([]float64, c.lasso.n)}
			states[w] = st
		}
		d, err := c.predictTo(st.v, rowOf(Kx, i, st.row), kxx[i], st.ws)
		if err != nil {
			return fmt.Errorf("query %d: %w", i, err)
		}
		out[i] = d
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
