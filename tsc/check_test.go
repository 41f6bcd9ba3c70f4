package tsc

import (
	"math"
	"testing"

	"github.com/covpipe/covpipe/spd"
	"gonum.org/v1/gonum/mat"
)

// TestCheckLambda checks CheckLambda against NewCoder: a λ is valid for
// one exactly when the other takes it.
func TestCheckLambda(t *testing.T) {
	atoms, err := spd.NewSet([]*mat.SymDense{mat.NewSymDense(2, []float64{2, 0, 0, 1})})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		lambda float64
		ok     bool
	}{{0, true}, {0.1, true}, {1e6, true}, {-1e-12, false}, {math.NaN(), false}, {math.Inf(1), false}} {
		err := CheckLambda(tc.lambda)
		if (err == nil) != tc.ok {
			t.Errorf("CheckLambda(%v) = %v, want ok %v", tc.lambda, err, tc.ok)
		}
		if _, cerr := NewCoder(atoms, Options{Lambda: tc.lambda}); (cerr == nil) != (err == nil) {
			t.Errorf("λ = %v: CheckLambda %v but NewCoder %v", tc.lambda, err, cerr)
		}
	}
}
