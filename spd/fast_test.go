package spd

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/covpipe/covpipe/internal/dense"
	"gonum.org/v1/gonum/mat"
)

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

// refAIRM is the reference for fastEigen: the generalised eigenvalues of
// the congruence U⁻ᵀYU⁻¹ by two full triangular solves and
// lapack64.Syev (whitenedEigen's general route).
func refAIRM(t *testing.T, x, y mat.Symmetric) (airm, thompson float64) {
	t.Helper()
	d := x.SymmetricDim()
	w := NewWorkspace(d)
	u := make([]float64, d*d)
	loadUpperTo(u, d, x)
	if _, ok := dense.CholLogDet(u, d); !ok {
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
