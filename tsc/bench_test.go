package tsc

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkCode codes one query against 256 atoms at d = 3 (the synthetic
// protocol) and d = 17 (re-identification descriptors), and 600 atoms at
// d = 43 (FERET's training faces), to the default tolerance, reusing one
// workspace.
func BenchmarkCode(b *testing.B) {
	for _, c := range []struct{ n, d int }{{256, 3}, {256, 17}, {600, 43}} {
		n, d := c.n, c.d
		b.Run(fmt.Sprintf("N=%d/d=%d", n, d), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(uint64(d), 1))
			c := newCoder(b, randAtoms(rng, n, d), Options{Lambda: 0.1})
			q := randSPD(rng, d)
			ws := c.NewWorkspace()
			x := make([]float64, n)
			var iters int
			for b.Loop() {
				cert, err := c.SolveTo(context.Background(), x, q, ws)
				if err != nil || !cert.Converged {
					b.Fatal(err, cert)
				}
				iters = cert.Iterations
			}
			b.ReportMetric(float64(iters), "newton/op")
		})
	}
}
