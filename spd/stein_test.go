package spd

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func TestLogDetClosedForm(t *testing.T) {
	tests := []struct {
		name string
		x    *mat.SymDense
		want float64
	}{
		{"identity", diag(1, 1, 1), 0},
		{"diagonal", diag(2, 3, 0.5), math.Log(3)},
		{"2x2", mat.NewSymDense(2, []float64{4, 2, 2, 3}), math.Log(8)},
		// det = 1e640 overflows float64; the log does not.
		{"huge", diag(repeat(1e10, 64)...), 64 * math.Log(1e10)},
		{"tiny", diag(repeat(1e-10, 64)...), 64 * math.Log(1e-10)},
		{"mixed scales", diag(1e300, 1e-300, 1e200, 1e-200), 0},
	}
	for _, tc := range tests {
		got, err := LogDet(tc.x)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		assertClose(t, tc.name, got, tc.want, 1e-13)
	}
}

func repeat(v float64, n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = v
	}
	return out
}

func TestLogDetAgainstEigenvalues(t *testing.T) {
	r := newRand(1)
	for _, d := range []int{2, 3, 5, 17, 43, 64} {
		x := randSPD(r, d, 3)
		var e mat.EigenSym
		e.Factorize(x, false)
		var want float64
		for _, l := range e.Values(nil) {
			want += math.Log(l)
		}
		got, err := LogDet(x)
		if err != nil {
			t.Fatal(err)
		}
		assertClose(t, "LogDet", got, want, 1e-10)
	}
}

func TestLogDetErrors(t *testing.T) {
	if _, err := LogDet(mat.NewSymDense(2, []float64{1, 2, 2, 1})); !errors.Is(err, ErrNotSPD) {
		t.Errorf("indefinite: %v", err)
	}
	if _, err := LogDet(diag(1, math.NaN())); !errors.Is(err, ErrNotFinite) {
		t.Errorf("NaN: %v", err)
	}
	if _, err := LogDet(nil); !errors.Is(err, ErrEmpty) {
		t.Errorf("nil: %v", err)
	}
	if _, err := NewWorkspace(3).LogDet(diag(1, 2)); !errors.Is(err, ErrDimension) {
		t.Errorf("wrong size for workspace: %v", err)
	}
}

func TestSteinDiagonalClosedForm(t *testing.T) {
	r := newRand(2)
	for range 50 {
		d := 2 + r.IntN(10)
		a, b := make([]float64, d), make([]float64, d)
		var want float64
		for i := range d {
			a[i], b[i] = math.Exp(3*r.NormFloat64()), math.Exp(3*r.NormFloat64())
			want += math.Log((a[i]+b[i])/2) - 0.5*(math.Log(a[i])+math.Log(b[i]))
		}
		got, err := Stein(diag(a...), diag(b...))
		if err != nil {
			t.Fatal(err)
		}
		assertClose(t, "S(diag, diag)", got, want, 1e-11)
	}
}

func TestSteinIdentityAndSymmetry(t *testing.T) {
	r := newRand(3)
	for _, d := range []int{2, 3, 10, 43} {
		x, y := randSPD(r, d, 2), randSPD(r, d, 2)
		sxx, err := Stein(x, x)
		if err != nil {
			t.Fatal(err)
		}
		if sxx != 0 {
			t.Errorf("d=%d: S(X,X) = %g, want exactly 0", d, sxx)
		}
		sxy, _ := Stein(x, y)
		syx, _ := Stein(y, x)
		assertClose(t, "S(X,Y) - S(Y,X)", sxy, syx, 1e-12)
		if !(sxy > 0) {
			t.Errorf("d=%d: S(X,Y) = %g for X != Y, want > 0", d, sxy)
		}
	}
}

func TestSteinAffineInvariance(t *testing.T) {
	r := newRand(4)
	for _, d := range []int{2, 3, 5, 17, 43} {
		for range 5 {
			x, y := randSPD(r, d, 1.5), randSPD(r, d, 1.5)
			a := randInvertible(r, d)
			want, _ := Stein(x, y)
			got, err := Stein(congr(a, x), congr(a, y))
			if err != nil {
				t.Fatal(err)
			}
			assertClose(t, "S(AXAᵀ, AYAᵀ)", got, want, 1e-8)
		}
	}
}

// TestSandwichInequality checks Property 1 (Sra 2012):
// S ≤ d_g²/8 ≤ ¼ δ_T (S + d log d).
func TestSandwichInequality(t *testing.T) {
	r := newRand(5)
	for trial := range 300 {
		d := 2 + trial%12
		x, y := randSPD(r, d, 0.1+3*r.Float64()), randSPD(r, d, 0.1+3*r.Float64())
		s, err := Stein(x, y)
		if err != nil {
			t.Fatal(err)
		}
		dg, _ := AIRM(x, y)
		dt, _ := Thompson(x, y)
		lower, mid, upper := s, dg*dg/8, 0.25*dt*(s+float64(d)*math.Log(float64(d)))
		if lower > mid*(1+1e-12) || mid > upper*(1+1e-12) {
			t.Fatalf("d=%d: S=%g, d_g²/8=%g, δ_T(S+d log d)/4=%g violate the sandwich", d, lower, mid, upper)
		}
	}
}

// TestSteinGeodesicBound checks the second half of Property 2:
// S(X, γ(p)) ≤ p S(X, Y).
func TestSteinGeodesicBound(t *testing.T) {
	r := newRand(6)
	for range 20 {
		x, y := randSPD(r, 4, 2), randSPD(r, 4, 2)
		s, _ := Stein(x, y)
		for _, p := range []float64{0.1, 0.5, 0.9} {
			g, err := Geodesic(x, y, p)
			if err != nil {
				t.Fatal(err)
			}
			sp, _ := Stein(x, g)
			if sp > p*s*(1+1e-10) {
				t.Errorf("S(X, γ(%g)) = %g > %g·S(X,Y) = %g", p, sp, p, p*s)
			}
		}
	}
}

func TestSigmaRule(t *testing.T) {
	tests := []struct {
		sigma float64
		d     int
		valid bool
	}{
		{0.5, 3, true}, {1, 3, true}, {1.0000001, 3, true}, {7, 3, true},
		{0.7, 3, false}, {0.25, 3, false}, {0, 3, false}, {-1, 3, false},
		{math.NaN(), 3, false}, {math.Inf(1), 3, false},
		{0.5, 2, true}, {0.6, 2, true}, {0.3, 2, false},
		{1.5, 43, true}, {21, 43, true}, {21.01, 43, true}, {1.3, 43, false}, {20.7, 43, false},
		{0.1, 1, true},
	}
	for _, tc := range tests {
		err := SteinKernel{Sigma: tc.sigma}.Check(tc.d)
		if (err == nil) != tc.valid {
			t.Errorf("sigma=%v d=%d: Check = %v, want valid=%v", tc.sigma, tc.d, err, tc.valid)
		}
		if ValidSigma(tc.sigma, tc.d) != tc.valid {
			t.Errorf("ValidSigma(%v, %d) != %v", tc.sigma, tc.d, tc.valid)
		}
		if err != nil && !errors.Is(err, ErrSigma) {
			t.Errorf("sigma=%v: error %v does not wrap ErrSigma", tc.sigma, err)
		}
	}
	err := SteinKernel{Sigma: 0.7}.Check(3)
	if err == nil || !strings.Contains(err.Error(), "{0.5, 1} or sigma > 1") {
		t.Errorf("error should list the valid values, got %v", err)
	}
	if got := ValidSigmas(43); got != "{0.5, 1, 1.5, ..., 21} or sigma > 21" {
		t.Errorf("ValidSigmas(43) = %q", got)
	}
	if err := (SteinKernel{Sigma: 0.7, Pseudo: true}).Check(3); err != nil {
		t.Errorf("pseudo-kernel refused: %v", err)
	}
	if err := (SteinKernel{Sigma: -1, Pseudo: true}).Check(3); err == nil {
		t.Error("negative sigma accepted as a pseudo-kernel")
	}
	if _, err := (SteinKernel{Sigma: 0.7}).Eval(diag(1, 2, 3), diag(1, 2, 3)); !errors.Is(err, ErrSigma) {
		t.Errorf("Eval with invalid sigma: %v", err)
	}
}

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

// TestKernelUnderflow checks that exp(−x) is 0 from KernelUnderflow on
// and positive just below it, and that above MaxUsefulSigma the kernel
// values of pairs with q > 7.5·10⁻⁴ are 0 and those with q > 10⁻⁵ below
// 10⁻⁴, as MaxUsefulSigma says.
func TestKernelUnderflow(t *testing.T) {
	if v := math.Exp(-KernelUnderflow); v != 0 {
		t.Errorf("exp(−%v) = %g, want 0", KernelUnderflow, v)
	}
	if v := math.Exp(-math.Nextafter(KernelUnderflow, 0)); !(v > 0) {
		t.Errorf("exp just below KernelUnderflow = %g, want > 0", v)
	}
	for _, sigma := range []float64{math.Nextafter(MaxUsefulSigma, math.Inf(1)), 1e7, 1e308} {
		if v := math.Exp(-sigma * 7.5e-4); v != 0 {
			t.Errorf("σ = %g: exp(−σ·7.5e-4) = %g, want 0", sigma, v)
		}
		if v := math.Exp(-sigma * 1e-5); !(v < 1e-4) {
			t.Errorf("σ = %g: exp(−σ·1e-5) = %g, want < 1e-4", sigma, v)
		}
		if q := KernelUnderflow / sigma; math.Exp(-sigma*q*(1+1e-12)) != 0 {
			t.Errorf("σ = %g: exp(−σ q) > 0 just above q = %g", sigma, q)
		}
	}
}

func TestSteinKernelEval(t *testing.T) {
	x, y := diag(1, 4), diag(4, 1)
	// S = 2 log(2.5) - ½(log 4 + log 4) = log(6.25/4)
	k, err := SteinKernel{Sigma: 1}.Eval(x, y)
	if err != nil {
		t.Fatal(err)
	}
	assertClose(t, "k", k, 4/6.25, 1e-14)
	// The determinant form of Eqn. 5: 2^{dσ} (det X det Y)^{σ/2} / det(X+Y)^σ.
	sigma := 3.5
	k, _ = SteinKernel{Sigma: sigma}.Eval(x, y)
	want := math.Pow(2, 2*sigma) * math.Pow(4*4, sigma/2) / math.Pow(25, sigma)
	assertClose(t, "k (determinant form)", k, want, 1e-13)
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

// TestGramPositiveSemiDefinite checks Theorem 1 empirically: for valid σ the
// Stein Gram matrix has no eigenvalue below -1e-10.
func TestGramPositiveSemiDefinite(t *testing.T) {
	r := newRand(7)
	for _, d := range []int{2, 3, 5, 10} {
		ms := make([]*mat.SymDense, 60)
		for i := range ms {
			ms[i] = randSPD(r, d, 1.5)
		}
		set := mustSet(t, ms)
		sigmas := []float64{0.5, 0.5 * float64(d-1), 0.5*float64(d-1) + 0.3, 2 * float64(d)}
		for _, sigma := range sigmas {
			g, err := SteinKernel{Sigma: sigma}.GramSym(context.Background(), set, nil)
			if err != nil {
				t.Fatal(err)
			}
			var e mat.EigenSym
			e.Factorize(g, false)
			if lmin := e.Values(nil)[0]; lmin < -1e-10 {
				t.Errorf("d=%d σ=%g: smallest eigenvalue %g < -1e-10", d, sigma, lmin)
			}
		}
		if _, err := (SteinKernel{Sigma: 0.3}).GramSym(context.Background(), set, nil); d > 1 && !errors.Is(err, ErrSigma) {
			t.Errorf("d=%d: invalid σ=0.3 accepted: %v", d, err)
		}
	}
}
