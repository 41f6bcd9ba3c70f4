package imagetest

import (
	"image"
	"image/color"
	_ "image/jpeg"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/covpipe/covpipe/netpbm"
)

// TestWrite writes noise images in each format into a new subfolder and
// checks that they decode to the same pixels.
func TestWrite(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	gray, rgba := NoiseGray(rng, 5, 3), NoiseNRGBA(rng, 4, 2)
	for _, tc := range []struct {
		name string
		img  image.Image
	}{
		{"a/gray.png", gray},
		{"b/c/colour.PNG", rgba},
		{"gray.pgm", gray},
		{"colour.ppm", rgba},
		{"colour.tiff", rgba},
	} {
		path := filepath.Join(t.TempDir(), tc.name)
		if got := Write(t, path, tc.img); got != path {
			t.Errorf("Write returned %s, want %s", got, path)
		}
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		var back image.Image
		if filepath.Ext(path) == ".pgm" || filepath.Ext(path) == ".ppm" {
			back, err = netpbm.Decode(f)
		} else {
			back, _, err = image.Decode(f)
		}
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		b := tc.img.Bounds()
		if back.Bounds() != b {
			t.Fatalf("%s: bounds %v, want %v", tc.name, back.Bounds(), b)
		}
		for y := b.Min.Y; y < b.Max.Y; y++ {
			for x := b.Min.X; x < b.Max.X; x++ {
				if g, w := color.NRGBAModel.Convert(back.At(x, y)), color.NRGBAModel.Convert(tc.img.At(x, y)); g != w {
					t.Fatalf("%s: pixel (%d, %d) = %v, want %v", tc.name, x, y, g, w)
				}
			}
		}
	}
}

// TestWriteJPEG checks that a .jpg path gets a JPEG of the image's size.
func TestWriteJPEG(t *testing.T) {
	img := NoiseNRGBA(rand.New(rand.NewPCG(3, 4)), 16, 8)
	f, err := os.Open(Write(t, filepath.Join(t.TempDir(), "a.jpg"), img))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	back, format, err := image.Decode(f)
	if err != nil || format != "jpeg" {
		t.Fatalf("decoded as %q: %v", format, err)
	}
	if back.Bounds() != img.Bounds() {
		t.Errorf("bounds %v, want %v", back.Bounds(), img.Bounds())
	}
}

// TestNoise checks that the noise images are opaque, of the given size,
// and not constant.
func TestNoise(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	g, c := NoiseGray(rng, 7, 5), NoiseNRGBA(rng, 6, 4)
	if g.Bounds() != image.Rect(0, 0, 7, 5) || c.Bounds() != image.Rect(0, 0, 6, 4) {
		t.Fatalf("bounds %v and %v", g.Bounds(), c.Bounds())
	}
	levels, channels := map[uint8]bool{}, map[uint8]bool{}
	for _, v := range g.Pix {
		levels[v] = true
	}
	for i, v := range c.Pix {
		if i%4 == 3 {
			if v != 255 {
				t.Fatalf("alpha %d at byte %d", v, i)
			}
			continue
		}
		channels[v] = true
	}
	if len(levels) < 10 || len(channels) < 20 {
		t.Errorf("%d grey levels of 35 pixels, %d channel values of 72: not noise", len(levels), len(channels))
	}
}

// TestGrating checks that a grating varies across its angle and not
// along it: at angle 0 the horizontal differences of neighbouring pixels
// dominate, at π/2 the vertical ones.
func TestGrating(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	energy := func(m *image.Gray) (dx, dy float64) {
		for y := range 15 {
			for x := range 15 {
				a := float64(m.GrayAt(x, y).Y)
				dx += math.Abs(float64(m.GrayAt(x+1, y).Y) - a)
				dy += math.Abs(float64(m.GrayAt(x, y+1).Y) - a)
			}
		}
		return dx, dy
	}
	for range 5 {
		// Angle 0: stripes vary along x; angle π/2: along y.
		hx, hy := energy(Grating(rng, 16, 16, 0, 6, 0.05))
		vx, vy := energy(Grating(rng, 16, 16, math.Pi/2, 6, 0.05))
		if !(hx > 3*hy && vy > 3*vx) {
			t.Fatalf("derivative energies (%g, %g) at angle 0 and (%g, %g) at π/2: the gratings do not run across their angles", hx, hy, vx, vy)
		}
	}
}
