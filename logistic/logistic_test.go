package logistic

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/covpipe/covpipe/internal/canceltest"
	"gonum.org/v1/gonum/mat"
)

// blobs returns n rows of p features around k class centres drawn from
// seed, labelled 10, 20, ..., with the given spread.
func blobs(n, p, k int, spread float64, seed uint64) (*mat.Dense, []int) {
	rng := rand.New(rand.NewPCG(seed, 7))
	centres := make([][]float64, k)
	for c := range centres {
		centres[c] = make([]float64, p)
		for j := range centres[c] {
			centres[c][j] = 2 * rng.NormFloat64()
		}
	}
	x := mat.NewDense(n, p, nil)
	labels := make([]int, n)
	for i := range n {
		c := i % k
		labels[i] = 10 * (c + 1)
		for j := range p {
			x.Set(i, j, centres[c][j]+spread*rng.NormFloat64())
		}
	}
	return x, labels
}

// objectiveGradient returns the gradient of
// Σ_i −log p_{y_i}(x_i) + ‖W‖²/(2C) at the model's W and b, computed
// entry by entry from the definition, independently of the fit's
// matrix products.
func objectiveGradient(m *Model, x *mat.Dense, labels []int, c float64) (gw *mat.Dense, gb []float64) {
	n, p := x.Dims()
	k := len(m.Classes)
	gw = mat.NewDense(k, p, nil)
	gb = make([]float64, k)
	for i := range n {
		z := make([]float64, k)
		zmax := math.Inf(-1)
		for cl := range k {
			z[cl] = m.Intercepts[cl]
			for j := range p {
				z[cl] += m.Weights.At(cl, j) * x.At(i, j)
			}
			zmax = math.Max(zmax, z[cl])
		}
		var s float64
		for cl := range k {
			s += math.Exp(z[cl] - zmax)
		}
		for cl := range k {
			r := math.Exp(z[cl]-zmax) / s
			if m.Classes[cl] == labels[i] {
				r--
			}
			gb[cl] += r
			for j := range p {
				gw.Set(cl, j, gw.At(cl, j)+r*x.At(i, j))
			}
		}
	}
	for cl := range k {
		for j := range p {
			gw.Set(cl, j, gw.At(cl, j)+m.Weights.At(cl, j)/c)
		}
	}
	return gw, gb
}

// TestKKT checks the optimality certificate of fits of overlapping and
// separable classes: the gradient of the objective at the fitted W and b,
// computed from its definition, is within the fit's tolerance, and zero
// relative to the gradient at W = 0; and the optimal weights sum to zero over the
// classes, as stationarity in the direction that adds one vector to
// every w_k requires.
func TestKKT(t *testing.T) {
	for _, tc := range []struct {
		name          string
		n, p, k       int
		spread, c     float64
		tol, relative float64
	}{
		{"overlapping", 90, 4, 3, 1.5, 1, 1e-6, 1e-7},
		{"many classes", 120, 6, 12, 1, 0.3, 1e-6, 1e-7},
		{"separable, large C", 40, 3, 4, 0.1, 1e4, 1e-6, 1e-7},
		{"two classes", 50, 2, 2, 1, 2, 1e-7, 1e-8},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x, labels := blobs(tc.n, tc.p, tc.k, tc.spread, 3)
			m, err := Fit(context.Background(), x, labels, Options{C: tc.c, Tol: tc.tol, MaxIter: 10000})
			if err != nil {
				t.Fatal(err)
			}
			if !m.Converged {
				t.Fatalf("not converged after %d iterations, gradient %g", m.Iterations, m.Gradient)
			}
			gw, gb := objectiveGradient(m, x, labels, tc.c)
			zero := &Model{Classes: m.Classes, Weights: mat.NewDense(tc.k, tc.p, nil), Intercepts: make([]float64, tc.k)}
			g0w, g0b := objectiveGradient(zero, x, labels, tc.c)
			scale := math.Max(mat.Norm(g0w, math.Inf(1)), maxAbs(g0b))
			if g := math.Max(maxAbs(gw.RawMatrix().Data), maxAbs(gb)); g > tc.tol*(1+1e-6) || g > tc.relative*scale {
				t.Errorf("gradient at the fit %g, at zero %g: relative %g > %g", g, scale, g/scale, tc.relative)
			}
			for j := range tc.p {
				var s float64
				for c := range tc.k {
					s += m.Weights.At(c, j)
				}
				if math.Abs(s) > 1e-6*mat.Norm(m.Weights, math.Inf(1)) {
					t.Errorf("feature %d: Σ_k w_k = %g, want 0", j, s)
				}
			}
		})
	}
}

func maxAbs(v []float64) float64 {
	var m float64
	for _, x := range v {
		m = math.Max(m, math.Abs(x))
	}
	return m
}

// TestSymmetricPoints checks the closed form of two points x = ∓1 of
// classes 0 and 1: by symmetry b = 0 and w₁ = −w₀ = a, and the objective
// 2C·log(1 + e^{−2a}) + a² is stationary where a = 2C/(1 + e^{2a}),
// whose root the test finds by bisection.
func TestSymmetricPoints(t *testing.T) {
	for _, c := range []float64{0.01, 0.5, 1, 3, 20} {
		root := bisect(func(a float64) float64 { return a - 2*c/(1+math.Exp(2*a)) }, 0, 2*c)
		x := mat.NewDense(2, 1, []float64{-1, 1})
		m, err := Fit(context.Background(), x, []int{0, 1}, Options{C: c, Tol: 1e-12, MaxIter: 1000})
		if err != nil {
			t.Fatal(err)
		}
		if w0, w1 := m.Weights.At(0, 0), m.Weights.At(1, 0); math.Abs(w1-root) > 1e-9*math.Max(1, root) || math.Abs(w0+root) > 1e-9*math.Max(1, root) {
			t.Errorf("C = %v: w = (%v, %v), want (%v, %v)", c, w0, w1, -root, root)
		}
		if b := m.Intercepts; math.Abs(b[0]) > 1e-9 || math.Abs(b[1]) > 1e-9 {
			t.Errorf("C = %v: b = %v, want 0", c, b)
		}
		p, err := m.Probabilities([]float64{1})
		if err != nil {
			t.Fatal(err)
		}
		if want := 1 / (1 + math.Exp(-2*root)); math.Abs(p[1]-want) > 1e-9 {
			t.Errorf("C = %v: p(1 | x = 1) = %v, want %v", c, p[1], want)
		}
	}
}

func bisect(f func(float64) float64, lo, hi float64) float64 {
	for range 200 {
		mid := (lo + hi) / 2
		if f(mid) > 0 {
			hi = mid
		} else {
			lo = mid
		}
	}
	return (lo + hi) / 2
}

// TestScikitLearn compares fits of a fixed 12-point, 3-class dataset with
// scikit-learn 1.2.1's LogisticRegression(C=C, solver="newton-cg",
// tol=1e-10, multi_class="multinomial"), the same objective solved by
// Newton's method to round-off (its lbfgs solver stops at scipy's
// relative reduction of the objective, about 1e-5 from the optimum
// here): coef_, intercept_ and predict_proba([[1.2, 1.7]]), printed by
// Python once and typed here.
func TestScikitLearn(t *testing.T) {
	x := mat.NewDense(12, 2, []float64{0, 1, 0.5, 1.5, 1, 0.5, 2, 2, 2.5, 1, 3, 2.5, 0.5, 3, 1, 3.5, 1.5, 2.5, 2, 0, 1, 1, 2.5, 3})
	labels := []int{10, 10, 10, 20, 20, 20, 30, 30, 30, 20, 10, 30}
	for _, tc := range []struct {
		c     float64
		coef  [][]float64
		icept []float64
		proba []float64
	}{
		{0.5,
			[][]float64{{-0.6833476977319447, -0.5220569723076272}, {0.7968002393369201, -0.3462222626743256}, {-0.11345254160497593, 0.8682792349819527}},
			[]float64{1.9193973128980764, -0.48937089839849046, -1.4300264144995862},
			[]float64{0.40722527508623335, 0.2916909505698345, 0.30108377434393213}},
		{4,
			[][]float64{{-1.5740605950033093, -1.1089947206496935}, {1.9170376352126468, -0.9309007502132298}, {-0.3429770402093386, 2.039895470862923}},
			[]float64{4.323785421937, -1.0344158944936488, -3.2893695274433488},
			[]float64{0.5325579959380508, 0.22398254255222655, 0.24345946150972267}},
	} {
		m, err := Fit(context.Background(), x, labels, Options{C: tc.c, Tol: 1e-7, MaxIter: 10000})
		if err != nil {
			t.Fatal(err)
		}
		if !m.Converged {
			t.Errorf("C = %v: not converged, gradient %g", tc.c, m.Gradient)
		}
		const eps = 1e-6 // tolerances of 1e-7 and 1e-10 on the gradient
		for c := range 3 {
			for j := range 2 {
				if got := m.Weights.At(c, j); math.Abs(got-tc.coef[c][j]) > eps {
					t.Errorf("C = %v: w[%d][%d] = %v, scikit-learn %v", tc.c, c, j, got, tc.coef[c][j])
				}
			}
			if got := m.Intercepts[c]; math.Abs(got-tc.icept[c]) > eps {
				t.Errorf("C = %v: b[%d] = %v, scikit-learn %v", tc.c, c, got, tc.icept[c])
			}
		}
		p, err := m.Probabilities([]float64{1.2, 1.7})
		if err != nil {
			t.Fatal(err)
		}
		for c := range 3 {
			if math.Abs(p[c]-tc.proba[c]) > eps {
				t.Errorf("C = %v: p[%d] = %v, scikit-learn %v", tc.c, c, p[c], tc.proba[c])
			}
		}
	}
}

// TestInvariance checks transformations of the training set that leave
// the optimum known: permuting the rows and relabelling the classes in
// the same order change nothing; translating every row by t keeps W and
// moves b by −Wt (the intercept is not penalised); duplicating every row
// with C halved is the same objective.
func TestInvariance(t *testing.T) {
	ctx := context.Background()
	x, labels := blobs(60, 3, 3, 1.2, 5)
	o := Options{C: 2, Tol: 1e-10, MaxIter: 10000}
	base, err := Fit(ctx, x, labels, o)
	if err != nil {
		t.Fatal(err)
	}
	n, p := x.Dims()
	shift := []float64{3, -7, 0.5}
	cases := []struct {
		name   string
		x      *mat.Dense
		labels []int
		o      Options
		// b gives the expected intercepts from the base fit's.
		b func(w *mat.Dense, b []float64) []float64
	}{
		{name: "permuted rows, relabelled", o: o},
		{name: "translated", o: o, b: func(w *mat.Dense, b []float64) []float64 {
			out := slices.Clone(b)
			for c := range out {
				for j := range p {
					out[c] -= w.At(c, j) * shift[j]
				}
			}
			return out
		}},
		{name: "duplicated, C halved", o: Options{C: o.C / 2, Tol: o.Tol, MaxIter: o.MaxIter}},
	}
	perm := rand.New(rand.NewPCG(1, 2)).Perm(n)
	cases[0].x, cases[0].labels = mat.NewDense(n, p, nil), make([]int, n)
	for i, j := range perm {
		cases[0].x.SetRow(i, x.RawRowView(j))
		cases[0].labels[i] = labels[j]*3 + 1 // same order of classes
	}
	cases[1].x, cases[1].labels = mat.NewDense(n, p, nil), labels
	for i := range n {
		for j := range p {
			cases[1].x.Set(i, j, x.At(i, j)+shift[j])
		}
	}
	cases[2].x, cases[2].labels = mat.NewDense(2*n, p, nil), slices.Concat(labels, labels)
	cases[2].x.Stack(x, x)
	for _, tc := range cases {
		m, err := Fit(ctx, tc.x, tc.labels, tc.o)
		if err != nil {
			t.Fatal(err)
		}
		if !mat.EqualApprox(m.Weights, base.Weights, 1e-7) {
			t.Errorf("%s: W = %v, want %v", tc.name, mat.Formatted(m.Weights), mat.Formatted(base.Weights))
		}
		want := base.Intercepts
		if tc.b != nil {
			want = tc.b(base.Weights, base.Intercepts)
		}
		for c := range want {
			if math.Abs(m.Intercepts[c]-want[c]) > 1e-6 {
				t.Errorf("%s: b = %v, want %v", tc.name, m.Intercepts, want)
				break
			}
		}
	}
}

// TestSeparable checks that on separable classes a large C classifies
// every training row correctly with probability near 1, and that the
// weights grow with C.
func TestSeparable(t *testing.T) {
	x, labels := blobs(40, 2, 4, 0.05, 9)
	var prev float64
	least := map[float64]float64{100: 0.9, 1e4: 0.99} // the probability of the true class
	for _, c := range []float64{0.01, 1, 100, 1e4} {
		m, err := Fit(context.Background(), x, labels, Options{C: c, MaxIter: 5000, Tol: 1e-8})
		if err != nil {
			t.Fatal(err)
		}
		norm := mat.Norm(m.Weights, 2)
		if norm <= prev {
			t.Errorf("C = %v: ‖W‖ = %v, not above %v of the smaller C", c, norm, prev)
		}
		prev = norm
		if least[c] == 0 {
			continue
		}
		for i := range labels {
			p, err := m.Probabilities(x.RawRowView(i))
			if err != nil {
				t.Fatal(err)
			}
			k, _ := slices.BinarySearch(m.Classes, labels[i])
			if got, _ := m.Predict(x.RawRowView(i)); got != labels[i] || p[k] < least[c] {
				t.Errorf("C = %v: row %d of class %d predicted %d with p = %v", c, i, labels[i], got, p[k])
			}
		}
	}
}

// TestProbabilities checks the probabilities against their definition,
// that they sum to 1, that Predict is their argmax, and that the log
// probabilities stay exact where probabilities underflow.
func TestProbabilities(t *testing.T) {
	w := mat.NewDense(3, 2, []float64{1, 0, 0, 1, -1, -1})
	m, err := Restore([]int{1, 5, 9}, w, []float64{0, 0.5, -0.5})
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range [][]float64{{0, 0}, {2, -1}, {-3, 4}, {0.5, 0.5}} {
		p, err := m.Probabilities(x)
		if err != nil {
			t.Fatal(err)
		}
		z := []float64{x[0], x[1] + 0.5, -x[0] - x[1] - 0.5}
		s := math.Exp(z[0]) + math.Exp(z[1]) + math.Exp(z[2])
		var sum float64
		best := 0
		for c := range 3 {
			if want := math.Exp(z[c]) / s; math.Abs(p[c]-want) > 1e-15 {
				t.Errorf("x = %v: p[%d] = %v, want %v", x, c, p[c], want)
			}
			sum += p[c]
			if z[c] > z[best] {
				best = c
			}
		}
		if math.Abs(sum-1) > 1e-15 {
			t.Errorf("x = %v: Σ p = %v", x, sum)
		}
		if got, err := m.Predict(x); err != nil || got != m.Classes[best] {
			t.Errorf("x = %v: Predict %d, %v; want %d", x, got, err, m.Classes[best])
		}
	}
	lp := make([]float64, 3)
	if err := m.LogProbabilitiesTo(lp, []float64{2000, 0}); err != nil {
		t.Fatal(err)
	}
	// z = (2000, 0.5, −2000.5): log p = z − 2000 − log(1 + e^{−1999.5} + ...).
	if want := []float64{0, 0.5 - 2000, -4000.5}; math.Abs(lp[0]) > 1e-12 || lp[1] != want[1] || lp[2] != want[2] {
		t.Errorf("log probabilities %v, want %v", lp, want)
	}
}

// TestErrors checks that bad options and data are refused with errors
// naming the problem.
func TestErrors(t *testing.T) {
	ctx := context.Background()
	x, labels := blobs(6, 2, 2, 1, 1)
	nan := mat.DenseCopyOf(x)
	nan.Set(3, 1, math.NaN())
	for _, tc := range []struct {
		name   string
		x      mat.Matrix
		labels []int
		o      Options
		is     error
		says   string
	}{
		{"C zero", x, labels, Options{}, ErrParameter, "C = 0"},
		{"C negative", x, labels, Options{C: -1}, ErrParameter, "C = -1"},
		{"C NaN", x, labels, Options{C: math.NaN()}, ErrParameter, "C = NaN"},
		{"C infinite", x, labels, Options{C: math.Inf(1)}, ErrParameter, "C = +Inf"},
		{"tolerance negative", x, labels, Options{C: 1, Tol: -1}, ErrParameter, "tolerance"},
		{"iterations negative", x, labels, Options{C: 1, MaxIter: -1}, ErrParameter, "max iterations"},
		{"nil rows", nil, labels, Options{C: 1}, ErrData, "nil rows"},
		{"no features", mat.NewDense(6, 1, nil).Slice(0, 6, 0, 0), labels, Options{C: 1}, ErrData, "6×0"},
		{"labels length", x, labels[:5], Options{C: 1}, ErrData, "5 labels for 6 rows"},
		{"one class", x, []int{4, 4, 4, 4, 4, 4}, Options{C: 1}, ErrData, "at least two classes"},
		{"NaN", nan, labels, Options{C: 1}, ErrData, "row 3, feature 1 is NaN"},
	} {
		_, err := Fit(ctx, tc.x, tc.labels, tc.o)
		if !errors.Is(err, tc.is) || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("%s: %v, want %v saying %q", tc.name, err, tc.is, tc.says)
		}
	}
	m, err := Fit(ctx, x, labels, Options{C: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		dst, x []float64
		says   string
	}{
		{"short destination", make([]float64, 1), []float64{0, 0}, "destination of length 1"},
		{"short row", make([]float64, 2), []float64{0}, "row of 1 features"},
		{"NaN feature", make([]float64, 2), []float64{0, math.NaN()}, "feature 1 is NaN"},
	} {
		if err := m.ProbabilitiesTo(tc.dst, tc.x); err == nil || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("%s: %v, want an error saying %q", tc.name, err, tc.says)
		}
	}
	for _, tc := range []struct {
		name    string
		classes []int
		w       *mat.Dense
		b       []float64
	}{
		{"one class", []int{1}, mat.NewDense(1, 2, nil), []float64{0}},
		{"unsorted classes", []int{2, 1}, mat.NewDense(2, 2, nil), []float64{0, 0}},
		{"nil weights", []int{1, 2}, nil, []float64{0, 0}},
		{"rows", []int{1, 2}, mat.NewDense(3, 2, nil), []float64{0, 0}},
		{"intercepts", []int{1, 2}, mat.NewDense(2, 2, nil), []float64{0}},
		{"infinite weight", []int{1, 2}, mat.NewDense(2, 1, []float64{0, math.Inf(1)}), []float64{0, 0}},
	} {
		if _, err := Restore(tc.classes, tc.w, tc.b); !errors.Is(err, ErrData) {
			t.Errorf("Restore, %s: %v, want ErrData", tc.name, err)
		}
	}
}

// TestIterationCap checks that a fit stopped by MaxIter is a model that
// says it did not converge.
func TestIterationCap(t *testing.T) {
	x, labels := blobs(200, 10, 5, 1, 2)
	m, err := Fit(context.Background(), x, labels, Options{C: 100, Tol: 1e-14, MaxIter: 3})
	if err != nil {
		t.Fatal(err)
	}
	if m.Converged || m.Iterations != 3 || !(m.Gradient > 1e-14) {
		t.Errorf("converged %v after %d iterations, gradient %g; want false after 3", m.Converged, m.Iterations, m.Gradient)
	}
}

func TestCancel(t *testing.T) {
	x, labels := blobs(20, 2, 2, 1, 1)
	_, err := Fit(canceltest.Cancelled(t), x, labels, Options{C: 1})
	canceltest.Check(t, "Fit, cancelled before", err)
	x, labels = blobs(4000, 200, 50, 2, 1)
	_, err = Fit(canceltest.Soon(t), x, labels, Options{C: 1e3, Tol: 1e-14, MaxIter: 100000})
	canceltest.Check(t, "Fit, cancelled while running", err)
}
