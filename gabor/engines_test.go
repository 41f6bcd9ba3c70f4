package gabor_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/covpipe/covpipe/gabor"
)

var borders = []gabor.Border{gabor.Symmetric, gabor.ZeroPad}

// TestEnginesMatchBruteForce checks both engines against the literal
// non-separable 2-D convolution with an independently evaluated kernel and
// border extension, including kernels much wider than the image (where the
// engines fold the extension into the taps).
func TestEnginesMatchBruteForce(t *testing.T) {
	cases := []struct {
		w, h    int
		support float64
	}{
		{11, 7, 2},
		{5, 9, 1},
		{23, 21, 1}, // interior rows (taps not touching the border) at v ≤ 2
		{1, 6, 3},
		{7, 5, 0}, // default support: R_4 = 152 ≫ image
	}
	for _, c := range cases {
		for _, border := range borders {
			img := randomImage(c.w, c.h, uint64(c.w*100+c.h))
			var want [][]float64
			for _, m := range []gabor.Method{gabor.Direct, gabor.FFT} {
				name := fmt.Sprintf("%dx%d/support=%g/%v/%v", c.w, c.h, c.support, border, m)
				b := mustBank(t, gabor.Params{Border: border, Method: m, Support: c.support})
				if want == nil {
					var radius [gabor.NumScales]int
					for v := range radius {
						radius[v] = b.Radius(v)
					}
					want = bruteForce(img, c.w, c.h, border, radius)
				}
				got, err := b.Magnitudes(img, c.w, c.h)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if d := maxRelDiff(got, want); d > 1e-11 {
					t.Errorf("%s: max relative difference from brute force %.3g > 1e-11", name, d)
				}
			}
		}
	}
}

// TestFFTMatchesDirect checks that the two engines agree to 1e-9 of the
// largest magnitude on random 8-bit-like images of several sizes, for every
// border mode.
func TestFFTMatchesDirect(t *testing.T) {
	sizes := [][2]int{{32, 32}, {64, 64}, {17, 29}, {29, 17}, {3, 40}, {2, 2}}
	for _, border := range borders {
		direct := mustBank(t, gabor.Params{Border: border, Method: gabor.Direct})
		fft := mustBank(t, gabor.Params{Border: border, Method: gabor.FFT})
		for _, sz := range sizes {
			w, h := sz[0], sz[1]
			img := randomImage(w, h, uint64(w*1000+h))
			a := magnitudes(t, direct, img, w, h)
			b := magnitudes(t, fft, img, w, h)
			if d := maxRelDiff(b, a); d > 1e-9 {
				t.Errorf("%v %dx%d: FFT vs direct max relative difference %.3g > 1e-9", border, w, h, d)
			} else {
				t.Logf("%v %dx%d: max relative difference %.2g", border, w, h, d)
			}
		}
	}
}

// FuzzMagnitudes feeds arbitrary sizes and pixel bytes (with byte 255 read as
// NaN) to both engines: they must return an error or agree, never panic.
// Agreement is relative to the largest magnitude plus 1e-12 of the largest
// pixel, since flat images give responses at rounding level (~1e-14·pixel).
func FuzzMagnitudes(f *testing.F) {
	f.Add(uint8(3), uint8(2), []byte{0, 10, 20, 30, 40, 50})
	f.Add(uint8(1), uint8(1), []byte{255})
	f.Add(uint8(0), uint8(4), []byte{})
	f.Add(uint8(5), uint8(3), []byte{1, 2, 3})
	f.Add(uint8(3), uint8(2), []byte("000000")) // flat image
	direct := mustBank(f, gabor.Params{Method: gabor.Direct})
	fft := mustBank(f, gabor.Params{Method: gabor.FFT})
	f.Fuzz(func(t *testing.T, w, h uint8, data []byte) {
		img := make([]float64, len(data))
		for i, c := range data {
			img[i] = float64(c)
			if c == 255 {
				img[i] = math.NaN()
			}
		}
		a, errA := direct.Magnitudes(img, int(w)%24, int(h)%24)
		b, errB := fft.Magnitudes(img, int(w)%24, int(h)%24)
		if (errA == nil) != (errB == nil) {
			t.Fatalf("direct error %v, FFT error %v", errA, errB)
		}
		if errA != nil {
			return
		}
		var diff, peak, pix float64
		for i := range a {
			for j := range a[i] {
				diff = max(diff, math.Abs(a[i][j]-b[i][j]))
				peak = max(peak, a[i][j])
			}
		}
		for _, p := range img {
			pix = max(pix, math.Abs(p))
		}
		if diff > 1e-9*peak+1e-12*pix {
			t.Fatalf("engines differ by %.3g (largest magnitude %.3g, pixel %.3g)", diff, peak, pix)
		}
	})
}
