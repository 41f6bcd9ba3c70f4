package spd

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
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

// TestSolveGramPaths compares fastEigen's Z solve and G product in plain
// Go (solveLowerTGo, gramUpperTGo) and with dot2AVX (solveLowerTVec,
// gramUpperTVec), d = 1..50, to a relative 1e-12 of the entries' scale,
// and checks that both solves give Z = L⁻¹L = I exactly.
func TestSolveGramPaths(t *testing.T) {
	if !haveFMA {
		t.Skip("no AVX2/FMA")
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
			// NaN above the diagonal: neither path may read it.
			for k := i + 1; k < d; k++ {
				l[i*d+k], m[i*d+k] = math.NaN(), math.NaN()
			}
		}
		rl := make([]float64, d)
		zg, zv := make([]float64, d*d), make([]float64, d*d)
		solveLowerTGo(zg, l, m, rl, d)
		solveLowerTVec(zv, l, m, rl, d)
		gg, gv := make([]float64, d*d), make([]float64, d*d)
		gramUpperTGo(gg, zg, d)
		gramUpperTVec(gv, zv, d)
		for _, c := range []struct {
			what      string
			got, want []float64
		}{{"Zᵀ", zv, zg}, {"G", gv, gg}} {
			var scale float64
			for _, v := range c.want {
				scale = math.Max(scale, math.Abs(v))
			}
			for a := range d {
				for b := a; b < d; b++ {
					if e := math.Abs(c.got[a*d+b] - c.want[a*d+b]); !(e <= 1e-12*scale) {
						t.Fatalf("d=%d %s[%d][%d] = %v, plain Go %v", d, c.what, a, b, c.got[a*d+b], c.want[a*d+b])
					}
				}
			}
		}
		// Z = L⁻¹L: exactly I on both paths.
		solveLowerTGo(zg, l, l, rl, d)
		solveLowerTVec(zv, l, l, rl, d)
		for a := range d {
			for b := range d {
				want := 0.0
				if a == b {
					want = 1
				}
				if zg[a*d+b] != want || zv[a*d+b] != want {
					t.Fatalf("d=%d: L⁻¹L[%d][%d] = %v (Go), %v (AVX)", d, b, a, zg[a*d+b], zv[a*d+b])
				}
			}
		}
	}
}

// TestPWKMatchesDsterf compares pwk's two-sweep iteration with gonum's
// Dsterf, with no fallback, on random symmetric tridiagonal matrices, n = 1..60, with entries
// of one scale, graded over twelve orders of magnitude (either way up, so
// that both the QL and the QR branch run) and with clusters of equal
// diagonal entries, to a relative 1e-13·n of the largest eigenvalue.
func TestPWKMatchesDsterf(t *testing.T) {
	r := newRand(105)
	for n := 1; n <= 60; n++ {
		for kind := range 4 {
			d, e := make([]float64, n), make([]float64, n)
			for i := range n {
				d[i] = r.Float64()*2 - 1
				e[i] = r.Float64()*2 - 1
				switch kind {
				case 1, 2: // graded, decreasing or increasing
					g := math.Pow(10, -12*float64(i)/float64(n))
					if kind == 2 {
						g = math.Pow(10, -12*float64(n-1-i)/float64(n))
					}
					d[i] = math.Abs(d[i]) * g
					e[i] *= g
				case 3: // clusters
					d[i] = float64(i / 4)
					e[i] *= 1e-3
				}
			}
			wd, we := append([]float64(nil), d...), append([]float64(nil), e...)
			if n > 1 && !gonumLapack.Dsterf(n, wd, we[:n-1]) {
				t.Fatalf("n=%d kind %d: Dsterf failed", n, kind)
			}
			if !pwk(d, e[:max(n-1, 0)]) { // not tridiagEigen: no fallback
				t.Fatalf("n=%d kind %d: pwk failed", n, kind)
			}
			slices.Sort(d)
			var norm float64
			for _, v := range wd {
				norm = math.Max(norm, math.Abs(v))
			}
			for i := range n {
				if math.Abs(d[i]-wd[i]) > 1e-13*float64(n)*norm {
					t.Fatalf("n=%d kind %d: λ_%d = %v, Dsterf %v", n, kind, i, d[i], wd[i])
				}
			}
		}
	}
}
