// Package imagetest makes and writes the small images that tests read back.
package imagetest

import (
	"bytes"
	"image"
	"image/jpeg"
	"image/png"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/covpipe/covpipe/internal/foldertest"
	"github.com/covpipe/covpipe/netpbm"
	"golang.org/x/image/tiff"
)

// Write encodes img to path in the format of its extension, PNG (.png),
// raw netpbm (.pgm or .ppm: PGM for a grey image, PPM otherwise), JPEG of
// quality 95 (.jpg) or TIFF (.tiff), creating its folder, and returns
// path. It fails tb on an error or another extension.
func Write(tb testing.TB, path string, img image.Image) string {
	tb.Helper()
	var buf bytes.Buffer
	var err error
	switch ext := strings.ToLower(filepath.Ext(path)); ext {
	case ".png":
		err = png.Encode(&buf, img)
	case ".pgm", ".ppm":
		err = netpbm.Encode(&buf, img, nil)
	case ".jpg":
		err = jpeg.Encode(&buf, img, &jpeg.Options{Quality: 95})
	case ".tiff":
		err = tiff.Encode(&buf, img, nil)
	default:
		tb.Fatalf("imagetest: cannot write %s: unknown extension %q", path, ext)
	}
	if err != nil {
		tb.Fatalf("imagetest: encode %s: %v", path, err)
	}
	foldertest.WriteFile(tb, path, buf.Bytes())
	return path
}

// NoiseGray returns a w×h grey image of levels drawn uniformly from rng.
func NoiseGray(rng *rand.Rand, w, h int) *image.Gray {
	m := image.NewGray(image.Rect(0, 0, w, h))
	for i := range m.Pix {
		m.Pix[i] = uint8(rng.IntN(256))
	}
	return m
}

// NoiseNRGBA returns an opaque w×h colour image of channels drawn
// uniformly from rng. It draws a value for every byte, alpha included, and
// then makes alpha opaque.
func NoiseNRGBA(rng *rand.Rand, w, h int) *image.NRGBA {
	m := image.NewNRGBA(image.Rect(0, 0, w, h))
	for i := range m.Pix {
		m.Pix[i] = uint8(rng.IntN(256))
		if i%4 == 3 {
			m.Pix[i] = 255
		}
	}
	return m
}

// Grating returns a w×h grey image of a sinusoidal grating of period
// period pixels whose stripes run across the direction angle (radians),
// with uniform noise of half-width noise (in grey levels of [0, 1])
// drawn from rng: images of one angle are alike and images of angles far
// apart are not, so that folders of them are classes that a recogniser
// of covariance descriptors can tell apart.
func Grating(rng *rand.Rand, w, h int, angle, period, noise float64) *image.Gray {
	m := image.NewGray(image.Rect(0, 0, w, h))
	cos, sin := math.Cos(angle), math.Sin(angle)
	phase := 2 * math.Pi * rng.Float64()
	for y := range h {
		for x := range w {
			v := 0.5 + 0.35*math.Sin(2*math.Pi*(cos*float64(x)+sin*float64(y))/period+phase) + noise*(2*rng.Float64()-1)
			m.Pix[y*m.Stride+x] = uint8(math.Round(255 * min(max(v, 0), 1)))
		}
	}
	return m
}
