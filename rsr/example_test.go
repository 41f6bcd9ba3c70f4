package rsr_test

import (
	"context"
	"fmt"
	"log"

	"github.com/covpipe/covpipe/rsr"
	"github.com/covpipe/covpipe/spd"
	"github.com/covpipe/covpipe/synth"
)

// Classify synthetic SPD matrices by Riemannian sparse representation with
// the Stein kernel: the paper's method end to end.
func ExampleFitStein() {
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
