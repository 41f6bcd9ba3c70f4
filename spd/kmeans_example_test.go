package spd_test

import (
	"context"
	"fmt"
	"log"

	"github.com/covpipe/covpipe/spd"
	"gonum.org/v1/gonum/mat"
)

func ExampleKMeans() {
	// Two groups of diagonal matrices, around 2·I and 200·I.
	ms := []*mat.SymDense{
		mat.NewSymDense(2, []float64{1, 0, 0, 4}),
		mat.NewSymDense(2, []float64{400, 0, 0, 100}),
		mat.NewSymDense(2, []float64{4, 0, 0, 1}),
		mat.NewSymDense(2, []float64{100, 0, 0, 400}),
	}
	set, err := spd.NewSet(ms)
	if err != nil {
		log.Fatal(err)
	}
	res, err := spd.KMeans(context.Background(), set, spd.KMeansOptions{K: 2, Metric: spd.AIRMMetric, Seed: 1})
	if err != nil {
		log.Fatal(err)
	}
	// The Karcher mean of commuting matrices is their entrywise geometric
	// mean: diag(2, 2) and diag(200, 200).
	for i, c := range res.Assign {
		m := res.Centroids[c]
		fmt.Printf("matrix %d: centroid diag(%.4g, %.4g)\n", i, m.At(0, 0), m.At(1, 1))
	}
	fmt.Printf("objective %.4f = 8 log² 2, converged %v\n", res.Objective, res.Converged)
	// Output:
	// matrix 0: centroid diag(2, 2)
	// matrix 1: centroid diag(200, 200)
	// matrix 2: centroid diag(2, 2)
	// matrix 3: centroid diag(200, 200)
	// objective 3.8436 = 8 log² 2, converged true
}
