package spd

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestSteinBlocks checks SteinBlockTo and SteinSymBlock, on index lists
// that repeat and reorder items, against the standalone divergence
// (three Cholesky factorisations per pair, no cached log-determinants),
// for any number of workers.
func TestSteinBlocks(t *testing.T) {
	for _, d := range []int{1, 3, 17} {
		s, ms := randSet(t, 40+uint64(d), 12, d)
		w := NewWorkspace(d)
		want := func(i, j int) float64 {
			v, err := w.Stein(ms[i], ms[j])
			if err != nil {
				t.Fatal(err)
			}
			return v
		}
		rows, cols := []int{11, 0, 3, 3, 7}, []int{5, 0, 11, 2}
		for _, workers := range []int{1, 3} {
			opts := &GramOptions{Workers: workers}
			dst := mat.NewDense(len(rows), len(cols), nil)
			if err := SteinBlockTo(dst, s, rows, s, cols, opts); err != nil {
				t.Fatal(err)
			}
			for r, i := range rows {
				for c, j := range cols {
					if got, w := dst.At(r, c), want(i, j); math.Abs(got-w) > 1e-12*(1+w) {
						t.Errorf("d=%d: S[%d][%d] = %v, want %v", d, i, j, got, w)
					}
				}
			}
			sym, err := SteinSymBlock(s, rows, opts)
			if err != nil {
				t.Fatal(err)
			}
			for r, i := range rows {
				for c, j := range rows {
					if got, w := sym.At(r, c), want(i, j); math.Abs(got-w) > 1e-12*(1+w) {
						t.Errorf("d=%d: symmetric S[%d][%d] = %v, want %v", d, i, j, got, w)
					}
				}
			}
		}
	}
}

// BenchmarkSteinBlock measures a FERET-sized block of Stein divergences:
// 200 test items against 600 training items at d = 43, the
// training matrices (8.9 MB) well beyond the per-core caches, one worker.
func BenchmarkSteinBlock(b *testing.B) {
	s, _ := randSet(b, 50, 800, 43)
	rows, cols := make([]int, 200), make([]int, 600)
	for i := range rows {
		rows[i] = 600 + i
	}
	for j := range cols {
		cols[j] = j
	}
	dst := mat.NewDense(200, 600, nil)
	for b.Loop() {
		if err := SteinBlockTo(dst, s, rows, s, cols, &GramOptions{Workers: 1}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/(200*600), "ns/entry")
}
