package rsr

import (
	"context"
	"testing"
	"time"

	"github.com/covpipe/covpipe/spd"
)

// BenchmarkLearnIteration measures one iteration of FitDictionary (Algorithm 1,
// lines 3–10) at the size of the paper's Brodatz experiment: m = 2220
// training matrices (mixtures of covariances of random samples, 5×5),
// N = 128 atoms, 2 workers, warm-started codes. It reports the time of
// each stage and the non-zeros of the codes.
func BenchmarkLearnIteration(b *testing.B) {
	train := mixtureSet(b, 1, 2220, 5, 111, 2)
	for _, c := range []struct {
		name   string
		lasso  LassoOptions
		update AtomUpdate
	}{
		{"lambda=0.05", LassoOptions{Lambda: 0.05}, FixedPoint},
		{"lambda=0.01", LassoOptions{Lambda: 0.01}, FixedPoint},
		{"ratio=0.1", LassoOptions{LambdaRatio: 0.1}, FixedPoint},
		{"ratio=0.1/riemannian", LassoOptions{LambdaRatio: 0.1}, RiemannianGradient},
	} {
		b.Run(c.name, func(b *testing.B) {
			l, err := newLearner(context.Background(), train, DictionaryOptions{Atoms: 128, Kernel: spd.SteinKernel{Sigma: 2}, Lasso: c.lasso, Workers: 2, Seed: 1, Update: c.update})
			if err != nil {
				b.Fatal(err)
			}
			// The first iteration codes from scratch; later ones are warm.
			var it LearnIteration
			if err := l.kernels(context.Background()); err != nil {
				b.Fatal(err)
			}
			if it, _, err = l.code(context.Background(), false); err != nil {
				b.Fatal(err)
			}
			update := l.update
			if c.update == RiemannianGradient {
				update = l.riemannianUpdate
			}
			if err := update(context.Background(), &it); err != nil {
				b.Fatal(err)
			}
			var kern, code, upd time.Duration
			var nnz, kept int
			b.ReportAllocs()
			for b.Loop() {
				t0 := time.Now()
				if err := l.kernels(context.Background()); err != nil {
					b.Fatal(err)
				}
				t1 := time.Now()
				it, _, err := l.code(context.Background(), true)
				if err != nil {
					b.Fatal(err)
				}
				t2 := time.Now()
				if err := update(context.Background(), &it); err != nil {
					b.Fatal(err)
				}
				t3 := time.Now()
				kern += t1.Sub(t0)
				code += t2.Sub(t1)
				upd += t3.Sub(t2)
				nnz += it.NonZeros
				kept += it.Kept() + it.Unused
			}
			n := float64(b.N)
			b.ReportMetric(float64(kern.Milliseconds())/n, "kernels-ms/op")
			b.ReportMetric(float64(code.Milliseconds())/n, "lasso-ms/op")
			b.ReportMetric(float64(upd.Milliseconds())/n, "update-ms/op")
			b.ReportMetric(float64(nnz)/n/float64(train.Len()), "nonzeros/code")
			b.ReportMetric(float64(kept)/n, "kept-atoms/op")
		})
	}
}
