package spd

import (
	"context"
	"errors"
	"fmt"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// steinGradientGap returns ‖Σ_i ((X+X_i)/2)^{−1} − n X^{−1}‖_F / ‖n X^{−1}‖_F
// with gonum's general inverse: the first-order condition of the Stein mean
// computed independently of the package's Cholesky code.
func steinGradientGap(t *testing.T, x *mat.SymDense, xs []*mat.SymDense) float64 {
	t.Helper()
	d := x.SymmetricDim()
	var sum, mid, inv mat.Dense
	sum.ReuseAs(d, d)
	for _, xi := range xs {
		mid.Add(x, xi)
		mid.Scale(0.5, &mid)
		if err := inv.Inverse(&mid); err != nil {
			t.Fatal(err)
		}
		sum.Add(&sum, &inv)
	}
	var want mat.Dense
	if err := want.Inverse(x); err != nil {
		t.Fatal(err)
	}
	want.Scale(float64(len(xs)), &want)
	sum.Sub(&sum, &want)
	return mat.Norm(&sum, 2) / mat.Norm(&want, 2)
}

func steinSum(t *testing.T, x *mat.SymDense, xs []*mat.SymDense) float64 {
	t.Helper()
	var s float64
	for _, xi := range xs {
		v, err := Stein(x, xi)
		if err != nil {
			t.Fatal(err)
		}
		s += v
	}
	return s
}

func TestSteinMeanFixedPoint(t *testing.T) {
	for _, tc := range []struct {
		n, d   int
		spread float64
	}{
		{1, 3, 1}, {2, 3, 1}, {5, 2, 0.3}, {10, 5, 1.5}, {40, 5, 3}, {7, 17, 1}, {3, 30, 0.5},
	} {
		t.Run(fmt.Sprintf("n=%d,d=%d,spread=%g", tc.n, tc.d, tc.spread), func(t *testing.T) {
			r := newRand(uint64(100*tc.n + tc.d))
			xs := make([]*mat.SymDense, tc.n)
			for i := range xs {
				xs[i] = randSPD(r, tc.d, tc.spread)
			}
			set := mustSet(t, xs)
			m, info, err := SteinMean(context.Background(), set, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !info.Converged || !(info.Residual < 1e-10) {
				t.Errorf("info %+v: want converged below 1e-10", info)
			}
			if gap := steinGradientGap(t, m, xs); gap > 1e-9 {
				t.Errorf("‖Σ((X+X_i)/2)^{-1} − n X^{-1}‖ / ‖n X^{-1}‖ = %.3g, want <= 1e-9", gap)
			}
			// Optimality certificate: the points X^{1/2} P X^{1/2} around
			// the mean X, for P near I, have a larger Σ S.
			f0 := steinSum(t, m, xs)
			for k := range 4 {
				y := congr(smSqrt(m), randSPD(r, tc.d, 0.05*float64(k+1)))
				if f := steinSum(t, y, xs); f < f0 {
					t.Errorf("Σ S at a perturbed point %.17g < %.17g at the mean", f, f0)
				}
			}
		})
	}
}

// smSqrt returns X^{1/2} as a general matrix, by gonum's EigenSym.
func smSqrt(x mat.Symmetric) *mat.Dense {
	return mat.DenseCopyOf(eigenFn(x, math.Sqrt))
}

// scalarSteinMean solves Σ_i 2x/(x+a_i) = n for x > 0 by bisection: the
// Stein mean of positive scalars (the left side increases from 0 to 2n).
func scalarSteinMean(a []float64) float64 {
	lo, hi := math.Inf(1), 0.0
	for _, v := range a {
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	for range 200 {
		mid := 0.5 * (lo + hi)
		var g float64
		for _, v := range a {
			g += 2 * mid / (mid + v)
		}
		if g < float64(len(a)) {
			lo = mid
		} else {
			hi = mid
		}
	}
	return 0.5 * (lo + hi)
}

func TestSteinMeanCommuting(t *testing.T) {
	// Two diagonal matrices: the mean is the geometric mean √(ab) entrywise.
	two := mustSet(t, []*mat.SymDense{diag(1, 4, 9, 0.01), diag(4, 1, 1, 100)})
	// The default tolerance bounds the residual, a gradient; the error of
	// the mean is larger where the objective is flat (here along the entry
	// with ratio 10⁴), so compare at a tighter one.
	tight := &SteinMeanOptions{Tol: 1e-14}
	m, _, err := SteinMean(context.Background(), two, nil, tight)
	if err != nil {
		t.Fatal(err)
	}
	assertSymClose(t, "Stein mean of two diagonal matrices", m, diag(2, 2, 3, 1), 1e-11)

	// Many commuting matrices Q diag(a_i) Qᵀ: each eigenvalue is the scalar
	// Stein mean, found by bisection.
	r := newRand(7)
	const n, d = 9, 4
	q := randOrthogonal(r, d)
	vals := make([][]float64, d) // vals[j][i]: eigenvalue j of matrix i
	xs := make([]*mat.SymDense, n)
	for i := range xs {
		v := make([]float64, d)
		for j := range v {
			v[j] = math.Exp(3 * (2*r.Float64() - 1))
			vals[j] = append(vals[j], v[j])
		}
		xs[i] = withEigen(q, v)
	}
	set := mustSet(t, xs)
	m, _, err = SteinMean(context.Background(), set, nil, tight)
	if err != nil {
		t.Fatal(err)
	}
	want := make([]float64, d)
	for j := range want {
		want[j] = scalarSteinMean(vals[j])
	}
	assertSymClose(t, "Stein mean of commuting matrices", m, withEigen(q, want), 1e-12)
}

func TestSteinMeanOfTwoIsGeometricMean(t *testing.T) {
	r := newRand(8)
	for _, d := range []int{2, 5, 12} {
		a, b := randSPD(r, d, 2), randSPD(r, d, 2)
		set := mustSet(t, []*mat.SymDense{a, b})
		m, _, err := SteinMean(context.Background(), set, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		want, err := Geodesic(a, b, 0.5)
		if err != nil {
			t.Fatal(err)
		}
		assertSymClose(t, fmt.Sprintf("d=%d: Stein mean of two vs A#B", d), m, want, 1e-9)
	}
}

func TestSteinMeanCongruence(t *testing.T) {
	r := newRand(9)
	const n, d = 12, 4
	a := randInvertible(r, d)
	xs := make([]*mat.SymDense, n)
	ys := make([]*mat.SymDense, n)
	for i := range xs {
		xs[i] = randSPD(r, d, 1.5)
		ys[i] = congr(a, xs[i])
	}
	sx := mustSet(t, xs)
	sy := mustSet(t, ys)
	mx, _, err := SteinMean(context.Background(), sx, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	my, _, err := SteinMean(context.Background(), sy, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	assertSymClose(t, "mean(A X_i Aᵀ) vs A mean(X_i) Aᵀ", my, congr(a, mx), 1e-9)
}

func TestSteinMeanIndices(t *testing.T) {
	set, xs := randSet(t, 10, 8, 3)
	idx := []int{5, 1, 1, 6}
	got, _, err := SteinMean(context.Background(), set, idx, nil)
	if err != nil {
		t.Fatal(err)
	}
	// The subset, with the repeated matrix listed twice.
	want, _, err := SteinMean(context.Background(), set.Subset(idx), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	assertSymClose(t, "indexed vs Subset", got, want, 1e-13)
	sub := []*mat.SymDense{xs[5], xs[1], xs[1], xs[6]}
	if gap := steinGradientGap(t, got, sub); gap > 1e-9 {
		t.Errorf("gradient gap %.3g with a repeated index", gap)
	}
	// One matrix is its own mean.
	one, _, err := SteinMean(context.Background(), set, []int{3}, nil)
	if err != nil {
		t.Fatal(err)
	}
	assertSymClose(t, "mean of one matrix", one, xs[3], 1e-14)
}

func TestSteinMeanErrors(t *testing.T) {
	set, _ := randSet(t, 11, 4, 3)
	for _, tc := range []struct {
		name string
		set  *Set
		idx  []int
		opts *SteinMeanOptions
		want error
	}{
		{"nil set", nil, nil, nil, ErrEmpty},
		{"empty set", &Set{}, nil, nil, ErrEmpty},
		{"empty indices", set, []int{}, nil, ErrEmpty},
		{"index too large", set, []int{0, 4}, nil, ErrParameter},
		{"negative index", set, []int{-1}, nil, ErrParameter},
		{"negative tolerance", set, nil, &SteinMeanOptions{Tol: -1}, ErrParameter},
		{"NaN tolerance", set, nil, &SteinMeanOptions{Tol: math.NaN()}, ErrParameter},
		{"infinite tolerance", set, nil, &SteinMeanOptions{Tol: math.Inf(1)}, ErrParameter},
		{"negative cap", set, nil, &SteinMeanOptions{MaxIter: -1}, ErrParameter},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, _, err := SteinMean(context.Background(), tc.set, tc.idx, tc.opts)
			if !errors.Is(err, tc.want) {
				t.Fatalf("error %v, want %v", err, tc.want)
			}
			if m != nil {
				t.Errorf("got a matrix with error %v", err)
			}
		})
	}
	// The cap returns the last iterate with ErrNoConvergence.
	m, info, err := SteinMean(context.Background(), set, nil, &SteinMeanOptions{MaxIter: 1, Tol: 1e-15})
	if !errors.Is(err, ErrNoConvergence) || m == nil || info.Converged || info.Iterations != 1 {
		t.Fatalf("MaxIter 1: m=%v info=%+v err=%v, want the last iterate and ErrNoConvergence", m != nil, info, err)
	}
	if verr := Validate(m); verr != nil {
		t.Errorf("last iterate: %v", verr)
	}
}

func BenchmarkSteinMean(b *testing.B) {
	for _, n := range []int{16, 512} {
		b.Run(fmt.Sprintf("n=%d,d=5", n), func(b *testing.B) {
			set, _ := randSet(b, 12, n, 5)
			w := newSteinMeanWork(5)
			idx := make([]int, n)
			for i := range idx {
				idx[i] = i
			}
			var iters int
			for b.Loop() {
				info, err := w.mean(context.Background(), set, idx, 1e-10, 200)
				if err != nil {
					b.Fatal(err)
				}
				iters = info.Iterations
			}
			b.ReportMetric(float64(iters), "iters")
		})
	}
}
