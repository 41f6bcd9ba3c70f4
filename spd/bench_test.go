package spd

import (
	"context"
	"fmt"
	"testing"

	"github.com/covpipe/covpipe/internal/dense"
	"github.com/covpipe/covpipe/internal/roofline"
	"gonum.org/v1/gonum/mat"
)

// cholFlops is the FLOP count of a d×d Cholesky factorisation, d³/3.
func cholFlops(d int) float64 { return float64(d*d*d) / 3 }

// airmFlops is the FLOP count of Workspace.AIRM's d×d route: two
// Cholesky factorisations (2d³/3), Z = L⁻¹M and G = ZᵀZ for triangular L,
// M, Z (d³/3 each) and the tridiagonalisation of G (4d³/3); the
// eigenvalues of the tridiagonal matrix add O(d²).
func airmFlops(d int) float64 { return 8 * float64(d*d*d) / 3 }

// BenchmarkSteinEntry measures one Stein kernel entry with cached
// log-determinants, as inside a Gram matrix: one Cholesky of (X+Y)/2
// (its rate against the peak above the closed form's sizes).
func BenchmarkSteinEntry(b *testing.B) {
	for _, d := range []int{3, 5, 17, 43} {
		b.Run(fmt.Sprintf("d=%d", d), func(b *testing.B) {
			s, _ := randSet(b, 30, 2, d)
			buf := make([]float64, d*d)
			k := SteinKernel{Sigma: 0.5 * float64(d)}
			var sum float64
			for b.Loop() {
				v, _ := steinEntry(buf, s.block(0), s.block(1), d, s.logdet[0], s.logdet[1])
				sum += k.FromDivergence(v)
			}
			_ = sum
			if d > dense.TinyMaxD {
				roofline.Report(b, cholFlops(d))
			}
		})
	}
}

// BenchmarkStein measures the standalone divergence: three Cholesky
// factorisations on a reused workspace.
func BenchmarkStein(b *testing.B) {
	_, ms := randSet(b, 31, 2, 43)
	w := NewWorkspace(43)
	for b.Loop() {
		if _, err := w.Stein(ms[0], ms[1]); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGramSym600 measures the symmetric 600×600 Stein Gram matrix at
// d = 43 (the FERET descriptor size) on 2 workers.
func BenchmarkGramSym600(b *testing.B) {
	s, _ := randSet(b, 32, 600, 43)
	k := SteinKernel{Sigma: 1}
	for b.Loop() {
		if _, err := k.GramSym(context.Background(), s, &GramOptions{Workers: 2}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkAIRM(b *testing.B) {
	for _, d := range []int{5, 17, 43} {
		b.Run(fmt.Sprintf("d=%d", d), func(b *testing.B) {
			_, ms := randSet(b, 33, 2, d)
			w := NewWorkspace(d)
			for b.Loop() {
				if _, err := w.AIRM(ms[0], ms[1]); err != nil {
					b.Fatal(err)
				}
			}
			roofline.Report(b, airmFlops(d))
		})
	}
}

func BenchmarkLogDet43(b *testing.B) {
	_, ms := randSet(b, 34, 1, 43)
	w := NewWorkspace(43)
	for b.Loop() {
		if _, err := w.LogDet(ms[0]); err != nil {
			b.Fatal(err)
		}
	}
	roofline.Report(b, cholFlops(43))
}

// benchSteinBlock measures, on one worker, the r×c block of Stein
// divergences of the items c, ..., c+r−1 of s against its items 0, ...,
// c−1, and reports the time per entry and, above the closed form's sizes,
// the rate of its factorisations against the peak.
func benchSteinBlock(b *testing.B, s *Set, r, c int) {
	rows := make([]int, r)
	for i := range rows {
		rows[i] = c + i
	}
	cols := seq(c)
	dst := mat.NewDense(r, c, nil)
	for b.Loop() {
		if err := SteinBlockTo(context.Background(), dst, s, rows, s, cols, &GramOptions{Workers: 1}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(r*c), "ns/entry")
	if s.d > dense.TinyMaxD {
		roofline.Report(b, float64(r*c)*cholFlops(s.d))
	}
}

// BenchmarkSteinBlock measures a FERET-sized block of Stein divergences:
// 200 test items against 600 training items at d = 43, the
// training matrices (8.9 MB) well beyond the per-core caches, one worker.
func BenchmarkSteinBlock(b *testing.B) {
	s, _ := randSet(b, 50, 800, 43)
	benchSteinBlock(b, s, 200, 600)
}

// BenchmarkSteinBlockSmall measures 64×320 blocks of Stein divergences on
// one worker at the texture (d = 5), person re-identification (d = 17) and
// face (d = 43) descriptor sizes, the matrices in cache.
func BenchmarkSteinBlockSmall(b *testing.B) {
	for _, d := range []int{5, 17, 43} {
		b.Run(fmt.Sprintf("d=%d", d), func(b *testing.B) {
			s, _ := randSet(b, 51, 384, d)
			benchSteinBlock(b, s, 64, 320)
		})
	}
}

// BenchmarkSteinSymBlock measures the upper triangle of a 256-item
// symmetric block at d = 17 on one worker.
func BenchmarkSteinSymBlock(b *testing.B) {
	s, _ := randSet(b, 52, 256, 17)
	for b.Loop() {
		if _, err := SteinSymBlock(context.Background(), s, seq(256), &GramOptions{Workers: 1}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/(256*255/2), "ns/entry")
}

// BenchmarkLog measures the matrix logarithm (Workspace.LogTo, one
// eigendecomposition and V diag(log λ) Vᵀ), as the log-Euclidean metric,
// logE-SR and the tangent space compute it for every item.
func BenchmarkLog(b *testing.B) {
	for _, d := range []int{5, 17, 43} {
		b.Run(fmt.Sprintf("d=%d", d), func(b *testing.B) {
			_, ms := randSet(b, 35, 1, d)
			w := NewWorkspace(d)
			dst := mat.NewSymDense(d, nil)
			for b.Loop() {
				if err := w.LogTo(dst, ms[0]); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
