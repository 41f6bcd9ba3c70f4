package features_test

import (
	"testing"

	"github.com/covpipe/covpipe/features"
	"github.com/covpipe/covpipe/internal/cputime"
)

// benchCompute measures ComputeTo of spec on a random w×h colour image
// with a reused Map and Workspace (the steady state of a worker), and
// reports the process CPU time per image beside the wall time.
func benchCompute(b *testing.B, spec string, w, h int) {
	s := mustParse(b, spec)
	img := randomImage(w, h, 1)
	ws := s.NewWorkspace()
	var dst features.Map
	if err := s.ComputeTo(&dst, img, ws); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	cpu := cputime.Start()
	for b.Loop() {
		if err := s.ComputeTo(&dst, img, ws); err != nil {
			b.Fatal(err)
		}
	}
	cpu.ReportPerOp(b)
}

// BenchmarkTexture256 is the texture protocol: [I, Ix, Iy, Ixx, Iyy] of a
// 256×256 Brodatz image.
func BenchmarkTexture256(b *testing.B) { benchCompute(b, "texture", 256, 256) }

// BenchmarkFace64 is the face protocol: [I, x, y, gabor] (43 planes) of a
// 64×64 FERET crop.
func BenchmarkFace64(b *testing.B) { benchCompute(b, "face", 64, 64) }

// BenchmarkReid64x32 is the re-identification protocol: the 17 planes of a
// pedestrian 32 wide and 64 high.
func BenchmarkReid64x32(b *testing.B) { benchCompute(b, "reid", 32, 64) }

// BenchmarkParallel measures throughput with one Workspace and Map per
// goroutine (GOMAXPROCS goroutines); ns/op is wall time per image.
func BenchmarkParallel(b *testing.B) {
	for _, bc := range []struct {
		name, spec string
		w, h       int
	}{{"Texture256", "texture", 256, 256}, {"Face64", "face", 64, 64}, {"Reid64x32", "reid", 32, 64}} {
		b.Run(bc.name, func(b *testing.B) {
			s := mustParse(b, bc.spec)
			img := randomImage(bc.w, bc.h, 1)
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				ws := s.NewWorkspace()
				var dst features.Map
				for pb.Next() {
					if err := s.ComputeTo(&dst, img, ws); err != nil {
						b.Error(err)
						return
					}
				}
			})
		})
	}
}
