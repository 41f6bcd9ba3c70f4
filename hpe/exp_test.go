package hpe

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestExpShifted checks expShifted against math.Exp, bit for bit: on
// random arguments over the whole range of the E-step's (and past it,
// into denormal results, underflow and overflow), at the edges of the
// vector path's range and where k = round(x·log₂e) changes, on ±0,
// ±Inf and NaN, and for lengths that are not a multiple of four.
func TestExpShifted(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	var xs []float64
	for range 200000 {
		xs = append(xs, -rng.ExpFloat64()*100, rng.Float64()*1600-850, -rng.Float64()*1e-3)
	}
	for _, x := range []float64{0, math.Copysign(0, -1), expLow, expHigh, -745.1, -745.2, -746, -1e3, 709.78, 710, 1e-300, -1e-300, math.Inf(1), math.Inf(-1), math.NaN()} {
		xs = append(xs, x, math.Nextafter(x, 0), math.Nextafter(x, -1e4), math.Nextafter(x, 1e4))
	}
	for k := -1075; k <= 1025; k++ {
		x := (float64(k) + 0.5) * math.Ln2 // where the rounding of x·log₂e flips
		xs = append(xs, x, math.Nextafter(x, -1e4), math.Nextafter(x, 1e4))
	}
	for _, shift := range []float64{0, -3.25, 17} {
		for _, n := range []int{len(xs), 1, 3, 5, 63} {
			src := make([]float64, n)
			for i := range src {
				src[i] = xs[i] + shift
			}
			dst := make([]float64, n)
			expShifted(dst, src, shift)
			for i, v := range src {
				want := math.Exp(v - shift)
				if math.Float64bits(dst[i]) != math.Float64bits(want) && !(math.IsNaN(want) && math.IsNaN(dst[i])) {
					t.Fatalf("shift %v, n %d: e^(%v − %v) = %v (%#x), math.Exp %v (%#x)", shift, n, v, shift, dst[i], math.Float64bits(dst[i]), want, math.Float64bits(want))
				}
			}
		}
	}
}
