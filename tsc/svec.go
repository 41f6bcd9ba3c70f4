package tsc

import "math"

// Symmetric matrices as vectors: the packed upper triangles in which the
// barrier method stores M(x) and the whitened atoms, the weighted form
// whose dot products are trace inner products, and the trace and axpy
// on row-major arrays.

// pack writes the upper triangle of the row-major d×d a into dst, row by
// row, off-diagonal entries times off.
func pack(dst, a []float64, d int, off float64) {
	k := 0
	for i := range d {
		dst[k] = a[i*d+i]
		k++
		for j := i + 1; j < d; j++ {
			dst[k] = off * a[i*d+j]
			k++
		}
	}
}

// unpackVec is the inverse of pack with off = √2, filling both triangles.
func unpackVec(dst, p []float64, d int) {
	k := 0
	for i := range d {
		dst[i*d+i] = p[k]
		k++
		for j := i + 1; j < d; j++ {
			v := p[k] / math.Sqrt2
			dst[i*d+j], dst[j*d+i] = v, v
			k++
		}
	}
}

// unpack is the inverse of pack with off = 1, filling both triangles.
func unpack(dst, p []float64, d int) {
	k := 0
	for i := range d {
		for j := i; j < d; j++ {
			dst[i*d+j], dst[j*d+i] = p[k], p[k]
			k++
		}
	}
}

func trace(a []float64, d int) float64 {
	var s float64
	for i := range d {
		s += a[i*d+i]
	}
	return s
}

// axpy sets y += a·x.
func axpy(a float64, x, y []float64) {
	x = x[:len(y)]
	for i, v := range x {
		y[i] += a * v
	}
}
