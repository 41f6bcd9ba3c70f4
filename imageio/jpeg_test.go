package imageio_test

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"math"
	"testing"

	"github.com/covpipe/covpipe/imageio"
	"github.com/covpipe/covpipe/imageio/internal/jpegtest"
)

// smoothRGBA is a w x h image of colour gradients.
func smoothRGBA(w, h int) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			fx, fy := float64(x)/float64(w), float64(y)/float64(h)
			img.SetRGBA(x, y, color.RGBA{uint8(30 + 200*fx), uint8(200 - 150*fy), uint8(100 + 80*math.Sin(4*fx+2*fy)), 255})
		}
	}
	return img
}

func encodeJPEG(t testing.TB, img image.Image, q int) []byte {
	return mustEncode(t, func(b *bytes.Buffer) error { return jpeg.Encode(b, img, &jpeg.Options{Quality: q}) })
}

// planeDiff returns the largest and the mean absolute difference of two
// planes.
func planeDiff(a, b []float64) (maxd, mean float64) {
	for i := range a {
		d := math.Abs(a[i] - b[i])
		maxd = max(maxd, d)
		mean += d
	}
	return maxd, mean / float64(len(a))
}

// TestLoadReducedJPEG checks the reduced-scale JPEG paths of a Loader
// against the full decode (JPEGScaleOff): the scale they pick, the sizes
// they report, and planes that differ little. JPEGScaleFast decodes at
// the target size, each pixel the DCT's estimate of a block mean, where
// the full decode resamples with the filter across blocks; JPEGScaleAuto
// leaves at least a twofold reduction to the filter, and its planes are
// closer to the full decode's. The tolerances are a little over the
// largest and mean absolute differences measured, as fractions of the
// range: fast 1.8% and 0.44% on smooth images, 9.8% and 0.48% on the
// noisy pedestrian-like image (the noise that the two low-pass filters
// keep differently); auto, whose chroma keeps the file's subsampling,
// 0.84% and 0.22% on smooth images, 8.8% and 0.30% on the pedestrian.
func TestLoadReducedJPEG(t *testing.T) {
	smooth := smoothRGBA(128, 256)
	type tol struct{ max, mean float64 }
	files := []struct {
		name       string
		data       []byte
		fast, auto tol
	}{
		{"pedestrian-420", pedestrianJPEG(t), tol{0.12, 0.006}, tol{0.1, 0.004}},
		{"smooth-420", encodeJPEG(t, smooth, 95), tol{0.02, 0.005}, tol{0.01, 0.003}},
		{"smooth-grey", encodeJPEG(t, jpegtest.Grey(smooth), 95), tol{0.02, 0.005}, tol{0.01, 0.003}},
		{"smooth-444-restart", jpegtest.MustEncode(t, smooth, jpegtest.Options{Sampling: [][2]int{{1, 1}, {1, 1}, {1, 1}}, Restart: 3}), tol{0.02, 0.005}, tol{0.01, 0.003}},
		{"smooth-422", jpegtest.MustEncode(t, smooth, jpegtest.Options{Sampling: [][2]int{{2, 1}, {1, 1}, {1, 1}}}), tol{0.02, 0.005}, tol{0.01, 0.003}},
	}
	for _, f := range files {
		for _, tc := range []struct {
			w, h       int
			filter     imageio.Filter
			fast, auto int // the scales' denominators
		}{
			{32, 64, imageio.Linear, 4, 2},
			{32, 64, imageio.Box, 4, 2},
			{16, 32, imageio.Linear, 8, 4},
			{50, 90, imageio.Linear, 2, 1},
			{20, 40, imageio.CatmullRom, 4, 2},
			{100, 200, imageio.Linear, 1, 1}, // no reduced scale covers it
		} {
			for _, mode := range []imageio.JPEGScale{imageio.JPEGScaleFast, imageio.JPEGScaleAuto} {
				denom, tl := tc.fast, f.fast
				if mode == imageio.JPEGScaleAuto {
					denom, tl = tc.auto, f.auto
				}
				for _, colour := range []bool{true, false} {
					t.Run(fmt.Sprintf("%s/%dx%d/%v/%v/color-%v", f.name, tc.w, tc.h, tc.filter, mode, colour), func(t *testing.T) {
						opts := imageio.Options{Color: colour, Width: tc.w, Height: tc.h, Filter: tc.filter, JPEGScale: mode}
						got, err := imageio.Decode(bytes.NewReader(f.data), opts)
						if err != nil {
							t.Fatal(err)
						}
						opts.JPEGScale = imageio.JPEGScaleOff
						want, err := imageio.Decode(bytes.NewReader(f.data), opts)
						if err != nil {
							t.Fatal(err)
						}
						if got.DecodeScale != denom || want.DecodeScale != 1 {
							t.Errorf("decoded at 1/%d (off: 1/%d), want 1/%d", got.DecodeScale, want.DecodeScale, denom)
						}
						if got.W != tc.w || got.H != tc.h || got.SourceW != 128 || got.SourceH != 256 || got.Format != "jpeg" || got.Depth != 8 || got.Orientation != 1 {
							t.Errorf("got %dx%d from %dx%d, format %q, depth %d, orientation %d", got.W, got.H, got.SourceW, got.SourceH, got.Format, got.Depth, got.Orientation)
						}
						planes := [][2][]float64{{got.Gray, want.Gray}}
						if colour {
							planes = append(planes, [2][]float64{got.R, want.R}, [2][]float64{got.G, want.G}, [2][]float64{got.B, want.B})
						} else if got.R != nil {
							t.Error("colour planes without Color")
						}
						for i, p := range planes {
							maxd, mean := planeDiff(p[0], p[1])
							if maxd > tl.max || mean > tl.mean {
								t.Errorf("plane %d differs from the full decode's by up to %.4f (mean %.4f), want <= %v (mean <= %v)", i, maxd, mean, tl.max, tl.mean)
							}
							if denom == 1 && maxd != 0 {
								t.Errorf("plane %d: not the full decode", i)
							}
						}
					})
				}
			}
		}
	}
}

// TestLoadJPEGFallback checks that JPEGs the reduced decoder does not take
// load as with JPEGScaleOff: a progressive file (image/jpeg decodes it, at
// full size), and corrupt files, which fail with image/jpeg's error.
func TestLoadJPEGFallback(t *testing.T) {
	img := smoothRGBA(40, 24)
	good := jpegtest.MustEncode(t, img, jpegtest.Options{Sampling: [][2]int{{2, 2}, {1, 1}, {1, 1}}})
	sos := bytes.Index(good, []byte{0xff, 0xda})
	for _, tc := range []struct {
		name string
		data []byte
		ok   bool
	}{
		{"progressive", jpegtest.MustEncode(t, img, jpegtest.Options{Sampling: [][2]int{{2, 2}, {1, 1}, {1, 1}}, ProgressiveDC: true}), true},
		{"progressive-grey", jpegtest.MustEncode(t, img, jpegtest.Options{ProgressiveDC: true}), true},
		{"truncated", good[:sos+30], false},
		{"no-huffman-tables", bytes.ReplaceAll(good, []byte{0xff, 0xc4}, []byte{0xff, 0xfe}), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := imageio.Options{Color: true, Width: 10, Height: 6}
			l, err := imageio.NewLoader(opts)
			if err != nil {
				t.Fatal(err)
			}
			var got imageio.Image
			gerr := l.Decode(tc.data, &got)
			opts.JPEGScale = imageio.JPEGScaleOff
			want, werr := imageio.Decode(bytes.NewReader(tc.data), opts)
			if !tc.ok {
				if gerr == nil || werr == nil || gerr.Error() != werr.Error() {
					t.Errorf("error %v, want image/jpeg's %v", gerr, werr)
				}
				return
			}
			if gerr != nil || werr != nil {
				t.Fatalf("%v; off: %v", gerr, werr)
			}
			if got.DecodeScale != 1 {
				t.Errorf("decoded at 1/%d", got.DecodeScale)
			}
			for i, p := range [][2][]float64{{got.Gray, want.Gray}, {got.R, want.R}, {got.B, want.B}} {
				if maxd, _ := planeDiff(p[0], p[1]); maxd != 0 {
					t.Errorf("plane %d differs from the full decode by %v", i, maxd)
				}
			}
		})
	}
}

// TestLoaderNoAllocsJPEG checks that the reduced-scale JPEG path into a
// reused Image allocates nothing per image once the Loader's buffers have
// grown.
func TestLoaderNoAllocsJPEG(t *testing.T) {
	data := pedestrianJPEG(t)
	l, err := imageio.NewLoader(marsOptions)
	if err != nil {
		t.Fatal(err)
	}
	var dst imageio.Image
	allocs := testing.AllocsPerRun(10, func() {
		if err := l.Decode(data, &dst); err != nil {
			t.Fatal(err)
		}
	})
	if dst.DecodeScale != 2 || allocs != 0 {
		t.Errorf("decoded at 1/%d with %v allocations per image, want 1/2 and 0", dst.DecodeScale, allocs)
	}
}
