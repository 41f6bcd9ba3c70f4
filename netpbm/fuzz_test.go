package netpbm_test

import (
	"bytes"
	"testing"

	"github.com/covpipe/covpipe/netpbm"
)

// FuzzDecode checks that Decode never panics and that, when it succeeds,
// DecodeConfig agrees with the decoded image's size and colour model.
func FuzzDecode(f *testing.F) {
	for _, tc := range decodeCases {
		f.Add([]byte(tc.in))
	}
	f.Add([]byte("P5 16384 16384 255\n0123"))
	f.Fuzz(func(t *testing.T, data []byte) {
		img, err := netpbm.Decode(bytes.NewReader(data))
		if err != nil {
			return
		}
		cfg, err := netpbm.DecodeConfig(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("Decode succeeded but DecodeConfig failed: %v", err)
		}
		b := img.Bounds()
		if b.Min.X != 0 || b.Min.Y != 0 || b.Dx() != cfg.Width || b.Dy() != cfg.Height {
			t.Fatalf("Decode bounds %v, DecodeConfig %dx%d", b, cfg.Width, cfg.Height)
		}
		if img.ColorModel() != cfg.ColorModel {
			t.Fatalf("Decode colour model %v, DecodeConfig %v", img.ColorModel(), cfg.ColorModel)
		}
	})
}
