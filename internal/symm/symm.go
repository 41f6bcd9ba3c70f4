// Package symm holds helpers for symmetric matrices stored row-major in
// full, as the kernel and divergence matrices that are filled one
// triangle at a time and then read a row at a time.
package symm

// tile is the side of the square tiles Mirror works in: two 32×32 tiles
// of float64 are 16 KB, within any level-1 cache.
const tile = 32

// Mirror copies the strictly upper triangle of the n×n row-major matrix a
// (row i at a[i*stride:]) to its lower triangle, so that every row of it
// is whole. It works in square tiles: column by column over a large
// matrix, each write would touch another cache line (n = 1,000: 8 MB).
func Mirror(a []float64, n, stride int) {
	for i0 := 0; i0 < n; i0 += tile {
		for j0 := i0; j0 < n; j0 += tile {
			for i := i0; i < min(i0+tile, n); i++ {
				row := a[i*stride : i*stride+n]
				for j := max(j0, i+1); j < min(j0+tile, n); j++ {
					a[j*stride+i] = row[j]
				}
			}
		}
	}
}
