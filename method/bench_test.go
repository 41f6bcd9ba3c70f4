package method

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/covpipe/covpipe/classify"
	"gonum.org/v1/gonum/mat"
)

// BenchmarkRSRSynthetic measures one RSR repeat of the hard synthetic task:
// 256 kernel Lasso codes over 256 atoms, Stein divergences computed ahead (Preparer).
func BenchmarkRSRSynthetic(b *testing.B) { benchMethod(b, "rsr", "{sigma: 1, lambda: 0.05}") }

// BenchmarkLogESRSynthetic is BenchmarkRSRSynthetic for logE-SR, whose
// rank-6 Gram matrix (log-vectors of 3×3 matrices) is the hard case for
// coordinate descent.
func BenchmarkLogESRSynthetic(b *testing.B) { benchMethod(b, "logE-SR", "lambda: 0.05") }

func BenchmarkNNAIRMSynthetic(b *testing.B) { benchMethod(b, "nn", "metric: airm") }

// BenchmarkTSCSynthetic is BenchmarkRSRSynthetic for tsc: 256 MAXDET codes
// over 256 atoms.
func BenchmarkTSCSynthetic(b *testing.B) { benchMethod(b, "tsc", "lambda: 0.05") }

func benchMethod(b *testing.B, typ, params string) {
	data, train, test := syntheticData(b, 4, 3, 512, 2.0, 77)
	m := newMethod(b, typ, params)
	split := &classify.Split{Data: data, Train: train, Test: test, Workers: 1}
	prepare(b, m, split)
	for b.Loop() {
		if _, err := classify.Run(context.Background(), m, split); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPCAGram fits PCA to 100 dimensions on FERET's shape of data
// (600 training faces of 2560 Gabor values, 1400 items in all) and
// returns the projections' Gram matrix: the fit of pca-src and gsr
// (whole), and that of a 3-fold cross-validation fold (400 of the 600)
// from the training set's Gram matrix (fold).
func BenchmarkPCAGram(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	x := mat.NewDense(1400, 2560, nil)
	for i := range 1400 {
		for j := range 2560 {
			x.Set(i, j, rng.NormFloat64())
		}
	}
	train := classify.Seq(0, 600)
	ctx := context.Background()
	b.Run("whole", func(b *testing.B) {
		for b.Loop() {
			if _, _, err := pcaGram(ctx, x, train, 100); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("fold", func(b *testing.B) {
		base, err := newPCABase(ctx, x, train, 0)
		if err != nil {
			b.Fatal(err)
		}
		fold := classify.Seq(200, 600)
		for b.Loop() {
			if _, _, err := base.fitFold(ctx, fold, 100); err != nil {
				b.Fatal(err)
			}
		}
	})
}
