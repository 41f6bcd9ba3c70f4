package hpe

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/covpipe/covpipe/appearance"
)

// FuzzOptions describes random images of arbitrary sizes with arbitrary
// epitome sizes, patches, strides and numbers of local epitomes: an error
// or a signature, never a panic; a signature is at a distance in [0, 1]
// from itself.
func FuzzOptions(f *testing.F) {
	f.Add(int8(16), int8(32), int8(8), int8(8), int8(4), int8(2), int8(4), uint64(1))
	f.Add(int8(3), int8(8), int8(1), int8(1), int8(1), int8(1), int8(1), uint64(2))
	f.Add(int8(2), int8(40), int8(-1), int8(3), int8(9), int8(0), int8(-4), uint64(3))
	f.Fuzz(func(t *testing.T, w, h, ew, eh, patch, stride, local int8, seed uint64) {
		iw, ih := int(w)%25, int(h)%41
		if iw < 1 || ih < 1 {
			return
		}
		rng := rand.New(rand.NewPCG(seed, 1))
		planes := make([]float64, 3*iw*ih)
		for i := range planes {
			planes[i] = rng.Float64()
		}
		n := iw * ih
		img, err := appearance.NewImage(iw, ih, planes[:n], planes[n:2*n], planes[2*n:])
		if err != nil {
			t.Fatal(err)
		}
		o := Options{
			Mask:    appearance.MaskOptions{Kind: appearance.MaskKind(seed % 3)},
			Epitome: EpitomeOptions{W: int(ew) % 12, H: int(eh) % 12, Patch: int(patch) % 8, Stride: int(stride) % 6, Iterations: 2},
			Local:   int(local),
		}
		s, err := Describe(context.Background(), []*appearance.Image{img, img}, o)
		if err != nil {
			return
		}
		if d, err := Distance(s, s, DefaultWeights()); err != nil || !(d >= 0 && d <= 1) {
			t.Errorf("d(s, s) = %v, %v", d, err)
		}
	})
}
