package spd

import (
	"fmt"

	"gonum.org/v1/gonum/mat"
)

// LogEuclideanMean returns the log-Euclidean mean of the matrices of set
// at the indices idx (nil: all of them),
//
//	M = exp((1/n) Σ_i log X_i),
//
// the minimiser of Σ_i d_LE²(M, X_i) for the log-Euclidean distance of
// Metric (Arsigny, Fillard, Pennec and Ayache, "Geometric means in a novel
// vector space structure on symmetric positive-definite matrices", SIAM J.
// Matrix Anal. Appl. 29, 2007, Sec. 3.4). The logarithms are summed in the
// order of idx, so that the mean is reproducible to the last bit; repeated
// indices weigh a matrix more. For commuting matrices each eigenvalue of M
// is the geometric mean of theirs. It is the Karcher mean's starting point
// (KarcherMean) and the AIRM mean of commuting matrices.
//
// It returns an error wrapping ErrEmpty for a nil or empty set or an
// empty (non-nil) idx, ErrParameter for an index out of range, and the
// errors of Workspace.LogTo naming the matrix's index.
func LogEuclideanMean(set *Set, idx []int) (*mat.SymDense, error) {
	if set == nil || set.n == 0 {
		return nil, fmt.Errorf("log-Euclidean mean: %w: no matrices", ErrEmpty)
	}
	if idx == nil {
		idx = seq(set.n)
	}
	if len(idx) == 0 {
		return nil, fmt.Errorf("log-Euclidean mean: %w: no indices", ErrEmpty)
	}
	for k, i := range idx {
		if i < 0 || i >= set.n {
			return nil, fmt.Errorf("log-Euclidean mean: %w: index %d (position %d) out of range [0, %d)", ErrParameter, i, k, set.n)
		}
	}
	w := NewWorkspace(set.d)
	acc, tmp := mat.NewSymDense(set.d, nil), mat.NewSymDense(set.d, nil)
	for _, i := range idx {
		if err := w.LogTo(tmp, set.View(i)); err != nil {
			return nil, fmt.Errorf("log-Euclidean mean: matrix %d: %w", i, err)
		}
		acc.AddSym(acc, tmp)
	}
	acc.ScaleSym(1/float64(len(idx)), acc)
	mean := mat.NewSymDense(set.d, nil)
	if err := w.ExpTo(mean, acc); err != nil {
		return nil, fmt.Errorf("log-Euclidean mean: %w", err)
	}
	return mean, nil
}
