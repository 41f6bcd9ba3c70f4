package dense

import "math"

// TinyMaxD is the largest d that CholTiny factorises.
const TinyMaxD = 3

// CholTiny returns log det A for A = (X+Y)/2, d <= TinyMaxD, as CholLower
// does (upper triangles of the row-major x and y, the same SPD-enough pivot
// test), but through the pivots of A = L D Lᵀ (Golub and Van Loan, §4.1)
// written out:
//
//	p0 = a00,  p1 = a11 − a01²/p0,
//	p2 = a22 − a02²/p0 − (a12 − a01·a02/p0)²/p1,
//
// with one logarithm of their product. These are CholLower's pivots
// L_jj² without its square roots, loops and tiles, which would dominate
// the cost at d <= 3. It writes nothing. Where a factorisation of X alone
// must agree with CholTiny(x, x, d) to the last bit (S(X, X) = 0 exactly),
// CholLogDet takes its log-determinant from here.
func CholTiny(x, y []float64, d int) (float64, bool) {
	tol := PivotTol(d)
	at := func(o int) float64 { return 0.5*x[o] + 0.5*y[o] }
	a00 := at(0)
	if !pivotOK(a00, a00, tol) {
		return 0, false
	}
	if d == 1 {
		return math.Log(a00), true
	}
	a01, a11 := at(1), at(d+1)
	l10 := a01 / a00
	p1 := a11 - a01*l10
	if !pivotOK(p1, a11, tol) {
		return 0, false
	}
	prod := a00 * p1
	if d == 2 {
		return logOf(prod, a00, p1, 1), true
	}
	a02, a12, a22 := at(2), at(5), at(8)
	l20 := a02 / a00
	b := a12 - a01*l20
	p2 := a22 - a02*l20 - b*(b/p1)
	if !pivotOK(p2, a22, tol) {
		return 0, false
	}
	return logOf(prod*p2, a00, p1, p2), true
}

// logOf returns log(p0·p1·p2) given their product m, taking one logarithm
// unless m overflowed or lost precision to underflow.
func logOf(m, p0, p1, p2 float64) float64 {
	if m >= 0x1p-1022 && m <= math.MaxFloat64 {
		return math.Log(m)
	}
	return math.Log(p0) + math.Log(p1) + math.Log(p2)
}
