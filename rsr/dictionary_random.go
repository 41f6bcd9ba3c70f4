package rsr

import (
	"fmt"
	"math/rand/v2"

	"github.com/covpipe/covpipe/spd"
	"gonum.org/v1/gonum/mat"
)

// RandomSPDAtoms returns n random SPD atoms like the matrices of train:
// each Q diag(exp ℓ) Qᵀ with Q a Haar-random orthogonal matrix and the
// log-eigenvalues ℓ_r drawn rank by rank from the normal law of train's
// log-eigenvalues of rank r (spd.FitSpectrum, spd.Spectrum.Draw), from
// seed. This is one reading of the paper's "random dictionary" (Section
// 6.2): random SPD matrices of realistic spectra, which unlike random
// training samples carry no structure of the data but their scale. It
// returns an error for an empty train or n < 1, and one wrapping
// ErrMemory for atoms that would take more than 4 GiB.
func RandomSPDAtoms(train *spd.Set, n int, seed uint64) (*spd.Set, error) {
	if n < 1 {
		return nil, fmt.Errorf("%w: %d random atoms, want >= 1", ErrInput, n)
	}
	s, err := spd.FitSpectrum(train)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInput, err)
	}
	if err := checkAtoms(n, train.Dim()); err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(seed, 0x52535044)) // "RSPD"
	atoms := make([]*mat.SymDense, n)
	for k := range atoms {
		if atoms[k], err = s.Draw(rng); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrInput, err)
		}
	}
	return spd.NewSet(atoms)
}

// WishartAtoms returns n random d×d SPD atoms drawn from the Wishart law
// W_d(I/ν, ν), ν = d + 1, of mean I (spd.Wishart), from seed: random SPD
// matrices that know nothing of the data, not even its scale (the
// unmatched reading of the paper's random dictionary). It returns an
// error for d or n < 1, and one wrapping ErrMemory for atoms that would
// take more than 4 GiB.
func WishartAtoms(d, n int, seed uint64) (*spd.Set, error) {
	if d < 1 || n < 1 {
		return nil, fmt.Errorf("%w: %d Wishart atoms of size %d, want both >= 1", ErrInput, n, d)
	}
	if err := checkAtoms(n, d); err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(seed, 0x57495348)) // "WISH"
	atoms := make([]*mat.SymDense, n)
	for k := range atoms {
		var err error
		if atoms[k], err = spd.Wishart(d, d+1, rng); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrInput, err)
		}
	}
	return spd.NewSet(atoms)
}

// checkAtoms returns checkSize's error for n random d×d atoms.
func checkAtoms(n, d int) error {
	return checkSize("n", fmt.Sprintf("%d random atoms of %d×%d", n, d, d), float64(n)*atomBytes(d))
}
