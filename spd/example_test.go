package spd_test

import (
	"context"
	"fmt"
	"log"

	"github.com/covpipe/covpipe/spd"
	"gonum.org/v1/gonum/mat"
)

func ExampleStein() {
	x := mat.NewSymDense(2, []float64{1, 0, 0, 4})
	y := mat.NewSymDense(2, []float64{4, 0, 0, 1})
	s, err := spd.Stein(x, y)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("S(X,Y) = %.4f\n", s) // log det((X+Y)/2) − ½ log det(XY) = log(6.25/4)
	// Output: S(X,Y) = 0.4463
}

func ExampleSteinKernel_GramSym() {
	ms := []*mat.SymDense{
		mat.NewSymDense(2, []float64{2, 1, 1, 2}),
		mat.NewSymDense(2, []float64{1, 0, 0, 1}),
		mat.NewSymDense(2, []float64{3, 0, 0, 0.5}),
	}
	set, err := spd.NewSet(ms)
	if err != nil {
		log.Fatal(err)
	}
	// σ = 0.5 is valid on 2×2 matrices by Theorem 1. For example
	// k(X₁, I) = exp(−½ (log det((X₁+I)/2) − ½ log det X₁)) = exp(−½ log(2/√3)).
	k, err := spd.SteinKernel{Sigma: 0.5}.GramSym(context.Background(), set, nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%.4f\n", mat.Formatted(k))
	_, err = spd.SteinKernel{Sigma: 0.3}.GramSym(context.Background(), set, nil)
	fmt.Println(err)
	// Output:
	// ⎡1.0000  0.9306  0.8590⎤
	// ⎢0.9306  1.0000  0.9036⎥
	// ⎣0.8590  0.9036  1.0000⎦
	// spd: invalid Stein kernel sigma: sigma = 0.3 does not give a positive definite kernel on 2×2 matrices (Theorem 1): use sigma in {0.5} or sigma > 0.5, or allow a pseudo-kernel
}

func ExampleAIRM() {
	x := mat.NewSymDense(2, []float64{1, 0, 0, 1})
	y := mat.NewSymDense(2, []float64{4, 0, 0, 1})
	d, err := spd.AIRM(x, y)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("d_g = %.4f (= log 4)\n", d)
	// Output: d_g = 1.3863 (= log 4)
}

func ExampleKarcherMean() {
	x := mat.NewSymDense(2, []float64{1, 0, 0, 1})
	y := mat.NewSymDense(2, []float64{4, 0, 0, 9})
	m, info, err := spd.KarcherMean(context.Background(), []*mat.SymDense{x, y}, nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%.4f converged=%v\n", mat.Formatted(m), info.Converged)
	// Output:
	// ⎡2.0000  0.0000⎤
	// ⎣0.0000  3.0000⎦ converged=true
}

func ExampleDistance() {
	x := mat.NewSymDense(2, []float64{1, 0, 0, 4})
	y := mat.NewSymDense(2, []float64{4, 0, 0, 1})
	for _, m := range spd.Metrics() {
		d, err := spd.Distance(m, x, y)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%-13s %.4f\n", m, d)
	}
	// A configuration names the metric; pyRiemann's name for AIRM works too.
	m, err := spd.ParseMetric("riemann")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("riemann is", m)
	_, err = spd.ParseMetric("logdet")
	fmt.Println(err)
	// Output:
	// airm          1.9605
	// stein         0.4463
	// log-euclidean 1.9605
	// thompson      1.3863
	// wasserstein   1.4142
	// euclid        4.2426
	// riemann is airm
	// spd: invalid parameter: unknown metric "logdet" (valid: airm or riemann, stein, log-euclidean, thompson, wasserstein, euclid)
}
