package rsr

import (
	"errors"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestCheckSparsity checks the exported checks against NewLasso: an
// option set is valid for one exactly when NewLasso accepts it.
func TestCheckSparsity(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	for _, tc := range []struct {
		name string
		o    LassoOptions
		want string // substring of the error; "" for valid
	}{
		{"defaults", LassoOptions{}, ""},
		{"lambda", LassoOptions{Lambda: 0.1, Tol: 1e-8}, ""},
		{"ratio", LassoOptions{LambdaRatio: 0.5, NonNegative: true}, ""},
		{"negative lambda", LassoOptions{Lambda: -1}, "lambda = -1"},
		{"NaN lambda", LassoOptions{Lambda: nan}, "lambda = NaN"},
		{"infinite lambda", LassoOptions{Lambda: inf}, "lambda = +Inf"},
		{"ratio 1", LassoOptions{LambdaRatio: 1}, "lambda ratio = 1"},
		{"negative ratio", LassoOptions{LambdaRatio: -0.1}, "lambda ratio = -0.1"},
		{"both", LassoOptions{Lambda: 0.1, LambdaRatio: 0.1}, "give one"},
		{"tolerance", LassoOptions{Lambda: 0.1, Tol: 1}, "tolerance = 1"},
		{"negative tolerance", LassoOptions{Lambda: 0.1, Tol: -1e-3}, "tolerance = -0.001"},
		{"sweeps", LassoOptions{MaxSweeps: -2}, "MaxSweeps = -2"},
	} {
		err := tc.o.Validate()
		if tc.want == "" {
			if err != nil {
				t.Errorf("%s: %v", tc.name, err)
			}
		} else if !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want ErrInput with %q", tc.name, err, tc.want)
		}
		_, lerr := NewLasso(mat.NewSymDense(2, []float64{1, 0.2, 0.2, 1}), tc.o)
		if (err == nil) != (lerr == nil) {
			t.Errorf("%s: Validate %v but NewLasso %v", tc.name, err, lerr)
		}
	}
	for _, tc := range []struct {
		lambda, ratio float64
		lambdaOK      bool
		ratioOK       bool
	}{
		{0, 0, true, false},
		{0.3, 0.3, true, true},
		{1, 1, true, false},
		{5, 0.999, true, true},
		{-0.5, -0.5, false, false},
		{nan, nan, false, false},
		{inf, inf, false, false},
	} {
		if err := CheckLambda(tc.lambda); (err == nil) != tc.lambdaOK || err != nil && !errors.Is(err, ErrInput) {
			t.Errorf("CheckLambda(%v) = %v, want ok %v", tc.lambda, err, tc.lambdaOK)
		}
		if err := CheckLambdaRatio(tc.ratio); (err == nil) != tc.ratioOK || err != nil && !errors.Is(err, ErrInput) {
			t.Errorf("CheckLambdaRatio(%v) = %v, want ok %v", tc.ratio, err, tc.ratioOK)
		}
	}
}
