// Package svm is a multi-class support vector machine on a precomputed
// kernel (Gram) matrix, such as the Stein kernel's (spd.SteinKernel), which
// the pure-Go ports of libsvm do not take.
//
// Each pair of classes gets a binary C-SVC (Cortes and Vapnik 1995): with
// labels y_i = ±1 and kernel K, its dual problem is
//
//	max_α  D(α) = Σ_i α_i − ½ Σ_ij α_i α_j y_i y_j K_ij
//	s.t.   0 ≤ α_i ≤ C,  Σ_i α_i y_i = 0,
//
// and its decision function is f(x) = Σ_i α_i y_i k(x_i, x) + b. The dual
// is solved by sequential minimal optimisation (Platt 1998) with the
// second-order working-set selection of Fan, Chen and Lin, "Working set
// selection using second order information for training support vector
// machines", JMLR 6 (2005) 1889–1918, without shrinking: each step picks
// the maximal violating i and the j that the second-order model says
// decreases the objective most, and the solver stops when the maximal
// violation m(α) − M(α) is at most the tolerance ε. Queries are classified
// one-vs-one by voting (Knerr et al. 1990; Hsu and Lin 2002).
//
// With Options.Probability the model is also calibrated, as libsvm's
// -b 1 does: each machine's decision values f from an internal
// cross-validation on its items are fitted with Platt's sigmoid
// P(Pos | f) = 1/(1 + exp(A f + B)) (Platt, "Probabilistic outputs for
// support vector machines", 1999), by the Newton method of Lin, Lin and
// Weng (Machine Learning 68, 2007), and a query's pairwise probabilities
// are coupled into class probabilities by method 2 of Wu, Lin and Weng
// (JMLR 5, 2004) (Decision.Prob).
//
// Fit and FitOn train a Model, which Predicts the class of one query
// (PredictTo into a reused Decision, PredictBatch for many). Both Fit and
// PredictBatch take a context and return an error wrapping ctx.Err() soon
// after it is cancelled: training looks at it between binary machines and
// every few thousand SMO steps, prediction between queries.
//
// The paper (Harandi et al., ECCV 2012, Section 6, "Main Findings and
// Future Directions") names large-margin classification with the Stein
// kernel as its future direction; this is that classifier.
package svm

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/covpipe/covpipe/internal/pool"
	"github.com/covpipe/covpipe/internal/symm"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// DefaultTol is the default stopping tolerance ε on the maximal violating
// pair, libsvm's default.
const DefaultTol = 1e-3

// Options configure Fit.
type Options struct {
	// C is the box constraint of the dual, C > 0: the cost of a unit of
	// margin violation.
	C float64
	// Tol is the stopping tolerance ε on the maximal violation
	// m(α) − M(α); 0 means DefaultTol.
	Tol float64
	// MaxIter bounds the SMO steps of each binary machine; 0 means
	// max(100000, 100·n) for a machine on n items. A machine that hits it
	// keeps its last iterate and reports Converged false.
	MaxIter int
	// Workers bounds how many binary machines train at once, and how
	// many queries the Model's PredictBatch decides at once (0:
	// GOMAXPROCS). The model and its decisions do not depend on it.
	Workers int
	// Probability also calibrates the model (Model.Calibrated): after
	// each binary machine, it fits the Platt sigmoid of the machine's
	// decision values by an internal cross-validation on the machine's
	// items over ProbabilityFolds folds (0: DefaultProbabilityFolds),
	// drawn from Seed, as libsvm's -b 1 does, so that the model's
	// decisions carry class probabilities (Decision.Prob). It costs about
	// ProbabilityFolds more trainings of each machine.
	Probability      bool
	ProbabilityFolds int
	Seed             uint64
	// Workspace, when not nil, lends the buffers of the binary machines
	// (each its pair's block of K), so that many Fit calls, such as
	// every fold and C candidate of a cross-validation, reuse them
	// instead of allocating their own. The model does not depend on it.
	Workspace *Workspace
}

// Workspace keeps the buffers that Fit's workers solve binary machines
// in between Fit calls. The zero value is ready. It is safe for
// concurrent use: each worker of each Fit call takes buffers of its own
// and gives them back when the call returns, so a Workspace keeps no more
// of them than were ever in use at once.
type Workspace struct {
	mu   sync.Mutex
	free []*machineBufs
}

// machineBufs holds what one worker needs for a binary machine: its
// block of K, its items as positions in the training set and in K, and
// their ±1 labels.
type machineBufs struct {
	block     []float64
	idx, kidx []int
	y         []float64
	// The calibration's: a fold's training items, their kernel block and
	// labels, and every item's cross-validated decision value.
	sub             []int
	subK, subY, dec []float64
}

// get lends a worker's buffers, new ones for a nil w.
func (w *Workspace) get() *machineBufs {
	if w == nil {
		return &machineBufs{}
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	last := len(w.free) - 1
	if last < 0 {
		return &machineBufs{}
	}
	b := w.free[last]
	w.free[last] = nil
	w.free = w.free[:last]
	return b
}

// put takes back the buffers that get lent; nil buffers are skipped.
func (w *Workspace) put(bufs []*machineBufs) {
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, b := range bufs {
		if b != nil {
			w.free = append(w.free, b)
		}
	}
}

// Model is a trained one-vs-one SVM, made by Fit or FitOn.
type Model struct {
	// Classes lists the distinct training labels, ascending.
	Classes []int
	// Machines holds one binary machine per pair of classes a < b (indices
	// into Classes), in the order (0,1), (0,2), …, (0,k−1), (1,2), …
	Machines []Binary
	// n is the number of training items, the columns PredictBatch expects.
	n int
	// calibrated: the machines carry Platt sigmoids (Options.Probability).
	calibrated bool
	// workers is Options.Workers, PredictBatch's parallelism.
	workers int
}

// Binary is the C-SVC of one pair of classes: f(x) = Σ_s Coef_s k(x_SV_s,
// x) + Bias, positive for class Pos. Its JSON form holds what Restore
// takes and Converged, not the solver's Objective, Violation and Iters.
type Binary struct {
	// Pos and Neg index Model.Classes: f(x) > 0 votes for Pos (the lower
	// label), otherwise for Neg.
	Pos int `json:"pos"`
	Neg int `json:"neg"`
	// SV holds the training indices (rows of Fit's K) of the support
	// vectors, the items with α_i > 0, ascending; Coef holds their y_i α_i.
	SV   []int     `json:"sv"`
	Coef []float64 `json:"coef"`
	// Bias is b.
	Bias float64 `json:"bias"`
	// ProbA and ProbB are the Platt sigmoid P(Pos | f) =
	// 1/(1 + exp(ProbA·f + ProbB)) of a calibrated model (Platt 1999),
	// zero otherwise.
	ProbA float64 `json:"prob_a"`
	ProbB float64 `json:"prob_b"`
	// Converged reports Violation <= ε.
	Converged bool `json:"converged"`
	// Objective is the dual objective D(α) at the returned α.
	Objective float64 `json:"-"`
	// Violation is the final maximal violation m(α) − M(α).
	Violation float64 `json:"-"`
	// Iters counts SMO steps.
	Iters int `json:"-"`
}

// Decision returns f(x) from row, the kernel values k(x_i, x) of x against
// all training items.
func (b *Binary) Decision(row []float64) float64 {
	// Four partial sums break the dependency chain of one accumulator.
	sv, coef := b.SV, b.Coef[:len(b.SV)]
	var f0, f1, f2, f3 float64
	s := 0
	for ; s+4 <= len(sv); s += 4 {
		f0 += coef[s] * row[sv[s]]
		f1 += coef[s+1] * row[sv[s+1]]
		f2 += coef[s+2] * row[sv[s+2]]
		f3 += coef[s+3] * row[sv[s+3]]
	}
	for ; s < len(sv); s++ {
		f0 += coef[s] * row[sv[s]]
	}
	return b.Bias + ((f0 + f1) + (f2 + f3))
}

// Fit trains a one-vs-one C-SVC on the n×n kernel matrix K of the
// training items and their labels: one binary machine per pair of classes,
// on that pair's items only. It returns an error when the sizes disagree,
// K has a NaN or infinite entry, C is not finite and positive, the
// tolerance is negative, or the labels have fewer than two classes; and,
// once ctx is cancelled, an error wrapping ctx.Err() and no model. K
// should be positive semi-definite; an indefinite pseudo-kernel still
// trains (non-positive curvatures are replaced by a tiny τ, as in Fan et
// al.), but the dual is then not convex. A binary machine copies its items'
// block of K, so memory peaks at the largest pair's (n_a + n_b)² values.
func Fit(ctx context.Context, k mat.Symmetric, labels []int, o Options) (*Model, error) {
	return FitOn(ctx, k, nil, labels, o)
}

// FitOn is Fit on the rows and columns items of K, strictly
// ascending (nil: all of K), with labels[t] the label of items[t]: the
// model is Fit's on that submatrix, bit for bit, its support vectors
// indexing items, but the submatrix is never copied out. Methods whose
// cross-validation folds are subsets of one training set train them all
// on that set's kernel matrix. Only the entries among items are checked
// for NaN and infinities.
func FitOn(ctx context.Context, k mat.Symmetric, items, labels []int, o Options) (*Model, error) {
	n := k.SymmetricDim()
	if items != nil {
		for t, i := range items {
			if i < 0 || i >= n || t > 0 && i <= items[t-1] {
				return nil, fmt.Errorf("svm: item %d (%d) out of range [0, %d) or not above the one before", t, i, n)
			}
		}
		n = len(items)
	}
	switch {
	case n != len(labels):
		return nil, fmt.Errorf("svm: kernel matrix is %d×%d but there are %d labels", n, n, len(labels))
	case !(o.C > 0) || math.IsInf(o.C, 0):
		return nil, fmt.Errorf("svm: C = %v, want finite and > 0", o.C)
	case !(o.Tol >= 0) || math.IsInf(o.Tol, 0):
		return nil, fmt.Errorf("svm: tolerance = %v, want finite and >= 0 (0: %g)", o.Tol, DefaultTol)
	case o.MaxIter < 0:
		return nil, fmt.Errorf("svm: MaxIter = %d, want >= 0 (0: the default)", o.MaxIter)
	}
	if i, j, v, ok := finite(k, items); !ok {
		return nil, fmt.Errorf("svm: kernel matrix entry (%d, %d) = %v", i, j, v)
	}
	tol := cmp.Or(o.Tol, DefaultTol)
	folds := cmp.Or(o.ProbabilityFolds, DefaultProbabilityFolds)
	if folds < 2 {
		return nil, fmt.Errorf("svm: %d probability folds, want >= 2 (0: %d)", folds, DefaultProbabilityFolds)
	}
	m := &Model{n: n, workers: o.Workers, calibrated: o.Probability}
	members := map[int][]int{}
	for i, l := range labels {
		members[l] = append(members[l], i)
	}
	for l := range members {
		m.Classes = append(m.Classes, l)
	}
	slices.Sort(m.Classes)
	if len(m.Classes) < 2 {
		return nil, fmt.Errorf("svm: %d training items of %d class(es), want at least 2 classes", n, len(m.Classes))
	}
	for a := range m.Classes {
		for b := a + 1; b < len(m.Classes); b++ {
			m.Machines = append(m.Machines, Binary{Pos: a, Neg: b})
		}
	}
	// Machines run one after another on each worker: one set of buffers
	// per worker, not per machine, lent by o.Workspace across Fit calls
	// (every fold and C candidate of a protocol's SVM stage trains a Model).
	bufs := make([]*machineBufs, min(pool.Workers(o.Workers), len(m.Machines)))
	defer o.Workspace.put(bufs)
	err := pool.ForCtx(ctx, len(m.Machines), o.Workers, func(w, p int) error {
		if bufs[w] == nil {
			bufs[w] = o.Workspace.get()
		}
		b := bufs[w]
		bm := &m.Machines[p]
		b.idx = mergeTo(b.idx, members[m.Classes[bm.Pos]], members[m.Classes[bm.Neg]])
		idx := b.idx
		b.y = slices.Grow(b.y[:0], len(idx))[:len(idx)]
		y := b.y
		for t, i := range idx {
			y[t] = -1
			if labels[i] == m.Classes[bm.Pos] {
				y[t] = 1
			}
		}
		maxIter := o.MaxIter
		if maxIter == 0 {
			maxIter = max(100000, 100*len(idx))
		}
		kidx := idx
		if items != nil {
			b.kidx = slices.Grow(b.kidx[:0], len(idx))
			for _, t := range idx {
				b.kidx = append(b.kidx, items[t])
			}
			kidx = b.kidx
		}
		b.block = blockTo(b.block, k, kidx)
		s, err := solve(ctx, b.block, y, o.C, tol, maxIter)
		if err != nil {
			return err
		}
		for t, a := range s.alpha {
			if a > 0 {
				bm.SV = append(bm.SV, idx[t])
				bm.Coef = append(bm.Coef, y[t]*a)
			}
		}
		bm.Bias, bm.Objective, bm.Violation = s.bias, s.objective, s.gap
		bm.Iters, bm.Converged = s.iters, s.converged
		if o.Probability {
			bm.ProbA, bm.ProbB, err = calibrate(ctx, b.block, y, o.C, tol, maxIter, folds, o.Seed, p, b)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return m, nil
}

// finite reports whether every entry of K among items (nil: all) is
// finite, and otherwise returns the first entry of that submatrix's upper
// triangle, row by row, that is not, indexed in items. It reads a stored
// upper triangle's rows directly rather than through At, which would cost
// as much as the training of a small problem.
func finite(k mat.Symmetric, items []int) (i, j int, v float64, ok bool) {
	n := k.SymmetricDim()
	var raw blas64.Symmetric
	if r, isRaw := k.(mat.RawSymmetricer); isRaw {
		raw = r.RawSymmetric()
	}
	if items == nil && raw.Uplo == blas.Upper { // whole rows, contiguous
		for i := range n {
			for j, v := range raw.Data[i*raw.Stride+i : i*raw.Stride+n] {
				if v-v != 0 { // NaN or ±Inf: v − v is NaN; else +0
					return i, i + j, v, false
				}
			}
		}
		return 0, 0, 0, true
	}
	at := k.At
	if raw.Uplo == blas.Upper {
		at = func(i, j int) float64 { return raw.Data[i*raw.Stride+j] }
	}
	item := func(t int) int { return t }
	if items != nil {
		n = len(items)
		item = func(t int) int { return items[t] }
	}
	for a := range n {
		i := item(a)
		for b := a; b < n; b++ {
			if v := at(i, item(b)); v-v != 0 {
				return a, b, v, false
			}
		}
	}
	return 0, 0, 0, true
}

// mergeTo returns the union of two ascending index lists, ascending, in
// dst's storage when it is large enough.
func mergeTo(dst, a, b []int) []int {
	out := append(append(dst[:0], a...), b...)
	slices.Sort(out)
	return out
}

// blockTo returns K's rows and columns idx as a dense row-major matrix, in
// buf when it is large enough (else in a new slice). From
// a stored upper triangle it copies the block's upper triangle row by row
// and mirrors it (symm.Mirror), so that neither its reads nor its writes
// walk down columns.
func blockTo(buf []float64, k mat.Symmetric, idx []int) []float64 {
	n := len(idx)
	if cap(buf) < n*n {
		buf = make([]float64, n*n)
	}
	out := buf[:n*n]
	if r, ok := k.(mat.RawSymmetricer); ok {
		raw := r.RawSymmetric()
		if raw.Uplo == blas.Upper {
			for a, i := range idx {
				src := raw.Data[i*raw.Stride:] // row i, valid from column i
				dst := out[a*n : (a+1)*n]
				for b := a; b < n; b++ {
					dst[b] = src[idx[b]] // idx ascending: i <= idx[b]
				}
			}
			symm.Mirror(out, n, n)
			return out
		}
	}
	for a, i := range idx {
		for b := a; b < n; b++ {
			v := k.At(i, idx[b])
			out[a*n+b], out[b*n+a] = v, v
		}
	}
	return out
}

// Unconverged counts the binary machines that hit the iteration cap.
func (m *Model) Unconverged() int {
	c := 0
	for i := range m.Machines {
		if !m.Machines[i].Converged {
			c++
		}
	}
	return c
}

// Decision is the one-vs-one verdict on one query.
type Decision struct {
	// Label is the class with the most votes; ties go to the larger
	// summed decision value, then to the lower label.
	Label int
	// Votes[c] counts the binary machines that voted for Classes[c].
	Votes []int
	// Scores[c] sums the decision values of the machines of Classes[c],
	// signed towards it: +f for the machines where it is Pos, −f where it
	// is Neg.
	Scores []float64
	// Prob[c] is, for a calibrated model (Model.Calibrated), the
	// probability of Classes[c]: the machines' Platt probabilities,
	// bounded to [1e−7, 1 − 1e−7], coupled by Wu, Lin and Weng's method 2
	// (couple), as libsvm's svm_predict_probability computes them; nil
	// otherwise. Label stays the vote's winner.
	Prob []float64
}

// Predict returns the decision on one query from row, its kernel values
// k(x_i, x) against the n training items; see PredictTo.
func (m *Model) Predict(row []float64) (Decision, error) {
	var d Decision
	err := m.PredictTo(&d, row)
	return d, err
}

// PredictBatch decides the queries of kq, their q×n kernel values against
// the n training items (row r: k(x_i, query r) for each training item i),
// on Options.Workers goroutines; the decisions do not depend on their
// number. It returns an error when kq has the wrong number of columns or
// a NaN or infinite entry, and, once ctx is cancelled, an error wrapping
// ctx.Err() and no decisions.
func (m *Model) PredictBatch(ctx context.Context, kq *mat.Dense) ([]Decision, error) {
	q, n := kq.Dims()
	if n != m.n {
		return nil, fmt.Errorf("svm: query kernel values have %d columns, want one per training item (%d)", n, m.n)
	}
	// One slab each for the votes, scores and probabilities of all
	// queries.
	k := len(m.Classes)
	votes, scores := make([]int, q*k), make([]float64, q*k)
	var probs []float64
	if m.calibrated {
		probs = make([]float64, q*k)
	}
	out := make([]Decision, q)
	for r := range out {
		out[r].Votes, out[r].Scores = votes[r*k:(r+1)*k:(r+1)*k], scores[r*k:(r+1)*k:(r+1)*k]
		if probs != nil {
			out[r].Prob = probs[r*k : (r+1)*k : (r+1)*k]
		}
	}
	scratch := make([]*coupling, pool.Workers(m.workers))
	err := pool.ForCtx(ctx, q, m.workers, func(w, r int) error {
		if scratch[w] == nil && m.calibrated {
			scratch[w] = m.newCoupling()
		}
		return m.predictTo(&out[r], kq.RawRowView(r), scratch[w])
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// PredictTo writes into d the one-vs-one decision on the query whose
// kernel values against the n training items are row: each binary machine
// votes by the sign of its f(x) (Binary.Decision); a calibrated model
// also couples the machines' probabilities (Decision.Prob). It reuses d's
// slices when they are long enough. It returns an error when row's length
// is not n or it holds a NaN or infinite value.
func (m *Model) PredictTo(d *Decision, row []float64) error {
	var cs *coupling
	if m.calibrated {
		cs = m.newCoupling()
	}
	return m.predictTo(d, row, cs)
}

// predictTo is PredictTo with the coupling's scratch cs, nil for an
// uncalibrated model.
func (m *Model) predictTo(d *Decision, row []float64, cs *coupling) error {
	if len(row) != m.n {
		return fmt.Errorf("svm: %d query kernel values, want one per training item (%d)", len(row), m.n)
	}
	for i, v := range row {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("svm: query kernel value against training item %d = %v", i, v)
		}
	}
	k := len(m.Classes)
	d.Votes = resize(d.Votes, k)
	d.Scores = resize(d.Scores, k)
	for i := range m.Machines {
		bm := &m.Machines[i]
		f := bm.Decision(row)
		if f > 0 {
			d.Votes[bm.Pos]++
		} else {
			d.Votes[bm.Neg]++
		}
		d.Scores[bm.Pos] += f
		d.Scores[bm.Neg] -= f
		if cs != nil {
			cs.pair(bm, f)
		}
	}
	if cs != nil {
		d.Prob = resize(d.Prob, k)
		couple(d.Prob, cs.r, cs.qp)
	}
	best := 0
	for c := 1; c < k; c++ {
		if better(d, c, best) < 0 {
			best = c
		}
	}
	d.Label = m.Classes[best]
	return nil
}

// resize returns s with length k and zero entries, reallocating only when
// its capacity is short.
func resize[T int | float64](s []T, k int) []T {
	if cap(s) < k {
		return make([]T, k)
	}
	s = s[:k]
	clear(s)
	return s
}

// better orders classes a and b (indices into Classes) for d: negative
// when a ranks before b: more votes, then a larger summed decision value,
// then the lower label.
func better(d *Decision, a, b int) int {
	return cmp.Or(cmp.Compare(d.Votes[b], d.Votes[a]), cmp.Compare(d.Scores[b], d.Scores[a]), cmp.Compare(a, b))
}

// Rank returns the class labels ordered from most to least likely for the
// decision d, in the order that picks d.Label: votes, then summed decision
// values, then the lower label. It is the ranking of a CMC curve.
func (m *Model) Rank(d Decision) []int {
	idx := make([]int, len(m.Classes))
	for c := range idx {
		idx[c] = c
	}
	slices.SortFunc(idx, func(a, b int) int { return better(&d, a, b) })
	out := make([]int, len(idx))
	for r, c := range idx {
		out[r] = m.Classes[c]
	}
	return out
}
