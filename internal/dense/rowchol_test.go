package dense

import (
	"fmt"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestCholRows checks CholRows against lapack64.Potrf (L = Uᵀ to 1e-12 of
// its row's norm, zeros above the diagonal, log det by LogDetRows to
// kindTol), its refusal of indefinite and NaN input, and the solves built
// on it: L·Congruence(S)·Lᵀ = S, A·InverseFromLower = I and Sandwich
// against gonum's products.
func TestCholRows(t *testing.T) {
	r := newRand(41)
	for d := 1; d <= 30; d++ {
		for _, kind := range kinds {
			name := fmt.Sprintf("d=%d %s", d, kind)
			a := ofKind(r, d, kind)
			l := append([]float64(nil), a...)
			if !CholRows(l, d) {
				t.Fatalf("%s: refused", name)
			}
			u := append([]float64(nil), a...)
			if !CholUpper(u, d) {
				t.Fatalf("%s: Potrf refused", name)
			}
			for i := range d {
				var nrm float64
				for k := 0; k <= i; k++ {
					nrm = math.Max(nrm, math.Abs(u[k*d+i]))
				}
				for k := range d {
					if k > i && l[i*d+k] != 0 {
						t.Fatalf("%s: L[%d][%d] = %v above the diagonal", name, i, k, l[i*d+k])
					}
					if k <= i && math.Abs(l[i*d+k]-u[k*d+i]) > 1e-12*nrm && kind != "cond 1e10" {
						t.Fatalf("%s: L[%d][%d] = %v, Potrf %v", name, i, k, l[i*d+k], u[k*d+i])
					}
				}
			}
			want, _ := potrfLogDet(a, d)
			assertRel(t, name+": log det", LogDetRows(l, d), want, kindTol(d, kind))
			if kind != "random" {
				continue
			}
			s := spdOf(r, d, 1)
			c, tmp := make([]float64, d*d), make([]float64, d*d)
			Congruence(c, s, l, tmp, d)
			lm := mat.NewDense(d, d, l)
			var back mat.Dense
			back.Product(lm, mat.NewDense(d, d, c), lm.T())
			inv := make([]float64, d*d)
			InverseFromLower(inv, l, tmp, d)
			var id mat.Dense
			id.Mul(mat.NewDense(d, d, a), mat.NewDense(d, d, inv))
			sw := make([]float64, d*d)
			Sandwich(sw, s, a, tmp, d)
			var swRef mat.Dense
			swRef.Product(mat.NewDense(d, d, s), mat.NewDense(d, d, a), mat.NewDense(d, d, s))
			for i := range d {
				for j := range d {
					if e := math.Abs(back.At(i, j) - s[i*d+j]); e > 1e-10 {
						t.Fatalf("%s: (L·Congruence·Lᵀ)[%d][%d] = %v, want %v", name, i, j, back.At(i, j), s[i*d+j])
					}
					want := 0.0
					if i == j {
						want = 1
					}
					if e := math.Abs(id.At(i, j) - want); e > 1e-9 {
						t.Fatalf("%s: (A·A⁻¹)[%d][%d] = %v", name, i, j, id.At(i, j))
					}
					if e := math.Abs(sw[i*d+j] - swRef.At(i, j)); e > 1e-10*math.Max(1, math.Abs(swRef.At(i, j))) {
						t.Fatalf("%s: Sandwich[%d][%d] = %v, want %v", name, i, j, sw[i*d+j], swRef.At(i, j))
					}
				}
			}
		}
		for _, bad := range []float64{-1, math.NaN()} {
			a := spdOf(r, d, 1)
			a[(d-1)*d+d-1] = bad
			if CholRows(a, d) {
				t.Errorf("d=%d: CholRows accepts a last diagonal entry %v", d, bad)
			}
		}
	}
}

// TestSolveSPDAndInverse checks SolveSPD's solution and InvertSPD's
// inverse against the matrix, and their refusal of an indefinite one.
func TestSolveSPDAndInverse(t *testing.T) {
	r := newRand(42)
	for _, d := range []int{1, 2, 5, 17, 40} {
		a := spdOf(r, d, 2)
		b := make([]float64, d)
		for i := range b {
			b[i] = r.NormFloat64()
		}
		x := append([]float64(nil), b...)
		if !SolveSPD(append([]float64(nil), a...), d, x) {
			t.Fatalf("d=%d: SolveSPD refused", d)
		}
		inv := append([]float64(nil), a...)
		if !InvertSPD(inv, d) {
			t.Fatalf("d=%d: InvertSPD refused", d)
		}
		for i := range d {
			if res := Dot(a[i*d:i*d+d], x) - b[i]; math.Abs(res) > 1e-10 {
				t.Fatalf("d=%d: residual %v in row %d", d, res, i)
			}
			for j := range d {
				var s float64
				for k := range d {
					s += a[i*d+k] * inv[min(k, j)*d+max(k, j)] // the inverse's upper triangle
				}
				want := 0.0
				if i == j {
					want = 1
				}
				if math.Abs(s-want) > 1e-10 {
					t.Fatalf("d=%d: (A·A⁻¹)[%d][%d] = %v", d, i, j, s)
				}
			}
		}
		a[0] = -a[0]
		if SolveSPD(a, d, x) || InvertSPD(append([]float64(nil), a...), d) {
			t.Errorf("d=%d: an indefinite matrix was accepted", d)
		}
	}
}
