package dense

import "math"

// MaxAbsUpper returns max |z_ij| over the upper triangle (j >= i) of the
// row-major d×d matrix z, and false when an entry there is NaN or ±Inf.
// On a CPU with AVX2 the scan takes four entries a vector; a maximum is
// the same in any order.
func MaxAbsUpper(z []float64, d int) (float64, bool) {
	if d == 0 {
		return 0, true
	}
	_ = z[d*d-1]
	if haveFMA {
		m, bad := maxAbsUpperAVX(&z[0], d)
		return m, !bad
	}
	return maxAbsUpperGo(z, d)
}

// maxAbsUpperGo is MaxAbsUpper in plain loops.
func maxAbsUpperGo(z []float64, d int) (float64, bool) {
	var zmax float64
	for j := range d {
		for _, v := range z[j*d+j : j*d+d] {
			v = math.Abs(v)
			if !(v <= math.MaxFloat64) { // NaN or ±Inf
				return 0, false
			}
			if v > zmax {
				zmax = v
			}
		}
	}
	return zmax, true
}

// ScaleUpper multiplies the upper triangle (j >= i) of the row-major d×d
// matrix z by f, in AVX2 where the CPU has it.
func ScaleUpper(z []float64, d int, f float64) {
	if d == 0 {
		return
	}
	_ = z[d*d-1]
	if haveFMA {
		scaleUpperAVX(&z[0], d, f)
		return
	}
	scaleUpperGo(z, d, f)
}

// scaleUpperGo is ScaleUpper in plain loops.
func scaleUpperGo(z []float64, d int, f float64) {
	for j := range d {
		r := z[j*d+j : j*d+d]
		for i := range r {
			r[i] *= f
		}
	}
}
