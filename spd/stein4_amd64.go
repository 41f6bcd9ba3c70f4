//go:build amd64 && !purego

package spd

// chol4PairAVX is chol4PairGo in AVX2 with FMA, each of the four lanes
// one lane of a vector: for the column pair i, i+1 of the lane-interleaved
// factor at l it sets qs to the next pivots' sums and computes the rows
// j >= i+2, four partial sums per dot product in eight accumulators, rows
// one at a time. Only called when haveFMA.
//
//go:noescape
func chol4PairAVX(l, x, h *float64, d, i int, c, qs *[3][4]float64)
