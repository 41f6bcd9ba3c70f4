package dense

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack"
	"gonum.org/v1/gonum/lapack/lapack64"
)

// symTestMatrix returns a symmetric n×n matrix of the given kind, full
// row-major, with entries at most about 1: random; diagonal; already
// tridiagonal; Q diag(λ) Qᵀ with λ in two repeated values (clusters);
// graded, Q diag(10^{−12j/(n−1)}) Qᵀ (condition 1e12); zero.
func symTestMatrix(r *rand.Rand, n, kind int) []float64 {
	a := make([]float64, n*n)
	set := func(i, j int, v float64) { a[i*n+j], a[j*n+i] = v, v }
	switch kind {
	case 0, 1, 2:
		for i := range n {
			for j := i; j < n; j++ {
				if kind == 1 && j > i || kind == 2 && j > i+1 {
					continue
				}
				set(i, j, 2*r.Float64()-1)
			}
		}
	case 3, 4:
		// Q from Householder reflections of random vectors.
		q := make([]float64, n*n)
		for i := range n {
			q[i*n+i] = 1
		}
		for range 3 {
			v := make([]float64, n)
			var vv float64
			for i := range v {
				v[i] = r.NormFloat64()
				vv += v[i] * v[i]
			}
			for i := range n { // q ← q (I − 2vvᵀ/vᵀv)
				var s float64
				for k := range n {
					s += q[i*n+k] * v[k]
				}
				for k := range n {
					q[i*n+k] -= 2 * s * v[k] / vv
				}
			}
		}
		lam := make([]float64, n)
		for j := range lam {
			if kind == 3 {
				lam[j] = float64(1 + j%2)
			} else if n > 1 {
				lam[j] = math.Pow(10, -12*float64(j)/float64(n-1))
			} else {
				lam[j] = 1
			}
		}
		for i := range n {
			for j := i; j < n; j++ {
				var s float64
				for k := range n {
					s += q[i*n+k] * lam[k] * q[j*n+k]
				}
				set(i, j, s)
			}
		}
	}
	return a
}

// TestSymEigen checks SymEigen against gonum's Dsyev on the same matrices
// (symTestMatrix's kinds, n = 1..50, 97, 200, 320), in plain Go and, on a CPU with AVX2
// and FMA, with the assembly kernels: the eigenvalues agree within
// 8nε‖A‖, each pair has a residual ‖Av − λv‖ within 8nε‖A‖, and the
// vectors are orthonormal within 8nε.
func TestSymEigen(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	paths := []bool{false}
	if haveFMA {
		paths = append(paths, true)
	}
	// Small sizes all, and the Gram sizes of kernel methods (RLPP's
	// whitening at a few hundred training items).
	var sizes []int
	for n := 1; n <= 50; n++ {
		sizes = append(sizes, n)
	}
	sizes = append(sizes, 97, 200, 320)
	for _, vec := range paths {
		for kind := range 6 {
			for _, n := range sizes {
				a := symTestMatrix(r, n, kind)
				var norm float64
				for _, v := range a {
					norm = math.Max(norm, math.Abs(v))
				}
				norm *= float64(n)
				tol := 8 * float64(n) * 0x1p-52 * math.Max(norm, 1e-300)
				work := make([]float64, SymEigenWork(n))
				vals, zt := make([]float64, n), make([]float64, n*n)
				buf := slices.Clone(a)
				if !symEigenOn(buf, n, vals, zt, work, vec) {
					t.Fatalf("vec=%v kind=%d n=%d: failed", vec, kind, n)
				}
				ref := slices.Clone(a)
				want := make([]float64, n)
				lw := make([]float64, 1)
				lapack64.Syev(lapack.EVNone, blas64.Symmetric{N: n, Stride: n, Data: ref, Uplo: blas.Upper}, want, lw, -1)
				lw = make([]float64, int(lw[0]))
				lapack64.Syev(lapack.EVNone, blas64.Symmetric{N: n, Stride: n, Data: ref, Uplo: blas.Upper}, want, lw, len(lw))
				got := slices.Clone(vals)
				slices.Sort(got)
				var dev, res, orth float64
				for j := range n {
					dev = math.Max(dev, math.Abs(got[j]-want[j]))
					for i := range n {
						var s float64
						for k := range n {
							s += a[i*n+k] * zt[j*n+k]
						}
						res = math.Max(res, math.Abs(s-vals[j]*zt[j*n+i]))
					}
					for k := range n {
						var s float64
						for i := range n {
							s += zt[j*n+i] * zt[k*n+i]
						}
						if j == k {
							s--
						}
						orth = math.Max(orth, math.Abs(s))
					}
				}
				if dev > tol || res > tol || orth > 8*float64(n)*0x1p-52 {
					t.Errorf("vec=%v kind=%d n=%d: eigenvalues off by %.3g, residual %.3g, orthogonality %.3g (tolerance %.3g)", vec, kind, n, dev, res, orth, tol)
				}
			}
		}
	}
}

// TestSymEigenSorted checks SymEigenSorted's layout against SymEigen on
// the same matrix, ordered by a stable sort of SymEigen's indices by
// value: vals[k] and column k of u are SymEigen's k-th pair in that
// order, bit for bit, so that ties keep SymEigen's order (the two-valued
// kind has repeated eigenvalues).
func TestSymEigenSorted(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 5))
	for _, n := range []int{1, 2, 5, 17, 43, 120} {
		for kind := range 6 {
			a := symTestMatrix(r, n, kind)
			vals, zt := make([]float64, n), make([]float64, n*n)
			if !SymEigen(slices.Clone(a), n, vals, zt, make([]float64, SymEigenWork(n))) {
				t.Fatalf("kind=%d n=%d: SymEigen failed", kind, n)
			}
			order := make([]int, n)
			for j := range order {
				order[j] = j
			}
			slices.SortStableFunc(order, func(i, j int) int { return cmp.Compare(vals[i], vals[j]) })
			sorted, u := make([]float64, n), make([]float64, n*n)
			if !SymEigenSorted(slices.Clone(a), n, sorted, u, make([]float64, n*n), make([]float64, SymEigenSortedWork(n))) {
				t.Fatalf("kind=%d n=%d: SymEigenSorted failed", kind, n)
			}
			for k, j := range order {
				if sorted[k] != vals[j] {
					t.Fatalf("kind=%d n=%d: vals[%d] = %g, want SymEigen's %d-th smallest %g", kind, n, k, sorted[k], k, vals[j])
				}
				for i := range n {
					if u[i*n+k] != zt[j*n+i] {
						t.Fatalf("kind=%d n=%d: column %d is not SymEigen's vector %d (λ = %g)", kind, n, k, j, vals[j])
					}
				}
			}
		}
	}
}

// TestAddOuter checks AddOuter against the plain triple sum
// Σ_j c_j v_j[a] v_j[b] on the upper triangle, added to what acc holds,
// in both paths; the lower triangle is left alone.
func TestAddOuter(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 12))
	for _, n := range []int{1, 2, 3, 12, 13, 17, 43} {
		vt, c, acc := make([]float64, n*n), make([]float64, n), make([]float64, n*n)
		for i := range vt {
			vt[i], acc[i] = r.NormFloat64(), r.NormFloat64()
		}
		for i := range c {
			c[i] = r.NormFloat64()
		}
		want := slices.Clone(acc)
		for a := range n {
			for b := a; b < n; b++ {
				for j := range n {
					want[a*n+b] += c[j] * vt[j*n+a] * vt[j*n+b]
				}
			}
		}
		got := slices.Clone(acc)
		AddOuter(got, vt, c, n, make([]float64, n*n), make([]float64, n*n), make([]float64, 2*n))
		for i := range got {
			if math.Abs(got[i]-want[i]) > 1e-12*float64(n) {
				t.Fatalf("n=%d: entry %d = %g, want %g", n, i, got[i], want[i])
			}
		}
	}
}

// BenchmarkSymEigen measures the eigendecomposition with vectors of a
// random symmetric matrix, SymEigen (and SymEigenSorted, dsyev's layout)
// against gonum's Dsyev: at descriptor sizes (reid's 17, FERET's 43) and
// at the Gram matrix of 320 training items (RLPP's whitening).
func BenchmarkSymEigen(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{17, 43, 320} {
		a := symTestMatrix(r, n, 0)
		buf := make([]float64, n*n)
		vals, zt, u := make([]float64, n), make([]float64, n*n), make([]float64, n*n)
		b.Run(fmt.Sprintf("SymEigen/n=%d", n), func(b *testing.B) {
			work := make([]float64, SymEigenWork(n))
			for b.Loop() {
				copy(buf, a)
				if !SymEigen(buf, n, vals, zt, work) {
					b.Fatal("failed")
				}
			}
		})
		b.Run(fmt.Sprintf("SymEigenSorted/n=%d", n), func(b *testing.B) {
			work := make([]float64, SymEigenSortedWork(n))
			for b.Loop() {
				copy(buf, a)
				if !SymEigenSorted(buf, n, vals, u, zt, work) {
					b.Fatal("failed")
				}
			}
		})
		b.Run(fmt.Sprintf("Dsyev/n=%d", n), func(b *testing.B) {
			lw := make([]float64, 1)
			lapack64.Syev(lapack.EVCompute, blas64.Symmetric{N: n, Stride: n, Data: buf, Uplo: blas.Upper}, vals, lw, -1)
			lw = make([]float64, int(lw[0]))
			for b.Loop() {
				copy(buf, a)
				lapack64.Syev(lapack.EVCompute, blas64.Symmetric{N: n, Stride: n, Data: buf, Uplo: blas.Upper}, vals, lw, len(lw))
			}
		})
	}
}
