package features_test

import (
	"math"
	"math/cmplx"
	"math/rand/v2"
	"testing"

	"github.com/covpipe/covpipe/gabor"
	"github.com/covpipe/covpipe/imageio"
)

// conv2Same is MATLAB's abs(conv2(I, G, 'same')) for the paper's wavelet
// G = ψ_{u,v} with unlimited support: pixels outside the image are zero,
// so output (x, y) sums I(s, t)·ψ(x−s, y−t) over every pixel of the image,
// which is every offset the infinitely supported kernel can contribute.
// The wavelet is evaluated straight from the paper's formula, independently
// of package gabor (k_v = 1/sqrt(2^(v−1)), θ_u = πu/8).
func conv2Same(img []float64, w, h, v, u int) []float64 {
	k := 1 / math.Sqrt(math.Pow(2, float64(v-1)))
	th := math.Pi * float64(u) / 8
	psi := func(x, y float64) complex128 {
		g := k * k / (4 * math.Pi * math.Pi) * math.Exp(-k*k*(x*x+y*y)/(8*math.Pi*math.Pi))
		return complex(g, 0) * (cmplx.Exp(complex(0, k*(x*math.Cos(th)+y*math.Sin(th)))) - complex(math.Exp(-2*math.Pi*math.Pi), 0))
	}
	out := make([]float64, w*h)
	for y := range h {
		for x := range w {
			var sum complex128
			for t := range h {
				for s := range w {
					sum += complex(img[t*w+s], 0) * psi(float64(x-s), float64(y-t))
				}
			}
			out[y*w+x] = cmplx.Abs(sum)
		}
	}
	return out
}

// TestFaceGaborPlanesAreConv2Same checks the default face features against
// the paper's definition as its authors' MATLAB computed it: the Gabor
// planes of the default set are abs(conv2(I, ψ, 'same')) with the full
// kernel, and the symmetric option differs from it.
func TestFaceGaborPlanesAreConv2Same(t *testing.T) {
	const w, h = 13, 11
	rng := rand.New(rand.NewPCG(7, 11))
	img := &imageio.Image{W: w, H: h, Gray: make([]float64, w*h)}
	for i := range img.Gray {
		img.Gray[i] = rng.Float64()
	}
	set := mustParse(t, "face")
	if set.GaborBorder() != gabor.ZeroPad {
		t.Fatalf("default border %v, want zero", set.GaborBorder())
	}
	m, err := set.Compute(img)
	if err != nil {
		t.Fatal(err)
	}
	sym, err := mustParse(t, "face;gabor-border=symmetric").Compute(img)
	if err != nil {
		t.Fatal(err)
	}
	var worst, symDiff float64
	for v := range gabor.NumScales {
		for u := range gabor.NumOrientations {
			want := conv2Same(img.Gray, w, h, v, u)
			got := m.Planes[3+gabor.Index(v, u)] // after I, x, y
			other := sym.Planes[3+gabor.Index(v, u)]
			scale := 0.0
			for _, x := range want {
				scale = math.Max(scale, x)
			}
			for i := range want {
				worst = math.Max(worst, math.Abs(got[i]-want[i])/scale)
				symDiff = math.Max(symDiff, math.Abs(other[i]-want[i])/scale)
			}
		}
	}
	if worst > 1e-10 {
		t.Errorf("zero-border Gabor planes differ from conv2(I, G, 'same') by %.3g of the largest magnitude", worst)
	}
	if symDiff < 1e-2 {
		t.Errorf("symmetric-border planes are within %.3g of the zero-border ones: the option has no effect", symDiff)
	}
}
