package sdalf_test

import (
	"fmt"

	"github.com/covpipe/covpipe/appearance"
	"github.com/covpipe/covpipe/sdalf"
)

// person draws a 32×64 pedestrian on a grey background: a head, a torso
// of colour top and legs of colour legs, shifted right by dx columns.
func person(top, legs [3]float64, dx int) *appearance.Image {
	const w, h = 32, 64
	r, g, b := make([]float64, w*h), make([]float64, w*h), make([]float64, w*h)
	for i := range r {
		x, y := i%w-dx, i/w
		c := [3]float64{0.5, 0.5, 0.5}
		switch {
		case y >= 5 && y < 13 && x >= 12 && x < 19:
			c = [3]float64{0.9, 0.7, 0.6}
		case y >= 13 && y < 37 && x >= 8 && x < 23:
			c = top
		case y >= 37 && y < 61 && x >= 10 && x < 21:
			c = legs
		}
		r[i], g[i], b[i] = c[0], c[1], c[2]
	}
	img, err := appearance.NewImage(w, h, r, g, b)
	if err != nil {
		panic(err)
	}
	return img
}

func Example() {
	blue, brown, red := [3]float64{0.1, 0.2, 0.8}, [3]float64{0.4, 0.25, 0.1}, [3]float64{0.8, 0.1, 0.1}
	opts := sdalf.Options{Mask: appearance.MaskOptions{Kind: appearance.BorderMask}}
	describe := func(img *appearance.Image) *sdalf.Signature {
		s, err := sdalf.Describe(img, opts)
		if err != nil {
			panic(err)
		}
		return s
	}
	probe := describe(person(blue, brown, 0))
	fmt.Printf("axes %+v, %d blobs\n", probe.Axes, len(probe.Blobs))
	same, _ := sdalf.Distance(probe, describe(person(blue, brown, 3)), sdalf.DefaultWeights())
	other, _ := sdalf.Distance(probe, describe(person(red, brown, 0)), sdalf.DefaultWeights())
	fmt.Printf("same person shifted: %.3f, another person: %.3f\n", same, other)
	// Output:
	// axes {HeadTorso:13 TorsoLegs:37 TorsoSym:15 LegsSym:15}, 2 blobs
	// same person shifted: 0.000, another person: 0.438
}
