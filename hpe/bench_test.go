package hpe

import (
	"math/rand/v2"
	"testing"

	"github.com/covpipe/covpipe/appearance"
)

// BenchmarkDescribe describes an identity seen in 1 and in 10 images of
// 16×32 pixels, the re-identification protocol's 32×64 crops at the
// method's default sampling step, with the default options.
func BenchmarkDescribe(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	var imgs []*appearance.Image
	for k := range 10 {
		imgs = append(imgs, person([3]float64{0.2, 0.3, 0.8}, [3]float64{0.6, 0.3, 0.1}, [3]float64{0.9, 0.9, 0.1}, k%3-1, 0.1, rng))
	}
	for _, n := range []int{1, 10} {
		b.Run(map[int]string{1: "images=1", 10: "images=10"}[n], func(b *testing.B) {
			var ws Workspace
			for b.Loop() {
				if _, err := ws.Describe(b.Context(), imgs[:n], centre); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkDistance compares two signatures.
func BenchmarkDistance(b *testing.B) {
	rng := rand.New(rand.NewPCG(2, 2))
	gallery, probes := people(rng)
	var ws Workspace
	g, err := ws.Describe(b.Context(), gallery[0], centre)
	if err != nil {
		b.Fatal(err)
	}
	p, err := ws.Describe(b.Context(), probes[1:2], centre)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := Distance(p, g, DefaultWeights()); err != nil {
			b.Fatal(err)
		}
	}
}
