//go:build !amd64 || purego

package rsr

// addRows4 sets dst[i] += a0·r0[i] + a1·r1[i] + a2·r2[i] + a3·r3[i], adding
// the four products one after another in that order. The slices r0..r3
// must be at least as long as dst.
func addRows4(dst []float64, a [4]float64, r0, r1, r2, r3 []float64) {
	addRows4Go(dst, a, r0, r1, r2, r3)
}

// addRow sets dst[i] += a·r[i], the product rounded before the add. r must
// be at least as long as dst.
func addRow(dst []float64, a float64, r []float64) { addRowGo(dst, a, r) }
