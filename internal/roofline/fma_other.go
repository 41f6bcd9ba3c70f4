//go:build !amd64 || purego

package roofline

// fmaLoop runs n iterations of the scalar loop and returns its FLOP.
func fmaLoop(n int) float64 { return scalarLoop(n) }
