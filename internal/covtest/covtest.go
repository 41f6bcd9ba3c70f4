// Package covtest holds the independent truth that the tests of the
// region covariance descriptors compare against.
package covtest

import "github.com/covpipe/covpipe/covariance"

// Naive returns the unbiased covariance 1/(n−1) Σ (z−μ)(z−μ)ᵀ of the
// features (planes of width w) over region r, d×d row-major, by the
// textbook two-pass formula: each mean by a plain sum, then the centred
// products entry by entry. It shares no code with package covariance,
// whose estimators it checks; r must lie inside the planes.
func Naive(planes [][]float64, w int, r covariance.Region) []float64 {
	d := len(planes)
	n := float64(r.W * r.H)
	mu := make([]float64, d)
	for k, p := range planes {
		for y := r.Y; y < r.Y+r.H; y++ {
			for x := r.X; x < r.X+r.W; x++ {
				mu[k] += p[y*w+x]
			}
		}
		mu[k] /= n
	}
	c := make([]float64, d*d)
	for i := range d {
		for j := range d {
			var s float64
			for y := r.Y; y < r.Y+r.H; y++ {
				for x := r.X; x < r.X+r.W; x++ {
					s += (planes[i][y*w+x] - mu[i]) * (planes[j][y*w+x] - mu[j])
				}
			}
			c[i*d+j] = s / (n - 1)
		}
	}
	return c
}
