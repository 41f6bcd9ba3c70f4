package imageio_test

import (
	"path/filepath"
	"testing"

	"github.com/covpipe/covpipe/imageio"
	"github.com/covpipe/covpipe/internal/shareddata"
)

// checkRange checks that a plane is within [lo, hi] and not constant.
func checkRange(t *testing.T, name string, p []float64, lo, hi float64) {
	t.Helper()
	mn, mx := p[0], p[0]
	for _, v := range p {
		mn, mx = min(mn, v), max(mx, v)
	}
	if mn < lo || mx > hi || mn == mx {
		t.Errorf("%s: values in [%v, %v], want a non-constant plane within [%v, %v]", name, mn, mx, lo, hi)
	}
}

func TestRealData(t *testing.T) {
	for _, tc := range []struct {
		dataset, file, format string
		w, h                  int
		color                 bool
	}{
		{"brodatz", "D10.gif", "gif", 640, 640, false},
		{"brodatz", "D1.gif", "gif", 643, 643, false},
		{"feret-b-32", "00154be.png", "png", 32, 32, false},
		{"mini-mars", "0015/0015C1T0001F001.jpg", "jpeg", 128, 256, true},
		{"usc-sipi-mosaics", "texmos2.p512.tiff", "tiff", 512, 512, false},
	} {
		t.Run(tc.dataset+"/"+tc.file, func(t *testing.T) {
			path := filepath.Join(shareddata.Dir(t, tc.dataset), tc.file)
			img, err := imageio.Load(path, imageio.Options{Color: tc.color})
			if err != nil {
				t.Fatal(err)
			}
			if img.W != tc.w || img.H != tc.h || img.Format != tc.format || img.Depth != 8 {
				t.Fatalf("%s: %dx%d %s depth %d, want %dx%d %s depth 8", tc.file, img.W, img.H, img.Format, img.Depth, tc.w, tc.h, tc.format)
			}
			checkRange(t, "gray", img.Gray, 0, 1)
			if tc.color {
				checkRange(t, "R", img.R, 0, 1)
				checkRange(t, "G", img.G, 0, 1)
				checkRange(t, "B", img.B, 0, 1)
			}
			// The paper's protocols resize: ETHZ-like pedestrians to 64x32,
			// mosaics to 256x256.
			small, err := imageio.Load(path, imageio.Options{Color: tc.color, Width: tc.w / 4, Height: tc.h / 4})
			if err != nil {
				t.Fatal(err)
			}
			if small.W != tc.w/4 || small.H != tc.h/4 || small.SourceW != tc.w {
				t.Fatalf("resized to %dx%d (source %d wide)", small.W, small.H, small.SourceW)
			}
			checkRange(t, "resized gray", small.Gray, 0, 1)
		})
	}
}

// TestRealLabelMap loads a mosaic label map with Scale 255: its values are
// exactly the README's eight grey levels.
func TestRealLabelMap(t *testing.T) {
	path := filepath.Join(shareddata.Dir(t, "usc-sipi-mosaics"), "texmos2.s512.tiff")
	img, err := imageio.Load(path, imageio.Options{Scale: 255})
	if err != nil {
		t.Fatal(err)
	}
	levels := map[float64]int{}
	for _, v := range img.Gray {
		levels[v]++
	}
	allowed := map[float64]bool{32: true, 64: true, 96: true, 128: true, 160: true, 192: true, 224: true, 255: true}
	for v, n := range levels {
		if !allowed[v] {
			t.Errorf("label map value %v (%d pixels) is not one of 32, 64, ..., 224, 255", v, n)
		}
	}
	if len(levels) < 2 {
		t.Errorf("label map has levels %v", levels)
	}
}
