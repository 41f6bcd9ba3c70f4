package spd

import (
	"fmt"
	"math"
	"testing"
)

// TestCholTinyMatchesCholLower checks the closed-form log-determinant of
// (X+Y)/2 for d <= tinyMaxD against cholLower's Cholesky (1e-12 relative;
// d·ε·κ at condition 1e10), the same SPD-enough decisions on indefinite,
// NaN and barely singular input, and that S(X, X) is exactly 0 through
// Stein and a Set (the cached log-determinants come from the same
// arithmetic as the entries).
func TestCholTinyMatchesCholLower(t *testing.T) {
	r := newRand(131)
	for d := 1; d <= tinyMaxD; d++ {
		for _, kind := range matrixKinds {
			for trial := range 50 {
				name := fmt.Sprintf("d=%d %s #%d", d, kind, trial)
				x, y := randOfKind(r, d, kind), randOfKind(r, d, kind)
				xs, ys := make([]float64, d*d), make([]float64, d*d)
				loadUpperTo(xs, d, x)
				loadUpperTo(ys, d, y)
				want, okWant := cholLower(make([]float64, d*d), xs, ys, d)
				got, ok := cholTiny(xs, ys, d)
				if ok != okWant {
					t.Fatalf("%s: cholTiny %v, cholLower %v", name, ok, okWant)
				}
				tol := 1e-12
				if kind == "cond 1e10" {
					tol = float64(d) * 0x1p-52 * 1e10
				}
				assertRel(t, name, got, want, tol)
				if s, err := Stein(x, x); err != nil || s != 0 {
					t.Fatalf("%s: S(X, X) = %v, %v; want exactly 0", name, s, err)
				}
			}
		}
		// Indefinite (identity but a −1), NaN, singular (all ones; 0 at d = 1).
		for name, fill := range map[string]func(xs []float64){
			"indefinite": func(xs []float64) {
				for i := range d {
					xs[i*d+i] = 1
				}
				xs[d*d-1] = -1
			},
			"NaN": func(xs []float64) {
				for i := range xs {
					xs[i] = math.NaN()
				}
			},
			"singular": func(xs []float64) {
				for i := range xs {
					xs[i] = float64(min(d-1, 1))
				}
			},
		} {
			xs := make([]float64, d*d)
			fill(xs)
			_, okWant := cholLower(make([]float64, d*d), xs, xs, d)
			_, ok := cholTiny(xs, xs, d)
			if ok || okWant {
				t.Errorf("d=%d %s: cholTiny %v, cholLower %v; want both false", d, name, ok, okWant)
			}
		}
	}
	set, ms := randSet(t, 132, 6, 3)
	for i := range ms {
		k := SteinKernel{Sigma: 1}
		if s, err := k.Gram(set.Subset([]int{i}), set.Subset([]int{i}), nil); err != nil || s.At(0, 0) != 1 {
			t.Fatalf("Set item %d: k(X, X) = %v, %v; want exactly 1", i, s, err)
		}
	}
}

// TestNonNegativeMatchesMax checks nonNegative against math.Max(0, x) bit
// for bit, signed zeros and NaN included.
func TestNonNegativeMatchesMax(t *testing.T) {
	for _, x := range []float64{0, math.Copysign(0, -1), 1e-300, -1e-300, 2.5, -2.5, math.Inf(1), math.Inf(-1), math.NaN()} {
		got, want := nonNegative(x), math.Max(0, x)
		if math.Float64bits(got) != math.Float64bits(want) && !(math.IsNaN(got) && math.IsNaN(want)) {
			t.Errorf("nonNegative(%v) = %v, math.Max(0, %v) = %v", x, got, x, want)
		}
	}
}
