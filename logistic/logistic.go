// Package logistic is multinomial logistic regression with an L2 penalty
// (the maximum-entropy classifier; Hastie, Tibshirani and Friedman, "The
// Elements of Statistical Learning", 2nd ed., Section 4.4), fitted by
// L-BFGS (Liu and Nocedal, Math. Programming 45, 1989) with the
// Moré–Thuente line search of gonum.org/v1/gonum/optimize.
//
// For n training rows x_i ∈ ℝᵖ with labels among K ≥ 2 classes, the model
// has a weight vector w_k ∈ ℝᵖ and an intercept b_k per class, the rows
// of the K×p matrix W and the vector b, and gives the class probabilities
//
//	p_k(x) = exp(z_k) / Σ_j exp(z_j),   z_k = w_kᵀx + b_k,
//
// the softmax of the scores z. Fit minimises
//
//	C·Σ_i −log p_{y_i}(x_i) + ½‖W‖²_F
//
// over W and b, with the intercepts not penalised: scikit-learn's
// LogisticRegression(penalty="l2", solver="lbfgs", multi_class=
// "multinomial", fit_intercept=True) with C the inverse of the penalty's
// weight. The objective is strictly convex in W and, as long as every
// class has a training row, bounded below and coercive in W; with the
// penalty the optimal W satisfies Σ_k w_k = 0, which makes the K weight
// vectors identifiable without fixing one of them to zero. The intercepts
// are determined only up to a common shift, which changes no probability:
// starting from b = 0, as scikit-learn does, the gradient keeps Σ_k b_k
// = 0.
//
// Where definitions differ from scikit-learn's:
//
//   - The tolerance (Options.Tol) bounds the largest absolute entry of
//     the gradient of the same objective scaled by 1/C,
//     Σ_i −log p_{y_i}(x_i) + ‖W‖²_F/(2C), which is what scikit-learn's
//     tol bounds (scipy's L-BFGS-B gtol on the projected gradient, the
//     gradient itself for this unconstrained problem). Unlike scipy's
//     L-BFGS-B, the fit has no second, relative-reduction stopping rule
//     (scipy's ftol): it stops at the tolerance or at MaxIter.
//   - With two classes scikit-learn's default (multi_class "auto") fits
//     one weight vector u for the log-odds with penalty ½‖u‖²; here the
//     two classes keep two vectors w₂ = −w₁ = u/2, whose penalty is
//     ½(‖w₁‖² + ‖w₂‖²) = ¼‖u‖²: the same classifier as scikit-learn's
//     binary fit with C doubled.
//   - Both start from W = 0, b = 0 and keep Memory = 10 past steps, as
//     scipy does, but gonum's line search is not scipy's: a fit stopped
//     by the iteration cap before the tolerance ends at another iterate
//     than scikit-learn's; converged fits agree to the tolerance.
//
// Fit returns a Model, which answers queries with class probabilities
// (Probabilities, ProbabilitiesTo, LogProbabilitiesTo into caller
// buffers) and decisions (Predict). Fit takes a context, which it looks
// at before every evaluation of the objective.
package logistic

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize"
)

// Defaults of Options, scikit-learn's LogisticRegression's.
const (
	// DefaultTol is the default tolerance on the gradient's largest
	// absolute entry (scikit-learn's tol).
	DefaultTol = 1e-4
	// DefaultMaxIter is the default bound on L-BFGS iterations
	// (scikit-learn's max_iter).
	DefaultMaxIter = 100
)

// Memory is the number of past steps whose curvature L-BFGS keeps.
const Memory = 10

// ErrParameter is wrapped by the errors of invalid options and ErrData by
// those of training data that cannot be fitted.
var (
	ErrParameter = errors.New("logistic: invalid parameter")
	ErrData      = errors.New("logistic: invalid training data")
)

// Options configure Fit. The zero value is not usable: C must be set.
type Options struct {
	// C is the inverse weight of the penalty, C > 0 and finite: the
	// objective is C·Σ log-loss + ½‖W‖²_F. A larger C fits the training
	// rows more closely.
	C float64
	// Tol stops the fit once the gradient of Σ log-loss + ‖W‖²_F/(2C)
	// has no entry larger than Tol in absolute value (the package
	// documentation); 0 means DefaultTol.
	Tol float64
	// MaxIter bounds the L-BFGS iterations; 0 means DefaultMaxIter. A fit
	// that reaches it keeps its last iterate and reports Converged false.
	MaxIter int
}

// Validate returns an error wrapping ErrParameter for a C that is not
// finite and > 0, a Tol that is negative or not finite, or a negative
// MaxIter.
func (o Options) Validate() error {
	switch {
	case !(o.C > 0) || math.IsInf(o.C, 0):
		return fmt.Errorf("%w: C = %v, want finite and > 0", ErrParameter, o.C)
	case !(o.Tol >= 0) || math.IsInf(o.Tol, 0):
		return fmt.Errorf("%w: tolerance = %v, want finite and >= 0 (0: %g)", ErrParameter, o.Tol, DefaultTol)
	case o.MaxIter < 0:
		return fmt.Errorf("%w: max iterations = %d, want >= 0 (0: %d)", ErrParameter, o.MaxIter, DefaultMaxIter)
	}
	return nil
}

// CheckC returns an error wrapping ErrParameter unless c is finite and
// > 0, the rule for Options.C that callers taking C as a parameter share.
func CheckC(c float64) error { return Options{C: c}.Validate() }

func (o Options) tol() float64 {
	if o.Tol == 0 {
		return DefaultTol
	}
	return o.Tol
}

func (o Options) maxIter() int {
	if o.MaxIter == 0 {
		return DefaultMaxIter
	}
	return o.MaxIter
}

// Model is a fitted multinomial logistic regression. It is safe for
// concurrent use.
type Model struct {
	// Classes are the distinct training labels, ascending: class k is
	// row k of Weights, entry k of Intercepts and of the probabilities.
	Classes []int
	// Weights is the K×p matrix W, row k the weights w_k of class k.
	Weights *mat.Dense
	// Intercepts are the intercepts b_k.
	Intercepts []float64
	// Iterations is the number of L-BFGS iterations the fit took.
	Iterations int
	// Converged reports whether the fit reached its tolerance; false
	// when it stopped at MaxIter or where float64 round-off left the
	// line search no further decrease.
	Converged bool
	// Gradient is the largest absolute entry of the gradient of
	// Σ log-loss + ‖W‖²_F/(2C) at the fitted W and b.
	Gradient float64
}

// Fit fits a model to the n rows of x (n×p, p >= 1 features) labelled
// labels (n values, at least two distinct ones) with the options o. It
// returns an error wrapping ErrParameter for invalid options, ErrData for
// an empty x, a labels length other than n, a single class or a NaN or
// infinite entry of x (naming its row and column), and one wrapping
// ctx.Err() once ctx is cancelled. A fit that stops before the tolerance
// is not an error: the Model reports it (Converged).
func Fit(ctx context.Context, x mat.Matrix, labels []int, o Options) (*Model, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	pr, err := newProblem(x, labels, o.C)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("logistic: %w", err)
	}
	p := optimize.Problem{
		Func: pr.value,
		Grad: pr.gradient,
		Status: func() (optimize.Status, error) {
			if err := ctx.Err(); err != nil {
				return optimize.Failure, err
			}
			return optimize.NotTerminated, nil
		},
	}
	settings := &optimize.Settings{
		GradientThreshold: o.tol(),
		MajorIterations:   o.maxIter(),
		Converger:         optimize.NeverTerminate{},
	}
	method := &optimize.LBFGS{Linesearcher: &optimize.MoreThuente{}, Store: Memory, GradStopThreshold: math.NaN()}
	res, err := optimize.Minimize(p, make([]float64, pr.k*(pr.p+1)), settings, method)
	if cerr := ctx.Err(); cerr != nil {
		return nil, fmt.Errorf("logistic: %w", cerr)
	}
	// A line search that can make no further progress ends the fit where
	// it is, as scipy's ABNORMAL_TERMINATION_IN_LNSRCH does; the model
	// reports that it did not converge.
	if err != nil && !isLinesearch(err) {
		return nil, fmt.Errorf("logistic: %w", err)
	}
	theta := res.Location.X
	g := make([]float64, len(theta))
	pr.gradient(g, theta)
	m := &Model{
		Classes:    pr.classes,
		Weights:    mat.NewDense(pr.k, pr.p, slices.Clone(theta[:pr.k*pr.p])),
		Intercepts: slices.Clone(theta[pr.k*pr.p:]),
		Iterations: res.Stats.MajorIterations,
		Gradient:   floats.Norm(g, math.Inf(1)),
	}
	m.Converged = res.Status == optimize.GradientThreshold || m.Gradient <= o.tol()
	return m, nil
}

// isLinesearch reports whether err is one of optimize's line-search
// failures.
func isLinesearch(err error) bool {
	for _, e := range []error{optimize.ErrLinesearcherFailure, optimize.ErrNoProgress, optimize.ErrNonDescentDirection, optimize.ErrLinesearcherBound} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// problem is the objective F(θ) = Σ_i −log p_{y_i}(x_i) + ‖W‖²_F/(2C) of
// θ = (W row by row, b), with the scores of its last evaluation kept so
// that the gradient at the same θ, which L-BFGS asks for next, costs one
// matrix product more.
type problem struct {
	x       blas64.General // n×p
	y       []int          // class index of each row
	classes []int
	n, p, k int
	invC    float64
	// z holds the scores XWᵀ + 1bᵀ, then P − Y, of the θ last evaluated.
	z     blas64.General
	last  []float64
	valid bool
	f     float64
}

func newProblem(x mat.Matrix, labels []int, c float64) (*problem, error) {
	if x == nil {
		return nil, fmt.Errorf("%w: nil rows", ErrData)
	}
	n, p := x.Dims()
	if n == 0 || p == 0 {
		return nil, fmt.Errorf("%w: %d×%d rows, want at least one row of at least one feature", ErrData, n, p)
	}
	if len(labels) != n {
		return nil, fmt.Errorf("%w: %d labels for %d rows", ErrData, len(labels), n)
	}
	classes := slices.Clone(labels)
	slices.Sort(classes)
	classes = slices.Compact(classes)
	if len(classes) < 2 {
		return nil, fmt.Errorf("%w: all %d rows have label %d; logistic regression needs at least two classes", ErrData, n, labels[0])
	}
	pr := &problem{
		x:       blas64.General{Rows: n, Cols: p, Stride: p, Data: make([]float64, n*p)},
		y:       make([]int, n),
		classes: classes,
		n:       n, p: p, k: len(classes),
		invC: 1 / c,
	}
	for i := range n {
		for j := range p {
			v := x.At(i, j)
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("%w: row %d, feature %d is %v", ErrData, i, j, v)
			}
			pr.x.Data[i*p+j] = v
		}
		pr.y[i], _ = slices.BinarySearch(classes, labels[i])
	}
	pr.z = blas64.General{Rows: n, Cols: pr.k, Stride: pr.k, Data: make([]float64, n*pr.k)}
	pr.last = make([]float64, pr.k*(p+1))
	return pr, nil
}

// weights returns W and b of θ.
func (pr *problem) weights(theta []float64) (blas64.General, []float64) {
	kp := pr.k * pr.p
	return blas64.General{Rows: pr.k, Cols: pr.p, Stride: pr.p, Data: theta[:kp]}, theta[kp:]
}

// evaluate computes F(θ) into pr.f and P − Y into pr.z, unless θ is the
// θ evaluated last.
func (pr *problem) evaluate(theta []float64) {
	if pr.valid && slices.Equal(theta, pr.last) {
		return
	}
	w, b := pr.weights(theta)
	z := pr.z.Data
	for i := range pr.n {
		copy(z[i*pr.k:(i+1)*pr.k], b)
	}
	blas64.Gemm(blas.NoTrans, blas.Trans, 1, pr.x, w, 1, pr.z)
	var loss float64
	for i := range pr.n {
		row := z[i*pr.k : (i+1)*pr.k]
		lse := logSumExp(row)
		loss += lse - row[pr.y[i]]
		for c, v := range row {
			row[c] = math.Exp(v - lse)
		}
		row[pr.y[i]]--
	}
	pr.f = loss + 0.5*pr.invC*floats.Dot(w.Data, w.Data)
	copy(pr.last, theta)
	pr.valid = true
}

func (pr *problem) value(theta []float64) float64 {
	pr.evaluate(theta)
	return pr.f
}

// gradient writes ∇F(θ): (P − Y)ᵀX + W/C for W, the column sums of P − Y
// for b.
func (pr *problem) gradient(grad, theta []float64) {
	pr.evaluate(theta)
	w, _ := pr.weights(theta)
	gw, gb := pr.weights(grad)
	copy(gw.Data, w.Data)
	blas64.Gemm(blas.Trans, blas.NoTrans, 1, pr.z, pr.x, pr.invC, gw)
	clear(gb)
	for i := range pr.n {
		floats.Add(gb, pr.z.Data[i*pr.k:(i+1)*pr.k])
	}
}

// logSumExp returns log Σ_j exp(z_j), shifted by max z so that it neither
// overflows nor underflows.
func logSumExp(z []float64) float64 {
	m := slices.Max(z)
	var s float64
	for _, v := range z {
		s += math.Exp(v - m)
	}
	return m + math.Log(s)
}

// Restore returns the model of the given classes (distinct and ascending),
// K×p weights and K intercepts, as a saved Model's fields give them, with
// Converged true. It returns an error wrapping ErrData when the sizes do
// not agree, the classes are not ascending and distinct (fewer than two
// included) or an entry is not finite. The weights are not copied.
func Restore(classes []int, weights *mat.Dense, intercepts []float64) (*Model, error) {
	if len(classes) < 2 {
		return nil, fmt.Errorf("%w: %d classes, want at least 2", ErrData, len(classes))
	}
	for c := 1; c < len(classes); c++ {
		if classes[c] <= classes[c-1] {
			return nil, fmt.Errorf("%w: classes %v are not ascending and distinct", ErrData, classes)
		}
	}
	if weights == nil {
		return nil, fmt.Errorf("%w: nil weights", ErrData)
	}
	k, p := weights.Dims()
	if k != len(classes) || len(intercepts) != k || p == 0 {
		return nil, fmt.Errorf("%w: %d classes, %d×%d weights and %d intercepts", ErrData, len(classes), k, p, len(intercepts))
	}
	for c := range k {
		for j := range p {
			if v := weights.At(c, j); math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("%w: weight %d of class %d is %v", ErrData, j, classes[c], v)
			}
		}
		if v := intercepts[c]; math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("%w: intercept of class %d is %v", ErrData, classes[c], v)
		}
	}
	return &Model{Classes: slices.Clone(classes), Weights: weights, Intercepts: slices.Clone(intercepts), Converged: true}, nil
}

// Features returns p, the length of the rows the model takes.
func (m *Model) Features() int {
	_, p := m.Weights.Dims()
	return p
}

// LogProbabilitiesTo writes log p_k(x) = z_k − log Σ_j exp(z_j) of the
// row x into dst, of length K, in the order of Classes. It allocates
// nothing, and is exact where p_k underflows to zero. It returns an error
// for a dst or x of the wrong length, or an x with a NaN or infinite
// entry.
func (m *Model) LogProbabilitiesTo(dst, x []float64) error {
	k, p := m.Weights.Dims()
	if len(dst) != k {
		return fmt.Errorf("logistic: destination of length %d for %d classes", len(dst), k)
	}
	if len(x) != p {
		return fmt.Errorf("logistic: row of %d features, the model takes %d", len(x), p)
	}
	for j, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("logistic: feature %d is %v", j, v)
		}
	}
	copy(dst, m.Intercepts)
	blas64.Gemv(blas.NoTrans, 1, m.Weights.RawMatrix(), blas64.Vector{N: p, Inc: 1, Data: x}, 1, blas64.Vector{N: k, Inc: 1, Data: dst})
	lse := logSumExp(dst)
	for c := range dst {
		dst[c] -= lse
	}
	return nil
}

// ProbabilitiesTo writes the class probabilities p_k(x) of the row x into
// dst, of length K, in the order of Classes; they sum to 1. It allocates
// nothing, and returns the errors of LogProbabilitiesTo.
func (m *Model) ProbabilitiesTo(dst, x []float64) error {
	if err := m.LogProbabilitiesTo(dst, x); err != nil {
		return err
	}
	for c, v := range dst {
		dst[c] = math.Exp(v)
	}
	return nil
}

// Probabilities returns the class probabilities of the row x; see
// ProbabilitiesTo.
func (m *Model) Probabilities(x []float64) ([]float64, error) {
	dst := make([]float64, len(m.Classes))
	return dst, m.ProbabilitiesTo(dst, x)
}

// Predict returns the class of the row x: the label of the largest
// probability, the smallest label among equal ones. It returns the errors
// of LogProbabilitiesTo.
func (m *Model) Predict(x []float64) (int, error) {
	lp := make([]float64, len(m.Classes))
	if err := m.LogProbabilitiesTo(lp, x); err != nil {
		return 0, err
	}
	best := 0
	for c, v := range lp {
		if v > lp[best] {
			best = c
		}
	}
	return m.Classes[best], nil
}
