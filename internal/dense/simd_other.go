//go:build !amd64 || purego

package dense

// haveFMA is false without the amd64 assembly kernels: the plain loops
// are used.
const haveFMA = false

// have512 is false without the amd64 assembly kernels.
const have512 = false

// dot2AVX is never called without the amd64 assembly.
func dot2AVX(a *float64, stride, m, n int, x0, x1, t0, t1 *float64, tri bool) {
	panic("dense: dot2AVX without amd64 assembly")
}

// tridiagPairsAVX is never called without the amd64 assembly.
func tridiagPairsAVX(a *float64, n, m int, v, w, nv, q *float64) (qv float64) {
	panic("dense: tridiagPairsAVX without amd64 assembly")
}

// chol4AVX is never called without the amd64 assembly.
func chol4AVX(l, x, h *float64, d int, st *chol4State) int {
	panic("dense: chol4AVX without amd64 assembly")
}

// chol8AVX512 is never called without the amd64 assembly.
func chol8AVX512(l, x, h *float64, d int, st *chol8State) int {
	panic("dense: chol8AVX512 without amd64 assembly")
}

// cholRowsAVX is never called without the amd64 assembly.
func cholRowsAVX(l *float64, d, m int, a0, a1, b0, b1, t0, t1 *float64, c *[3]float64, solve bool) {
	panic("dense: cholRowsAVX without amd64 assembly")
}

// packHalfAVX is never called without the amd64 assembly.
func packHalfAVX(h, y0, y1, y2, y3 *float64, d, stride int) {
	panic("dense: packHalfAVX without amd64 assembly")
}

// rotRowsAVX is never called without the amd64 assembly.
func rotRowsAVX(x, y *float64, n int, c, s float64) {
	panic("dense: rotRowsAVX without amd64 assembly")
}

// reflRowsAVX is never called without the amd64 assembly.
func reflRowsAVX(a *float64, stride, m, n int, v *float64, tau float64) {
	panic("dense: reflRowsAVX without amd64 assembly")
}

func tridiagPairs8AVX512(a *float64, n, m int, v, w, nv, q *float64, qv *[8]float64) {
	panic("dense: tridiagPairs8AVX512 without amd64 assembly")
}

func tridiagRow8AVX512(a *float64, m int, v, w *float64, tau, kk, xn *[8]float64) {
	panic("dense: tridiagRow8AVX512 without amd64 assembly")
}

func scale8AVX512(v *float64, m int, scal *[8]float64, mask uint64) {
	panic("dense: scale8AVX512 without amd64 assembly")
}

func tridiagProd8AVX512(a *float64, n, m int, v, p *float64, qv *[8]float64) {
	panic("dense: tridiagProd8AVX512 without amd64 assembly")
}

func pwk8AVX512(d, e *float64, st *pwk8State) (fin uint64) {
	panic("dense: pwk8AVX512 without amd64 assembly")
}

func maxAbsUpperAVX(z *float64, d int) (m float64, bad bool) {
	panic("dense: maxAbsUpperAVX without amd64 assembly")
}

func scaleUpperAVX(z *float64, d int, f float64) {
	panic("dense: scaleUpperAVX without amd64 assembly")
}

func deflQL8AVX512(d, e *float64, l, lend int) int {
	panic("dense: deflQL8AVX512 without amd64 assembly")
}

func deflQR8AVX512(d, e *float64, l, lend int) int {
	panic("dense: deflQR8AVX512 without amd64 assembly")
}

func solveRows8AVX512(z *float64, d, i int, l0, l1, m0, m1 *float64, c *[3]float64) {
	panic("dense: solveRows8AVX512 without amd64 assembly")
}

func gramRows8AVX512(h, z *float64, d, b int) {
	panic("dense: gramRows8AVX512 without amd64 assembly")
}

func maxAbsUpper8AVX512(z *float64, d int, mx *[8]float64) (bad uint64) {
	panic("dense: maxAbsUpper8AVX512 without amd64 assembly")
}

func packLower8AVX512(mz *float64, m *[8]*float64, d int) {
	panic("dense: packLower8AVX512 without amd64 assembly")
}
