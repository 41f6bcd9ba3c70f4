package spd

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"
	"gonum.org/v1/gonum/mat"
)

// potrfLogDet is the reference for cholLower: log det X from
// lapack64.Potrf, with pivotsOK's SPD-enough test.
func potrfLogDet(x mat.Symmetric) (float64, bool) {
	d := x.SymmetricDim()
	u := make([]float64, d*d)
	loadUpperTo(u, d, x)
	if _, ok := lapack64.Potrf(blas64.Symmetric{N: d, Stride: d, Data: u, Uplo: blas.Upper}); !ok {
		return 0, false
	}
	if !pivotsOK(u, d) {
		return 0, false
	}
	var ld float64
	for i := range d {
		ld += 2 * math.Log(u[i*d+i])
	}
	return ld, true
}

// randScales returns the diagonal of D = diag(10^±150), signs at random.
func randScales(r *rand.Rand, d int) []float64 {
	s := make([]float64, d)
	for i := range s {
		s[i] = 1e150
		if r.IntN(2) == 0 {
			s[i] = 1e-150
		}
	}
	return s
}

// scaled returns D X D for D = diag(s): with randScales, entries from
// 1e-300 to 1e300.
func scaled(s []float64, x mat.Symmetric) *mat.SymDense {
	d := x.SymmetricDim()
	out := mat.NewSymDense(d, nil)
	for i := range d {
		for j := i; j < d; j++ {
			out.SetSym(i, j, s[i]*x.At(i, j)*s[j])
		}
	}
	return out
}

// condSpread is the randSPD spread of condition number 1e10.
var condSpread = 0.5 * math.Log(1e10)

// matrixKinds are the kinds of test matrix that randOfKind draws.
var matrixKinds = []string{"random", "cond 1e10", "scaled 1e±150"}

// randOfKind returns a random d×d SPD matrix of a kind of matrixKinds:
// eigenvalues log-uniform in [e^-3, e^3], condition number 1e10, or such a
// matrix scaled to D X D with D = diag(10^±150) (randScales).
func randOfKind(r *rand.Rand, d int, kind string) *mat.SymDense {
	switch kind {
	case "random":
		return randSPD(r, d, 3)
	case "cond 1e10":
		return randSPD(r, d, condSpread)
	}
	return scaled(randScales(r, d), randSPD(r, d, 3))
}

// TestCholLowerMatchesPotrf checks the log-determinants of cholLogDet and
// steinEntry (cholLower) against lapack64.Potrf's to 1e-12 relative for
// random and badly scaled matrices (to their conditioning for condition
// 1e10), and that cholLogDet leaves L = Uᵀ in the lower triangle, for
// every d in 1..50.
func TestCholLowerMatchesPotrf(t *testing.T) {
	r := newRand(101)
	for d := 1; d <= 50; d++ {
		for _, kind := range matrixKinds {
			for trial := range 3 {
				name := fmt.Sprintf("d=%d %s #%d", d, kind, trial)
				x, y := randOfKind(r, d, kind), randOfKind(r, d, kind)
				want, ok := potrfLogDet(x)
				if !ok {
					t.Fatalf("%s: Potrf refuses X", name)
				}
				u := make([]float64, d*d)
				loadUpperTo(u, d, x)
				got, ok := cholLogDet(u, d)
				if !ok {
					t.Fatalf("%s: cholLogDet refuses X", name)
				}
				// For condition κ = 1e10 the log-determinant of the stored
				// X is itself determined only to about d·ε·κ: any two
				// summation orders (Potrf against the former plain loops,
				// too) differ by up to ~1e-7.
				tol := 1e-12
				if kind == "cond 1e10" {
					tol = float64(d) * 0x1p-52 * 1e10
				}
				assertRel(t, name+": log det X", got, want, tol)
				// The factor: U in the upper triangle, L = Uᵀ in the lower.
				for i := range d {
					for j := i + 1; j < d; j++ {
						if u[i*d+j] != u[j*d+i] {
							t.Fatalf("%s: U[%d][%d] = %v, L[%d][%d] = %v", name, i, j, u[i*d+j], j, i, u[j*d+i])
						}
					}
				}
				// (X+Y)/2, as steinEntry factorises it.
				var m mat.SymDense
				m.AddSym(x, y)
				m.ScaleSym(0.5, &m)
				want, ok = potrfLogDet(&m)
				if !ok {
					t.Fatalf("%s: Potrf refuses (X+Y)/2", name)
				}
				xs, ys := make([]float64, d*d), make([]float64, d*d)
				loadFull(xs, d, x)
				loadFull(ys, d, y)
				got, ok = cholLower(make([]float64, d*d), xs, ys, d)
				if !ok {
					t.Fatalf("%s: cholLower refuses (X+Y)/2", name)
				}
				assertRel(t, name+": log det (X+Y)/2", got, want, tol)
			}
		}
	}
}

// TestCholLowerDecision checks the SPD-enough decisions of cholLogDet and
// steinEntry against Potrf with pivotsOK on X = UᵀU − η e_j e_jᵀ for a
// well-conditioned unit upper triangular U whose pivot j is set so that
// X's pivot is f·δ·X_jj, δ the test's threshold: for f = 1e4 it is
// accepted; for f = −1e-3 (η > 0, U_jj = 0) refused. Nearer to the
// threshold the round-off of forming and factorising X, of order ε·X_jj =
// δ·X_jj/d, decides.
func TestCholLowerDecision(t *testing.T) {
	r := newRand(102)
	for d := 2; d <= 50; d++ {
		for _, f := range []float64{-1e-3, 1e4} {
			j := 1 + r.IntN(d-1)
			u := mat.NewTriDense(d, mat.Upper, nil)
			for a := range d {
				u.SetTri(a, a, 1)
				for b := a + 1; b < d; b++ {
					u.SetTri(a, b, 0.3*r.NormFloat64()/math.Sqrt(float64(d)))
				}
			}
			var above float64 // Σ_{k<j} U_kj²
			for k := range j {
				above += u.At(k, j) * u.At(k, j)
			}
			var eta float64
			if f > 0 { // U_jj² = fδ·(above + U_jj²)
				fd := f * pivotTol(d)
				u.SetTri(j, j, math.Sqrt(fd*above/(1-fd)))
			} else {
				u.SetTri(j, j, 0)
				eta = -f * above
			}
			x := mat.NewSymDense(d, nil)
			x.SymOuterK(1, u.T())
			x.SetSym(j, j, x.At(j, j)-eta)
			want := f > 0
			_, okRef := potrfLogDet(x)
			buf := make([]float64, d*d)
			loadUpperTo(buf, d, x)
			_, okChol := cholLogDet(buf, d)
			xs := make([]float64, d*d)
			loadFull(xs, d, x)
			_, okStein := steinEntry(buf, xs, xs, d, 0, 0)
			_, okGo := cholLowerGo(buf, xs, nil, d) // the plain path too
			if okChol != want || okRef != want || okStein != want || okGo != want {
				t.Errorf("d=%d, pivot %d at %g·δ·X_jj: cholLogDet %v, steinEntry %v, cholLowerGo %v, Potrf+pivotsOK %v, want %v", d, j, f, okChol, okStein, okGo, okRef, want)
			}
		}
	}
}

// refAIRM is the reference for fastEigen: the generalised eigenvalues of
// the congruence U⁻ᵀYU⁻¹ by two full triangular solves and
// lapack64.Syev (whitenedEigen's general route).
func refAIRM(t *testing.T, x, y mat.Symmetric) (airm, thompson float64) {
	t.Helper()
	d := x.SymmetricDim()
	w := NewWorkspace(d)
	u := make([]float64, d*d)
	loadUpperTo(u, d, x)
	if _, ok := cholLogDet(u, d); !ok {
		t.Fatal("reference: X not SPD enough")
	}
	w.logShift = 0
	if err := w.whiten(u, y, 0, 0); err != nil {
		t.Fatalf("reference: %v", err)
	}
	return w.sumLog2(), math.Max(math.Abs(w.genLog(w.vals[0])), math.Abs(w.genLog(w.vals[d-1])))
}

// eigenSymAIRM is an independent reference: the eigenvalues of
// X^{−1/2} Y X^{−1/2} by mat.EigenSym.
func eigenSymAIRM(x, y mat.Symmetric) float64 {
	xis := eigenFn(x, func(l float64) float64 { return 1 / math.Sqrt(l) })
	var e mat.EigenSym
	if !e.Factorize(congruence(xis, y), false) {
		panic("EigenSym failed")
	}
	var s float64
	for _, l := range e.Values(nil) {
		s += math.Log(l) * math.Log(l)
	}
	return math.Sqrt(s)
}

// TestFastAIRMMatchesReference checks Workspace.AIRM, Anchor.AIRM and
// Workspace.Thompson, which take fastEigen's route, against refAIRM for
// every d in 1..50, with the invariance d(AXAᵀ, AYAᵀ) = d(X, Y) and
// d(X, X) = 0 exactly:
//
//   - random pairs, to 1e-10 relative, and the reference against
//     mat.EigenSym's route;
//   - badly scaled (D X D, D Y D for D = diag(10^±150)) and graded pairs
//     of condition 1e10 (D = diag(1..1e5)), whose distance is that of X
//     and Y, to 1e-10;
//   - pairs with X or Y of condition κ = 1e10 in a random basis, whose
//     generalised eigenvalues the stored entries determine only to about
//     d·ε·κ (the reference and mat.EigenSym differ by up to ~1e-8), to
//     that.
func TestFastAIRMMatchesReference(t *testing.T) {
	r := newRand(103)
	for d := 1; d <= 50; d++ {
		w := NewWorkspace(d)
		graded := make([]float64, d)
		for i := range graded {
			graded[i] = math.Pow(1e5, float64(i)/math.Max(1, float64(d-1)))
		}
		for _, kind := range []string{"random", "scaled 1e±150", "graded 1e10", "X cond 1e10", "Y cond 1e10"} {
			name := fmt.Sprintf("d=%d %s", d, kind)
			x, y := randSPD(r, d, 1.5), randSPD(r, d, 1.5)
			switch kind {
			case "X cond 1e10":
				x = randSPD(r, d, condSpread)
			case "Y cond 1e10":
				y = randSPD(r, d, condSpread)
			}
			wantA, wantT := refAIRM(t, x, y)
			tol := 1e-10
			if kind == "X cond 1e10" || kind == "Y cond 1e10" {
				tol = float64(d) * 0x1p-52 * 1e10
			}
			if kind == "random" {
				assertRel(t, name+": reference against EigenSym", wantA, eigenSymAIRM(x, y), tol)
			}
			switch kind {
			case "scaled 1e±150":
				s := randScales(r, d)
				x, y = scaled(s, x), scaled(s, y)
			case "graded 1e10":
				x, y = scaled(graded, x), scaled(graded, y)
			}
			got, err := w.AIRM(x, y)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			assertRel(t, name+": AIRM", got, wantA, tol)
			th, err := w.Thompson(x, y)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			assertRel(t, name+": Thompson", th, wantT, tol)
			a, err := NewAnchor(x)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if ga, err := a.AIRM(y); err != nil || ga != got {
				t.Errorf("%s: Anchor.AIRM = %v, %v, want %v", name, ga, err, got)
			}
			if g, err := w.AIRM(x, x); err != nil || g != 0 {
				t.Errorf("%s: AIRM(X, X) = %v, %v, want 0", name, g, err)
			}
			if g, err := a.AIRM(x); err != nil || g != 0 {
				t.Errorf("%s: Anchor.AIRM(X) = %v, %v, want 0", name, g, err)
			}
			// A random A would undo the scaling of the scaled and graded
			// pairs (AXAᵀ of condition up to 1e16).
			if kind == "random" || kind == "X cond 1e10" || kind == "Y cond 1e10" {
				m := randInvertible(r, d)
				g, err := w.AIRM(congr(m, x), congr(m, y))
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				assertRel(t, name+": AIRM(AXAᵀ, AYAᵀ)", g, wantA, math.Max(tol, 1e-9))
			}
		}
	}
}

// assertRel fails when got and want differ by more than tol relative to
// |want|, or absolutely below 1.
func assertRel(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	if !(math.Abs(got-want) <= tol*math.Max(1, math.Abs(want))) {
		t.Errorf("%s = %.17g, want %.17g (relative error %.3g > %g)", what, got, want, math.Abs(got-want)/math.Max(1, math.Abs(want)), tol)
	}
}

// TestTridiagonalizeEigenvalues checks the fused Householder reduction
// against gonum's Dsyev on the same matrix: random symmetric matrices and
// ones whose reflections are partly the identity (zero rows beyond the
// subdiagonal: τ = 0 inside the fused loop), for n = 1..50, in plain Go
// and, on a CPU with AVX2 and FMA, with tridiagPairsAVX.
func TestTridiagonalizeEigenvalues(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 17))
	paths := []bool{false}
	if haveFMA {
		paths = append(paths, true)
	}
	for n := 1; n <= 50; n++ {
		for c := range 4 * len(paths) {
			kind, vec := c%4, paths[c/4]
			a := make([]float64, n*n)
			for i := range n {
				for j := i; j < n; j++ {
					v := r.Float64()*2 - 1
					switch {
					case kind == 1 && j > i: // diagonal
						v = 0
					case kind == 2 && j > i+1: // already tridiagonal
						v = 0
					case kind == 3 && (i%3 == 1 || j%4 == 2) && j > i: // decoupled rows
						v = 0
					}
					a[i*n+j] = v
					a[j*n+i] = v
				}
			}
			want := make([]float64, n)
			ref := append([]float64(nil), a...)
			work := make([]float64, 4*n*n+10)
			if !lapack64.Syev('N', blas64.Symmetric{N: n, Stride: n, Data: ref, Uplo: blas.Upper}, want, work, len(work)) {
				t.Fatal("Syev failed")
			}
			diag, off := make([]float64, n), make([]float64, n)
			scratch := make([]float64, 3*n)
			tridiag(a, n, diag, off, scratch[:n], scratch[n:2*n], vec)
			if n > 1 && !tridiagEigen(diag, off[:n-1], scratch[n:]) {
				t.Fatalf("n=%d kind %d vec %v: no convergence", n, kind, vec)
			}
			var norm float64
			for _, v := range want {
				norm = math.Max(norm, math.Abs(v))
			}
			for i := range want {
				if math.Abs(diag[i]-want[i]) > 1e-13*float64(n)*norm {
					t.Fatalf("n=%d kind %d vec %v: λ_%d = %v, Syev %v", n, kind, vec, i, diag[i], want[i])
				}
			}
		}
	}
}
