//go:build amd64 && !purego

package roofline

import "golang.org/x/sys/cpu"

// fmaLoop runs n iterations of twelve independent four-lane fused
// multiply-adds (fmaAVX) and returns the FLOP they make, or the scalar
// loop's where the CPU has no AVX2 and FMA.
func fmaLoop(n int) float64 {
	if !cpu.X86.HasAVX2 || !cpu.X86.HasFMA {
		return scalarLoop(n)
	}
	fmaAVX(n)
	return 96 * float64(n)
}

// fmaAVX runs n iterations of twelve independent VFMADD231PD on four
// float64 lanes.
//
//go:noescape
func fmaAVX(n int)
