package sdalf

import (
	"testing"

	"github.com/covpipe/covpipe/appearance"
)

// FuzzDescribe describes images made from arbitrary bytes (a width, then
// RGB bytes) with an arbitrary mask kind and compares them: an error or a
// signature, never a panic; distances finite and non-negative.
func FuzzDescribe(f *testing.F) {
	f.Add(uint8(3), uint8(0), []byte{1, 2, 3, 4, 5, 6, 7, 8, 9})
	f.Add(uint8(8), uint8(1), make([]byte, 3*8*12))
	f.Add(uint8(5), uint8(2), []byte("a pedestrian in a red coat walks past a grey wall, then out of view"))
	f.Fuzz(func(t *testing.T, width, kind uint8, data []byte) {
		w := int(width%16) + 1
		n := len(data) / 3 / w * w
		if n == 0 {
			return
		}
		planes := make([]float64, 3*n)
		for i := range planes {
			planes[i] = float64(data[i]) / 255
		}
		img, err := appearance.NewImage(w, n/w, planes[:n], planes[n:2*n], planes[2*n:])
		if err != nil {
			t.Fatal(err)
		}
		o := Options{Mask: appearance.MaskOptions{Kind: appearance.MaskKind(kind % 4)}}
		s, err := Describe(img, o)
		if err != nil {
			return
		}
		d, err := Distance(s, s, DefaultWeights())
		if err != nil || !(d >= 0 && d < 2) {
			t.Errorf("d(s, s) = %v, %v", d, err)
		}
	})
}
