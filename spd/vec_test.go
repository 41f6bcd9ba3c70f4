package spd

import (
	"fmt"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestDot2AVXMatchesGo compares the assembly kernel with the plain loop
// for lengths 0..70, row counts 0..9, strides longer than the rows and
// starts at every offset mod 4 (unaligned), to a relative 1e-13 of the
// sum of absolute products. Entries beyond each row are NaN: the masked
// tail must not read them.
func TestDot2AVXMatchesGo(t *testing.T) {
	if !haveFMA {
		t.Skip("no AVX2/FMA")
	}
	r := newRand(7)
	for n := 0; n <= 70; n++ {
		for m := 0; m <= 9; m++ {
			for off := range 4 {
				stride := n + 1 + r.IntN(5)
				a := make([]float64, off+m*stride+8)
				for i := range a {
					a[i] = math.NaN()
				}
				abs := make([]float64, len(a))
				for rr := range m {
					for k := range n {
						v := r.NormFloat64()
						a[off+rr*stride+k] = v
						abs[off+rr*stride+k] = math.Abs(v)
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
				ax0, ax1 := absAll(x0), absAll(x1)
				dot2Go(a[off:], stride, m, n, x0, x1, want0, want1)
				dot2Go(abs[off:], stride, m, n, ax0, ax1, bnd0, bnd1)
				if m > 0 {
					var p0, p1 *float64
					if n > 0 {
						p0, p1 = &x0[0], &x1[0]
					} else {
						p0, p1 = &x[0], &x[0]
					}
					dot2AVX(&a[off], stride, m, n, p0, p1, &got0[0], &got1[0])
				}
				name := fmt.Sprintf("n=%d m=%d off=%d", n, m, off)
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

func absAll(x []float64) []float64 {
	y := make([]float64, len(x))
	for i, v := range x {
		y[i] = math.Abs(v)
	}
	return y
}

// TestCholLowerPaths runs both Cholesky paths, cholLowerGo and (on a CPU
// with AVX2 and FMA) cholLowerVec, on X and on (X+Y)/2, d = 1..50, for
// well and badly conditioned and badly scaled matrices: each log det must
// match Potrf's to 1e-12 (d·ε·κ at κ = 1e10), each factor the other's to
// a relative 1e-10 of its row's norm, and both must refuse the same
// matrices that are not SPD enough.
func TestCholLowerPaths(t *testing.T) {
	r := newRand(103)
	for d := 1; d <= 50; d++ {
		for _, kind := range []string{"random", "cond 1e10", "scaled 1e±150", "not SPD"} {
			var x, y *mat.SymDense
			switch kind {
			case "random", "not SPD":
				x, y = randSPD(r, d, 3), randSPD(r, d, 3)
			case "cond 1e10":
				x, y = randSPD(r, d, condSpread), randSPD(r, d, condSpread)
			default:
				s := randScales(r, d)
				x, y = scaled(s, randSPD(r, d, 3)), scaled(s, randSPD(r, d, 3))
			}
			if kind == "not SPD" {
				j := r.IntN(d)
				x.SetSym(j, j, -x.At(j, j))
				y.SetSym(j, j, -y.At(j, j))
			}
			var xs, ys, avg []float64 = make([]float64, d*d), make([]float64, d*d), make([]float64, d*d)
			loadFull(xs, d, x)
			loadFull(ys, d, y)
			m := mat.NewSymDense(d, nil)
			m.AddSym(x, y)
			m.ScaleSym(0.5, m)
			loadFull(avg, d, m)
			for _, two := range []bool{false, true} {
				name := fmt.Sprintf("d=%d %s two=%v", d, kind, two)
				ref := x
				var yy []float64
				if two {
					ref, yy = m, ys
				}
				want, okWant := potrfLogDet(ref)
				lg := make([]float64, d*d)
				gotGo, okGo := cholLowerGo(lg, xs, yy, d)
				tol := 1e-12
				if kind == "cond 1e10" {
					tol = float64(d) * 0x1p-52 * 1e10
				}
				if okGo != okWant {
					t.Fatalf("%s: cholLowerGo ok = %v, Potrf %v", name, okGo, okWant)
				}
				if okGo {
					assertRel(t, name+": cholLowerGo", gotGo, want, tol)
				}
				if !haveFMA {
					continue
				}
				lv := make([]float64, d*d)
				gotVec, okVec := cholLowerVec(lv, xs, yy, d)
				if okVec != okWant {
					t.Fatalf("%s: cholLowerVec ok = %v, Potrf %v", name, okVec, okWant)
				}
				if !okVec {
					continue
				}
				assertRel(t, name+": cholLowerVec", gotVec, want, tol)
				for i := range d {
					var nrm float64
					for k := 0; k <= i; k++ {
						nrm = math.Max(nrm, math.Abs(lg[i*d+k]))
					}
					for k := 0; k <= i; k++ {
						if e := math.Abs(lv[i*d+k] - lg[i*d+k]); e > 1e-10*nrm && kind != "cond 1e10" {
							t.Fatalf("%s: L[%d][%d] = %v, plain Go %v", name, i, k, lv[i*d+k], lg[i*d+k])
						}
					}
				}
			}
		}
	}
}
