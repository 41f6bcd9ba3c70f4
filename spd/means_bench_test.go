package spd

import (
	"context"
	"testing"

	"github.com/covpipe/covpipe/internal/cputime"
)

// BenchmarkMean measures each mean of 600 matrices of 43×43: FERET-32's
// training descriptors when the shared datasets are present, else random
// matrices of the same size (the log says which), with the default
// tolerance 1e-10 and GOMAXPROCS workers (run it with -cpu 2). It reports
// the CPU time per mean, the iterations, the passes over the matrices
// and the certificate that the tolerance bounds, times 1e12.
func BenchmarkMean(b *testing.B) {
	xs, source := meanBenchData(b)
	b.Logf("%d matrices of %d×%d: %s", len(xs), xs[0].SymmetricDim(), xs[0].SymmetricDim(), source)
	gradient := func(i MeanInfo) float64 { return i.Gradient }
	residual := func(i MeanInfo) float64 { return i.Residual }
	for _, c := range []struct {
		name string
		mean meanFunc
		cert func(MeanInfo) float64 // the certificate Tol bounds
	}{
		{"airm", KarcherMean, gradient},
		{"log-euclidean", LogEuclideanMean, gradient},
		{"stein", SteinMean, residual},
		{"wasserstein", WassersteinMean, gradient},
		{"harmonic", HarmonicMean, residual},
		{"euclid", ArithmeticMean, residual},
	} {
		b.Run(c.name, func(b *testing.B) {
			var info MeanInfo
			cpu := cputime.Start()
			for b.Loop() {
				var err error
				if _, info, err = c.mean(context.Background(), xs, nil); err != nil || !info.Converged {
					b.Fatalf("%+v, %v", info, err)
				}
			}
			cpu.ReportPerOp(b)
			b.ReportMetric(float64(info.Iterations), "iters")
			b.ReportMetric(float64(info.Evaluations), "evals")
			b.ReportMetric(1e12*c.cert(info), "certificate-x1e12")
		})
	}
}
