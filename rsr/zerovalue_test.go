package rsr

import (
	"errors"
	"testing"

	"github.com/covpipe/covpipe/internal/panictest"
	"gonum.org/v1/gonum/mat"
)

// TestZeroValueNoPanic checks that a zero-value or nil Classifier,
// Lasso or Dictionary, and labels that are not class numbers, give an
// error wrapping ErrInput, not a panic.
func TestZeroValueNoPanic(t *testing.T) {
	var nilClassifier *Classifier
	var nilLasso *Lasso
	kx := mat.NewDense(1, 1, []float64{1})
	tests := []struct {
		name string
		call func() error
	}{
		{"Predict zero value", func() error { _, err := (&Classifier{}).Predict([]float64{1}, 1); return err }},
		{"Predict nil", func() error { _, err := nilClassifier.Predict([]float64{1}, 1); return err }},
		{"PredictBatch zero value", func() error { _, err := (&Classifier{}).PredictBatch(t.Context(), kx, []float64{1}); return err }},
		{"Solve zero value", func() error { _, _, err := (&Lasso{}).Solve([]float64{1}, 1); return err }},
		{"Solve nil", func() error { _, _, err := nilLasso.Solve([]float64{1}, 1); return err }},
		{"SolveTo nil workspace", func() error {
			l, err := NewLasso(mat.NewSymDense(1, []float64{1}), LassoOptions{Lambda: 0.1})
			if err != nil {
				return err
			}
			_, err = l.SolveTo([]float64{0}, []float64{1}, 1, nil)
			return err
		}},
		{"Transform nil Dictionary", func() error { _, _, err := (*Dictionary)(nil).Transform(t.Context(), nil); return err }},
		{"FitClassifier label -1", func() error {
			_, err := FitClassifier(mat.NewSymDense(2, []float64{1, 0, 0, 1}), []int{0, -1}, ClassifierOptions{Lasso: LassoOptions{Lambda: 0.1}})
			return err
		}},
		{"FitClassifier label 1<<40", func() error {
			_, err := FitClassifier(mat.NewSymDense(2, []float64{1, 0, 0, 1}), []int{0, 1 << 40}, ClassifierOptions{Lasso: LassoOptions{Lambda: 0.1}})
			return err
		}},
		{"SolveBatch zero value", func() error { _, _, err := (&Lasso{}).SolveBatch(t.Context(), kx, []float64{1}); return err }},
		{"SolveBatch nil matrix", func() error {
			l, err := NewLasso(mat.NewSymDense(1, []float64{1}), LassoOptions{Lambda: 0.1})
			if err != nil {
				return err
			}
			var m *mat.Dense
			_, _, err = l.SolveBatch(t.Context(), m, []float64{1})
			return err
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if r, err := panictest.Recover(tc.call); r != nil || !errors.Is(err, ErrInput) {
				t.Errorf("got %v (panic: %v), want an error wrapping ErrInput", err, r)
			}
		})
	}
}
