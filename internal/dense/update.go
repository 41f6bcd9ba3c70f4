package dense

import (
	"math"

	"gonum.org/v1/gonum/floats"
)

// CholSolve overwrites b with the solution of RᵀR x = b for the upper
// triangular R (row-major, stride ld, order len(b)): the triangular
// solves Rᵀy = b and Rx = y (Golub and Van Loan, §4.2). Both run along
// rows of R, which are contiguous; for one right-hand side this costs
// less than lapack64.Potrs's column-oriented calls.
func CholSolve(r []float64, ld int, b []float64) {
	m := len(b)
	for i := range m { // Rᵀ y = b
		row := r[i*ld : i*ld+m]
		b[i] /= row[i]
		if y := b[i]; y != 0 {
			floats.AddScaled(b[i+1:], -y, row[i+1:])
		}
	}
	for i := m - 1; i >= 0; i-- { // R x = y
		row := r[i*ld : i*ld+m]
		b[i] = (b[i] - floats.Dot(row[i+1:], b[i+1:])) / row[i]
	}
}

// CholDelete turns the upper Cholesky factor R (row-major, stride ld) of an
// m×m matrix A into the factor of A without row and column p, in place, in
// O((m−p)·m): deleting column p of R leaves A' = R'ᵀR' with R' upper
// Hessenberg from row p on, and Givens rotations (orthogonal, so R'ᵀR' is
// unchanged) restore the triangle (Golub and Van Loan, §6.5). The result
// occupies the leading (m−1)×(m−1) block.
func CholDelete(r []float64, ld, m, p int) {
	for i := range m {
		row := r[i*ld : i*ld+m]
		copy(row[max(p, i-1):], row[max(p, i-1)+1:])
	}
	for j := p; j < m-1; j++ {
		x, y := r[j*ld+j], r[(j+1)*ld+j]
		h := math.Hypot(x, y)
		if h == 0 {
			continue
		}
		c, s := x/h, y/h
		r[j*ld+j], r[(j+1)*ld+j] = h, 0
		for k := j + 1; k < m-1; k++ {
			x, y := r[j*ld+k], r[(j+1)*ld+k]
			r[j*ld+k] = c*x + s*y
			r[(j+1)*ld+k] = c*y - s*x
		}
	}
}

// CholAppend extends the upper Cholesky factor R (row-major, stride ld)
// of an m×m matrix A to that of the bordered matrix [A a; aᵀ α]: column m
// of R is r with Rᵀr = a, and its pivot R_mm² = α − ‖r‖². col holds a on
// entry and r on return. It reports false, leaving R unchanged, when the
// pivot is not above minPivot: the new column lies, to that tolerance, in
// the span of the others.
func CholAppend(r []float64, ld, m int, col []float64, alpha, minPivot float64) bool {
	col = col[:m]
	for p := range m {
		x := col[p]
		for q := range p {
			x -= r[q*ld+p] * col[q]
		}
		col[p] = x / r[p*ld+p]
	}
	piv := alpha - floats.Dot(col, col)
	if !(piv > minPivot) {
		return false
	}
	for p := range m {
		r[p*ld+m] = col[p]
	}
	r[m*ld+m] = math.Sqrt(piv)
	return true
}

// PivotsAbove reports whether every pivot R_ii² of the upper triangular R
// (order m, row-major with stride ld) is above floor; NaN is not.
func PivotsAbove(r []float64, ld, m int, floor float64) bool {
	for i := range m {
		if p := r[i*ld+i]; !(p*p > floor) {
			return false
		}
	}
	return true
}

// RankAtMost reports whether the positive semi-definite n×n matrix k
// (row-major) has numerical rank at most r: whether Cholesky with
// complete (diagonal) pivoting leaves, after r steps, no residual
// diagonal entry above tol (Higham, Accuracy and Stability of Numerical
// Algorithms, 2nd ed., §10.3). It costs O(n·r²) and n·r floats, against
// O(n³) for the eigenvalues.
func RankAtMost(k []float64, n, r int, tol float64) bool {
	if n <= r {
		return true
	}
	res := make([]float64, n) // the diagonal of K − L Lᵀ
	for i := range n {
		res[i] = k[i*n+i]
	}
	cols := make([]float64, n*r) // column p of L at cols[p*n:]
	for p := range r + 1 {
		piv, best := -1, tol
		for i, x := range res {
			if x > best {
				piv, best = i, x
			}
		}
		if piv < 0 {
			return true
		}
		if p == r {
			return false
		}
		col := cols[p*n : p*n+n]
		copy(col, k[piv*n:piv*n+n])
		for q := range p {
			prev := cols[q*n : q*n+n]
			floats.AddScaled(col, -prev[piv], prev)
		}
		floats.Scale(1/math.Sqrt(best), col)
		for i, x := range col {
			res[i] -= x * x
		}
		res[piv] = 0
	}
	return false
}
