//go:build !amd64 || purego

package spd

// chol4PairAVX is chol4PairGo where there is no assembly; it is never
// called (haveFMA is false).
func chol4PairAVX(l, x, h *float64, d, i int, c, qs *[3][4]float64) {
	panic("spd: chol4PairAVX without amd64 assembly")
}
