package tsc

import (
	"fmt"
	"math"
)

// CheckLambda returns an error unless λ is a valid sparsity weight of the
// MAXDET problem (Options.Lambda): finite and >= 0.
func CheckLambda(lambda float64) error {
	if math.IsNaN(lambda) || math.IsInf(lambda, 0) || lambda < 0 {
		return fmt.Errorf("tsc: lambda = %v, want finite and >= 0", lambda)
	}
	return nil
}
