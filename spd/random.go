package spd

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/mat"
)

// Spectrum is the distribution of the log-eigenvalues of a set of SPD
// matrices, rank by rank: Mean[r] and Std[r] are the mean and the sample
// standard deviation of log λ_r over the set, λ_1 ≥ … ≥ λ_d each
// matrix's eigenvalues. FitSpectrum makes one; Draw draws matrices like
// the set's.
type Spectrum struct {
	Mean, Std []float64
}

// FitSpectrum returns the Spectrum of the matrices of set. It returns an
// error wrapping ErrEmpty for a nil or empty set, and one wrapping
// ErrNotSPD for an eigendecomposition that fails.
func FitSpectrum(set *Set) (Spectrum, error) {
	if set == nil || set.Len() == 0 {
		return Spectrum{}, fmt.Errorf("spd: spectrum: %w: no matrices", ErrEmpty)
	}
	n, d := set.Len(), set.Dim()
	logs := make([][]float64, d) // per rank, over the set
	var eig mat.EigenSym
	vals := make([]float64, d)
	for i := range n {
		if !eig.Factorize(set.At(i), false) {
			return Spectrum{}, fmt.Errorf("spd: spectrum: %w: eigendecomposition of matrix %d failed", ErrNotSPD, i)
		}
		eig.Values(vals)
		slices.Sort(vals)
		for r := range d {
			logs[r] = append(logs[r], math.Log(vals[d-1-r]))
		}
	}
	s := Spectrum{Mean: make([]float64, d), Std: make([]float64, d)}
	for r, l := range logs {
		var sum float64
		for _, v := range l {
			sum += v
		}
		m := sum / float64(n)
		var ss float64
		for _, v := range l {
			ss += (v - m) * (v - m)
		}
		s.Mean[r] = m
		if n > 1 {
			s.Std[r] = math.Sqrt(ss / float64(n-1))
		}
	}
	return s, nil
}

// Draw returns a random SPD matrix Q diag(exp ℓ) Qᵀ whose eigenvectors Q
// are uniform on the orthogonal group (Haar measure: RandomOrthogonal) and
// whose log-eigenvalues ℓ_r are drawn from N(Mean[r], Std[r]²) rank by
// rank, independently: a matrix with the spectrum of the fitted set but
// no preferred directions. (Where the ranks' laws overlap, the drawn
// values need not come out in rank order; with Haar eigenvectors the
// order does not matter.) It returns an error wrapping ErrEmpty for an
// empty Spectrum, ErrDimension for Mean and Std of different lengths or
// more than 46340, ErrParameter for a nil rng or a negative Std, and
// ErrNotFinite for a NaN or infinite Mean or Std, or an eigenvalue that
// overflows.
func (s Spectrum) Draw(rng *rand.Rand) (*mat.SymDense, error) {
	d := len(s.Mean)
	switch {
	case d == 0:
		return nil, fmt.Errorf("spd: draw: %w: empty spectrum", ErrEmpty)
	case len(s.Std) != d || d > maxSetDim:
		return nil, fmt.Errorf("spd: draw: %w: %d means and %d standard deviations (at most %d)", ErrDimension, d, len(s.Std), maxSetDim)
	case rng == nil:
		return nil, fmt.Errorf("spd: draw: %w: nil random source", ErrParameter)
	}
	for r := range d {
		m, sd := s.Mean[r], s.Std[r]
		if math.IsNaN(m) || math.IsInf(m, 0) || math.IsNaN(sd) || math.IsInf(sd, 0) {
			return nil, fmt.Errorf("spd: draw: %w: rank %d: mean %v, standard deviation %v", ErrNotFinite, r, m, sd)
		}
		if sd < 0 {
			return nil, fmt.Errorf("spd: draw: %w: rank %d: standard deviation %v < 0", ErrParameter, r, sd)
		}
	}
	ev := make([]float64, d) // exp ℓ
	for r := range ev {
		l := s.Mean[r] + s.Std[r]*rng.NormFloat64()
		if ev[r] = math.Exp(l); math.IsInf(ev[r], 0) || ev[r] == 0 {
			return nil, fmt.Errorf("spd: draw: %w: rank %d: eigenvalue exp(%v) out of range", ErrNotFinite, r, l)
		}
	}
	q, err := RandomOrthogonal(d, rng)
	if err != nil {
		return nil, err
	}
	out := mat.NewSymDense(d, nil)
	for i := range d {
		for j := i; j < d; j++ {
			var v float64
			for r := range d {
				v += q.At(i, r) * ev[r] * q.At(j, r)
			}
			out.SetSym(i, j, v)
		}
	}
	return out, nil
}

// RandomOrthogonal returns a d×d orthogonal matrix drawn from the Haar
// measure: the Q of the QR factorisation of a matrix of standard normal
// entries, its columns' signs fixed so that R has a positive diagonal
// (Mezzadri, "How to generate random matrices from the classical compact
// groups", Notices of the AMS 54, 2007). It returns an error wrapping
// ErrDimension for d outside [1, 46340] and ErrParameter for a nil rng.
func RandomOrthogonal(d int, rng *rand.Rand) (*mat.Dense, error) {
	if d < 1 || d > maxSetDim {
		return nil, fmt.Errorf("spd: random orthogonal matrix: %w: size %d, want 1 to %d", ErrDimension, d, maxSetDim)
	}
	if rng == nil {
		return nil, fmt.Errorf("spd: random orthogonal matrix: %w: nil random source", ErrParameter)
	}
	g := mat.NewDense(d, d, nil)
	for i := range d {
		for j := range d {
			g.Set(i, j, rng.NormFloat64())
		}
	}
	var qr mat.QR
	qr.Factorize(g)
	var q, r mat.Dense
	qr.QTo(&q)
	qr.RTo(&r)
	for j := range d {
		if r.At(j, j) < 0 {
			for i := range d {
				q.Set(i, j, -q.At(i, j))
			}
		}
	}
	return &q, nil
}

// Wishart returns a random SPD matrix (1/ν) Σ_{k=1}^{ν} g_k g_kᵀ with g_k
// independent standard normal vectors of R^d: the Wishart distribution
// W_d(I/ν, ν), of mean I, whatever the data (the unmatched random SPD
// matrix). It returns an error wrapping ErrDimension for d outside
// [1, 46340], and ErrParameter for ν < d (the matrix would be singular)
// or a nil rng.
func Wishart(d, nu int, rng *rand.Rand) (*mat.SymDense, error) {
	switch {
	case d < 1 || d > maxSetDim:
		return nil, fmt.Errorf("spd: Wishart: %w: size %d, want 1 to %d", ErrDimension, d, maxSetDim)
	case nu < d:
		return nil, fmt.Errorf("spd: Wishart: %w: %d degrees of freedom in dimension %d, want >= d", ErrParameter, nu, d)
	case rng == nil:
		return nil, fmt.Errorf("spd: Wishart: %w: nil random source", ErrParameter)
	}
	out := mat.NewSymDense(d, nil)
	g := make([]float64, d)
	for range nu {
		for i := range g {
			g[i] = rng.NormFloat64()
		}
		out.SymRankOne(out, 1/float64(nu), mat.NewVecDense(d, g))
	}
	return out, nil
}
