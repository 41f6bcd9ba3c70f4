package logistic

import (
	"context"
	"fmt"
	"testing"

	"github.com/covpipe/covpipe/internal/cputime"
)

// sizes are problems of the tangent-space method: FERET-32's (600
// training faces of 200 people, 946 tangent coordinates of 43×43
// descriptors) and a smaller one.
var sizes = []struct{ n, p, k int }{{300, 105, 10}, {600, 946, 200}}

// BenchmarkFit fits a model with the default options (C = 1).
func BenchmarkFit(b *testing.B) {
	for _, s := range sizes {
		b.Run(fmt.Sprintf("n=%d,p=%d,k=%d", s.n, s.p, s.k), func(b *testing.B) {
			x, labels := blobs(s.n, s.p, s.k, 3, 1)
			meter := cputime.Start()
			for b.Loop() {
				if _, err := Fit(context.Background(), x, labels, Options{C: 1}); err != nil {
					b.Fatal(err)
				}
			}
			meter.ReportPerOp(b)
		})
	}
}

// BenchmarkProbabilitiesTo computes one query's class probabilities.
func BenchmarkProbabilitiesTo(b *testing.B) {
	for _, s := range sizes {
		b.Run(fmt.Sprintf("p=%d,k=%d", s.p, s.k), func(b *testing.B) {
			x, labels := blobs(s.n, s.p, s.k, 3, 1)
			m, err := Fit(context.Background(), x, labels, Options{C: 1, MaxIter: 5})
			if err != nil {
				b.Fatal(err)
			}
			dst := make([]float64, s.k)
			b.ReportAllocs()
			for b.Loop() {
				if err := m.ProbabilitiesTo(dst, x.RawRowView(0)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
