package rsr_test

import (
	"errors"
	"math"
	"testing"

	"github.com/covpipe/covpipe/rsr"
	"github.com/covpipe/covpipe/spd"
	"github.com/covpipe/covpipe/synth"
	"gonum.org/v1/gonum/mat"
)

func syntheticAccuracy(t *testing.T, variance float64, seed uint64) float64 {
	t.Helper()
	train, test := synthetic(t, synth.Paper(1, variance), seed)
	c, err := rsr.FitStein(t.Context(), mustSet(t, train.X), train.Labels, spd.SteinKernel{Sigma: 1}, rsr.ClassifierOptions{Lasso: rsr.LassoOptions{Lambda: 0.1}})
	if err != nil {
		t.Fatal(err)
	}
	ds, err := c.Predict(t.Context(), mustSet(t, test.X))
	if err != nil {
		t.Fatal(err)
	}
	correct := 0
	for i, d := range ds {
		if d.Label == test.Labels[i] {
			correct++
		}
	}
	return 100 * float64(correct) / float64(len(ds))
}

func TestSRCSeparatesAndDegrades(t *testing.T) {
	variances := []float64{0.001, 0.3, 3, 10}
	prev := math.Inf(1)
	for i, v := range variances {
		var acc float64
		for seed := range uint64(3) {
			acc += syntheticAccuracy(t, v, 100+seed) / 3
		}
		t.Logf("variance %g: accuracy %.1f%%", v, acc)
		if i == 0 && acc != 100 {
			t.Errorf("well-separated classes: accuracy %.2f%%, want 100%%", acc)
		}
		if acc >= prev && i > 0 {
			t.Errorf("accuracy did not degrade: %.1f%% at variance %g after %.1f%%", acc, v, prev)
		}
		prev = acc
	}
	if prev > 60 {
		t.Errorf("heavily overlapping classes still at %.1f%%", prev)
	}
}

// TestResidualsMatchDefinition recomputes Eqn. 8 from full-length masked
// codes v_i: ε_i = k(X,X) − 2 v_iᵀk + v_iᵀK v_i, and the sparsity
// concentration index and residual shares from the codes.
func TestResidualsMatchDefinition(t *testing.T) {
	train, test := synthetic(t, synth.Paper(1, 0.3), 9)
	K, kx := steinGrams(t, spd.SteinKernel{Sigma: 1.5}, train.X, test.X[:20])
	c, err := rsr.FitClassifier(K, train.Labels, rsr.ClassifierOptions{Lasso: rsr.LassoOptions{Lambda: 5e-3}})
	if err != nil {
		t.Fatal(err)
	}
	lasso := c.Lasso()
	for q := range 20 {
		d, err := c.Predict(kx.RawRowView(q), 1)
		if err != nil {
			t.Fatal(err)
		}
		v, _, _ := lasso.Solve(kx.RawRowView(q), 1)
		best, bestLabel := math.Inf(1), -1
		for ci, label := range c.Labels() {
			vi := mat.NewVecDense(len(v), nil)
			for j := range v {
				if train.Labels[j] == label {
					vi.SetVec(j, v[j])
				}
			}
			var kv mat.VecDense
			kv.MulVec(K, vi)
			want := 1 - 2*mat.Dot(vi, mat.NewVecDense(len(v), kx.RawRowView(q))) + mat.Dot(vi, &kv)
			if math.Abs(d.Scores[ci]-want) > 1e-10 {
				t.Fatalf("query %d class %d: residual %g, want %g", q, label, d.Scores[ci], want)
			}
			if want < best {
				best, bestLabel = want, label
			}
		}
		if d.Label != bestLabel {
			t.Errorf("query %d: predicted %d, smallest residual is class %d", q, d.Label, bestLabel)
		}
		checkSCIAndShares(t, c, d, v, train.Labels)
		rank := c.Rank(d)
		if rank[0] != d.Label || len(rank) != 4 {
			t.Errorf("query %d: ranking %v does not start with the prediction %d", q, rank, d.Label)
		}
	}
}

func TestSimilarityRules(t *testing.T) {
	// Two classes (labels 7 and 3), an identity Gram matrix: the code is a
	// soft-thresholded kernel vector, v_j = max(k_j − λ/2, 0).
	K := mat.NewSymDense(4, []float64{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1})
	labels := []int{7, 7, 3, 3}
	kx := []float64{0.5, 0.3, 0.45, 0.05}
	// v = [0.4, 0.2, 0.35, 0]: class 3 has sum 0.35, max 0.35; class 7 sum 0.6, max 0.4.
	// Costs: the residuals themselves, or the shortfall from the best
	// similarity.
	for _, tc := range []struct {
		rule   rsr.Rule
		scores []float64 // in label order 3, 7
		costs  []float64
		label  int
	}{
		{rsr.SumCoefficients, []float64{0.35, 0.6}, []float64{0.25, 0}, 7},
		{rsr.MaxCoefficient, []float64{0.35, 0.4}, []float64{0.05, 0}, 7},
		// ε_3 = 1 − 2(0.35·0.45) + 0.35², ε_7 = 1 − 2(0.4·0.5 + 0.2·0.3) + 0.4² + 0.2²
		{rsr.MinResidual, []float64{1 - 0.315 + 0.1225, 1 - 0.52 + 0.2}, []float64{1 - 0.315 + 0.1225, 1 - 0.52 + 0.2}, 7},
	} {
		c, err := rsr.FitClassifier(K, labels, rsr.ClassifierOptions{Rule: tc.rule, Lasso: rsr.LassoOptions{Lambda: 0.2, Tol: 1e-12}})
		if err != nil {
			t.Fatal(err)
		}
		d, err := c.Predict(kx, 1)
		if err != nil {
			t.Fatal(err)
		}
		costs := c.Costs(d)
		for i := range tc.scores {
			if math.Abs(d.Scores[i]-tc.scores[i]) > 1e-9 {
				t.Errorf("%v: scores %v, want %v", tc.rule, d.Scores, tc.scores)
				break
			}
			if math.Abs(costs[i]-tc.costs[i]) > 1e-9 {
				t.Errorf("%v: costs %v, want %v", tc.rule, costs, tc.costs)
				break
			}
		}
		if d.Label != tc.label {
			t.Errorf("%v: label %d, want %d", tc.rule, d.Label, tc.label)
		}
		if got := c.Labels(); got[0] != 3 || got[1] != 7 {
			t.Errorf("labels %v, want [3 7]", got)
		}
	}
}

func TestDegenerateCode(t *testing.T) {
	K := mat.NewSymDense(2, []float64{1, 0.1, 0.1, 1})
	c, _ := rsr.FitClassifier(K, []int{0, 1}, rsr.ClassifierOptions{Lasso: rsr.LassoOptions{Lambda: 10}})
	d, err := c.Predict([]float64{0.9, 0.2}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if !d.Degenerate || d.NonZeros != 0 || d.Scores[0] != 1 || d.Scores[1] != 1 {
		t.Errorf("λ above λ_max: got %+v, want a degenerate all-zero code", d)
	}
	d, _ = c.Predict([]float64{0.9, 0.2}, 1)
	c2, _ := rsr.FitClassifier(K, []int{0, 1}, rsr.ClassifierOptions{Lasso: rsr.LassoOptions{Lambda: 0.1}})
	if d2, _ := c2.Predict([]float64{0.9, 0.2}, 1); d2.Degenerate || d2.Label != 0 {
		t.Errorf("small λ: %+v", d2)
	}
}

func TestClassifierErrors(t *testing.T) {
	K := mat.NewSymDense(2, []float64{1, 0.1, 0.1, 1})
	if _, err := rsr.FitClassifier(K, []int{0}, rsr.ClassifierOptions{}); !errors.Is(err, rsr.ErrInput) {
		t.Errorf("label count: %v", err)
	}
	if _, err := rsr.FitClassifier(K, []int{0, 1}, rsr.ClassifierOptions{Rule: 9}); !errors.Is(err, rsr.ErrInput) {
		t.Errorf("rule: %v", err)
	}
	if _, err := rsr.ParseRule("median"); !errors.Is(err, rsr.ErrInput) {
		t.Errorf("ParseRule: %v", err)
	}
	c, _ := rsr.FitClassifier(K, []int{0, 1}, rsr.ClassifierOptions{Lasso: rsr.LassoOptions{Workers: 2}})
	if _, err := c.PredictBatch(t.Context(), mat.NewDense(2, 2, []float64{1, math.NaN(), 0, 0}), []float64{1, 1}); !errors.Is(err, rsr.ErrInput) {
		t.Errorf("NaN query: %v", err)
	}
	set, _ := spd.NewSet([]*mat.SymDense{mat.NewSymDense(3, []float64{1, 0, 0, 0, 1, 0, 0, 0, 1})})
	if _, err := rsr.FitStein(t.Context(), set, []int{0}, spd.SteinKernel{Sigma: 0.7}, rsr.ClassifierOptions{}); !errors.Is(err, spd.ErrSigma) {
		t.Errorf("invalid sigma: %v", err)
	}
	if _, err := (&rsr.SteinClassifier{}).Predict(t.Context(), set); !errors.Is(err, rsr.ErrInput) {
		t.Errorf("zero-value SteinClassifier: %v", err)
	}
}
