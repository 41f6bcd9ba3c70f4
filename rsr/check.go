package rsr

import (
	"fmt"

	"github.com/covpipe/covpipe/internal/memlimit"
)

// checkSize returns an error wrapping ErrInput and ErrMemory, naming key,
// when what a size makes a call hold, bytes, exceeds the default memory
// limit (4 GiB).
func checkSize(key, what string, bytes float64) error {
	if err := memlimit.Check(0, "", memlimit.Estimate{Key: key, What: what, Bytes: bytes}); err != nil {
		return fmt.Errorf("%w: %w", ErrInput, err)
	}
	return nil
}

// atomBytes is the memory of a d×d random atom, held twice (drawn, then
// copied into an spd.Set) with its matrix's overhead.
func atomBytes(d int) float64 { return 16*float64(d)*float64(d) + 128 }

// Validate reports whether o is valid as NewLasso takes it, zero fields
// standing for their defaults: λ finite and >= 0, LambdaRatio 0 (unset)
// or in (0, 1), not both λ > 0 and a ratio, Tol in (0, 1) and MaxSweeps
// >= 1. The error wraps ErrInput and names the setting, so that callers
// can check options when they are configured rather than when a Lasso is
// built.
func (o LassoOptions) Validate() error { return o.withDefaults().validate() }

// CheckLambda returns an error wrapping ErrInput unless λ is a valid
// absolute sparsity weight of Eqn. 7: finite and >= 0 (LassoOptions.Lambda).
func CheckLambda(lambda float64) error { return LassoOptions{Lambda: lambda}.Validate() }

// CheckLambdaRatio returns an error wrapping ErrInput unless r is a valid
// relative sparsity weight λ(x) = r·λ_max(x) (LassoOptions.LambdaRatio):
// in (0, 1), since r >= 1 codes every query as all zeros and r = 0 is
// the absolute λ = 0.
func CheckLambdaRatio(r float64) error {
	if r == 0 {
		return fmt.Errorf("%w: lambda ratio = 0 must be in (0, 1)", ErrInput)
	}
	return LassoOptions{LambdaRatio: r}.Validate()
}
