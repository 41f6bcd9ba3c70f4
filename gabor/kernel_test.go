package gabor_test

import (
	"fmt"
	"math"
	"math/cmplx"
	"testing"

	"github.com/covpipe/covpipe/gabor"
)

func TestWavenumbersAndAngles(t *testing.T) {
	wantK := []float64{math.Sqrt2, 1, 1 / math.Sqrt2, 0.5, 1 / (2 * math.Sqrt2)}
	for v, want := range wantK {
		if got := gabor.Wavenumber(v); math.Abs(got-want) > 1e-15 {
			t.Errorf("Wavenumber(%d) = %v, want %v", v, got, want)
		}
	}
	for u := range gabor.NumOrientations {
		if got, want := gabor.Angle(u), float64(u)*math.Pi/8; math.Abs(got-want) > 1e-15 {
			t.Errorf("Angle(%d) = %v, want %v", u, got, want)
		}
	}
	if got := gabor.Sigma(4); math.Abs(got-4*math.Sqrt2*math.Pi) > 1e-12 {
		t.Errorf("Sigma(4) = %v, want 4√2π ≈ 17.77", got)
	}
	if gabor.Index(4, 7) != 39 || gabor.Index(1, 0) != 8 {
		t.Errorf("Index(4,7) = %d, Index(1,0) = %d; want 39, 8", gabor.Index(4, 7), gabor.Index(1, 0))
	}
	if gabor.Name(0, 0) != "G_v0_u0" || gabor.Name(4, 7) != "G_v4_u7" {
		t.Errorf("Name(0,0) = %q, Name(4,7) = %q", gabor.Name(0, 0), gabor.Name(4, 7))
	}
}

// TestKernelClosedForm compares kernel samples, and the support radius,
// with the paper's formula evaluated independently.
func TestKernelClosedForm(t *testing.T) {
	for _, support := range []float64{0, 3, 4} {
		b := mustBank(t, gabor.Params{Support: support})
		sup := support
		if sup == 0 {
			sup = gabor.DefaultSupport
		}
		if b.Support() != sup {
			t.Errorf("Support() = %v, want %v", b.Support(), sup)
		}
		for v := range gabor.NumScales {
			r := int(math.Ceil(sup * 2 * math.Pi * math.Sqrt(math.Pow(2, float64(v-1)))))
			if got := b.Radius(v); got != r {
				t.Errorf("support %g: Radius(%d) = %d, want %d", sup, v, got, r)
			}
			for u := range gabor.NumOrientations {
				k, err := b.Kernel(v, u)
				if err != nil {
					t.Fatal(err)
				}
				if k.Radius != r || k.Size() != 2*r+1 || len(k.Re) != k.Size()*k.Size() || len(k.Im) != len(k.Re) {
					t.Fatalf("Kernel(%d,%d): radius %d size %d len %d, want radius %d", v, u, k.Radius, k.Size(), len(k.Re), r)
				}
				peak := cmplx.Abs(psi(v, u, 0, 0))
				for _, p := range [][2]int{{0, 0}, {1, 0}, {0, 1}, {-3, 2}, {5, -7}, {r, -r}, {-r / 2, r / 3}, {r, r}} {
					got, want := k.At(p[0], p[1]), psi(v, u, float64(p[0]), float64(p[1]))
					if cmplx.Abs(got-want) > 1e-14*peak {
						t.Errorf("support %g: ψ_{u=%d,v=%d}(%d,%d) = %v, want %v", sup, u, v, p[0], p[1], got, want)
					}
				}
				if z := k.At(r+1, 0); z != 0 {
					t.Errorf("Kernel(%d,%d).At(R+1, 0) = %v, want 0 outside the support", v, u, z)
				}
			}
		}
	}
}

// TestKernelDCFree checks that each kernel's real part sums to ~0 and its
// imaginary part to 0. The infinite sampled kernel is DC-free to far below
// rounding: by Poisson summation its sum is Σ_{m≠0} ψ̂(2πm), and every alias
// lies ≥ 2π−k_0 ≈ 4.87 rad/pixel from the passband centre, where the
// spectrum is below exp(−σ_0²·4.87²/2) ≈ e^−234. So the sum of the
// truncated kernel is minus the sum outside the square |x|,|y| ≤ R, bounded
// by (1+e^−2π²)·A·(T² − T_R²) with T = Σ_x e(x) over all x and T_R over
// |x| ≤ R, e the envelope's 1-D factor, A = k²/(4π²). The bound is computed
// here; 1e-13 allows for rounding. At the default support the bound is
// below 1e-15, so the test also fails if the exp(−2π²) term is dropped
// (that alone leaves 2π·e^−2π² ≈ 1.7e-8).
func TestKernelDCFree(t *testing.T) {
	for _, support := range []float64{0, 3, 4} {
		b := mustBank(t, gabor.Params{Support: support})
		for v := range gabor.NumScales {
			k := gabor.Wavenumber(v)
			r := b.Radius(v)
			env := func(x int) float64 { return math.Exp(-k * k * float64(x*x) / (8 * math.Pi * math.Pi)) }
			var total, inside float64
			for x := -40 * r; x <= 40*r; x++ {
				total += env(x)
				if x >= -r && x <= r {
					inside += env(x)
				}
			}
			amp := k * k / (4 * math.Pi * math.Pi)
			bound := (1+math.Exp(-2*math.Pi*math.Pi))*amp*(total*total-inside*inside) + 1e-13
			var worst float64
			for u := range gabor.NumOrientations {
				ker, err := b.Kernel(v, u)
				if err != nil {
					t.Fatal(err)
				}
				var re, im float64
				for i := range ker.Re {
					re += ker.Re[i]
					im += ker.Im[i]
				}
				worst = max(worst, math.Abs(re))
				if math.Abs(re) > bound {
					t.Errorf("support %v: Σ Re ψ_{u=%d,v=%d} = %.3g, bound %.3g", support, u, v, re, bound)
				}
				if math.Abs(im) > 1e-13 {
					t.Errorf("support %v: Σ Im ψ_{u=%d,v=%d} = %.3g, want 0 (odd symmetry)", support, u, v, im)
				}
			}
			t.Logf("support %v, v=%d: R=%d, max |Σ Re ψ| = %.2g (bound %.2g), relative to peak gain 2π: %.2g", support, v, r, worst, bound, worst/(2*math.Pi))
		}
	}
}

func TestKernelErrors(t *testing.T) {
	b := mustBank(t, gabor.Params{})
	for _, c := range [][2]int{{-1, 0}, {5, 0}, {0, -1}, {0, 8}} {
		t.Run(fmt.Sprint(c), func(t *testing.T) {
			if _, err := b.Kernel(c[0], c[1]); err == nil {
				t.Errorf("Kernel(%d, %d): no error", c[0], c[1])
			}
		})
	}
	if b.Radius(-1) != -1 || b.Radius(5) != -1 {
		t.Errorf("Radius out of range = %d, %d; want -1", b.Radius(-1), b.Radius(5))
	}
}
