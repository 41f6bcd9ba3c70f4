package rsr

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/covpipe/covpipe/spd"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack"
	"gonum.org/v1/gonum/lapack/lapack64"
)

// TestSpectralNormExact checks the atom update's spectral norm against
// LAPACK's eigenvalue of the unscaled matrix, bit for bit, on normally
// scaled SPD matrices of sizes on both sides of Dsytrd's blocking, and
// that scaling the matrix by 2^k scales the norm by exactly 2^k, down to
// magnitudes where LAPACK's own rescaling panics.
func TestSpectralNormExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, d := range []int{1, 2, 3, 5, 17, 40} {
		ws := newAtomWork(d, 1)
		for range 20 {
			m := randomSPDUpper(rng, d)
			want := directNorm(t, m, d)
			got, ok := ws.spectralNorm(m)
			if !ok || got != want {
				t.Fatalf("d = %d: spectralNorm = %v, %v; LAPACK on the unscaled matrix: %v", d, got, ok, want)
			}
			for _, k := range []int{-1000, -430, 7, 430} {
				s := make([]float64, len(m))
				for i, v := range m {
					s[i] = math.Ldexp(v, k)
				}
				got, ok := ws.spectralNorm(s)
				if !ok || got != math.Ldexp(want, k) {
					t.Fatalf("d = %d, scale 2^%d: spectralNorm = %v, %v, want %v", d, k, got, ok, math.Ldexp(want, k))
				}
			}
		}
	}
}

// TestUpdateAtomTinyAndHugeScales checks the atom update on descriptors
// of magnitude 1e-130 to 1e-300 and 1e130, where LAPACK's rescaling of
// an unscaled spectral norm panics: the update is homogeneous of
// degree one in the data (the Stein kernel is invariant to scaling both
// arguments), so it must be the normally scaled update times the scale
// with KeepScale, and the same unit-norm atom without.
func TestUpdateAtomTinyAndHugeScales(t *testing.T) {
	for _, keep := range []bool{true, false} {
		ref := smallLearner(t, 3, 9, 4, 3, keep)
		d, dd := ref.d, ref.d*ref.d
		ws := newAtomWork(d, ref.n)
		want := make([][]float64, ref.n)
		guards := make([]guard, ref.n)
		for r := range ref.n {
			want[r] = make([]float64, dd)
			guards[r] = ref.updateAtom(want[r], r, ws)
		}
		for _, c := range []float64{1e-130, 1e-200, 1e-300, 1e130} {
			l := smallLearner(t, 3, 9, 4, 3, keep)
			l.train = scaledSet(t, l.train, c)
			l.atoms = scaledSet(t, l.atoms, c)
			if err := l.kernels(context.Background()); err != nil {
				t.Fatalf("scale %g: %v", c, err)
			}
			got := make([]float64, dd)
			for r := range l.n {
				g := l.updateAtom(got, r, ws)
				if g != guards[r] {
					t.Fatalf("keep %v, scale %g, atom %d: guard %d, want %d as at scale 1", keep, c, r, g, guards[r])
				}
				if g != updated {
					continue
				}
				f := c
				if !keep {
					f = 1
				}
				for i, w := range want[r] {
					if math.Abs(got[i]-f*w) > 1e-9*f*math.Abs(want[r][0]) {
						t.Fatalf("keep %v, scale %g, atom %d: entry %d = %g, want %g", keep, c, r, i, got[i], f*w)
					}
				}
			}
		}
	}
}

// randomSPDUpper returns a random d×d SPD matrix AAᵀ/d + I/10, row-major
// with both triangles.
func randomSPDUpper(rng *rand.Rand, d int) []float64 {
	a := make([]float64, d*d)
	for i := range a {
		a[i] = rng.NormFloat64()
	}
	m := make([]float64, d*d)
	for i := range d {
		for j := range d {
			var s float64
			for k := range d {
				s += a[i*d+k] * a[j*d+k]
			}
			m[i*d+j] = s / float64(d)
		}
		m[i*d+i] += 0.1
	}
	return m
}

// directNorm is the largest eigenvalue of m by LAPACK on an unscaled copy.
func directNorm(t *testing.T, m []float64, d int) float64 {
	t.Helper()
	a := append([]float64(nil), m...)
	vals := make([]float64, d)
	s := blas64.Symmetric{Uplo: blas.Upper, N: d, Stride: d, Data: a}
	var q [1]float64
	lapack64.Syev(lapack.EVNone, s, vals, q[:], -1)
	work := make([]float64, int(q[0]))
	if !lapack64.Syev(lapack.EVNone, s, vals, work, len(work)) {
		t.Fatal("Syev did not converge")
	}
	return vals[d-1]
}

// scaledSet returns the matrices of s times c.
func scaledSet(t *testing.T, s *spd.Set, c float64) *spd.Set {
	t.Helper()
	data := append([]float64(nil), s.Data()...)
	for i := range data {
		data[i] *= c
	}
	out, err := spd.NewSetFromData(s.Dim(), data)
	if err != nil {
		t.Fatalf("scale %g: %v", c, err)
	}
	return out
}
