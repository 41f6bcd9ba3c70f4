package dense

import (
	"fmt"
	"math"
	"testing"
)

// TestCholTinyMatchesCholLower checks the closed-form log-determinant of
// (X+Y)/2 for d <= TinyMaxD against CholLower's Cholesky (to kindTol),
// the same SPD-enough decisions on indefinite, NaN and barely singular
// input, and that CholLogDet's log det X is CholTiny's of (X+X)/2 to the
// last bit, which S(X, X) = 0 needs.
func TestCholTinyMatchesCholLower(t *testing.T) {
	r := newRand(131)
	for d := 1; d <= TinyMaxD; d++ {
		for _, kind := range kinds {
			for trial := range 50 {
				name := fmt.Sprintf("d=%d %s #%d", d, kind, trial)
				x, y := ofKind(r, d, kind), ofKind(r, d, kind)
				want, okWant := CholLower(make([]float64, d*d), x, y, d)
				got, ok := CholTiny(x, y, d)
				if ok != okWant {
					t.Fatalf("%s: CholTiny %v, CholLower %v", name, ok, okWant)
				}
				assertRel(t, name, got, want, kindTol(d, kind))
				self, ok := CholTiny(x, x, d)
				ld, okLD := CholLogDet(append([]float64(nil), x...), d)
				if !ok || !okLD || self != ld {
					t.Fatalf("%s: CholTiny(X, X) = %v, %v; CholLogDet(X) = %v, %v; want equal", name, self, ok, ld, okLD)
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
			_, okWant := CholLower(make([]float64, d*d), xs, xs, d)
			_, ok := CholTiny(xs, xs, d)
			if ok || okWant {
				t.Errorf("d=%d %s: CholTiny %v, CholLower %v; want both false", d, name, ok, okWant)
			}
		}
	}
}
