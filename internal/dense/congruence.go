package dense

// CongruenceW sets dst = W S Wᵀ for the symmetric row-major d×d S in s
// and the row-major d×d W in w; tmp is d×d scratch. With W = L⁻¹
// (InverseLower) it is Congruence, at twice the multiplications (W's
// zeros are multiplied too) but as matrix-vector products, two vectors at
// a time in AVX2 with FMA where the CPU has them, which on d = 43 is
// several times faster than Congruence's forward substitutions. The rows
// of Y = S Wᵀ are W s_r, and since W S Wᵀ is symmetric its row r is W
// times column r of Y.
func CongruenceW(dst, s, w, tmp []float64, d int) {
	matVecRows(tmp, w, s, d)
	for r := range d {
		for c := r + 1; c < d; c++ {
			tmp[r*d+c], tmp[c*d+r] = tmp[c*d+r], tmp[r*d+c]
		}
	}
	matVecRows(dst, w, tmp, d)
}

// matVecRows sets row r of dst to W x_r for each row x_r of the row-major
// d×d x.
func matVecRows(dst, w, x []float64, d int) {
	if !haveFMA || d < 4 {
		for r := range d {
			xr, out := x[r*d:(r+1)*d], dst[r*d:(r+1)*d]
			for i := range d {
				out[i] = Dot(w[i*d:(i+1)*d], xr)
			}
		}
		return
	}
	r := 0
	for ; r+1 < d; r += 2 {
		dot2AVX(&w[0], d, d, d, &x[r*d], &x[(r+1)*d], &dst[r*d], &dst[(r+1)*d], false)
	}
	if r < d {
		// The odd last row: its products twice, the second into the row
		// itself again.
		dot2AVX(&w[0], d, d, d, &x[r*d], &x[r*d], &dst[r*d], &dst[r*d], false)
	}
}

// InverseLower sets dst to L⁻¹ for the lower triangular L in the
// row-major d×d l (zeros above the diagonal); tmp is d×d scratch.
func InverseLower(dst, l, tmp []float64, d int) {
	InverseLowerT(tmp, l, d)
	Transpose(dst, tmp, d)
}

// Transpose sets the row-major d×d dst to the transpose of src.
func Transpose(dst, src []float64, d int) {
	for r := range d {
		for c := range d {
			dst[r*d+c] = src[c*d+r]
		}
	}
}

// InverseLowerT sets dst to (L⁻¹)ᵀ for the lower triangular L in the
// row-major d×d l: row j of dst is column j of L⁻¹, found by forward
// substitution on the unit vector e_j.
func InverseLowerT(dst, l []float64, d int) {
	for j := range d {
		e := dst[j*d : (j+1)*d]
		clear(e)
		e[j] = 1
		ForwardSolve(e, l, d)
	}
}
