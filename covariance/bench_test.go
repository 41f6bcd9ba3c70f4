package covariance_test

import (
	"math/rand/v2"
	"testing"

	"github.com/covpipe/covpipe/covariance"
)

// benchCompute measures Compute on one image per iteration for each method.
func benchCompute(b *testing.B, planes [][]float64, w, h int, regions []covariance.Region, ms ...covariance.Method) {
	d := len(planes)
	dst := make([]float64, len(regions)*d*d)
	for _, m := range ms {
		b.Run(m.String(), func(b *testing.B) {
			e := mustExtractor(b, d, covariance.Options{Method: m})
			b.ReportAllocs()
			for b.Loop() {
				if err := e.Compute(dst, planes, w, h, regions); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func noisePlanes(d, w, h int) [][]float64 {
	return randomPlanes(rand.New(rand.NewPCG(99, uint64(d))), d, w, h, []float64{0.5, 0.1}, []float64{0.2, 0.05})
}

// BenchmarkGrid256d5 is the texture-mosaic protocol (paper Sec. 5.1.3):
// the 5×5 descriptors of the 64 regions of 32×32 of a 256×256 image.
func BenchmarkGrid256d5(b *testing.B) {
	regions, err := covariance.Grid(256, 256, 8, 8)
	if err != nil {
		b.Fatal(err)
	}
	benchCompute(b, noisePlanes(5, 256, 256), 256, 256, regions, covariance.Auto, covariance.Direct, covariance.Integral)
}

// BenchmarkWhole64d43 is the face protocol: the 43×43 descriptor of a
// whole 64×64 image.
func BenchmarkWhole64d43(b *testing.B) {
	benchCompute(b, noisePlanes(43, 64, 64), 64, 64, []covariance.Region{covariance.Whole(64, 64)}, covariance.Auto)
}

// BenchmarkWhole64x32d17 is the pedestrian protocol: the 17×17 descriptor
// of a whole 64×32 image.
func BenchmarkWhole64x32d17(b *testing.B) {
	benchCompute(b, noisePlanes(17, 64, 32), 64, 32, []covariance.Region{covariance.Whole(64, 32)}, covariance.Auto)
}

// BenchmarkBlocks is the Brodatz dictionary protocol (paper Sec. 5.2.2):
// 50 random 32×32 blocks of a 640×640 image, d = 5.
func BenchmarkBlocks(b *testing.B) {
	regions, err := covariance.RandomBlocks(640, 640, 50, 32, 1)
	if err != nil {
		b.Fatal(err)
	}
	benchCompute(b, noisePlanes(5, 640, 640), 640, 640, regions, covariance.Auto, covariance.Direct, covariance.Integral)
}

// BenchmarkSliding places 32×32 windows every 8 pixels on a 256×256 image
// (841 windows, 13 times the image area): the overlapping case that
// integral images are for, and the data behind the Auto threshold.
func BenchmarkSliding(b *testing.B) {
	var regions []covariance.Region
	for y := 0; y+32 <= 256; y += 8 {
		for x := 0; x+32 <= 256; x += 8 {
			regions = append(regions, covariance.Region{X: x, Y: y, W: 32, H: 32})
		}
	}
	for _, d := range []int{5, 17} {
		b.Run(map[int]string{5: "d=5", 17: "d=17"}[d], func(b *testing.B) {
			benchCompute(b, noisePlanes(d, 256, 256), 256, 256, regions, covariance.Direct, covariance.Integral)
		})
	}
}
