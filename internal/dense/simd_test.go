package dense

import (
	"fmt"
	"math"
	"testing"
)

// TestDot2AVXMatchesGo compares the assembly kernel with the plain loop
// for lengths 0..70, row counts 0..9 (m <= n with tri), strides longer
// than the rows and starts at every offset mod 4 (unaligned), to a
// relative 1e-13 of the sum of absolute products. Entries beyond each row,
// and with tri those before its first column, are NaN: the kernel must not
// read them.
func TestDot2AVXMatchesGo(t *testing.T) {
	if !haveFMA {
		t.Skip("no AVX2/FMA")
	}
	r := newRand(7)
	for n := 0; n <= 70; n++ {
		for m := 0; m <= 9; m++ {
			for off := range 4 {
				for _, tri := range []bool{false, true} {
					if tri && m > n {
						continue
					}
					stride := n + 1 + r.IntN(5)
					a := make([]float64, off+m*stride+8)
					for i := range a {
						a[i] = math.NaN()
					}
					ref := make([]float64, len(a))
					abs := make([]float64, len(a))
					for rr := range m {
						for k := range n {
							v := r.NormFloat64()
							o := off + rr*stride + k
							ref[o], abs[o] = v, math.Abs(v)
							if !tri || k >= rr&^3 {
								a[o] = v
							}
						}
					}
					x := make([]float64, 2*n+off+1)
					for i := range x {
						x[i] = r.NormFloat64()
					}
					x0, x1 := x[off:off+n], x[off+n:off+2*n]
					got0, got1 := make([]float64, m+1), make([]float64, m+1)
					want0, want1 := make([]float64, m), make([]float64, m)
					bnd0, bnd1 := make([]float64, m), make([]float64, m)
					got0[m], got1[m] = 42, 42 // must stay
					dot2Go(ref[off:], stride, m, n, x0, x1, want0, want1, tri)
					dot2Go(abs[off:], stride, m, n, absAll(x0), absAll(x1), bnd0, bnd1, tri)
					if m > 0 {
						p0, p1 := &x[0], &x[0]
						if n > 0 {
							p0, p1 = &x0[0], &x1[0]
						}
						dot2AVX(&a[off], stride, m, n, p0, p1, &got0[0], &got1[0], tri)
					}
					name := fmt.Sprintf("n=%d m=%d off=%d tri=%v", n, m, off, tri)
					for i := range m {
						if math.Abs(got0[i]-want0[i]) > 1e-13*bnd0[i] || math.Abs(got1[i]-want1[i]) > 1e-13*bnd1[i] {
							t.Fatalf("%s row %d: got %v %v, want %v %v", name, i, got0[i], got1[i], want0[i], want1[i])
						}
					}
					if got0[m] != 42 || got1[m] != 42 {
						t.Fatalf("%s: wrote beyond m rows", name)
					}
				}
			}
		}
	}
}

func absAll(x []float64) []float64 {
	y := make([]float64, len(x))
	for i, v := range x {
		y[i] = math.Abs(v)
	}
	return y
}

// dot2Go is the plain-Go reference of dot2AVX: t0[r] = Σ_k R_rk x0[k]
// and t1[r] = Σ_k R_rk x1[k] for the m rows R_r = a[r·stride:][:n], k
// from 0, or with tri from r rounded down to a multiple of 4, to n.
func dot2Go(a []float64, stride, m, n int, x0, x1, t0, t1 []float64, tri bool) {
	x0, x1 = x0[:n], x1[:n]
	for r := range m {
		k0 := 0
		if tri {
			k0 = min(r&^3, n)
		}
		row := a[r*stride+k0 : r*stride+n]
		y0, y1 := x0[k0:], x1[k0:]
		var s0, s1 float64
		for k, v := range row {
			s0 += v * y0[k]
			s1 += v * y1[k]
		}
		t0[r], t1[r] = s0, s1
	}
}
