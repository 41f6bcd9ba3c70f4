//go:build !amd64 || purego

package spd

// haveFMA is false without the amd64 assembly kernels: the plain loops
// are used.
const haveFMA = false

// dot2AVX is dot2Go where there is no assembly; it is never called.
func dot2AVX(a *float64, stride, m, n int, x0, x1, t0, t1 *float64, tri bool) {
	panic("spd: dot2AVX without amd64 assembly")
}

// tridiagPairsAVX is never called without the amd64 assembly.
func tridiagPairsAVX(a *float64, n, m int, v, w, nv, q *float64) (qv float64) {
	panic("spd: tridiagPairsAVX without amd64 assembly")
}
