package svm_test

import (
	"context"
	"fmt"

	"github.com/covpipe/covpipe/svm"
	"gonum.org/v1/gonum/mat"
)

// ExampleFit separates three classes of points on a line with the linear
// kernel k(x, y) = xy plus 1 (a bias feature), and ranks the classes for
// two queries.
func ExampleFit() {
	x := []float64{-3, -2.5, 0, 0.5, 3, 3.5}
	labels := []int{10, 10, 20, 20, 30, 30}
	kernel := func(a, b float64) float64 { return a*b + 1 }
	k := mat.NewSymDense(len(x), nil)
	for i := range x {
		for j := i; j < len(x); j++ {
			k.SetSym(i, j, kernel(x[i], x[j]))
		}
	}
	m, err := svm.Fit(context.Background(), k, labels, svm.Options{C: 100})
	if err != nil {
		fmt.Println(err)
		return
	}
	queries := []float64{-2, 2.8}
	kq := mat.NewDense(len(queries), len(x), nil)
	for r, q := range queries {
		for i := range x {
			kq.Set(r, i, kernel(q, x[i]))
		}
	}
	ds, err := m.PredictBatch(context.Background(), kq)
	if err != nil {
		fmt.Println(err)
		return
	}
	for r, d := range ds {
		fmt.Printf("x = %v: class %d, votes %v, ranking %v\n", queries[r], d.Label, d.Votes, m.Rank(d))
	}
	// Output:
	// x = -2: class 10, votes [2 1 0], ranking [10 20 30]
	// x = 2.8: class 30, votes [0 1 2], ranking [30 20 10]
}
