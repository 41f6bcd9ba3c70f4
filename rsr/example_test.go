package rsr_test

import (
	"context"
	"fmt"
	"log"

	"github.com/covpipe/covpipe/rsr"
	"github.com/covpipe/covpipe/spd"
	"github.com/covpipe/covpipe/synth"
)

// synthSets draws the paper's synthetic classes on Sym+^3 (synth.Paper)
// and wraps the training and test halves as sets.
func synthSets() (train, test synth.Data, trainSet, testSet *spd.Set) {
	train, test, err := synth.Classes(synth.Paper(1, 0.05), 1)
	if err != nil {
		log.Fatal(err)
	}
	if trainSet, err = spd.NewSet(train.X); err != nil {
		log.Fatal(err)
	}
	if testSet, err = spd.NewSet(test.X); err != nil {
		log.Fatal(err)
	}
	return train, test, trainSet, testSet
}

// Classify synthetic SPD matrices by Riemannian sparse representation with
// the Stein kernel: the paper's method end to end.
func ExampleFitStein() {
	train, test, trainSet, testSet := synthSets()
	ctx := context.Background()
	c, err := rsr.FitStein(ctx, trainSet, train.Labels,
		spd.SteinKernel{Sigma: 1}, // valid on 3×3 matrices: {0.5, 1} or > 1
		rsr.ClassifierOptions{Lasso: rsr.LassoOptions{Lambda: 0.01}})
	if err != nil {
		log.Fatal(err)
	}
	decisions, err := c.Predict(ctx, testSet)
	if err != nil {
		log.Fatal(err)
	}
	correct := 0
	for i, d := range decisions {
		if d.Label == test.Labels[i] {
			correct++
		}
	}
	fmt.Printf("accuracy %d/%d\n", correct, len(decisions))
	// Output: accuracy 256/256
}

// Solve one kernel Lasso (Eqn. 6) directly from a Gram matrix and read its
// optimality certificate.
func ExampleLasso_Solve() {
	K := [][]float64{{1, 0.5}, {0.5, 1}}
	lasso, err := rsr.NewLasso(denseOf(K), rsr.LassoOptions{Lambda: 0.1})
	if err != nil {
		log.Fatal(err)
	}
	v, cert, err := lasso.Solve([]float64{0.9, 0.3}, 1)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("v = [%.4f %.4f], objective %.4f, converged %v\n", v[0], v[1], cert.Objective, cert.Converged)
	// Output: v = [0.9000 -0.1000], objective 0.2700, converged true
}

// Learn a dictionary of 8 atoms for synthetic SPD matrices by the paper's
// Algorithm 1 and use the sparse codes of new matrices as features.
func ExampleFitDictionary() {
	_, _, trainSet, testSet := synthSets()
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
