package svm

import (
	"context"
	"fmt"
	"testing"

	"github.com/covpipe/covpipe/spd"
	"github.com/covpipe/covpipe/synth"
	"gonum.org/v1/gonum/mat"
)

// steinProblem returns the Stein Gram matrix (σ = 2) of 320 training
// matrices of 32 classes (10 each; 4×4, synthetic) and the kernel values of
// 5000 queries against them.
func steinProblem(b testing.TB) (k *mat.SymDense, labels []int, kq *mat.Dense, truth []int) {
	b.Helper()
	o := synth.Options{Classes: 32, Dim: 4, Samples: 32 * 167, Train: 10.0 / 167, Spread: 1, Variance: 0.5}
	model, err := synth.NewModel(o, 1)
	if err != nil {
		b.Fatal(err)
	}
	train, test, err := model.Sample(2)
	if err != nil {
		b.Fatal(err)
	}
	a, err := spd.NewSet(train.X)
	if err != nil {
		b.Fatal(err)
	}
	q, err := spd.NewSet(test.X[:5000])
	if err != nil {
		b.Fatal(err)
	}
	kern := spd.SteinKernel{Sigma: 2}
	k, err = kern.GramSym(context.Background(), a, nil)
	if err != nil {
		b.Fatal(err)
	}
	kq, err = kern.Gram(context.Background(), q, a, nil)
	if err != nil {
		b.Fatal(err)
	}
	return k, train.Labels, kq, test.Labels[:5000]
}

// BenchmarkSteinSVM trains the 496 one-vs-one machines on a 320×320 Stein
// Gram matrix of 32 classes, and decides 5000 queries, on one worker.
func BenchmarkSteinSVM(b *testing.B) {
	k, labels, kq, truth := steinProblem(b)
	b.Run("train-320x32", func(b *testing.B) {
		for b.Loop() {
			if _, err := Fit(context.Background(), k, labels, Options{C: 10, Workers: 1}); err != nil {
				b.Fatal(err)
			}
		}
	})
	m, err := Fit(context.Background(), k, labels, Options{C: 10, Workers: 1})
	if err != nil {
		b.Fatal(err)
	}
	var svs, iters int
	for _, bm := range m.Machines {
		svs += len(bm.SV)
		iters += bm.Iters
	}
	b.Run("decide-5000", func(b *testing.B) {
		b.ReportMetric(float64(svs)/float64(len(m.Machines)), "SV/machine")
		for b.Loop() {
			if _, err := m.PredictBatch(context.Background(), kq); err != nil {
				b.Fatal(err)
			}
		}
	})
	ds, err := m.PredictBatch(context.Background(), kq)
	if err != nil {
		b.Fatal(err)
	}
	right := 0
	for i, d := range ds {
		if d.Label == truth[i] {
			right++
		}
	}
	b.Logf("%d machines, %.1f support vectors and %.1f SMO steps per machine, %d unconverged; accuracy %.1f%% on the queries",
		len(m.Machines), float64(svs)/float64(len(m.Machines)), float64(iters)/float64(len(m.Machines)), m.Unconverged(), 100*float64(right)/float64(len(ds)))
}

// BenchmarkSyntheticSVM trains the one-vs-one machines of the synthetic
// protocol (configs/synthetic.yaml, easy task): 256 training matrices on
// Sym+^3 in 4 classes, Stein kernel with σ = 1, for each C candidate.
func BenchmarkSyntheticSVM(b *testing.B) {
	train, _, err := synth.Classes(synth.Options{Classes: 4, Dim: 3, Samples: 512, Train: 0.5, Spread: 1, Variance: 0.85}, 2)
	if err != nil {
		b.Fatal(err)
	}
	a, err := spd.NewSet(train.X)
	if err != nil {
		b.Fatal(err)
	}
	k, err := spd.SteinKernel{Sigma: 1}.GramSym(context.Background(), a, nil)
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []float64{1, 10, 100} {
		b.Run(fmt.Sprintf("train-256x4-C%v", c), func(b *testing.B) {
			for b.Loop() {
				if _, err := Fit(context.Background(), k, train.Labels, Options{C: c, Workers: 1}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
