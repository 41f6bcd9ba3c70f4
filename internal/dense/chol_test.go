package dense

import (
	"fmt"
	"math"
	"testing"

	"gonum.org/v1/gonum/lapack/lapack64"
)

// TestCholLowerMatchesPotrf checks the log-determinants of CholLogDet on
// X and CholLower on (X+Y)/2 against lapack64.Potrf's for random and
// badly scaled matrices (to kindTol), for every d in 1..50 and on both
// sides of PlainMaxD, and that CholLogDet leaves L = Uᵀ in the lower
// triangle up to PlainMaxD.
func TestCholLowerMatchesPotrf(t *testing.T) {
	r := newRand(101)
	ds := []int{PlainMaxD, PlainMaxD + 5}
	for d := 1; d <= 50; d++ {
		ds = append(ds, d)
	}
	for _, d := range ds {
		for _, kind := range kinds {
			for trial := range 3 {
				if d > 50 && trial > 0 {
					continue
				}
				name := fmt.Sprintf("d=%d %s #%d", d, kind, trial)
				x, y := ofKind(r, d, kind), ofKind(r, d, kind)
				want, ok := potrfLogDet(x, d)
				if !ok {
					t.Fatalf("%s: Potrf refuses X", name)
				}
				u := append([]float64(nil), x...)
				got, ok := CholLogDet(u, d)
				if !ok {
					t.Fatalf("%s: CholLogDet refuses X", name)
				}
				tol := kindTol(d, kind)
				assertRel(t, name+": log det X", got, want, tol)
				for i := range d {
					for j := i + 1; j < d && d <= PlainMaxD; j++ {
						if u[i*d+j] != u[j*d+i] {
							t.Fatalf("%s: U[%d][%d] = %v, L[%d][%d] = %v", name, i, j, u[i*d+j], j, i, u[j*d+i])
						}
					}
				}
				if d > PlainMaxD {
					continue
				}
				want, ok = potrfLogDet(mean(x, y), d)
				if !ok {
					t.Fatalf("%s: Potrf refuses (X+Y)/2", name)
				}
				got, ok = CholLower(make([]float64, d*d), x, y, d)
				if !ok {
					t.Fatalf("%s: CholLower refuses (X+Y)/2", name)
				}
				assertRel(t, name+": log det (X+Y)/2", got, want, tol)
			}
		}
	}
}

// TestCholLowerDecision checks the SPD-enough decisions of CholLogDet,
// CholLower on (X+X)/2 (the Stein divergence's factorisation, CholTiny's
// for d <= TinyMaxD) and CholLower's plain path against Potrf with
// pivotsOK on X = UᵀU − η e_j e_jᵀ for a well-conditioned unit upper
// triangular U whose pivot j is set so that X's pivot is f·δ·X_jj, δ the
// test's threshold: for f = 1e4 it is accepted; for f = −1e-3 (η > 0,
// U_jj = 0) refused. Nearer to the threshold the round-off of forming and
// factorising X, of order ε·X_jj = δ·X_jj/d, decides.
func TestCholLowerDecision(t *testing.T) {
	r := newRand(102)
	for d := 2; d <= 50; d++ {
		for _, f := range []float64{-1e-3, 1e4} {
			j := 1 + r.IntN(d-1)
			u := make([]float64, d*d)
			for a := range d {
				u[a*d+a] = 1
				for b := a + 1; b < d; b++ {
					u[a*d+b] = 0.3 * r.NormFloat64() / math.Sqrt(float64(d))
				}
			}
			var above float64 // Σ_{k<j} U_kj²
			for k := range j {
				above += u[k*d+j] * u[k*d+j]
			}
			var eta float64
			if f > 0 { // U_jj² = fδ·(above + U_jj²)
				fd := f * PivotTol(d)
				u[j*d+j] = math.Sqrt(fd * above / (1 - fd))
			} else {
				u[j*d+j] = 0
				eta = -f * above
			}
			x := make([]float64, d*d) // UᵀU
			for a := range d {
				for b := a; b < d; b++ {
					var s float64
					for k := 0; k <= a; k++ {
						s += u[k*d+a] * u[k*d+b]
					}
					x[a*d+b], x[b*d+a] = s, s
				}
			}
			x[j*d+j] -= eta
			want := f > 0
			_, okRef := potrfLogDet(x, d)
			buf := append([]float64(nil), x...)
			_, okLogDet := CholLogDet(buf, d)
			okMean := false
			if d <= TinyMaxD {
				_, okMean = CholTiny(x, x, d)
			} else {
				_, okMean = CholLower(buf, x, x, d)
			}
			_, okGo := cholLowerOn(buf, x, nil, d, false)
			if okLogDet != want || okRef != want || okMean != want || okGo != want {
				t.Errorf("d=%d, pivot %d at %g·δ·X_jj: CholLogDet %v, (X+X)/2 %v, plain path %v, Potrf+pivotsOK %v, want %v", d, j, f, okLogDet, okMean, okGo, okRef, want)
			}
		}
	}
}

// TestCholLowerPaths runs both paths of cholLowerOn, plain Go and (on a
// CPU with AVX2 and FMA) assembly, on X and on (X+Y)/2, d = 1..50, for
// well and badly conditioned and badly scaled matrices: each log det must
// match Potrf's to kindTol, each factor the other's to a relative 1e-10
// of its row's norm, and both must refuse the same matrices that are not
// SPD enough.
func TestCholLowerPaths(t *testing.T) {
	r := newRand(103)
	for d := 1; d <= 50; d++ {
		for _, kind := range append(kinds, "not SPD") {
			k := kind
			if kind == "not SPD" {
				k = "random"
			}
			x, y := ofKind(r, d, k), ofKind(r, d, k)
			if kind == "not SPD" {
				j := r.IntN(d)
				x[j*d+j], y[j*d+j] = -x[j*d+j], -y[j*d+j]
			}
			for _, two := range []bool{false, true} {
				name := fmt.Sprintf("d=%d %s two=%v", d, kind, two)
				ref := x
				var yy []float64
				if two {
					ref, yy = mean(x, y), y
				}
				want, okWant := potrfLogDet(ref, d)
				tol := kindTol(d, kind)
				lg := make([]float64, d*d)
				gotGo, okGo := cholLowerOn(lg, x, yy, d, false)
				if okGo != okWant {
					t.Fatalf("%s: plain path ok = %v, Potrf %v", name, okGo, okWant)
				}
				if okGo {
					assertRel(t, name+": plain path", gotGo, want, tol)
				}
				if !haveFMA {
					continue
				}
				lv := make([]float64, d*d)
				gotVec, okVec := cholLowerOn(lv, x, yy, d, true)
				if okVec != okWant {
					t.Fatalf("%s: assembly path ok = %v, Potrf %v", name, okVec, okWant)
				}
				if !okVec {
					continue
				}
				assertRel(t, name+": assembly path", gotVec, want, tol)
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

// TestCholSmallMatchesPotrf checks CholSmall against lapack64.Potrf,
// including failure on indefinite input.
func TestCholSmallMatchesPotrf(t *testing.T) {
	r := newRand(8)
	for d := 1; d <= 30; d++ {
		for trial := range 20 {
			x := spdOf(r, d, 3)
			if trial%5 == 4 {
				x[0] = -x[0] // indefinite
			}
			a := append([]float64(nil), x...)
			b := append([]float64(nil), x...)
			okSmall := CholSmall(a, d)
			_, okLapack := lapack64.Potrf(upper(b, d))
			if okSmall != okLapack {
				t.Fatalf("d=%d: CholSmall ok=%v, Potrf ok=%v", d, okSmall, okLapack)
			}
			if !okSmall {
				continue
			}
			for i := range d {
				for j := i; j < d; j++ {
					if diff := math.Abs(a[i*d+j] - b[i*d+j]); diff > 1e-12*math.Max(1, math.Abs(b[i*d+j])) {
						t.Fatalf("d=%d: U[%d][%d] = %g, Potrf %g", d, i, j, a[i*d+j], b[i*d+j])
					}
				}
			}
		}
	}
}
