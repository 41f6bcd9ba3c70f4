package dense

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// gramOf returns BᵀB (row-major n×n, both triangles) for a Gaussian
// rows×n matrix B, plus ridge on the diagonal: of rank min(rows, n) when
// ridge is 0.
func gramOf(seed uint64, rows, n int, ridge float64) []float64 {
	r := newRand(seed)
	b := make([]float64, rows*n)
	for k := range b {
		b[k] = r.NormFloat64()
	}
	var g mat.SymDense
	g.SymOuterK(1, mat.NewDense(rows, n, b).T())
	a := make([]float64, n*n)
	for i := range n {
		for j := range n {
			a[i*n+j] = g.At(i, j)
		}
		a[i*n+i] += ridge
	}
	return a
}

// TestCholDelete checks the Givens downdate against the reduced matrix
// (RᵀR must reproduce it: a factor is unique only up to the signs of its
// rows), and CholSolve's solutions with the downdated factor against the
// reduced matrix.
func TestCholDelete(t *testing.T) {
	r := newRand(7)
	for k, tc := range []struct{ m, p int }{{1, 0}, {2, 0}, {2, 1}, {5, 0}, {5, 2}, {5, 4}, {12, 6}} {
		a := gramOf(uint64(k), tc.m+3, tc.m, 1) // SPD, well conditioned
		ld := tc.m
		f := append([]float64(nil), a...)
		if !CholUpper(f, tc.m) {
			t.Fatalf("m=%d: factorisation failed", tc.m)
		}
		CholDelete(f, ld, tc.m, tc.p)
		m := tc.m - 1
		keep := make([]int, 0, m)
		for i := range tc.m {
			if i != tc.p {
				keep = append(keep, i)
			}
		}
		at := func(i, j int) float64 { return a[keep[i]*tc.m+keep[j]] }
		for i := range m {
			for j := range m {
				var s float64
				for k := 0; k <= min(i, j); k++ {
					s += f[k*ld+i] * f[k*ld+j]
				}
				if want := at(i, j); math.Abs(s-want) > 1e-10*math.Max(1, math.Abs(want)) {
					t.Fatalf("m=%d p=%d: (RᵀR)[%d,%d] = %v, want %v", tc.m, tc.p, i, j, s, want)
				}
			}
		}
		if m == 0 {
			continue
		}
		rhs := make([]float64, m)
		for i := range rhs {
			rhs[i] = r.NormFloat64()
		}
		x := append([]float64(nil), rhs...)
		CholSolve(f, ld, x)
		for i := range m {
			var s float64
			for j := range m {
				s += at(i, j) * x[j]
			}
			if math.Abs(s-rhs[i]) > 1e-9 {
				t.Fatalf("m=%d p=%d: residual %v in row %d", tc.m, tc.p, s-rhs[i], i)
			}
		}
	}
}

// TestCholAppend builds the factor of a Gram matrix column by column with
// CholAppend and checks RᵀR against the matrix, and that a column in the
// span of the others (a duplicate) is refused and leaves R unchanged.
func TestCholAppend(t *testing.T) {
	const n, ld = 9, 12
	a := gramOf(3, n+2, n, 0)
	r := make([]float64, ld*ld)
	col := make([]float64, ld)
	for m := range n {
		for p := range m {
			col[p] = a[p*n+m]
		}
		if !CholAppend(r, ld, m, col, a[m*n+m], 1e-8*a[m*n+m]) {
			t.Fatalf("column %d refused", m)
		}
	}
	for i := range n {
		for j := range n {
			var s float64
			for k := 0; k <= min(i, j); k++ {
				s += r[k*ld+i] * r[k*ld+j]
			}
			if want := a[i*n+j]; math.Abs(s-want) > 1e-10*math.Max(1, math.Abs(want)) {
				t.Fatalf("(RᵀR)[%d,%d] = %v, want %v", i, j, s, want)
			}
		}
	}
	before := append([]float64(nil), r...)
	for p := range n { // column 3 again
		col[p] = a[p*n+3]
	}
	if CholAppend(r, ld, n, col, a[3*n+3], 1e-8*a[3*n+3]) {
		t.Fatal("a duplicate column was accepted")
	}
	for i, v := range before {
		if r[i] != v {
			t.Fatalf("a refused column changed R[%d]", i)
		}
	}
}

// TestPivotsAbove checks the test on a diagonal factor, NaN included.
func TestPivotsAbove(t *testing.T) {
	const ld = 3
	r := []float64{2, 9, 9, 0, 3, 9, 0, 0, 1}
	for _, c := range []struct {
		floor float64
		m     int
		want  bool
	}{{0.5, 3, true}, {1, 3, false}, {1, 2, true}, {4, 2, false}, {math.NaN(), 3, false}} {
		if got := PivotsAbove(r, ld, c.m, c.floor); got != c.want {
			t.Errorf("PivotsAbove(m=%d, floor=%v) = %v, want %v", c.m, c.floor, got, c.want)
		}
	}
}

// TestRankAtMost checks the pivoted Cholesky rank test on Gram matrices
// of random Gaussian factors of known rank.
func TestRankAtMost(t *testing.T) {
	const limit = 16
	for _, rank := range []int{0, 1, 5, 15, 16, 17, 30} {
		for _, n := range []int{10, 16, 50, 120} {
			k := make([]float64, n*n)
			if rank > 0 {
				k = gramOf(uint64(rank*1000+n), rank, n, 0)
			}
			scale := 1.0
			for i := range n {
				scale = max(scale, k[i*n+i])
			}
			want := min(rank, n) <= limit
			if got := RankAtMost(k, n, limit, 1e-8*scale); got != want {
				t.Errorf("rank %d, n = %d: RankAtMost(%d) = %v, want %v", rank, n, limit, got, want)
			}
		}
	}
}
