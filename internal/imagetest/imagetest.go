// Package imagetest makes and writes the small images that tests read back.
package imagetest

import (
	"bytes"
	"image"
	"image/jpeg"
	"image/png"
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
