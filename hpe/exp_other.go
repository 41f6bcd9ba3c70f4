//go:build !amd64 || purego

package hpe

import "math"

// expShifted sets dst[t] = math.Exp(src[t] − shift) for every t of src.
func expShifted(dst, src []float64, shift float64) {
	for t, v := range src {
		dst[t] = math.Exp(v - shift)
	}
}
