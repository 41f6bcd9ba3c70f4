package svm

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/covpipe/covpipe/internal/canceltest"
	"gonum.org/v1/gonum/mat"
)

// TestCancel checks that Fit and PredictBatch return an error wrapping
// context.Canceled, and no model or decisions, when their context is
// cancelled before the call (on a tiny problem) or while they run (on
// problems far too large to finish before the cancel): training many
// binary machines, training one machine by many SMO steps, and deciding
// many queries.
func TestCancel(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	// Overlapping classes: every machine takes many SMO steps.
	problem := func(classes, per int) (*mat.SymDense, []int, [][]float64) {
		centres := make([][]float64, classes)
		labels := make([]int, classes)
		for c := range centres {
			centres[c] = []float64{0.1 * rng.NormFloat64(), 0.1 * rng.NormFloat64()}
			labels[c] = c
		}
		x, y := blobs(rng, centres, labels, per, 1)
		return sym(rbf(x, x, 1)), y, x
	}
	tinyK, tinyY, _ := problem(2, 2)
	manyK, manyY, _ := problem(100, 20) // 4950 machines
	oneK, oneY, _ := problem(2, 1000)   // one machine of 2000 items
	o := Options{C: 1000, Tol: 1e-9, Workers: 1}
	for _, tc := range []struct {
		name string
		k    *mat.SymDense
		y    []int
	}{{"tiny", tinyK, tinyY}, {"many machines", manyK, manyY}, {"one machine", oneK, oneY}} {
		ctx := canceltest.Soon(t)
		if tc.name == "tiny" {
			ctx = canceltest.Cancelled(t)
		}
		m, err := Fit(ctx, tc.k, tc.y, o)
		canceltest.Check(t, "Fit, "+tc.name, err)
		if m != nil {
			t.Errorf("Fit, %s: a model came with the error", tc.name)
		}
	}
	// A model of many machines with many support vectors each, quick to
	// train with a loose C.
	predK, predY, predX := problem(100, 10)
	m, err := Fit(context.Background(), predK, predY, Options{C: 1, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	q := make([][]float64, 8000)
	for i := range q {
		q[i] = []float64{rng.NormFloat64(), rng.NormFloat64()}
	}
	kq := rbf(q, predX, 1)
	for _, tc := range []struct {
		name string
		ctx  context.Context
		kq   *mat.Dense
	}{{"tiny", canceltest.Cancelled(t), kq.Slice(0, 2, 0, len(predX)).(*mat.Dense)}, {"many queries", canceltest.Soon(t), kq}} {
		ds, err := m.PredictBatch(tc.ctx, tc.kq)
		canceltest.Check(t, "PredictBatch, "+tc.name, err)
		if ds != nil {
			t.Errorf("PredictBatch, %s: decisions came with the error", tc.name)
		}
	}
}
