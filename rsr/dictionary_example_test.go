package rsr_test

import (
	"context"
	"fmt"
	"log"

	"github.com/covpipe/covpipe/rsr"
	"github.com/covpipe/covpipe/spd"
	"github.com/covpipe/covpipe/synth"
)

// Learn a dictionary of 8 atoms for synthetic SPD matrices by the paper's
// Algorithm 1 and use the sparse codes of new matrices as features.
func ExampleFitDictionary() {
	train, test, err := synth.Classes(synth.Paper(1, 0.05), 1)
	if err != nil {
		log.Fatal(err)
	}
	trainSet, err := spd.NewSet(train.X)
	if err != nil {
		log.Fatal(err)
	}
	testSet, err := spd.NewSet(test.X)
	if err != nil {
		log.Fatal(err)
	}
	dict, err := rsr.FitDictionary(context.Background(), trainSet, rsr.DictionaryOptions{
		Atoms:  8,
		Kernel: spd.SteinKernel{Sigma: 1}, // valid on 3×3 matrices: {0.5, 1} or > 1
		Lasso:  rsr.LassoOptions{LambdaRatio: 0.1},
		Iters:  10,
		Seed:   1,
		// The matrices are not of unit spectral norm: atoms normalised
		// to it (Algorithm 1's last step) would fit them badly.
		KeepScale: true,
	})
	if err != nil {
		log.Fatal(err)
	}
	kept := 0
	for _, it := range dict.History {
		kept += it.Kept()
	}
	codes, _, err := dict.Transform(context.Background(), testSet)
	if err != nil {
		log.Fatal(err)
	}
	n, N := codes.Dims()
	fmt.Printf("%d iterations, J %.1f → %.1f, %d atoms kept by the guards\n", len(dict.History), dict.History[0].J, dict.J, kept)
	fmt.Printf("codes: %d×%d\n", n, N)
	// Output:
	// 10 iterations, J 66.2 → 59.9, 0 atoms kept by the guards
	// codes: 256×8
}
