package spd

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestAIRMLowerBound checks the bound against the distance on random pairs
// (it must not exceed δ_R, and must be at least Property 1's √(8S)), its
// equality case Y = cX, and its edge values.
func TestAIRMLowerBound(t *testing.T) {
	r := newRand(71)
	for _, d := range []int{1, 2, 3, 5, 17} {
		for _, spread := range []float64{0.01, 0.5, 2, 6} {
			for range 20 {
				x, y := randSPD(r, d, spread), randSPD(r, d, spread)
				s, err := Stein(x, y)
				if err != nil {
					t.Fatal(err)
				}
				dist, err := AIRM(x, y)
				if err != nil {
					t.Fatal(err)
				}
				b := AIRMLowerBound(s, d)
				if b > dist*(1+1e-9) {
					t.Errorf("d=%d spread=%g: bound %.15g > AIRM %.15g (S = %g)", d, spread, b, dist, s)
				}
				if p1 := math.Sqrt(8 * s); b < p1*(1-1e-12) {
					t.Errorf("d=%d spread=%g: bound %g < √(8S) = %g", d, spread, b, p1)
				}
			}
		}
	}
	// Y = cX: every generalised eigenvalue is c, and the bound is exact.
	for _, d := range []int{1, 4, 17} {
		x := randSPD(r, d, 1)
		for _, c := range []float64{1 + 1e-3, 1.5, 40, 1e-6} {
			var y mat.SymDense
			y.ScaleSym(c, x)
			s, err := Stein(x, &y)
			if err != nil {
				t.Fatal(err)
			}
			want := math.Sqrt(float64(d)) * math.Abs(math.Log(c))
			if got := AIRMLowerBound(s, d); math.Abs(got-want) > 1e-6*want {
				t.Errorf("d=%d c=%g: bound %.15g, want δ_R = %.15g", d, c, got, want)
			}
		}
	}
	for _, tc := range []struct {
		s    float64
		d    int
		want float64
	}{{0, 3, 0}, {-1, 3, 0}, {1, 0, 0}, {math.Inf(1), 3, math.Inf(1)}} {
		if got := AIRMLowerBound(tc.s, tc.d); got != tc.want {
			t.Errorf("AIRMLowerBound(%v, %d) = %v, want %v", tc.s, tc.d, got, tc.want)
		}
	}
	if !math.IsNaN(AIRMLowerBound(math.NaN(), 3)) {
		t.Error("AIRMLowerBound(NaN, 3) is not NaN")
	}
}
