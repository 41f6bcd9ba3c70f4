package netpbm_test

import (
	"bytes"
	"errors"
	"image"
	"image/color"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/covpipe/covpipe/netpbm"
)

func randomBytes(rng *rand.Rand, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
	return b
}

// opaque sets every alpha sample (every 4th of bytesPerSample bytes) to
// its maximum.
func opaque(pix []byte, bytesPerSample int) []byte {
	for i := 3 * bytesPerSample; i < len(pix); i += 4 * bytesPerSample {
		for k := range bytesPerSample {
			pix[i+k] = 0xff
		}
	}
	return pix
}

func TestEncodeRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const w, h = 7, 5
	r := rect(w, h)
	g16 := &image.Gray16{Pix: randomBytes(rng, 2*w*h), Stride: 2 * w, Rect: r}
	g8 := &image.Gray{Pix: randomBytes(rng, w*h), Stride: w, Rect: r}
	nrgbaImg := &image.NRGBA{Pix: randomBytes(rng, 4*w*h), Stride: 4 * w, Rect: r}

	// Independent truth for the 8-bit conversion of 16-bit samples.
	g16to8 := image.NewGray(r)
	g8to16 := image.NewGray16(r)
	nrgbaToRGBA := image.NewRGBA(r)
	for y := range h {
		for x := range w {
			u := g16.Gray16At(x, y).Y
			g16to8.SetGray(x, y, color.Gray{uint8(math.Round(float64(u) * 255 / 65535))})
			g8to16.SetGray16(x, y, color.Gray16{uint16(g8.GrayAt(x, y).Y) * 257})
			c := nrgbaImg.NRGBAAt(x, y)
			nrgbaToRGBA.SetRGBA(x, y, color.RGBA{c.R, c.G, c.B, 255})
		}
	}
	paletted := image.NewPaletted(r, color.Palette{color.RGBA{1, 2, 3, 255}, color.RGBA{200, 100, 50, 255}})
	palettedWant := image.NewRGBA(r)
	for i := range paletted.Pix {
		paletted.Pix[i] = uint8(i % 2)
		c := paletted.Palette[i%2].(color.RGBA)
		palettedWant.SetRGBA(i%w, i/w, c)
	}
	rgbaImg := &image.RGBA{Pix: opaque(randomBytes(rng, 4*w*h), 1), Stride: 4 * w, Rect: r}
	rgba64Img := &image.RGBA64{Pix: opaque(randomBytes(rng, 8*w*h), 2), Stride: 8 * w, Rect: r}

	// A sub-image with a non-zero origin decodes to the same pixels at (0,0).
	big := image.NewGray(image.Rect(-3, -2, 10, 10))
	copy(big.Pix, randomBytes(rng, len(big.Pix)))
	sub := big.SubImage(image.Rect(1, 1, 1+w, 1+h)).(*image.Gray)
	subWant := image.NewGray(r)
	for y := range h {
		for x := range w {
			subWant.SetGray(x, y, sub.GrayAt(x+1, y+1))
		}
	}

	for _, tc := range []struct {
		name  string
		img   image.Image
		depth int
		want  image.Image
	}{
		{"Gray", g8, 0, g8},
		{"Gray16", g16, 0, g16},
		{"RGBA", rgbaImg, 0, rgbaImg},
		{"RGBA64", rgba64Img, 0, rgba64Img},
		{"NRGBA drops alpha", nrgbaImg, 0, nrgbaToRGBA},
		{"Paletted", paletted, 0, palettedWant},
		{"Gray16 forced to 8 bits", g16, 8, g16to8},
		{"Gray forced to 16 bits", g8, 16, g8to16},
		{"sub-image", sub, 0, subWant},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := netpbm.Encode(&buf, tc.img, &netpbm.EncodeOptions{BitDepth: tc.depth}); err != nil {
				t.Fatal(err)
			}
			got, err := netpbm.Decode(&buf)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("round trip = %#v\nwant %#v", got, tc.want)
			}
		})
	}
}

func TestEncodeHeader(t *testing.T) {
	var buf bytes.Buffer
	if err := netpbm.Encode(&buf, gray(2, 1, 3, 4), nil); err != nil {
		t.Fatal(err)
	}
	if got, want := buf.String(), "P5\n2 1\n255\n\x03\x04"; got != want {
		t.Errorf("Encode = %q, want %q", got, want)
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestEncodeErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		img  image.Image
		opts *netpbm.EncodeOptions
		want string
	}{
		{"empty", image.NewGray(image.Rectangle{}), nil, "empty image"},
		{"bit depth", gray(1, 1, 0), &netpbm.EncodeOptions{BitDepth: 12}, "bit depth 12, want 8 or 16"},
		{"write error", gray(1, 1, 0), nil, "disk full"},
	} {
		var err error
		if tc.name == "write error" {
			err = netpbm.Encode(failWriter{}, tc.img, tc.opts)
		} else {
			err = netpbm.Encode(&bytes.Buffer{}, tc.img, tc.opts)
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want it to contain %q", tc.name, err, tc.want)
		}
	}
}
