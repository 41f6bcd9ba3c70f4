package spd

import (
	"context"
	"errors"
	"fmt"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// steinGradientGap returns ‖Σ_i w_i ((X+X_i)/2)^{−1} − X^{−1}‖_F / ‖X^{−1}‖_F
// (w nil: 1/n each) with gonum's general inverse: the first-order
// condition of the Stein mean computed independently of the package's
// Cholesky code.
func steinGradientGap(t *testing.T, x *mat.SymDense, xs []*mat.SymDense, w []float64) float64 {
	t.Helper()
	d := x.SymmetricDim()
	var sum, mid, inv mat.Dense
	sum.ReuseAs(d, d)
	for i, xi := range xs {
		mid.Add(x, xi)
		mid.Scale(0.5, &mid)
		if err := inv.Inverse(&mid); err != nil {
			t.Fatal(err)
		}
		wi := 1 / float64(len(xs))
		if w != nil {
			wi = w[i]
		}
		inv.Scale(wi, &inv)
		sum.Add(&sum, &inv)
	}
	var want mat.Dense
	if err := want.Inverse(x); err != nil {
		t.Fatal(err)
	}
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
			m, info, err := SteinMean(context.Background(), xs, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !info.Converged || !(info.Residual < 1e-10) {
				t.Errorf("info %+v: want converged below 1e-10", info)
			}
			if gap := steinGradientGap(t, m, xs, nil); gap > 1e-9 {
				t.Errorf("‖Σ((X+X_i)/2)^{-1}/n − X^{-1}‖ / ‖X^{-1}‖ = %.3g, want <= 1e-9", gap)
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

// TestSteinMeanWeights checks that integer weights are repeats: the mean
// with weights (1, 2, 1) is that of the list with the middle matrix
// twice, and both satisfy the weighted first-order condition computed
// apart.
func TestSteinMeanWeights(t *testing.T) {
	_, xs := randSet(t, 10, 3, 3)
	w := []float64{1, 2, 1}
	got, _, err := SteinMean(context.Background(), xs, &MeanOptions{Weights: w, Tol: 1e-14})
	if err != nil {
		t.Fatal(err)
	}
	want, _, err := SteinMean(context.Background(), []*mat.SymDense{xs[0], xs[1], xs[1], xs[2]}, &MeanOptions{Tol: 1e-14})
	if err != nil {
		t.Fatal(err)
	}
	assertSymClose(t, "weights (1, 2, 1) vs the repeated list", got, want, 1e-12)
	if gap := steinGradientGap(t, got, xs, []float64{0.25, 0.5, 0.25}); gap > 1e-9 {
		t.Errorf("weighted gradient gap %.3g", gap)
	}
}

// TestSteinMeanIterationCap checks that the cap returns the last iterate,
// SPD, with ErrNoConvergence.
func TestSteinMeanIterationCap(t *testing.T) {
	_, xs := randSet(t, 11, 4, 3)
	m, info, err := SteinMean(context.Background(), xs, &MeanOptions{MaxIter: 1, Tol: 1e-15})
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
				info, err := w.mean(context.Background(), set.data, idx, nil, 1e-10, 200, 1)
				if err != nil {
					b.Fatal(err)
				}
				iters = info.Iterations
			}
			b.ReportMetric(float64(iters), "iters")
		})
	}
}
