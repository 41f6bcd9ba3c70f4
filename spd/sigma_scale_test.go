package spd

import (
	"math"
	"testing"
)

// TestKernelUnderflow checks that exp(−x) is 0 from KernelUnderflow on
// and positive just below it, and that above MaxUsefulSigma the kernel
// values of pairs with q > 7.5·10⁻⁴ are 0 and those with q > 10⁻⁵ below
// 10⁻⁴, as MaxUsefulSigma says.
func TestKernelUnderflow(t *testing.T) {
	if v := math.Exp(-KernelUnderflow); v != 0 {
		t.Errorf("exp(−%v) = %g, want 0", KernelUnderflow, v)
	}
	if v := math.Exp(-math.Nextafter(KernelUnderflow, 0)); !(v > 0) {
		t.Errorf("exp just below KernelUnderflow = %g, want > 0", v)
	}
	for _, sigma := range []float64{math.Nextafter(MaxUsefulSigma, math.Inf(1)), 1e7, 1e308} {
		if v := math.Exp(-sigma * 7.5e-4); v != 0 {
			t.Errorf("σ = %g: exp(−σ·7.5e-4) = %g, want 0", sigma, v)
		}
		if v := math.Exp(-sigma * 1e-5); !(v < 1e-4) {
			t.Errorf("σ = %g: exp(−σ·1e-5) = %g, want < 1e-4", sigma, v)
		}
		if q := KernelUnderflow / sigma; math.Exp(-sigma*q*(1+1e-12)) != 0 {
			t.Errorf("σ = %g: exp(−σ q) > 0 just above q = %g", sigma, q)
		}
	}
}
