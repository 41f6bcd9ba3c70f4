package dense

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/lapack/lapack64"
)

// TestTridiagonalizeEigenvalues checks the fused Householder reduction and
// TridiagEigen against gonum's Dsyev on the same matrix: random symmetric
// matrices and ones whose reflections are partly the identity (zero rows
// beyond the subdiagonal: τ = 0 inside the fused loop), for n = 1..50, in
// plain Go and, on a CPU with AVX2 and FMA, with tridiagPairsAVX.
func TestTridiagonalizeEigenvalues(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 17))
	paths := []bool{false}
	if haveFMA {
		paths = append(paths, true)
	}
	for n := 1; n <= 50; n++ {
		for c := range 4 * len(paths) {
			kind, vec := c%4, paths[c/4]
			a := make([]float64, n*n)
			for i := range n {
				for j := i; j < n; j++ {
					v := r.Float64()*2 - 1
					switch {
					case kind == 1 && j > i: // diagonal
						v = 0
					case kind == 2 && j > i+1: // already tridiagonal
						v = 0
					case kind == 3 && (i%3 == 1 || j%4 == 2) && j > i: // decoupled rows
						v = 0
					}
					a[i*n+j] = v
					a[j*n+i] = v
				}
			}
			want := make([]float64, n)
			ref := append([]float64(nil), a...)
			work := make([]float64, 4*n*n+10)
			if !lapack64.Syev('N', upper(ref, n), want, work, len(work)) {
				t.Fatal("Syev failed")
			}
			diag, off := make([]float64, n), make([]float64, n)
			scratch := make([]float64, 3*n)
			tridiagonalizeOn(a, n, diag, off, scratch[:n], scratch[n:2*n], nil, vec)
			if n > 1 && !TridiagEigen(diag, off[:n-1], scratch[n:]) {
				t.Fatalf("n=%d kind %d vec %v: no convergence", n, kind, vec)
			}
			var norm float64
			for _, v := range want {
				norm = math.Max(norm, math.Abs(v))
			}
			for i := range want {
				if math.Abs(diag[i]-want[i]) > 1e-13*float64(n)*norm {
					t.Fatalf("n=%d kind %d vec %v: λ_%d = %v, Syev %v", n, kind, vec, i, diag[i], want[i])
				}
			}
		}
	}
}

// TestPWKMatchesDsterf compares pwk's two-sweep iteration with gonum's
// Dsterf, with no fallback, on random symmetric tridiagonal matrices, n =
// 1..60, with entries of one scale, graded over twelve orders of magnitude
// (either way up, so that both the QL and the QR branch run) and with
// clusters of equal diagonal entries, to a relative 1e-13·n of the largest
// eigenvalue.
func TestPWKMatchesDsterf(t *testing.T) {
	r := newRand(105)
	for n := 1; n <= 60; n++ {
		for kind := range 4 {
			d, e := make([]float64, n), make([]float64, n)
			for i := range n {
				d[i] = r.Float64()*2 - 1
				e[i] = r.Float64()*2 - 1
				switch kind {
				case 1, 2: // graded, decreasing or increasing
					g := math.Pow(10, -12*float64(i)/float64(n))
					if kind == 2 {
						g = math.Pow(10, -12*float64(n-1-i)/float64(n))
					}
					d[i] = math.Abs(d[i]) * g
					e[i] *= g
				case 3: // clusters
					d[i] = float64(i / 4)
					e[i] *= 1e-3
				}
			}
			wd, we := append([]float64(nil), d...), append([]float64(nil), e...)
			if n > 1 && !gonumLapack.Dsterf(n, wd, we[:n-1]) {
				t.Fatalf("n=%d kind %d: Dsterf failed", n, kind)
			}
			if !pwk(d, e[:max(n-1, 0)]) { // not TridiagEigen: no fallback
				t.Fatalf("n=%d kind %d: pwk failed", n, kind)
			}
			slices.Sort(d)
			var norm float64
			for _, v := range wd {
				norm = math.Max(norm, math.Abs(v))
			}
			for i := range n {
				if math.Abs(d[i]-wd[i]) > 1e-13*float64(n)*norm {
					t.Fatalf("n=%d kind %d: λ_%d = %v, Dsterf %v", n, kind, i, d[i], wd[i])
				}
			}
		}
	}
}

// TestSterf checks Sterf against gonum's Dsterf, bit for bit, on
// tridiagonal matrices of norm about 1, where Dsterf does not rescale;
// and at norms 2^±300..2^±1000, where Dsterf would rescale (and panics,
// see Sterf), that Sterf's values are exactly 2^k times those at norm 1:
// power-of-two scalings are exact, so nothing else is the truth. Two
// blocks of norms 1 and 2^−600 give each block's own values, and a
// non-finite entry gives false.
func TestSterf(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 19))
	for _, n := range []int{1, 2, 3, 5, 17, 43} {
		d0, e0 := make([]float64, n), make([]float64, max(n-1, 0))
		for i := range d0 {
			d0[i] = 2*r.Float64() - 1
		}
		for i := range e0 {
			e0[i] = 2*r.Float64() - 1
		}
		want := slices.Clone(d0)
		if n > 1 && !gonumLapack.Dsterf(n, want, slices.Clone(e0)) {
			t.Fatalf("n=%d: Dsterf failed", n)
		}
		for _, k := range []int{0, 300, -300, 500, -500, 1000, -1000} {
			d, e := slices.Clone(d0), slices.Clone(e0)
			for i := range d {
				d[i] = math.Ldexp(d[i], k)
			}
			for i := range e {
				e[i] = math.Ldexp(e[i], k)
			}
			if !Sterf(d, e) {
				t.Fatalf("n=%d k=%d: Sterf failed", n, k)
			}
			for i := range d {
				if got := math.Ldexp(d[i], -k); got != want[i] {
					t.Fatalf("n=%d k=%d: value %d is 2^k·%v, want 2^k·%v (Dsterf at norm 1)", n, k, i, got, want[i])
				}
			}
		}
	}

	// diag(A, 2^−600·B) with A, B 3×3: the union of the blocks' values.
	a, b := []float64{0.5, -0.25, 0.75}, []float64{0.3, 0.9, -0.6}
	ea, eb := []float64{0.4, 0.1}, []float64{-0.2, 0.7}
	d := append(slices.Clone(a), b...)
	e := append(append(slices.Clone(ea), 0), eb...)
	for i := 3; i < 6; i++ {
		d[i] = math.Ldexp(d[i], -600)
	}
	for i := 3; i < 5; i++ {
		e[i] = math.Ldexp(e[i], -600)
	}
	if !Sterf(d, e) {
		t.Fatal("two blocks: Sterf failed")
	}
	va, vb := slices.Clone(a), slices.Clone(b)
	if !gonumLapack.Dsterf(3, va, slices.Clone(ea)) || !gonumLapack.Dsterf(3, vb, slices.Clone(eb)) {
		t.Fatal("two blocks: Dsterf failed")
	}
	for i := range vb {
		vb[i] = math.Ldexp(vb[i], -600)
	}
	want := append(va, vb...)
	slices.Sort(want)
	if !slices.Equal(d, want) {
		t.Errorf("two blocks: %v, want %v", d, want)
	}

	for _, bad := range []float64{math.NaN(), math.Inf(1)} {
		if Sterf([]float64{1, bad, 2}, []float64{0.5, 0.5}) {
			t.Errorf("diagonal entry %v: Sterf reported success", bad)
		}
	}
}
