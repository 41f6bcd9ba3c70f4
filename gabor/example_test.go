package gabor_test

import (
	"fmt"
	"log"
	"math"

	"github.com/covpipe/covpipe/gabor"
)

// A 32×32 grating at the wavenumber and angle of scale 1, orientation 2
// excites plane G_v1_u2 most.
func ExampleBank_Magnitudes() {
	bank, err := gabor.NewBank(gabor.Params{}) // paper's bank, zero border (conv2 'same')
	if err != nil {
		log.Fatal(err)
	}
	const w, h = 32, 32
	k, theta := gabor.Wavenumber(1), gabor.Angle(2)
	img := make([]float64, w*h)
	for y := range h {
		for x := range w {
			img[y*w+x] = 128 + 100*math.Cos(k*(float64(x)*math.Cos(theta)+float64(y)*math.Sin(theta)))
		}
	}
	planes, err := bank.Magnitudes(img, w, h)
	if err != nil {
		log.Fatal(err)
	}
	best, bestMean := 0, 0.0
	for i, p := range planes {
		var mean float64
		for _, m := range p {
			mean += m / float64(len(p))
		}
		if mean > bestMean {
			best, bestMean = i, mean
		}
	}
	fmt.Printf("%d planes, strongest %s\n", len(planes), gabor.Name(best/gabor.NumOrientations, best%gabor.NumOrientations))
	// Output:
	// 40 planes, strongest G_v1_u2
}

// Per-goroutine workspaces make the hot loop allocation-free.
func ExampleBank_MagnitudesTo() {
	bank, err := gabor.NewBank(gabor.Params{})
	if err != nil {
		log.Fatal(err)
	}
	const w, h = 64, 64
	ws, err := bank.NewWorkspace(w, h) // one per goroutine
	if err != nil {
		log.Fatal(err)
	}
	dst := make([][]float64, gabor.NumPlanes)
	for i := range dst {
		dst[i] = make([]float64, w*h)
	}
	img := make([]float64, w*h)
	img[32*w+32] = 1 // a unit impulse: each plane is |ψ| around it
	if err := bank.MagnitudesTo(dst, img, w, h, ws); err != nil {
		log.Fatal(err)
	}
	k, _ := bank.Kernel(0, 0)
	fmt.Printf("%s at the impulse: %.6f (|ψ(0,0)| = %.6f)\n", gabor.Name(0, 0), dst[0][32*w+32], math.Abs(real(k.At(0, 0))))
	// Output:
	// G_v0_u0 at the impulse: 0.050661 (|ψ(0,0)| = 0.050661)
}
