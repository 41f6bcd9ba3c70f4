package rsr_test

import (
	"math"
	"testing"

	"github.com/covpipe/covpipe/rsr"
	"gonum.org/v1/gonum/mat"
)

// checkSCIAndShares recomputes Wright et al.'s sparsity concentration
// index of the decision d from its code v (atom j of class atoms[j]) and
// the residual shares from its residuals (k(X, X) = 1).
func checkSCIAndShares(t *testing.T, c *rsr.Classifier, d rsr.Decision, v []float64, atoms []int) {
	t.Helper()
	labels := c.Labels()
	mass := map[int]float64{}
	var total, most float64
	for j, x := range v {
		mass[atoms[j]] += math.Abs(x)
		total += math.Abs(x)
		most = math.Max(most, mass[atoms[j]])
	}
	k := float64(len(labels))
	if want := (k*most/total - 1) / (k - 1); math.Abs(d.SCI-want) > 1e-12 || d.SCI < 0 || d.SCI > 1 {
		t.Errorf("SCI %v, want %v from the code", d.SCI, want)
	}
	shares := c.Shares(d)
	var explained, sum float64
	for _, e := range d.Scores {
		explained += math.Max(1-e, 0)
	}
	best := 0
	for ci, p := range shares {
		if w := math.Max(1-d.Scores[ci], 0) / explained; math.Abs(p-w) > 1e-12 {
			t.Errorf("class %d: share %v, want %v", labels[ci], p, w)
		}
		if p > shares[best] {
			best = ci
		}
		sum += p
	}
	if math.Abs(sum-1) > 1e-12 || labels[best] != d.Label {
		t.Errorf("shares %v sum to %v, largest for class %d, predicted %d", shares, sum, labels[best], d.Label)
	}
}

// TestSCIExtremes checks the index's ends: a code in one class (1), an
// all-zero code (0, uniform shares) and a code spread evenly over two
// classes of two (0).
func TestSCIExtremes(t *testing.T) {
	K := mat.NewSymDense(4, []float64{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1})
	c, err := rsr.FitClassifier(K, []int{3, 3, 8, 8}, rsr.ClassifierOptions{Lasso: rsr.LassoOptions{Lambda: 0.2, Tol: 1e-12}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		kx     []float64
		sci    float64
		shares []float64
	}{
		// Identity K: v_j = max(k_j − λ/2, 0).
		{"one class", []float64{0.6, 0.5, 0, 0.05}, 1, []float64{1, 0}},
		{"all zero", []float64{0.1, 0, 0.05, 0}, 0, []float64{0.5, 0.5}},
		{"even", []float64{0.5, 0, 0.5, 0}, 0, []float64{0.5, 0.5}},
	} {
		d, err := c.Predict(tc.kx, 1)
		if err != nil {
			t.Fatal(err)
		}
		got := c.Shares(d)
		if math.Abs(d.SCI-tc.sci) > 1e-12 || math.Abs(got[0]-tc.shares[0]) > 1e-12 || math.Abs(got[1]-tc.shares[1]) > 1e-12 {
			t.Errorf("%s: SCI %v, shares %v; want %v, %v", tc.name, d.SCI, got, tc.sci, tc.shares)
		}
	}
}

// TestSharesOfSimilarityRules checks the shares of positive similarities.
func TestSharesOfSimilarityRules(t *testing.T) {
	K := mat.NewSymDense(4, []float64{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1})
	// v = [0.4, 0.2, 0.35, 0]: sums 0.6 (class 7) and 0.35 (class 3).
	c, err := rsr.FitClassifier(K, []int{7, 7, 3, 3}, rsr.ClassifierOptions{Rule: rsr.SumCoefficients, Lasso: rsr.LassoOptions{Lambda: 0.2, Tol: 1e-12}})
	if err != nil {
		t.Fatal(err)
	}
	d, err := c.Predict([]float64{0.5, 0.3, 0.45, 0.05}, 1)
	if err != nil {
		t.Fatal(err)
	}
	got := c.Shares(d)
	if want := []float64{0.35 / 0.95, 0.6 / 0.95}; math.Abs(got[0]-want[0]) > 1e-12 || math.Abs(got[1]-want[1]) > 1e-12 {
		t.Errorf("shares %v, want %v", got, want)
	}
}
