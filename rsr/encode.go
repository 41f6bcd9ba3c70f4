package rsr

import (
	"context"
	"fmt"

	"github.com/covpipe/covpipe/spd"
	"gonum.org/v1/gonum/mat"
)

// Encode returns the sparse codes of the query matrices against the atoms
// of a dictionary, as features (Section 3.1 (ii)): row q of the Q×N result
// is the kernel Lasso solution (Eqns. 7–8)
//
//	v_q = argmin_v 1 − 2vᵀ𝒦(X_q, 𝔻) + vᵀ𝕂(𝔻, 𝔻)v + λ‖v‖₁
//
// for the Stein kernel k (Eqn. 5; k(X, X) = 1), with its certificate. It
// is Lasso.SolveBatch on spd's Gram matrices, cold-started, on o.Workers
// goroutines, and does not depend on their number. It returns the errors
// of spd.SteinKernel.Gram (an invalid σ wraps spd.ErrSigma, mismatched
// sizes spd.ErrDimension, empty sets spd.ErrEmpty), of NewLasso for bad
// options, and of SolveBatch, which names the first query that failed or
// reached the sweep cap (ErrNoConvergence); once ctx is cancelled, an
// error wrapping ctx.Err() and no codes.
func Encode(ctx context.Context, queries, atoms *spd.Set, k spd.SteinKernel, o LassoOptions) (*mat.Dense, []Certificate, error) {
	gram := &spd.GramOptions{Workers: o.Workers}
	K, err := k.GramSym(ctx, atoms, gram)
	if err != nil {
		return nil, nil, fmt.Errorf("dictionary Gram matrix: %w", err)
	}
	kx, err := k.Gram(ctx, queries, atoms, gram)
	if err != nil {
		return nil, nil, fmt.Errorf("query kernel vectors: %w", err)
	}
	lasso, err := NewLasso(K, o)
	if err != nil {
		return nil, nil, err
	}
	kxx := make([]float64, queries.Len())
	for i := range kxx {
		kxx[i] = 1 // exp(−σ S(X, X)) with S(X, X) = 0
	}
	return lasso.SolveBatch(ctx, kx, kxx)
}

// Transform returns the codes of the queries against the dictionary's
// atoms with the kernel and Lasso options it was learnt with (Workers
// included); see Encode. A nil Dictionary is an error wrapping ErrInput.
func (d *Dictionary) Transform(ctx context.Context, queries *spd.Set) (*mat.Dense, []Certificate, error) {
	if d == nil {
		return nil, nil, fmt.Errorf("%w: Transform of a nil *Dictionary", ErrInput)
	}
	return Encode(ctx, queries, d.Atoms, d.Kernel, d.Lasso)
}
