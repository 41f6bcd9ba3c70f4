package imageio_test

import (
	"bytes"
	"image"
	"image/jpeg"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/covpipe/covpipe/imageio"
	"github.com/covpipe/covpipe/internal/shareddata"
)

// marsOptions are those of the re-identification protocol: colour planes
// of the 128x256 pedestrians resized to 32 wide by 64 high.
var marsOptions = imageio.Options{Color: true, Width: 32, Height: 64}

// pedestrianJPEG encodes a 128x256 colour image with smooth regions and
// noise, like the mini-mars crops, at quality 90 (4:2:0).
func pedestrianJPEG(tb testing.TB) []byte {
	rng := rand.New(rand.NewPCG(1, 2))
	img := image.NewRGBA(image.Rect(0, 0, 128, 256))
	for y := range 256 {
		for x := range 128 {
			i := img.PixOffset(x, y)
			img.Pix[i] = uint8(x + rng.IntN(32))
			img.Pix[i+1] = uint8(y/2 + rng.IntN(32))
			img.Pix[i+2] = uint8((x*y)>>7 + rng.IntN(32))
			img.Pix[i+3] = 255
		}
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: 90}); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

// benchLoad measures load with a Loader of opts and a reused Image.
func benchLoad(b *testing.B, opts imageio.Options, load func(*imageio.Loader, *imageio.Image) error) {
	l, err := imageio.NewLoader(opts)
	if err != nil {
		b.Fatal(err)
	}
	var dst imageio.Image
	b.ReportAllocs()
	for b.Loop() {
		if err := load(l, &dst); err != nil {
			b.Fatal(err)
		}
	}
}

// benchJPEGDecode measures image/jpeg alone on data.
func benchJPEGDecode(b *testing.B, data []byte) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := jpeg.Decode(bytes.NewReader(data)); err != nil {
			b.Fatal(err)
		}
	}
}

// miniMarsFile returns the path of one mini-mars JPEG, or skips.
func miniMarsFile(b *testing.B) string {
	return filepath.Join(shareddata.Dir(b, "mini-mars"), "0015", "0015C1T0001F001.jpg")
}

// BenchmarkLoadJPEGColorResize measures the hot path of the
// re-identification experiment, Loader.Load with colour planes and resizing
// to 32x64, on a real mini-mars file and on a generated in-memory JPEG;
// "decode-only" is image/jpeg alone on the same bytes, the cost that the
// loader adds to.
func BenchmarkLoadJPEGColorResize(b *testing.B) {
	b.Run("mini-mars", func(b *testing.B) {
		path := miniMarsFile(b)
		benchLoad(b, marsOptions, func(l *imageio.Loader, dst *imageio.Image) error { return l.Load(path, dst) })
	})
	data := pedestrianJPEG(b)
	b.Run("generated", func(b *testing.B) {
		benchLoad(b, marsOptions, func(l *imageio.Loader, dst *imageio.Image) error { return l.Decode(data, dst) })
	})
	b.Run("generated/decode-only", func(b *testing.B) { benchJPEGDecode(b, data) })
	b.Run("mini-mars/decode-only", func(b *testing.B) {
		data, err := os.ReadFile(miniMarsFile(b))
		if err != nil {
			b.Fatal(err)
		}
		benchJPEGDecode(b, data)
	})
}

// BenchmarkFromImageYCbCr measures conversion (and resizing) of a decoded
// 128x256 4:2:0 JPEG image into reused planes.
func BenchmarkFromImageYCbCr(b *testing.B) {
	img, err := jpeg.Decode(bytes.NewReader(pedestrianJPEG(b)))
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name string
		opts imageio.Options
	}{
		{"color-resize-32x64", marsOptions},
		{"color-native", imageio.Options{Color: true}},
		{"gray-native", imageio.Options{}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			benchLoad(b, bc.opts, func(l *imageio.Loader, dst *imageio.Image) error { return l.FromImage(img, dst) })
		})
	}
}
