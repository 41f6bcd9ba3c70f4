package experiment

import (
	"context"
	"testing"
)

// BenchmarkRSRSynthetic measures one RSR repeat of the hard synthetic task:
// 256 kernel Lasso codes over 256 atoms, Stein divergences precomputed.
func BenchmarkRSRSynthetic(b *testing.B) {
	benchMethod(b, MethodConfig{Name: "rsr", Type: "rsr", Sigma: Floats{1}, Lambda: Floats{0.05}})
}

// BenchmarkLogESRSynthetic is BenchmarkRSRSynthetic for logE-SR, whose
// rank-6 Gram matrix (log-vectors of 3×3 matrices) is the hard case for
// coordinate descent.
func BenchmarkLogESRSynthetic(b *testing.B) {
	benchMethod(b, MethodConfig{Name: "logE-SR", Type: "logE-SR", Lambda: Floats{0.05}})
}

func BenchmarkNNAIRMSynthetic(b *testing.B) {
	benchMethod(b, MethodConfig{Name: "nn-airm", Type: "nn-airm"})
}

func benchMethod(b *testing.B, mc MethodConfig) {
	data, train, test := syntheticData(b, 4, 3, 512, 2.0, 77)
	m, err := NewMethod(mc)
	if err != nil {
		b.Fatal(err)
	}
	if err := m.(preparer).prepare(data); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := m.Classify(&Split{Data: data, Train: train, Test: test, Workers: 1}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSyntheticProtocol runs configs/synthetic.yaml with 10 repeats
// per task (the full protocol has 100).
func BenchmarkSyntheticProtocol(b *testing.B) {
	cfg, err := Load("../configs/synthetic.yaml")
	if err != nil {
		b.Fatal(err)
	}
	cfg.Repeats = 10
	for b.Loop() {
		if _, err := Run(context.Background(), cfg, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
