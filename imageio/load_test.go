package imageio_test

import (
	"bytes"
	"errors"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"io/fs"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/image/bmp"
	"golang.org/x/image/tiff"

	"github.com/covpipe/covpipe/imageio"
	"github.com/covpipe/covpipe/internal/foldertest"
	"github.com/covpipe/covpipe/netpbm"
)

// encoded is a test file: its bytes, and the exact planes it must load to
// (nil colour planes for grey files, nil everything for lossy files).
type encoded struct {
	name, format string
	data         []byte
	w, h, depth  int
	gray, r, g   []float64 // expected planes (B is checked through gray)
}

func mustEncode(t testing.TB, enc func(*bytes.Buffer) error) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := enc(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// testFiles encodes small images in every supported format, with the
// planes worked out from the source pixels: v/255 for 8-bit samples,
// v/65535 for 16-bit ones, v/maxval (to 1/131070) for Netpbm.
func testFiles(t testing.TB) []encoded {
	rng := rand.New(rand.NewPCG(1, 1))
	const w, h = 9, 6
	r := image.Rect(0, 0, w, h)

	g8 := image.NewGray(r)
	g16 := image.NewGray16(r)
	rgba := image.NewRGBA(r)
	pal := image.NewPaletted(r, color.Palette{color.Gray{0}, color.Gray{100}, color.Gray{255}})
	var gray8, gray16, gray16t, red, green, palGray []float64
	for y := range h {
		for x := range w {
			v := uint8(rng.IntN(256))
			g8.SetGray(x, y, color.Gray{v})
			gray8 = append(gray8, float64(v)/255)
			u := uint16(rng.IntN(65536))
			g16.SetGray16(x, y, color.Gray16{u})
			gray16 = append(gray16, float64(u)/65535)
			c := color.RGBA{uint8(rng.IntN(256)), uint8(rng.IntN(256)), 7, 255}
			rgba.SetRGBA(x, y, c)
			red = append(red, float64(c.R)/255)
			green = append(green, float64(c.G)/255)
			k := uint8(rng.IntN(3))
			pal.SetColorIndex(x, y, k)
			palGray = append(palGray, []float64{0, 100.0 / 255, 1}[k])
		}
	}
	gray16t = gray16

	// A PGM with maxval 1000, written by hand.
	pgm := []byte("P5\n9 6\n1000\n")
	var pgmGray []float64
	for i := range w * h {
		v := (i * 37) % 1001
		pgm = append(pgm, byte(v>>8), byte(v))
		pgmGray = append(pgmGray, float64(v)/1000)
	}

	return []encoded{
		{"png gray", "png", mustEncode(t, func(b *bytes.Buffer) error { return png.Encode(b, g8) }), w, h, 8, gray8, nil, nil},
		{"png gray16", "png", mustEncode(t, func(b *bytes.Buffer) error { return png.Encode(b, g16) }), w, h, 16, gray16, nil, nil},
		{"png rgba", "png", mustEncode(t, func(b *bytes.Buffer) error { return png.Encode(b, rgba) }), w, h, 8, nil, red, green},
		{"gif", "gif", mustEncode(t, func(b *bytes.Buffer) error { return gif.Encode(b, pal, nil) }), w, h, 8, palGray, nil, nil},
		{"bmp", "bmp", mustEncode(t, func(b *bytes.Buffer) error { return bmp.Encode(b, rgba) }), w, h, 8, nil, red, green},
		{"tiff gray16", "tiff", mustEncode(t, func(b *bytes.Buffer) error { return tiff.Encode(b, g16, nil) }), w, h, 16, gray16t, nil, nil},
		{"tiff rgba", "tiff", mustEncode(t, func(b *bytes.Buffer) error { return tiff.Encode(b, rgba, nil) }), w, h, 8, nil, red, green},
		{"pgm maxval 1000", "pgm", pgm, w, h, 16, pgmGray, nil, nil},
		{"ppm", "ppm", mustEncode(t, func(b *bytes.Buffer) error { return netpbm.Encode(b, rgba, nil) }), w, h, 8, nil, red, green},
		{"jpeg", "jpeg", mustEncode(t, func(b *bytes.Buffer) error { return jpeg.Encode(b, rgba, nil) }), w, h, 8, nil, nil, nil},
	}
}

func writeFile(t testing.TB, name string, data []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	foldertest.WriteFile(t, path, data)
	return path
}

func TestLoadFormats(t *testing.T) {
	for _, f := range testFiles(t) {
		t.Run(f.name, func(t *testing.T) {
			path := writeFile(t, "img", f.data) // no extension: the content decides
			img, err := imageio.Load(path, imageio.Options{Color: true})
			if err != nil {
				t.Fatal(err)
			}
			if img.W != f.w || img.H != f.h || img.Format != f.format || img.Depth != f.depth ||
				img.SourceW != f.w || img.SourceH != f.h || img.Orientation != 1 {
				t.Fatalf("got %dx%d %s depth %d (source %dx%d, orientation %d), want %dx%d %s depth %d",
					img.W, img.H, img.Format, img.Depth, img.SourceW, img.SourceH, img.Orientation, f.w, f.h, f.format, f.depth)
			}
			tol := 0.0
			if f.format == "pgm" {
				tol = 1.0 / 131070
			}
			for _, c := range []struct {
				name      string
				got, want []float64
			}{{"gray", img.Gray, f.gray}, {"R", img.R, f.r}, {"G", img.G, f.g}, {"B of grey", img.B, f.gray}} {
				for i := range c.want {
					if math.Abs(c.got[i]-c.want[i]) > tol {
						t.Fatalf("%s[%d] = %v, want %v", c.name, i, c.got[i], c.want[i])
					}
				}
			}
			for i, v := range img.Gray {
				if v < 0 || v > 1 || img.R[i] < 0 || img.R[i] > 1 {
					t.Fatalf("value out of [0,1] at %d", i)
				}
				if r, g, b := img.R[i], img.G[i], img.B[i]; r != g || g != b {
					if y := 0.299*r + 0.587*g + 0.114*b; math.Abs(v-y) > 1e-15 {
						t.Fatalf("gray[%d] = %v, want luminance %v", i, v, y)
					}
				}
			}
		})
	}
}

// TestLoadGrayOnly checks that without Color the colour planes are nil and
// the grey plane is the same as with Color: exactly at the native size, and
// up to rounding when resized with Linear (resampling the grey plane, or
// taking the luminance of the resampled colour planes).
func TestLoadGrayOnly(t *testing.T) {
	for _, f := range testFiles(t) {
		for _, size := range [][2]int{{0, 0}, {4, 11}} {
			opts := imageio.Options{Width: size[0], Height: size[1]}
			grey, err := imageio.Decode(bytes.NewReader(f.data), opts)
			if err != nil {
				t.Fatal(err)
			}
			opts.Color = true
			colour, err := imageio.Decode(bytes.NewReader(f.data), opts)
			if err != nil {
				t.Fatal(err)
			}
			if grey.R != nil || grey.G != nil || grey.B != nil {
				t.Errorf("%s: colour planes without Options.Color", f.name)
			}
			for i := range colour.Gray {
				if d := math.Abs(grey.Gray[i] - colour.Gray[i]); d > 1e-15 || (size[0] == 0 && d != 0) {
					t.Fatalf("%s %v: gray[%d] = %v without colour, %v with", f.name, size, i, grey.Gray[i], colour.Gray[i])
				}
			}
		}
	}
}

func TestLoadScale(t *testing.T) {
	f := testFiles(t)[0] // 8-bit grey PNG
	img, err := imageio.Decode(bytes.NewReader(f.data), imageio.Options{Scale: 255})
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range img.Gray {
		if want := math.Round(f.gray[i] * 255); v != want {
			t.Fatalf("gray[%d] = %v, want the grey level %v exactly", i, v, want)
		}
	}
}

func TestLoadErrors(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing.png")
	_, err := imageio.Load(missing, imageio.Options{})
	if err == nil || !errors.Is(err, fs.ErrNotExist) || !strings.HasPrefix(err.Error(), "load "+missing+": ") {
		t.Errorf("missing file: %v", err)
	}

	unknown := writeFile(t, "notes.png", []byte("hello, world"))
	_, err = imageio.Load(unknown, imageio.Options{})
	if err == nil || !errors.Is(err, image.ErrFormat) || !strings.Contains(err.Error(), unknown) ||
		!strings.Contains(err.Error(), "supported formats: bmp, gif, jpeg, pam, pbm, pgm, png, ppm, tiff") {
		t.Errorf("unknown format: %v", err)
	}

	empty := writeFile(t, "empty.png", nil)
	_, err = imageio.Load(empty, imageio.Options{})
	if err == nil || err.Error() != "load "+empty+": empty file (0 bytes)" {
		t.Errorf("empty file: %v", err)
	}

	huge := writeFile(t, "huge.pgm", []byte("P5 10000 10000 255\n\x00"))
	_, err = imageio.Load(huge, imageio.Options{})
	if err == nil || !strings.Contains(err.Error(), "pgm image of 10000x10000 pixels exceeds the limit") || !strings.Contains(err.Error(), huge) {
		t.Errorf("huge image: %v", err)
	}

	_, err = imageio.Load(dir, imageio.Options{})
	if err == nil || !strings.Contains(err.Error(), dir) {
		t.Errorf("directory: %v", err)
	}

	_, err = imageio.Load(unknown, imageio.Options{Width: 3})
	if err == nil || !strings.Contains(err.Error(), unknown) || !strings.Contains(err.Error(), "give both width and height") {
		t.Errorf("bad options: %v", err)
	}

	_, err = imageio.FromImage(image.NewGray(image.Rectangle{}), imageio.Options{})
	if err == nil || !strings.Contains(err.Error(), "empty image") {
		t.Errorf("empty image: %v", err)
	}
}

// TestLoadTruncated cuts every test file short at several lengths: each
// must give an error naming the file, and no panic.
func TestLoadTruncated(t *testing.T) {
	for _, f := range testFiles(t) {
		for _, n := range []int{0, 1, 2, 10, len(f.data) / 3, len(f.data) / 2} {
			path := writeFile(t, "cut", f.data[:n])
			if _, err := imageio.Load(path, imageio.Options{Color: true, Width: 3, Height: 3}); err == nil || !strings.Contains(err.Error(), path) {
				t.Errorf("%s cut to %d bytes: error %v", f.name, n, err)
			}
		}
	}
}

func TestOptionsErrors(t *testing.T) {
	for _, tc := range []struct {
		opts imageio.Options
		want string
	}{
		{imageio.Options{Width: -1, Height: 5}, "imageio: negative resize target -1x5"},
		{imageio.Options{Width: 5}, "imageio: resize target 5x0: give both width and height, or neither"},
		{imageio.Options{Height: 5}, "give both width and height"},
		{imageio.Options{Width: 1 << 14, Height: 1 << 14}, "exceeds the limit"},
		{imageio.Options{Filter: imageio.Filter(9)}, "imageio: unknown filter Filter(9)"},
		{imageio.Options{Filter: -1}, "unknown filter Filter(-1)"},
		{imageio.Options{JPEGScale: imageio.JPEGScale(3)}, "imageio: unknown JPEG scale setting JPEGScale(3)"},
		{imageio.Options{JPEGScale: -1}, "unknown JPEG scale setting JPEGScale(-1)"},
		{imageio.Options{Scale: -1}, "imageio: scale -1 must be finite and non-negative"},
		{imageio.Options{Scale: math.NaN()}, "scale NaN"},
		{imageio.Options{Scale: math.Inf(1)}, "scale +Inf"},
	} {
		_, err := imageio.NewLoader(tc.opts)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("NewLoader(%+v) error %v, want %q", tc.opts, err, tc.want)
		}
	}
	for _, f := range []imageio.Filter{imageio.Nearest, imageio.Box, imageio.Linear, imageio.CatmullRom, imageio.Lanczos3} {
		if _, err := imageio.NewLoader(imageio.Options{Width: 2, Height: 2, Filter: f, Scale: 255}); err != nil {
			t.Errorf("%v: %v", f, err)
		}
	}
}

// TestLoaderReuse loads files of different sizes and kinds into one Image
// and checks each result against a fresh load.
func TestLoaderReuse(t *testing.T) {
	files := testFiles(t)
	for _, opts := range []imageio.Options{{}, {Color: true}, {Color: true, Width: 5, Height: 4, Filter: imageio.Lanczos3}} {
		l, err := imageio.NewLoader(opts)
		if err != nil {
			t.Fatal(err)
		}
		var dst imageio.Image
		for _, f := range append(files, files...) {
			path := writeFile(t, "img", f.data)
			if err := l.Load(path, &dst); err != nil {
				t.Fatal(err)
			}
			fresh, err := imageio.Load(path, opts)
			if err != nil {
				t.Fatal(err)
			}
			if dst.W != fresh.W || dst.H != fresh.H || dst.Format != fresh.Format || len(dst.Gray) != dst.W*dst.H ||
				(dst.R == nil) != (fresh.R == nil) || len(dst.R) != len(fresh.R) {
				t.Fatalf("%s: reused %dx%d %s, fresh %dx%d %s", f.name, dst.W, dst.H, dst.Format, fresh.W, fresh.H, fresh.Format)
			}
			for i := range fresh.Gray {
				if dst.Gray[i] != fresh.Gray[i] || (fresh.R != nil && dst.B[i] != fresh.B[i]) {
					t.Fatalf("%s: pixel %d differs after reuse", f.name, i)
				}
			}
		}
	}
}

// TestLoaderNoAllocs checks that converting and resizing into a reused
// Image allocates nothing per image.
func TestLoaderNoAllocs(t *testing.T) {
	src := image.NewYCbCr(image.Rect(0, 0, 128, 256), image.YCbCrSubsampleRatio420)
	for _, opts := range []imageio.Options{
		{Color: true, Width: 32, Height: 64},
		{Color: true},
		{Width: 200, Height: 100, Filter: imageio.Lanczos3, Scale: 255},
	} {
		l, err := imageio.NewLoader(opts)
		if err != nil {
			t.Fatal(err)
		}
		var dst imageio.Image
		allocs := testing.AllocsPerRun(10, func() {
			if err := l.FromImage(src, &dst); err != nil {
				t.Fatal(err)
			}
		})
		if allocs != 0 {
			t.Errorf("%+v: %v allocations per image, want 0", opts, allocs)
		}
	}
}

func TestDecodeReader(t *testing.T) {
	f := testFiles(t)[2] // colour PNG
	img, err := imageio.Decode(bytes.NewReader(f.data), imageio.Options{Color: true})
	if err != nil || img.W != f.w || img.R[3] != f.r[3] {
		t.Fatalf("Decode = %+v, %v", img, err)
	}
	_, err = imageio.Decode(strings.NewReader("junk"), imageio.Options{})
	if err == nil || !strings.HasPrefix(err.Error(), "imageio: image: unknown format") {
		t.Errorf("Decode of junk: %v", err)
	}
}
