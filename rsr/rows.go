package rsr

import "gonum.org/v1/gonum/floats"

// addRows adds Σ_p coef[p]·K_{idx[p],:} to dst: the rows of the row-major
// n×n Gram matrix k named by idx, scaled. Four rows at a time go through
// addRows4, which reads and writes dst once for the four instead of once
// per row; each entry still receives its terms one at a time, in the order
// of idx, each product rounded before it is added, so dst is bit for bit
// what successive floats.AddScaled calls give (TestAddRowsMatchesAddScaled).
// dst may be shorter than a row: only its length is updated.
func addRows(dst, k []float64, n int, idx []int, coef []float64) {
	m := len(dst)
	p := 0
	for ; p+4 <= len(idx); p += 4 {
		i0, i1, i2, i3 := idx[p]*n, idx[p+1]*n, idx[p+2]*n, idx[p+3]*n
		addRows4(dst, [4]float64(coef[p:p+4]), k[i0:i0+m], k[i1:i1+m], k[i2:i2+m], k[i3:i3+m])
	}
	for ; p < len(idx); p++ {
		i := idx[p] * n
		floats.AddScaled(dst, coef[p], k[i:i+m])
	}
}

// addRows4Go is addRows4 in plain Go, for CPUs without AVX and for the
// purego build.
func addRows4Go(dst []float64, a [4]float64, r0, r1, r2, r3 []float64) {
	r0, r1, r2, r3 = r0[:len(dst)], r1[:len(dst)], r2[:len(dst)], r3[:len(dst)]
	for i, x := range dst {
		// The conversions round each product, as an AXPY does: Go may
		// otherwise fuse a multiply and add into one rounding.
		x += float64(a[0] * r0[i])
		x += float64(a[1] * r1[i])
		x += float64(a[2] * r2[i])
		x += float64(a[3] * r3[i])
		dst[i] = x
	}
}

// addRowGo is addRow in plain Go.
func addRowGo(dst []float64, a float64, r []float64) {
	r = r[:len(dst)]
	for i, x := range r {
		dst[i] += float64(a * x)
	}
}
