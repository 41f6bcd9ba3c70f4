package dense

import (
	"math"
	"testing"
)

// pack8 interleaves eight n×n matrices as Tridiagonalize8 reads them.
func pack8(ms [8][]float64, n int) []float64 {
	a := make([]float64, 8*n*n)
	for p, m := range ms {
		for k, v := range m[:n*n] {
			a[k*8+p] = v
		}
	}
	return a
}

// airmGram returns G = ZᵀZ, Z = L⁻¹M for random SPD X = LLᵀ and Y = MMᵀ of
// size n with eigenvalues spread over e^±spread (cond e^2·spread), scaled
// as fastEigen scales it: the matrices Tridiagonalize meets in spd.
func airmGram(seed uint64, n int, spread float64) []float64 {
	r := newRand(seed)
	x, y := spdOf(r, n, spread), spdOf(r, n, spread)
	l, m, z, g := make([]float64, n*n), make([]float64, n*n), make([]float64, n*n), make([]float64, n*n)
	CholLower(l, x, nil, n)
	CholLower(m, y, nil, n)
	SolveLowerT(z, l, m, make([]float64, n), n)
	var zmax float64
	for _, v := range z {
		zmax = math.Max(zmax, math.Abs(v))
	}
	_, s := math.Frexp(zmax)
	for i := range z {
		z[i] = math.Ldexp(z[i], -s)
	}
	GramUpperT(g, z, n)
	return g
}

// TestTridiagonalize8BitForBit requires each lane of tridiagLanesOn, in
// its Go model (both the plain and the fused path) and in its AVX-512
// kernel, to give tridiagonalizeOn's diagonal and off-diagonal on that
// lane's matrix bit for bit, for n = 1..50, on Gram matrices of random
// SPD pairs, well and ill conditioned (cond 1e1 to 1e12), and on lanes
// with zero rows (τ = 0 reflections).
func TestTridiagonalize8BitForBit(t *testing.T) {
	for n := 1; n <= 50; n++ {
		var ms [8][]float64
		for p := range ms {
			spread := []float64{0.5, 1.5, 3, 7, 14}[p%5]
			ms[p] = airmGram(uint64(1000*n+p), n, spread)
		}
		if n > 3 { // lane 7: a matrix whose first row is zero past the diagonal
			for j := 1; j < n; j++ {
				ms[7][j], ms[7][j*n] = 0, 0
			}
		}
		paths := []struct {
			name     string
			vec, asm bool
		}{{"plain", false, false}}
		if haveFMA && n >= vecMinD {
			paths = append(paths, struct {
				name     string
				vec, asm bool
			}{"fused", true, false})
			if have512 {
				paths = append(paths, struct {
					name     string
					vec, asm bool
				}{"avx512", true, true})
			}
		}
		for _, path := range paths {
			a := pack8(ms, n)
			diag, off := make([]float64, 8*n), make([]float64, 8*n)
			tridiagLanesOn(a, n, diag, off, make([]float64, 8*n), make([]float64, 8*n), path.vec, path.asm)
			for p := range ms {
				g := append([]float64(nil), ms[p]...)
				wd, we := make([]float64, n), make([]float64, n)
				tridiagonalizeOn(g, n, wd, we, make([]float64, n), make([]float64, n), nil, path.vec)
				for i := range n {
					if math.Float64bits(diag[p*n+i]) != math.Float64bits(wd[i]) {
						t.Fatalf("n=%d %s lane %d: diag[%d] = %v, Tridiagonalize %v", n, path.name, p, i, diag[p*n+i], wd[i])
					}
					if i < n-1 && math.Float64bits(off[p*n+i]) != math.Float64bits(we[i]) {
						t.Fatalf("n=%d %s lane %d: off[%d] = %v, Tridiagonalize %v", n, path.name, p, i, off[p*n+i], we[i])
					}
				}
			}
		}
	}
}
