package covariance_test

import (
	"math"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/covpipe/covpipe/covariance"
	"github.com/covpipe/covpipe/imageio"
	"github.com/covpipe/covpipe/internal/shareddata"
)

// relFrob returns ‖a − b‖_F / ‖b‖_F.
func relFrob(a, b []float64) float64 {
	var num, den float64
	for i := range a {
		num += (a[i] - b[i]) * (a[i] - b[i])
		den += b[i] * b[i]
	}
	return math.Sqrt(num / den)
}

// feature returns a w×h plane with f(x, y) at pixel (x, y).
func feature(w, h int, f func(x, y int) float64) []float64 {
	p := make([]float64, w*h)
	for y := range h {
		for x := range w {
			p[y*w+x] = f(x, y)
		}
	}
	return p
}

// randomPlanes returns d planes of i.i.d. normal noise with the given means
// and standard deviations (cycled), feature k > 0 also correlated with
// feature k−1.
func randomPlanes(rng *rand.Rand, d, w, h int, means, sds []float64) [][]float64 {
	planes := make([][]float64, d)
	for k := range d {
		m, s := means[k%len(means)], sds[k%len(sds)]
		planes[k] = feature(w, h, func(x, y int) float64 {
			v := m + s*rng.NormFloat64()
			if k > 0 {
				v += 0.5 * s * (planes[k-1][y*w+x] - means[(k-1)%len(means)]) / sds[(k-1)%len(sds)]
			}
			return v
		})
	}
	return planes
}

// randomRegions returns n regions of a w×h image with sides drawn
// uniformly from [minSide, w] and [minSide, h].
func randomRegions(rng *rand.Rand, n, w, h, minSide int) []covariance.Region {
	rs := make([]covariance.Region, n)
	for i := range rs {
		rw := minSide + rng.IntN(w-minSide+1)
		rh := minSide + rng.IntN(h-minSide+1)
		rs[i] = covariance.Region{X: rng.IntN(w - rw + 1), Y: rng.IntN(h - rh + 1), W: rw, H: rh}
	}
	return rs
}

// textureFeatures returns the paper's texture features (Sec. 5.1.3)
// [I, |I_x|, |I_y|, |I_xx|, |I_yy|] of a grey image, with the filters
// [−1 0 1] and [1 −2 1] and borders replicated.
func textureFeatures(gray []float64, w, h int) [][]float64 {
	at := func(x, y int) float64 {
		return gray[min(max(y, 0), h-1)*w+min(max(x, 0), w-1)]
	}
	return [][]float64{
		append([]float64(nil), gray...),
		feature(w, h, func(x, y int) float64 { return math.Abs(at(x+1, y) - at(x-1, y)) }),
		feature(w, h, func(x, y int) float64 { return math.Abs(at(x, y+1) - at(x, y-1)) }),
		feature(w, h, func(x, y int) float64 { return math.Abs(at(x+1, y) - 2*at(x, y) + at(x-1, y)) }),
		feature(w, h, func(x, y int) float64 { return math.Abs(at(x, y+1) - 2*at(x, y) + at(x, y-1)) }),
	}
}

// brodatz loads a Brodatz texture at native size as 8-bit grey levels and
// returns its texture features, or skips when the data is absent.
func brodatz(tb testing.TB, name string) (planes [][]float64, w, h int) {
	tb.Helper()
	dir := shareddata.Dir(tb, "brodatz")
	img, err := imageio.Load(filepath.Join(dir, name), imageio.Options{Scale: 255})
	if err != nil {
		tb.Fatal(err)
	}
	return textureFeatures(img.Gray, img.W, img.H), img.W, img.H
}

func mustExtractor(tb testing.TB, d int, opts covariance.Options) *covariance.Extractor {
	tb.Helper()
	e, err := covariance.NewExtractor(d, opts)
	if err != nil {
		tb.Fatal(err)
	}
	return e
}
