package spd

import (
	"context"
	"math"
	"testing"

	"github.com/covpipe/covpipe/internal/dense"
)

// TestSteinSelfIsZero checks that S(X, X) is exactly 0 for d <= 3, where
// steinEntry takes the closed form of (X+Y)/2 (dense.CholTiny), through
// Stein and through a Set's kernel (the cached log-determinants come from
// the same arithmetic as the entries).
func TestSteinSelfIsZero(t *testing.T) {
	r := newRand(131)
	for d := 1; d <= dense.TinyMaxD; d++ {
		for _, kind := range matrixKinds {
			for trial := range 50 {
				x := randOfKind(r, d, kind)
				if s, err := Stein(x, x); err != nil || s != 0 {
					t.Fatalf("d=%d %s #%d: S(X, X) = %v, %v; want exactly 0", d, kind, trial, s, err)
				}
			}
		}
	}
	set, ms := randSet(t, 132, 6, 3)
	for i := range ms {
		k := SteinKernel{Sigma: 1}
		if s, err := k.Gram(context.Background(), set.Subset([]int{i}), set.Subset([]int{i}), nil); err != nil || s.At(0, 0) != 1 {
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
