package method

import (
	"testing"

	"github.com/covpipe/covpipe/experiment/classify"
)

// BenchmarkRSRSynthetic measures one RSR repeat of the hard synthetic task:
// 256 kernel Lasso codes over 256 atoms, Stein divergences precomputed.
func BenchmarkRSRSynthetic(b *testing.B) { benchMethod(b, "rsr", "{sigma: 1, lambda: 0.05}") }

// BenchmarkLogESRSynthetic is BenchmarkRSRSynthetic for logE-SR, whose
// rank-6 Gram matrix (log-vectors of 3×3 matrices) is the hard case for
// coordinate descent.
func BenchmarkLogESRSynthetic(b *testing.B) { benchMethod(b, "logE-SR", "lambda: 0.05") }

func BenchmarkNNAIRMSynthetic(b *testing.B) { benchMethod(b, "nn", "metric: airm") }

func benchMethod(b *testing.B, typ, params string) {
	data, train, test := syntheticData(b, 4, 3, 512, 2.0, 77)
	m := newMethod(b, typ, params)
	if p, ok := m.(classify.Preparer); ok {
		if err := p.Prepare(data); err != nil {
			b.Fatal(err)
		}
	}
	for b.Loop() {
		if _, err := m.Classify(&classify.Split{Data: data, Train: train, Test: test, Workers: 1}); err != nil {
			b.Fatal(err)
		}
	}
}
