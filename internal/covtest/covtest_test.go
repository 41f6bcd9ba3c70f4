package covtest

import (
	"math"
	"testing"

	"github.com/covpipe/covpipe/covariance"
)

// TestNaive checks Naive on the coordinates of a 3×2 region of a 5×4
// image, features x, 2x+1 and y, against closed forms: over the 6 pixels
// var(x) = 2/3·6/5 = 4/5, var(y) = 1/4·6/5 = 3/10, cov(x, y) = 0, and the
// affine feature scales the x entries by 2 and 4.
func TestNaive(t *testing.T) {
	const w, h = 5, 4
	x, x2, y := make([]float64, w*h), make([]float64, w*h), make([]float64, w*h)
	for i := range x {
		x[i], y[i] = float64(i%w), float64(i/w)
		x2[i] = 2*x[i] + 1
	}
	got := Naive([][]float64{x, x2, y}, w, covariance.Region{X: 1, Y: 2, W: 3, H: 2})
	want := []float64{
		0.8, 1.6, 0,
		1.6, 3.2, 0,
		0, 0, 0.3,
	}
	for k := range want {
		if math.Abs(got[k]-want[k]) > 1e-15 {
			t.Errorf("[%d][%d] = %v, want %v", k/3, k%3, got[k], want[k])
		}
	}
}
