//go:build amd64 && !purego

package dense

import "golang.org/x/sys/cpu"

// haveFMA reports whether the AVX2 and FMA kernels of simd_amd64.s and
// chol4_amd64.s may be used; it is set once, from the CPU's features, and
// only read after.
var haveFMA = cpu.X86.HasAVX2 && cpu.X86.HasFMA

// have512 reports whether chol8_amd64.s's AVX-512 kernel may be used
// (AVX-512 F with the operating system's support for its registers, which
// x/sys/cpu checks); set once, like haveFMA.
var have512 = haveFMA && cpu.X86.HasAVX512F

// dot2AVX sets t0[r] = Σ_{k<n} R_rk x0[k] and t1[r] = Σ_{k<n} R_rk x1[k]
// for the m rows R_r = a[r·stride : r·stride+n]: a product of an m×n
// strided matrix with two vectors, in AVX2 with FMA, four rows at a time
// (eight accumulators of four lanes, each row load shared by both
// vectors), the last n mod 4 columns by masked loads, which read nothing
// beyond a row. The lanes are summed pairwise at the end, so a sum is
// rounded differently from the plain loop's, by a few ulps.
//
// With tri, R_rk is taken as zero for k < r rounded down to a multiple of
// 4, and not read: for the rows of an upper triangular matrix with zeros
// below the diagonal (then m <= n) the sums are the same, for about half
// the work.
//
//go:noescape
func dot2AVX(a *float64, stride, m, n int, x0, x1, t0, t1 *float64, tri bool)

// tridiagPairsAVX is the loop over row pairs of one step of
// Tridiagonalize, for the m×m trailing block A₂₂ at a (row stride n):
// rows i, i+1 = 1, 2; 3, 4; ... while i+1 < m are updated,
// A₂₂ −= vwᵀ + wvᵀ, and multiplied by nv (v'), their sums added to q,
// as the plain loop does, four columns a vector. It returns the pairs'
// part of q'ᵀv'. The odd last row, if any, is left to the caller.
//
//go:noescape
func tridiagPairsAVX(a *float64, n, m int, v, w, nv, q *float64) (qv float64)

// chol4AVX is the whole of chol4Vec's factorisation of four lanes (see
// chol4Vec): 0 when it succeeded, the lanes' log-determinants left in st
// as logProd's mantissas and exponents; 1 when a pivot failed the
// SPD-enough test; 2 when a pivot is subnormal. Only called when haveFMA.
//
//go:noescape
func chol4AVX(l, x, h *float64, d int, st *chol4State) int

// chol8AVX512 is chol8Vec's factorisation of eight lanes in AVX-512 (see
// chol8_amd64.s), its results as chol4AVX's. Only called when have512.
//
//go:noescape
func chol8AVX512(l, x, h *float64, d int, st *chol8State) int

// cholRowsAVX computes cholLowerVec's rows below a column pair from
// their sums t0, t1, or with solve solveLowerTVec's columns of a pair of
// rows of Z, four a vector (see chol4_amd64.s), with the operations of
// the Go code it replaces in their order. Only called when haveFMA.
//
//go:noescape
func cholRowsAVX(l *float64, d, m int, a0, a1, b0, b1, t0, t1 *float64, c *[3]float64, solve bool)

// packHalfAVX is PackHalf4 in AVX2, four entries of a row at a time,
// the four lanes of an entry stride bytes after the previous entry's (32
// for PackHalf4, 64 for each half of PackHalf8).
//
//go:noescape
func packHalfAVX(h, y0, y1, y2, y3 *float64, d, stride int)

// rotRowsAVX applies the plane rotation of SymEigen's QL sweeps to the
// rows x and y of length n, y ← s x + c y and x ← c x − s y, four columns
// a vector, the last n mod 4 one at a time; with FMA the products are
// rounded once with their sums, not twice as in the plain loop.
//
//go:noescape
func rotRowsAVX(x, y *float64, n int, c, s float64)

// reflRowsAVX applies the reflection I − τvvᵀ from the right to the m
// rows of length n of the strided matrix at a, row ← row − τ(row·v)vᵀ,
// as accumulateQT does: each dot product four lanes wide (the lanes
// summed pairwise at the end), the last n mod 4 columns by masked loads
// and stores, which touch nothing beyond a row.
//
//go:noescape
func reflRowsAVX(a *float64, stride, m, n int, v *float64, tau float64)

// tridiagPairs8AVX512 is tridiagPairsLanesGo's vec path, eight lanes of
// AVX-512 registers (see tridiag8_amd64.s): the loop over row pairs of a
// step of Tridiagonalize8, each lane's operations tridiagPairsAVX's. It
// adds the pairs' part of q'ᵀv' to qv. Only called when have512.
//
//go:noescape
func tridiagPairs8AVX512(a *float64, n, m int, v, w, nv, q *float64, qv *[8]float64)

// tridiagRow8AVX512 is the update of row 0 of a step's block, eight
// lanes (see tridiag8_amd64.s), each lane's operations those of
// tridiagonalizeOn's plain loop; it leaves each lane's ‖x‖² of the next
// reflection in xn. Only called when have512.
//
//go:noescape
func tridiagRow8AVX512(a *float64, m int, v, w *float64, tau, kk, xn *[8]float64)

// scale8AVX512 multiplies the m lane-interleaved entries at v by scal in
// the lanes set in mask, leaving the others untouched. Only called when
// have512.
//
//go:noescape
func scale8AVX512(v *float64, m int, scal *[8]float64, mask uint64)

// tridiagProd8AVX512 is step 0's product of Tridiagonalize8, eight lanes
// (see tridiag8_amd64.s), each lane's operations those of
// tridiagonalizeOn's plain loop. Only called when have512.
//
//go:noescape
func tridiagProd8AVX512(a *float64, n, m int, v, p *float64, qv *[8]float64)

// pwk8AVX512 runs the lanes' sweeps of st in lockstep, eight lanes of
// AVX-512 registers (see tridiageig8_amd64.s), until every active lane
// has finished its sweep, and returns those lanes. Only called when
// have512.
//
//go:noescape
func pwk8AVX512(d, e *float64, st *pwk8State) (fin uint64)

// maxAbsUpperAVX returns the largest magnitude over the upper triangle
// of the row-major d×d z and whether an entry there is NaN or ±Inf, in
// AVX2. Only called when haveFMA.
//
//go:noescape
func maxAbsUpperAVX(z *float64, d int) (m float64, bad bool)

// scaleUpperAVX multiplies the upper triangle of the row-major d×d z by
// f, in AVX2. Only called when haveFMA.
//
//go:noescape
func scaleUpperAVX(z *float64, d int, f float64)

// deflQL8AVX512 and deflQR8AVX512 are the scans of pwkQL and pwkQR for a
// negligible off-diagonal entry, eight entries a vector (see
// tridiageig8_amd64.s): the same tests, so the same m. Only called when
// have512.
//
//go:noescape
func deflQL8AVX512(d, e *float64, l, lend int) int

//go:noescape
func deflQR8AVX512(d, e *float64, l, lend int) int

// solveRows8AVX512 is the O(d³) part of SolveLowerT8 for a pair of rows
// of Z (see gram8_amd64.s). Only called when have512.
//
//go:noescape
func solveRows8AVX512(z *float64, d, i int, l0, l1, m0, m1 *float64, c *[3]float64)

// gramRows8AVX512 is GramUpperT8's pair of columns (see gram8_amd64.s).
// Only called when have512.
//
//go:noescape
func gramRows8AVX512(h, z *float64, d, b int)

// maxAbsUpper8AVX512 is MaxAbsUpper on eight lanes (see gram8_amd64.s).
// Only called when have512.
//
//go:noescape
func maxAbsUpper8AVX512(z *float64, d int, mx *[8]float64) (bad uint64)

// packLower8AVX512 packs the lanes' lower triangles for WhitenedGram8
// (see gram8_amd64.s). Only called when have512.
//
//go:noescape
func packLower8AVX512(mz *float64, m *[8]*float64, d int)
