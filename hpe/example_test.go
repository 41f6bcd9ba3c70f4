package hpe_test

import (
	"context"
	"fmt"

	"github.com/covpipe/covpipe/appearance"
	"github.com/covpipe/covpipe/hpe"
)

// twoTone returns a 16×32 image whose rows above row 18+shift have
// colour top and the others colour bottom.
func twoTone(top, bottom [3]float64, shift int) *appearance.Image {
	const w, h = 16, 32
	var planes [3][]float64
	for c := range planes {
		planes[c] = make([]float64, w*h)
		for i := range planes[c] {
			planes[c][i] = bottom[c]
			if i/w < 18+shift {
				planes[c][i] = top[c]
			}
		}
	}
	img, err := appearance.NewImage(w, h, planes[0], planes[1], planes[2])
	if err != nil {
		panic(err)
	}
	return img
}

func ExampleRank() {
	red, blue, green, grey := [3]float64{0.8, 0.1, 0.1}, [3]float64{0.1, 0.2, 0.8}, [3]float64{0.1, 0.7, 0.2}, [3]float64{0.5, 0.5, 0.5}
	ctx := context.Background()
	// The gallery: two identities, each seen in three images.
	var gallery []*hpe.Signature
	for _, clothes := range [][2][3]float64{{red, blue}, {green, grey}} {
		var imgs []*appearance.Image
		for shift := range 3 {
			imgs = append(imgs, twoTone(clothes[0], clothes[1], shift))
		}
		s, err := hpe.Describe(ctx, imgs, hpe.Options{})
		if err != nil {
			panic(err)
		}
		gallery = append(gallery, s)
	}
	// The probe: one image of the second identity.
	probe, err := hpe.Describe(ctx, []*appearance.Image{twoTone(green, grey, -1)}, hpe.Options{})
	if err != nil {
		panic(err)
	}
	order, _, err := hpe.Rank(ctx, probe, gallery, hpe.DefaultWeights())
	if err != nil {
		panic(err)
	}
	fmt.Println("ranking:", order)
	// Output: ranking: [1 0]
}
