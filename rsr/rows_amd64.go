//go:build amd64 && !purego

package rsr

import "golang.org/x/sys/cpu"

// haveAVX reports whether addRows4AVX may be used; it is set once, from the
// CPU's features, and only read after.
var haveAVX = cpu.X86.HasAVX

// addRows4 sets dst[i] += a0·r0[i] + a1·r1[i] + a2·r2[i] + a3·r3[i], adding
// the four products one after another in that order. The slices r0..r3
// must be at least as long as dst.
func addRows4(dst []float64, a [4]float64, r0, r1, r2, r3 []float64) {
	n := len(dst)
	if !haveAVX || n == 0 {
		addRows4Go(dst, a, r0, r1, r2, r3)
		return
	}
	_, _, _, _ = r0[n-1], r1[n-1], r2[n-1], r3[n-1]
	addRows4AVX(n, &dst[0], &a, &r0[0], &r1[0], &r2[0], &r3[0])
}

// addRows4AVX is addRows4 on n > 0 entries in AVX, four entries a vector:
// a multiply and an add per row, never fused, so that each entry is
// rounded exactly as in addRows4Go.
//
//go:noescape
func addRows4AVX(n int, dst *float64, a *[4]float64, r0, r1, r2, r3 *float64)

// addRow sets dst[i] += a·r[i], the product rounded before the add, as
// floats.AddScaled does on amd64. r must be at least as long as dst.
func addRow(dst []float64, a float64, r []float64) {
	n := len(dst)
	if !haveAVX || n == 0 {
		addRowGo(dst, a, r)
		return
	}
	_ = r[n-1]
	addRowAVX(n, &dst[0], a, &r[0])
}

//go:noescape
func addRowAVX(n int, dst *float64, a float64, r *float64)
