package gabor_test

import (
	"path/filepath"
	"sort"
	"testing"

	"github.com/covpipe/covpipe/gabor"
	"github.com/covpipe/covpipe/imageio"
	"github.com/covpipe/covpipe/internal/shareddata"
)

// TestFERETEnginesAgree runs both engines, for both borders, on real 32×32
// FERET faces (skipped when the shared data is absent).
func TestFERETEnginesAgree(t *testing.T) {
	dir := shareddata.Dir(t, "feret-b-32")
	files, err := filepath.Glob(filepath.Join(dir, "*.png"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no PNG files in %s: %v", dir, err)
	}
	sort.Strings(files)
	files = files[:min(len(files), 12)]
	for _, border := range borders {
		direct := mustBank(t, gabor.Params{Border: border, Method: gabor.Direct})
		fft := mustBank(t, gabor.Params{Border: border, Method: gabor.FFT})
		for _, path := range files {
			im, err := imageio.Load(path, imageio.Options{Scale: 255})
			if err != nil {
				t.Fatal(err)
			}
			img, w, h := im.Gray, im.W, im.H
			a, err := direct.Magnitudes(img, w, h)
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			b, err := fft.Magnitudes(img, w, h)
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			if d := maxRelDiff(b, a); d > 1e-9 {
				t.Errorf("%v %s: FFT vs direct max relative difference %.3g", border, filepath.Base(path), d)
			}
		}
	}
}
