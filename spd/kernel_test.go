package spd

import (
	"errors"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func TestCheckSigma(t *testing.T) {
	for _, tc := range []struct {
		sigma float64
		ok    bool
	}{
		{1e-300, true}, {0.7, true}, {1e300, true},
		{0, false}, {-1, false}, {math.NaN(), false}, {math.Inf(1), false}, {math.Inf(-1), false},
	} {
		err := CheckSigma(tc.sigma)
		if (err == nil) != tc.ok || err != nil && !errors.Is(err, ErrParameter) {
			t.Errorf("CheckSigma(%v) = %v, want ok %v", tc.sigma, err, tc.ok)
		}
		// The log-Euclidean kernel takes every σ that CheckSigma does, on
		// every size; the Stein kernel's Check refuses at least as much.
		if err := (LogEuclideanKernel{Sigma: tc.sigma}).Check(3); (err == nil) != tc.ok {
			t.Errorf("LogEuclideanKernel{%v}.Check(3) = %v, want ok %v", tc.sigma, err, tc.ok)
		}
		if err := (SteinKernel{Sigma: tc.sigma, Pseudo: true}).Check(3); !tc.ok && err == nil {
			t.Errorf("SteinKernel{%v}.Check(3) accepted what CheckSigma refuses", tc.sigma)
		}
	}
	if err := (LogEuclideanKernel{Sigma: 1}).Check(0); !errors.Is(err, ErrDimension) {
		t.Errorf("Check(0) = %v, want ErrDimension", err)
	}
}

// TestLogEuclideanKernelEval checks k against the closed form for
// commuting (diagonal) matrices, exp(−σ Σ_i log²(x_i/y_i)), and k(X, X) = 1.
func TestLogEuclideanKernelEval(t *testing.T) {
	x := mat.NewSymDense(2, []float64{1, 0, 0, 4})
	y := mat.NewSymDense(2, []float64{4, 0, 0, 1})
	k := LogEuclideanKernel{Sigma: 0.3}
	got, err := k.Eval(x, y)
	if err != nil {
		t.Fatal(err)
	}
	l := math.Log(4)
	if want := math.Exp(-0.3 * 2 * l * l); math.Abs(got-want) > 1e-14 {
		t.Errorf("k(X, Y) = %v, want %v", got, want)
	}
	if self, err := k.Eval(x, x); err != nil || self != 1 {
		t.Errorf("k(X, X) = %v, %v; want 1", self, err)
	}
	if _, err := (LogEuclideanKernel{}).Eval(x, y); !errors.Is(err, ErrParameter) {
		t.Errorf("σ = 0: %v, want ErrParameter", err)
	}
}
