package spd

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestRandomOrthogonal checks QᵀQ = I and the first two moments of the
// Haar measure: E q_ij = 0, E q_ij² = 1/d.
func TestRandomOrthogonal(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const d, n = 4, 4000
	var sum, sumSq float64
	for range n {
		q, err := RandomOrthogonal(d, rng)
		if err != nil {
			t.Fatal(err)
		}
		var qtq mat.Dense
		qtq.Mul(q.T(), q)
		for i := range d {
			for j := range d {
				want := 0.0
				if i == j {
					want = 1
				}
				if math.Abs(qtq.At(i, j)-want) > 1e-12 {
					t.Fatalf("QᵀQ[%d,%d] = %v", i, j, qtq.At(i, j))
				}
			}
		}
		sum += q.At(1, 2)
		sumSq += q.At(1, 2) * q.At(1, 2)
	}
	// q_12 has variance 1/d: the mean's standard error is 1/sqrt(d n).
	if m := sum / n; math.Abs(m) > 4/math.Sqrt(d*n) {
		t.Errorf("mean of q_12 %v, want 0", m)
	}
	if v := sumSq / n; math.Abs(v-1.0/d) > 0.02 {
		t.Errorf("mean of q_12² %v, want %v", v, 1.0/d)
	}
}

// TestSpectrum fits the spectrum of diagonal matrices, whose eigenvalues
// are known, and checks what Draw makes of it: with no spread, matrices
// of exactly exp(Mean) as eigenvalues; with a spread, log-eigenvalues of
// the fitted means on average.
func TestSpectrum(t *testing.T) {
	diag := func(v ...float64) *mat.SymDense {
		m := mat.NewSymDense(len(v), nil)
		for i, x := range v {
			m.SetSym(i, i, x)
		}
		return m
	}
	set, err := NewSet([]*mat.SymDense{diag(1, 100, 10), diag(1000, 0.1, 10), diag(10, 1, 1000)})
	if err != nil {
		t.Fatal(err)
	}
	s, err := FitSpectrum(set)
	if err != nil {
		t.Fatal(err)
	}
	// Ranks (largest first): {100, 1000, 1000}, {10, 10, 10}, {1, 0.1, 1}.
	ln := math.Log
	wantMean := []float64{(ln(100) + 2*ln(1000)) / 3, ln(10), (2*ln(1) + ln(0.1)) / 3}
	for r := range wantMean {
		if math.Abs(s.Mean[r]-wantMean[r]) > 1e-12 {
			t.Errorf("mean %v, want %v", s.Mean, wantMean)
		}
	}
	if math.Abs(s.Std[1]) > 1e-12 || math.Abs(s.Std[2]-ln(10)/math.Sqrt(3)) > 1e-12 {
		t.Errorf("std %v, want [_, 0, ln 10/√3]", s.Std)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	fixed := Spectrum{Mean: []float64{ln(8), ln(2), ln(0.5)}, Std: make([]float64, 3)}
	x, err := fixed.Draw(rng)
	if err != nil {
		t.Fatal(err)
	}
	var eig mat.EigenSym
	if !eig.Factorize(x, false) {
		t.Fatal("eigendecomposition failed")
	}
	got := eig.Values(nil)
	slices.Sort(got)
	for r, want := range []float64{0.5, 2, 8} {
		if math.Abs(got[r]-want) > 1e-12 {
			t.Errorf("eigenvalues %v, want [0.5 2 8]", got)
		}
	}
	spread := Spectrum{Mean: []float64{4, 0, -4}, Std: []float64{0.3, 0.3, 0.3}}
	const n = 2000
	mean := make([]float64, 3)
	for range n {
		x, err := spread.Draw(rng)
		if err != nil {
			t.Fatal(err)
		}
		if !eig.Factorize(x, false) {
			t.Fatal("eigendecomposition failed")
		}
		v := eig.Values(nil)
		slices.Sort(v)
		for r := range mean {
			mean[r] += math.Log(v[2-r]) / n
		}
	}
	for r := range mean {
		if math.Abs(mean[r]-spread.Mean[r]) > 0.05 {
			t.Errorf("mean log-eigenvalues %v, want %v", mean, spread.Mean)
			break
		}
	}
	if _, err := FitSpectrum(set.Subset(nil)); err == nil {
		t.Error("spectrum of an empty set: no error")
	}
}

// TestWishart checks that Wishart matrices are SPD, of mean I.
func TestWishart(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	const d, n = 3, 3000
	mean := mat.NewSymDense(d, nil)
	for range n {
		w, err := Wishart(d, d+1, rng)
		if err != nil {
			t.Fatal(err)
		}
		var ch mat.Cholesky
		if !ch.Factorize(w) {
			t.Fatal("a Wishart matrix is not positive definite")
		}
		mean.AddSym(mean, w)
	}
	for i := range d {
		for j := range d {
			want := 0.0
			if i == j {
				want = 1
			}
			// Var of an entry is at most 2/ν; the mean's error ~ sqrt(2/(ν n)).
			if got := mean.At(i, j) / n; math.Abs(got-want) > 0.05 {
				t.Errorf("mean[%d,%d] = %v, want %v", i, j, got, want)
			}
		}
	}
}
