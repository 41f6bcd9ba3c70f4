package gabor_test

import (
	"image"
	"image/png"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/covpipe/covpipe/gabor"
	"github.com/covpipe/covpipe/internal/shareddata"
)

// loadGrey decodes an 8-bit greyscale PNG into float64 pixels in [0, 255].
func loadGrey(tb testing.TB, path string) ([]float64, int, int) {
	tb.Helper()
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	m, err := png.Decode(f)
	if err != nil {
		tb.Fatalf("decode %s: %v", path, err)
	}
	g, ok := m.(*image.Gray)
	if !ok {
		tb.Fatalf("%s: %T, want 8-bit grey", path, m)
	}
	w, h := g.Rect.Dx(), g.Rect.Dy()
	img := make([]float64, w*h)
	for y := range h {
		for x := range w {
			img[y*w+x] = float64(g.GrayAt(g.Rect.Min.X+x, g.Rect.Min.Y+y).Y)
		}
	}
	return img, w, h
}

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
			img, w, h := loadGrey(t, path)
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
