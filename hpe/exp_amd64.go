//go:build amd64 && !purego

package hpe

import (
	"math"

	"golang.org/x/sys/cpu"
)

// haveExpLanes reports whether expAVX2 may be used: the CPU has AVX2 and
// FMA, as math.Exp's fused path needs (it runs where the CPU has AVX and
// FMA); set once, and only read after.
var haveExpLanes = cpu.X86.HasAVX2 && cpu.X86.HasFMA

// expAVX2 sets dst[t] = math.Exp(src[t] − shift) for the 4·blocks values
// of src whose difference lies in [expLow, expHigh], four at a time.
//
//go:noescape
func expAVX2(dst, src *float64, blocks int, shift float64)

// expShifted sets dst[t] = math.Exp(src[t] − shift) for every t of src,
// bit for bit, four at a time in AVX2 where the CPU has it and the
// difference lies in the range of math.Exp's normal results (the others
// are math.Exp's own). dst must be at least as long as src.
func expShifted(dst, src []float64, shift float64) {
	n := len(src)
	dst = dst[:n]
	start := 0
	if haveExpLanes && n >= 4 {
		start = n &^ 3
		expAVX2(&dst[0], &src[0], start/4, shift)
		for t, v := range src[:start] {
			if x := v - shift; !(x >= expLow && x <= expHigh) {
				dst[t] = math.Exp(x)
			}
		}
	}
	for t := start; t < n; t++ {
		dst[t] = math.Exp(src[t] - shift)
	}
}
