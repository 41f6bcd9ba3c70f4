package method

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/covpipe/covpipe/classify"
	"github.com/covpipe/covpipe/spd"
	"github.com/covpipe/covpipe/svm"
)

// TestSteinSVMSharesGrams checks that candidates differing only in C share
// the Gram matrix of each training set: with 3 values of C and 2 folds
// the log-Euclidean kernel keeps 3 matrices (2 folds and the whole
// training set), not one per candidate, and the Stein kernel none, since
// every run trains on the training set's kernel matrix that the split's
// Pairs keep (classify.TrainKernel).
func TestSteinSVMSharesGrams(t *testing.T) {
	data, train, test := syntheticData(t, 4, 3, 120, 0.2, 13)
	kept := map[string]int{"stein": 0, "log-euclidean": 3}
	for _, k := range classify.Kernels() {
		tc := struct {
			kernel string
			want   int
		}{kernel: k.String()}
		var ok bool
		if tc.want, ok = kept[tc.kernel]; !ok {
			t.Errorf("kernel %s: no count of Gram matrices kept here", tc.kernel)
			continue
		}
		m := newMethod(t, "stein-svm", "{sigma: 1, c: [1, 10, 100], kernel: "+tc.kernel+"}")
		split := &classify.Split{Data: data, Train: train, Test: test, Workers: 2, Ranks: 1, Folds: 2, Seed: 1}
		if _, err := classify.Run(context.Background(), m, split); err != nil {
			t.Fatal(err)
		}
		if n := m.(*steinSVM).grams.Len(); n != tc.want {
			t.Errorf("%s kernel: %d Gram matrices kept, want %d", tc.kernel, n, tc.want)
		}
	}
}

// TestSteinSVM checks the Stein-kernel SVM on well-separated synthetic
// classes (chance: 25%), its rankings, the parameters it records, and its
// predictions against an SVM trained on Gram matrices computed directly by
// spd.SteinKernel rather than from the Data's cached divergences.
func TestSteinSVM(t *testing.T) {
	data, train, test := syntheticData(t, 4, 3, 200, 0.2, 12)
	for _, params := range []string{"{sigma: 1, c: 10}", "{sigma: [0.5, 1], c: [0.1, 10], tolerance: 1e-4}"} {
		m := newMethod(t, "stein-svm", params)
		split := &classify.Split{Data: data, Train: train, Test: test, Workers: 2, Ranks: 2, Folds: 3, Seed: 1}
		prepare(t, m, split)
		out, err := classify.Run(context.Background(), m, split)
		if err != nil {
			t.Fatal(err)
		}
		if acc := classify.Accuracy(out.Pred, classify.Pick(data.Labels, test)); acc < 80 {
			t.Errorf("%s: accuracy %.1f%% on well-separated classes", params, acc)
		}
		for q, r := range out.Ranking {
			if r[0] != out.Pred[q] || len(r) != 4 {
				t.Fatalf("%s: ranking %v vs prediction %d", params, r, out.Pred[q])
			}
		}
		if len(out.Params) != 3 || out.Params["ridge"] != 0 || out.Unconverged != 0 {
			t.Errorf("%s: params %v, %d unconverged", params, out.Params, out.Unconverged)
		}
		sigma, c := out.Params["sigma"], out.Params["c"]
		if (sigma != 0.5 && sigma != 1) || (c != 10 && c != 0.1) {
			t.Errorf("%s: chose sigma %v, c %v", params, sigma, c)
		}

		tol := 1e-4
		if !strings.Contains(params, "tolerance") {
			tol = 0
		}
		checkDirectSVM(t, params, data, train, test, sigma, svm.Options{C: c, Tol: tol}, out)
	}
}

// TestSteinSVMFolds checks the runs on cross-validation folds, which
// train on items of the whole training set's kernel matrix, against SVMs
// trained on each fold's Gram matrix computed directly by spd.SteinKernel,
// with folds run concurrently as classify.Choose runs them.
func TestSteinSVMFolds(t *testing.T) {
	data, train, test := syntheticData(t, 4, 3, 160, 0.3, 14)
	m := newMethod(t, "stein-svm", "{sigma: 1, c: [1, 10]}")
	split := &classify.Split{Data: data, Train: train, Test: test, Workers: 2, Ranks: 4, Folds: 3, Seed: 1}
	folds := classify.Folds(data.Labels, train, 3, 5)
	outs := make([]*classify.Outcome, len(folds))
	errs := make([]error, len(folds))
	var wg sync.WaitGroup
	for k, f := range folds {
		wg.Go(func() {
			fit, err := m.(*steinSVM).fit(context.Background(), split.Fitting(), data, classify.Without(train, f), steinSVMCandidate{1, 10}, false)
			if err != nil {
				errs[k] = err
				return
			}
			outs[k], errs[k] = fit.predict(context.Background(), data, f, answer{workers: 2})
		})
	}
	wg.Wait()
	for k, f := range folds {
		if errs[k] != nil {
			t.Fatal(errs[k])
		}
		checkDirectSVM(t, fmt.Sprintf("fold %d", k), data, classify.Without(train, f), f, 1, svm.Options{C: 10}, outs[k])
	}
}

// checkDirectSVM checks a stein-svm outcome on test against an SVM
// trained on the Gram matrix of train computed directly by
// spd.SteinKernel with σ = sigma, rather than from the Data's cached
// divergences.
func checkDirectSVM(t *testing.T, name string, data *classify.Data, train, test []int, sigma float64, o svm.Options, out *classify.Outcome) {
	t.Helper()
	kern := spd.SteinKernel{Sigma: sigma}
	trainSet, testSet := data.Set.Subset(train), data.Set.Subset(test)
	gram, err := kern.GramSym(context.Background(), trainSet, nil)
	if err != nil {
		t.Fatal(err)
	}
	model, err := svm.Fit(context.Background(), gram, classify.Pick(data.Labels, train), o)
	if err != nil {
		t.Fatal(err)
	}
	kq, err := kern.Gram(context.Background(), testSet, trainSet, nil)
	if err != nil {
		t.Fatal(err)
	}
	ds, err := model.PredictBatch(context.Background(), kq)
	if err != nil {
		t.Fatal(err)
	}
	for q, d := range ds {
		if d.Label != out.Pred[q] || !reflect.DeepEqual(model.Rank(d), out.Ranking[q]) {
			t.Fatalf("%s: test item %d: method %d %v, direct SVM %d %v", name, q, out.Pred[q], out.Ranking[q], d.Label, model.Rank(d))
		}
	}
}

// TestSteinSVMHard checks accuracy well above chance (12.5%) on eight
// classes of 4×4 matrices with five times the class variance, σ and C
// chosen by cross-validation.
func TestSteinSVMHard(t *testing.T) {
	data, train, test := syntheticData(t, 8, 4, 480, 1.0, 21)
	m := newMethod(t, "stein-svm", "{sigma: [1.5, 4], c: [1, 100]}")
	if m.Spec().Candidates != 4 {
		t.Errorf("candidates %d, want 4", m.Spec().Candidates)
	}
	out, err := classify.Run(context.Background(), m, &classify.Split{Data: data, Train: train, Test: test, Workers: 2, Folds: 3, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	if acc := classify.Accuracy(out.Pred, classify.Pick(data.Labels, test)); acc < 50 {
		t.Errorf("accuracy %.1f%% (chance 12.5%%), params %v", acc, out.Params)
	} else {
		t.Logf("accuracy %.1f%% (chance 12.5%%), params %v", acc, out.Params)
	}
}

// TestSteinSVMSigma checks σ by Theorem 1 on the matrix size, at load
// (CheckDim) and in Classify, unless pseudo_kernel.
func TestSteinSVMSigma(t *testing.T) {
	// Theorem 1 on 3×3 matrices: σ ∈ {0.5, 1} or σ > 1.
	m := newMethod(t, "stein-svm", "{sigma: [1, 0.7], c: 1}")
	if err := m.Spec().CheckDim(3); err == nil || !strings.Contains(err.Error(), "sigma = 0.7") {
		t.Errorf("σ = 0.7 on 3×3: %v", err)
	}
	data, train, test := syntheticData(t, 2, 3, 40, 0.2, 3)
	if _, err := classify.Run(context.Background(), m, &classify.Split{Data: data, Train: train, Test: test, Folds: 2}); err == nil || !strings.Contains(err.Error(), "Theorem 1") {
		t.Errorf("Classify with σ = 0.7 on 3×3: %v", err)
	}
	m = newMethod(t, "stein-svm", "{sigma: 0.7, c: 1, pseudo_kernel: true}")
	if err := m.Spec().CheckDim(3); err != nil {
		t.Errorf("pseudo-kernel σ = 0.7: %v", err)
	}
	if _, err := classify.Run(context.Background(), m, &classify.Split{Data: data, Train: train, Test: test}); err != nil {
		t.Errorf("pseudo-kernel σ = 0.7: %v", err)
	}
}
