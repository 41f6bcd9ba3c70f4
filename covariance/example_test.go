package covariance_test

import (
	"errors"
	"fmt"
	"log"

	"github.com/covpipe/covpipe/covariance"
)

// Descriptors of the four quadrants of an 8×8 image with the features x
// and y: over a 4×4 region var x = var y = (4²−1)/12 · 16/15 = 4/3, and x
// and y are uncorrelated. The default trace ridge adds 1e-4 · 4/3.
func ExampleExtractor_Compute() {
	const w, h = 8, 8
	x, y := make([]float64, w*h), make([]float64, w*h)
	for i := range x {
		x[i], y[i] = float64(i%w), float64(i/w)
	}
	layout, err := covariance.ParseLayout("grid:2x2")
	if err != nil {
		log.Fatal(err)
	}
	regions, err := layout.Regions(w, h, 0)
	if err != nil {
		log.Fatal(err)
	}
	e, err := covariance.NewExtractor(2, covariance.Options{})
	if err != nil {
		log.Fatal(err)
	}
	dst := make([]float64, len(regions)*2*2) // (n, d, d), row-major
	if err := e.Compute(dst, [][]float64{x, y}, w, h, regions); err != nil {
		log.Fatal(err)
	}
	for k, r := range regions {
		fmt.Printf("%v %.6f\n", r, dst[k*4:(k+1)*4])
	}
	// Output:
	// 4x4+0+0 [1.333467 0.000000 0.000000 1.333467]
	// 4x4+4+0 [1.333467 0.000000 0.000000 1.333467]
	// 4x4+0+4 [1.333467 0.000000 0.000000 1.333467]
	// 4x4+4+4 [1.333467 0.000000 0.000000 1.333467]
}

// A constant region has no covariance: without regularisation its
// descriptor is not positive definite, and the error names the region.
func ExampleRegionError() {
	const w, h = 4, 2
	planes := [][]float64{{1, 2, 5, 5, 3, 4, 5, 5}}
	e, err := covariance.NewExtractor(1, covariance.Options{Reg: covariance.Regularization{Kind: covariance.None}})
	if err != nil {
		log.Fatal(err)
	}
	regions := []covariance.Region{{X: 0, Y: 0, W: 2, H: 2}, {X: 2, Y: 0, W: 2, H: 2}}
	err = e.Compute(make([]float64, 2), planes, w, h, regions)
	fmt.Println(fmt.Errorf("image tex.png: %w", err))
	// Output:
	// image tex.png: region 1 (2x2+2+0): spd: matrix is not positive definite: Cholesky factorisation of the 1x1 covariance failed after none regularisation (trace 0): a constant feature, a feature that is a linear combination of others, or fewer pixels than features
}

// Two collinear features, x and 2x, along a row of 4 pixels: their sample
// covariance 5/3·[1 2; 2 4] is singular, and without a ridge it is not a
// descriptor. Ledoit–Wolf shrinkage (ρ = 0.32 here) makes it positive
// definite: 0.68·C + 0.32·(tr C/2)·I.
func ExampleEstimator() {
	x := []float64{0, 1, 2, 3}
	planes := [][]float64{x, {0, 2, 4, 6}}
	region := []covariance.Region{covariance.Whole(4, 1)}
	for _, est := range []covariance.Estimator{covariance.SCM, covariance.LedoitWolf} {
		e, err := covariance.NewExtractor(2, covariance.Options{Reg: covariance.Regularization{Kind: covariance.None}, Estimator: est})
		if err != nil {
			log.Fatal(err)
		}
		dst := make([]float64, 4)
		if err := e.Compute(dst, planes, 4, 1, region); err != nil {
			fmt.Println(est, errors.Is(err, covariance.ErrNotSPD))
			continue
		}
		fmt.Printf("%v %.4f\n", est, dst)
	}
	// Output:
	// scm true
	// lwf [2.4667 2.2667 2.2667 5.8667]
}
