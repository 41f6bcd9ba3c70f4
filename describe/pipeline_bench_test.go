package describe_test

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/covpipe/covpipe/covariance"
	"github.com/covpipe/covpipe/describe"
	"github.com/covpipe/covpipe/features"
	"github.com/covpipe/covpipe/imageio"
	"github.com/covpipe/covpipe/internal/pool"
)

// benchPipeline measures features + covariance descriptors of in-memory
// images (Extractor.RegionsTo, the per-image code of Describe) on 2
// workers, each with its own Extractor, and reports images/s:
// the figures of docs/benchmarks.md (image decoding excluded).
func benchPipeline(b *testing.B, spec string, w, h int, layout string) {
	fs, err := features.Parse(spec)
	if err != nil {
		b.Fatal(err)
	}
	lay, err := covariance.ParseLayout(layout)
	if err != nil {
		b.Fatal(err)
	}
	regions, err := lay.Regions(w, h, 1)
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	const images = 64
	imgs := make([]*imageio.Image, images)
	for i := range imgs {
		img := &imageio.Image{W: w, H: h, Gray: make([]float64, w*h), R: make([]float64, w*h), G: make([]float64, w*h), B: make([]float64, w*h)}
		for p := range img.Gray {
			img.R[p], img.G[p], img.B[p] = rng.Float64(), rng.Float64(), rng.Float64()
			img.Gray[p] = 0.299*img.R[p] + 0.587*img.G[p] + 0.114*img.B[p]
		}
		imgs[i] = img
	}
	const workers = 2
	// One Extractor per worker, as Extractor.Run gives each worker its
	// own state.
	exs := make([]*describe.Extractor, workers)
	outs := make([][]float64, workers)
	for k := range exs {
		if exs[k], err = describe.NewExtractor(describe.Options{Features: fs}); err != nil {
			b.Fatal(err)
		}
		outs[k] = make([]float64, len(regions)*fs.Dim()*fs.Dim())
	}
	start := time.Now()
	n := 0
	for b.Loop() {
		err := pool.ForErr(images, workers, func(k, i int) error {
			return exs[k].RegionsTo(outs[k], imgs[i], regions)
		})
		if err != nil {
			b.Fatal(err)
		}
		n += images
	}
	b.ReportMetric(float64(n)/time.Since(start).Seconds(), "images/s")
}

// BenchmarkTextureGrid256 is [I, Ix, Iy, Ixx, Iyy] on the 64 grid regions
// of 256x256 images (target: at least 1000 images/s over 2 cores).
func BenchmarkTextureGrid256(b *testing.B) { benchPipeline(b, "texture", 256, 256, "grid:8x8") }

// BenchmarkFaceWhole64 is the 43-dim [I, x, y, gabor] whole-image
// descriptor of 64x64 faces (target: at least 100 images/s over 2 cores).
func BenchmarkFaceWhole64(b *testing.B) { benchPipeline(b, "face", 64, 64, "whole") }

// BenchmarkReidWhole32x64 is the 17-dim re-identification descriptor of
// 32x64 (W×H) pedestrians.
func BenchmarkReidWhole32x64(b *testing.B) { benchPipeline(b, "reid", 32, 64, "whole") }
