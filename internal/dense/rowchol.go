package dense

import "math"

// CholRows factorises the symmetric matrix held in the lower triangle of
// the row-major d×d a in place, a = L with A = LLᵀ, leaving L in the lower
// triangle and zeros above, and reports whether every pivot was positive
// and finite. It is the plain row (bordered) form of the Cholesky
// algorithm (Golub and Van Loan, §4.2),
//
//	L_jj = √(A_jj − Σ_{k<j} L_jk²),  L_ij = (A_ij − Σ_{k<j} L_ik L_jk) / L_jj,
//
// each sum subtracted from A term by term. It has no SPD-enough test and
// no tiles; its rounding differs from CholLower's, so the two are not
// interchangeable where results must stay bit for bit.
func CholRows(a []float64, d int) bool {
	for j := range d {
		rj := a[j*d : j*d+d]
		s := rj[j]
		for _, v := range rj[:j] {
			s -= v * v
		}
		if !(s > 0) || math.IsInf(s, 1) {
			return false
		}
		p := math.Sqrt(s)
		rj[j] = p
		inv := 1 / p
		for i := j + 1; i < d; i++ {
			ri := a[i*d : i*d+j+1]
			s := ri[j]
			for k, v := range rj[:j] {
				s -= ri[k] * v
			}
			ri[j] = s * inv
		}
		for k := j + 1; k < d; k++ {
			rj[k] = 0
		}
	}
	return true
}

// LogDetRows returns log det LLᵀ = 2 Σ log L_ii for the lower triangular
// L in the row-major d×d l, one logarithm per pivot (as CholRows leaves
// it; CholLower accumulates its own).
func LogDetRows(l []float64, d int) float64 {
	var s float64
	for i := range d {
		s += math.Log(l[i*d+i])
	}
	return 2 * s
}

// ForwardSolve overwrites v with L⁻¹v for the lower triangular L in the
// row-major d×d l, by forward substitution (Golub and Van Loan, §3.1.1):
// v_j = (v_j − Σ_{k<j} L_jk v_k) / L_jj.
func ForwardSolve(v, l []float64, d int) {
	for j := range d {
		lj := l[j*d : j*d+j+1]
		s := v[j]
		for k, w := range lj[:j] {
			s -= w * v[k]
		}
		v[j] = s / lj[j]
	}
}

// Congruence sets dst = L⁻¹ S L⁻ᵀ for the symmetric row-major d×d S and
// the lower triangular L in l: the rows of X = S L⁻ᵀ solve L xᵀ = sᵀ, and
// the rows of dst, by symmetry those of (L⁻¹X)ᵀ = Xᵀ L⁻ᵀ, solve
// L pᵀ = (column of X). tmp is d×d scratch.
func Congruence(dst, s, l, tmp []float64, d int) {
	copy(tmp, s[:d*d])
	for r := range d {
		ForwardSolve(tmp[r*d:(r+1)*d], l, d)
	}
	for r := range d {
		for k := range d {
			dst[r*d+k] = tmp[k*d+r]
		}
		ForwardSolve(dst[r*d:(r+1)*d], l, d)
	}
}

// InverseFromLower sets dst = (LLᵀ)⁻¹ = L⁻ᵀL⁻¹ for the lower triangular L
// in the row-major d×d l, both triangles of dst: entry (a, b) is the dot
// product of columns a and b of L⁻¹. tmp is d×d scratch.
func InverseFromLower(dst, l, tmp []float64, d int) {
	// Rows of tmp: the columns of L⁻¹.
	for j := range d {
		e := tmp[j*d : (j+1)*d]
		for k := range e {
			e[k] = 0
		}
		e[j] = 1
		ForwardSolve(e, l, d)
	}
	for a := range d {
		ca := tmp[a*d : (a+1)*d]
		for b := a; b < d; b++ {
			v := Dot(ca, tmp[b*d:(b+1)*d])
			dst[a*d+b], dst[b*d+a] = v, v
		}
	}
}

// Sandwich sets dst = A B A for the symmetric row-major d×d A and B,
// both triangles; tmp is d×d scratch. The products are plain sums in
// index order.
func Sandwich(dst, a, b, tmp []float64, d int) {
	for i := range d {
		for j := range d {
			var s float64
			for k := range d {
				s += a[i*d+k] * b[k*d+j]
			}
			tmp[i*d+j] = s
		}
	}
	for i := range d {
		for j := i; j < d; j++ {
			var s float64
			for k := range d {
				s += tmp[i*d+k] * a[k*d+j]
			}
			dst[i*d+j], dst[j*d+i] = s, s
		}
	}
}

// Dot returns Σ_i a_i b_i, summed in index order (unlike floats.Dot,
// whose assembly sums in several lanes). b must be at least as long as a.
func Dot(a, b []float64) float64 {
	b = b[:len(a)]
	var s float64
	for i, v := range a {
		s += v * b[i]
	}
	return s
}
