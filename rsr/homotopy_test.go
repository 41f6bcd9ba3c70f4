package rsr

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// kktViolation returns the largest violation of the Lasso's optimality
// conditions at v, from K v computed by gonum (independently of the
// solver's gradient).
func kktViolation(K mat.Symmetric, kx []float64, lambda float64, nonneg bool, v []float64) float64 {
	var kv mat.VecDense
	kv.MulVec(K, mat.NewVecDense(len(v), v))
	worst := 0.0
	for j, x := range v {
		grad := 2 * (kv.AtVec(j) - kx[j])
		var viol float64
		switch {
		case x > 0:
			viol = math.Abs(grad + lambda)
		case x < 0 && nonneg:
			return math.Inf(1)
		case x < 0:
			viol = math.Abs(grad - lambda)
		case nonneg:
			viol = -grad - lambda
		default:
			viol = math.Abs(grad) - lambda
		}
		worst = max(worst, viol)
	}
	return worst
}

// TestHomotopySolvesLowRank checks that cold starts on Gram matrices of
// rank at most homotopyMaxActive are solved by the homotopy alone (no
// sweeps) to far below the default tolerance, in feature spaces of 2 to 16
// dimensions, with and without an exact duplicate atom, signed and
// non-negative.
func TestHomotopySolvesLowRank(t *testing.T) {
	r := newRand(5)
	for trial := range 48 {
		m := []int{2, 6, 12, 16}[trial%4]
		n := []int{40, 300}[trial/4%2]
		nonneg := trial/8%2 == 1
		lambda := []float64{0.3, 3, 30}[trial/16%3]
		K, kx, kxx := featureProblem(r, m, n)
		if trial%3 == 0 {
			twinAtoms(K, kx)
		}
		l, err := NewLasso(K, LassoOptions{Lambda: lambda, Tol: 1e-10, NonNegative: nonneg})
		if err != nil {
			t.Fatal(err)
		}
		if !l.lowRank {
			t.Fatalf("trial %d: rank-%d Gram matrix not detected as low-rank", trial, m)
		}
		v, cert, err := l.Solve(kx, kxx)
		if err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
		if cert.Sweeps != 0 {
			t.Errorf("trial %d (m=%d n=%d λ=%g nonneg=%v): %d sweeps: the homotopy did not finish", trial, m, n, lambda, nonneg, cert.Sweeps)
		}
		kmax := 0.0
		for _, x := range kx {
			kmax = max(kmax, math.Abs(x))
		}
		if viol, bound := kktViolation(K, kx, lambda, nonneg, v), 1e-10*max(lambda, 2*kmax); viol > bound {
			t.Errorf("trial %d (m=%d n=%d λ=%g nonneg=%v): KKT violation %g > %g", trial, m, n, lambda, nonneg, viol, bound)
		}
		if cert.NonZeros > m {
			t.Errorf("trial %d: %d non-zeros in a %d-dimensional feature space", trial, cert.NonZeros, m)
		}
	}
}

// TestHomotopyAgainstBruteForce compares the homotopy with the enumeration
// of every sign pattern on problems of 8 atoms in 3 dimensions, where the
// path has atoms leave as well as enter.
func TestHomotopyAgainstBruteForce(t *testing.T) {
	r := newRand(6)
	for trial := range 60 {
		K, kx, kxx := featureProblem(r, 3, 8)
		lambda := []float64{0.05, 0.5, 2, 8}[trial%4] * (0.5 + r.Float64())
		nonneg := trial%5 == 0
		l, err := NewLasso(K, LassoOptions{Lambda: lambda, Tol: 1e-12, NonNegative: nonneg})
		if err != nil {
			t.Fatal(err)
		}
		v := make([]float64, 8)
		if !l.homotopy(v, kx, l.NewWorkspace()) {
			t.Fatalf("trial %d: the homotopy stopped early", trial)
		}
		_, want := bruteForce(K, kx, kxx, lambda, nonneg)
		if got := objective(K, kx, kxx, lambda, v); math.Abs(got-want) > 1e-10*math.Max(1, math.Abs(want)) {
			t.Errorf("trial %d (λ=%g nonneg=%v): objective %.14g, brute force %.14g", trial, lambda, nonneg, got, want)
		}
	}
}
