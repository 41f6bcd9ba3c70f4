package dense

import (
	"math"
	"testing"
)

// TestSolveGramPaths checks SolveLowerT's Z = L⁻¹M and GramUpperT's
// G = ZᵀZ on both paths of solveLowerTOn and gramUpperTOn (plain Go, and
// with dot2AVX on a CPU with AVX2 and FMA), d = 1..50, against plain
// forward substitution and triple-loop products to a relative 1e-12 of
// the entries' scale, and that both solves give Z = L⁻¹L = I exactly.
// Entries above the diagonals of L and M are NaN: no path may read them.
func TestSolveGramPaths(t *testing.T) {
	paths := []bool{false}
	if haveFMA {
		paths = append(paths, true)
	}
	r := newRand(104)
	for d := 1; d <= 50; d++ {
		l, m := make([]float64, d*d), make([]float64, d*d)
		for i := range d {
			for k := 0; k <= i; k++ {
				l[i*d+k] = r.NormFloat64() / math.Sqrt(float64(d))
				m[i*d+k] = r.NormFloat64()
			}
			l[i*d+i] = 1 + r.Float64()
			m[i*d+i] = 1 + r.Float64()
			for k := i + 1; k < d; k++ {
				l[i*d+k], m[i*d+k] = math.NaN(), math.NaN()
			}
		}
		// The references: Zᵀ's rows, the columns of Z, by ForwardSolve on
		// the columns of M (zero above the diagonal), and G by sums.
		zRef := make([]float64, d*d)
		col := make([]float64, d)
		for j := range d {
			for i := range d {
				col[i] = 0
				if i >= j {
					col[i] = m[i*d+j]
				}
			}
			ForwardSolve(col, l, d)
			copy(zRef[j*d:], col)
		}
		gRef := make([]float64, d*d)
		for a := range d {
			for b := a; b < d; b++ {
				gRef[a*d+b] = Dot(zRef[a*d:a*d+d], zRef[b*d:b*d+d])
			}
		}
		rl := make([]float64, d)
		for _, vec := range paths {
			z, g := make([]float64, d*d), make([]float64, d*d)
			solveLowerTOn(z, l, m, rl, d, vec)
			gramUpperTOn(g, z, d, vec)
			for _, c := range []struct {
				what      string
				got, want []float64
			}{{"Zᵀ", z, zRef}, {"G", g, gRef}} {
				var scale float64
				for a := range d {
					for b := a; b < d; b++ {
						scale = math.Max(scale, math.Abs(c.want[a*d+b]))
					}
				}
				for a := range d {
					for b := a; b < d; b++ {
						if e := math.Abs(c.got[a*d+b] - c.want[a*d+b]); !(e <= 1e-12*scale) {
							t.Fatalf("d=%d vec=%v: %s[%d][%d] = %v, want %v", d, vec, c.what, a, b, c.got[a*d+b], c.want[a*d+b])
						}
					}
				}
			}
			// Z = L⁻¹L: exactly I.
			solveLowerTOn(z, l, l, rl, d, vec)
			for a := range d {
				for b := range d {
					want := 0.0
					if a == b {
						want = 1
					}
					if z[a*d+b] != want {
						t.Fatalf("d=%d vec=%v: L⁻¹L[%d][%d] = %v", d, vec, b, a, z[a*d+b])
					}
				}
			}
		}
	}
}
