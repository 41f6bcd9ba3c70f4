package gabor_test

import (
	"math"
	"math/cmplx"
	"math/rand/v2"
	"testing"

	"github.com/covpipe/covpipe/gabor"
)

// psi evaluates the paper's wavelet ψ_{u,v}(x, y) straight from the formula,
// independently of the package (k_v = 1/sqrt(2^(v−1)), θ_u = πu/8).
func psi(v, u int, x, y float64) complex128 {
	k := 1 / math.Sqrt(math.Pow(2, float64(v-1)))
	th := math.Pi * float64(u) / 8
	g := k * k / (4 * math.Pi * math.Pi) * math.Exp(-k*k*(x*x+y*y)/(8*math.Pi*math.Pi))
	wave := cmplx.Exp(complex(0, k*(x*math.Cos(th)+y*math.Sin(th))))
	return complex(g, 0) * (wave - complex(math.Exp(-2*math.Pi*math.Pi), 0))
}

// reflect maps i onto [0, n) by repeated half-sample mirroring.
func reflect(i, n int) int {
	for i < 0 || i >= n {
		if i < 0 {
			i = -1 - i
		} else {
			i = 2*n - 1 - i
		}
	}
	return i
}

// bruteForce computes |Σ_{dx,dy} ψ(dx, dy)·I_ext(x−dx, y−dy)| for every plane
// by the non-separable 2-D sum over the square support of radius radius[v].
func bruteForce(img []float64, w, h int, border gabor.Border, radius [gabor.NumScales]int) [][]float64 {
	out := make([][]float64, gabor.NumPlanes)
	for v := range gabor.NumScales {
		r := radius[v]
		n := 2*r + 1
		for u := range gabor.NumOrientations {
			ker := make([]complex128, n*n)
			for dy := -r; dy <= r; dy++ {
				for dx := -r; dx <= r; dx++ {
					ker[(dy+r)*n+dx+r] = psi(v, u, float64(dx), float64(dy))
				}
			}
			plane := make([]float64, w*h)
			for y := range h {
				for x := range w {
					var sum complex128
					for dy := -r; dy <= r; dy++ {
						sy := y - dy
						if border == gabor.ZeroPad && (sy < 0 || sy >= h) {
							continue
						}
						sy = reflect(sy, h)
						for dx := -r; dx <= r; dx++ {
							sx := x - dx
							if border == gabor.ZeroPad && (sx < 0 || sx >= w) {
								continue
							}
							sx = reflect(sx, w)
							sum += ker[(dy+r)*n+dx+r] * complex(img[sy*w+sx], 0)
						}
					}
					plane[y*w+x] = cmplx.Abs(sum)
				}
			}
			out[v*gabor.NumOrientations+u] = plane
		}
	}
	return out
}

// randomImage returns w·h pixels uniform in [0, 255), like an 8-bit image.
func randomImage(w, h int, seed uint64) []float64 {
	rng := rand.New(rand.NewPCG(seed, 1))
	img := make([]float64, w*h)
	for i := range img {
		img[i] = 255 * rng.Float64()
	}
	return img
}

// maxRelDiff returns max |a−b| over all planes divided by max |b|.
func maxRelDiff(a, b [][]float64) float64 {
	var diff, peak float64
	for i := range b {
		for j := range b[i] {
			diff = max(diff, math.Abs(a[i][j]-b[i][j]))
			peak = max(peak, math.Abs(b[i][j]))
		}
	}
	return diff / peak
}

func mustBank(tb interface{ Fatal(...any) }, p gabor.Params) *gabor.Bank {
	b, err := gabor.NewBank(p)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// magnitudes returns the magnitudes of bank b on the w×h image img.
func magnitudes(tb testing.TB, b *gabor.Bank, img []float64, w, h int) [][]float64 {
	tb.Helper()
	planes, err := b.Magnitudes(img, w, h)
	if err != nil {
		tb.Fatal(err)
	}
	return planes
}

// newPlanes returns NumPlanes destination planes of n values each.
func newPlanes(n int) [][]float64 {
	dst := make([][]float64, gabor.NumPlanes)
	for i := range dst {
		dst[i] = make([]float64, n)
	}
	return dst
}
