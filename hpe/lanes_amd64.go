//go:build amd64 && !purego

package hpe

import "golang.org/x/sys/cpu"

// haveAVX reports whether termsAVX may be used; set once, from the CPU's
// features, and only read after.
var haveAVX = cpu.X86.HasAVX

// termsAVX is termsGo's loop in AVX, a block of four positions a vector,
// with its operations (no fused multiply-add) in its order: ell[t] for
// the blocks blocks of the layout mean, inv, lv (see lanes) and the
// patch z of kk pixels, and their largest. The largest is taken in
// another order than termsGo's, which gives the same value: the terms
// are never NaN, and the sign of a zero largest term changes neither
// e^(ℓ−best) nor best + log Σ.
//
//go:noescape
func termsAVX(ell, z, mean, inv, lv *float64, blocks, kk int) float64

// terms is termsGo, in AVX where the CPU has it.
func (l *lanes) terms(ell, z []float64) float64 {
	if !haveAVX {
		return l.termsGo(ell, z)
	}
	// The kernel reads and writes whole blocks: check what it touches.
	n := l.blocks * laneCount
	_, _, _ = z[3*l.kk-1], ell[n-1], l.lv[n-1]
	_, _ = l.mean[n*l.kk*3-1], l.inv[n*l.kk*3-1]
	return termsAVX(&ell[0], &z[0], &l.mean[0], &l.inv[0], &l.lv[0], l.blocks, l.kk)
}

// scatterAVX is scatterGo's loop in AVX, a pixel's 4-vector at a time,
// with its operations in its order, over the kk pixels of idx and ones.
//
//go:noescape
func scatterAVX(acc *float64, idx *int, ones *float64, r float64, kk int)

// scatter is scatterGo, in AVX where the CPU has it.
func scatter(acc []float64, idx []int, ones []float64, r float64) {
	if !haveAVX || len(idx) == 0 {
		scatterGo(acc, idx, ones, r)
		return
	}
	// The kernel writes acc at every idx: check them all.
	_ = ones[4*len(idx)-1]
	for _, j := range idx {
		_ = acc[accStride*j+accStride-1]
	}
	scatterAVX(&acc[0], &idx[0], &ones[0], r, len(idx))
}
