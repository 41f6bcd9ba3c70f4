package method

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/covpipe/covpipe/classify"
	"github.com/covpipe/covpipe/internal/canceltest"
	"github.com/covpipe/covpipe/spd"
	"github.com/covpipe/covpipe/synth"
	"go.yaml.in/yaml/v3"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// buildMethod builds a method of type typ from its parameters in YAML and
// returns the constructor's error.
func buildMethod(t testing.TB, typ, params string) (classify.Method, error) {
	t.Helper()
	var n yaml.Node
	if err := yaml.Unmarshal([]byte(params), &n); err != nil {
		t.Fatal(err)
	}
	return Types()[typ].New(n.Content[0])
}

// newMethod builds a method of type typ from its parameters in YAML,
// failing t on an error.
func newMethod(t testing.TB, typ, params string) classify.Method {
	t.Helper()
	m, err := buildMethod(t, typ, params)
	if err != nil {
		t.Fatalf("%s %s: %v", typ, params, err)
	}
	return m
}

// fitPredict fits m on the items train of data (two workers, two folds,
// seed 1) and predicts the items test with class costs, failing t on an
// error.
func fitPredict(t *testing.T, m classify.Method, data *classify.Data, train, test []int) (classify.Fitted, *classify.Outcome) {
	t.Helper()
	f, err := m.Fit(context.Background(), &classify.Train{Data: data, Items: train, Workers: 2, Folds: 2, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	out, err := f.Predict(context.Background(), &classify.Query{Data: data, Items: test, Costs: true, Probabilities: true, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	return f, out
}

func syntheticData(t testing.TB, classes, dim, samples int, variance float64, seed uint64) (*classify.Data, []int, []int) {
	t.Helper()
	o := synth.Options{Classes: classes, Dim: dim, Samples: samples, Train: 0.5, Spread: 1, Variance: variance}
	train, test, err := synth.Classes(o, seed)
	if err != nil {
		t.Fatal(err)
	}
	set, err := spd.NewSet(append(train.X, test.X...))
	if err != nil {
		t.Fatal(err)
	}
	return classify.NewData(set, append(train.Labels, test.Labels...), 2), classify.Seq(0, len(train.X)), classify.Seq(len(train.X), set.Len())
}

// TestNNAIRMExact checks the pruned search against brute force: the same
// nearest class and the same exact order of the first R classes.
func TestNNAIRMExact(t *testing.T) {
	data, train, test := syntheticData(t, 6, 4, 240, 0.6, 11)
	m := newMethod(t, "nn", "metric: airm")
	const R = 4
	out, err := classify.Run(context.Background(), m, &classify.Split{Data: data, Train: train, Test: test, Workers: 2, Ranks: R})
	if err != nil {
		t.Fatal(err)
	}
	for q, i := range test {
		best := map[int]float64{}
		for _, j := range train {
			d, err := spd.AIRM(data.Set.View(i), data.Set.View(j))
			if err != nil {
				t.Fatal(err)
			}
			if b, ok := best[data.Labels[j]]; !ok || d < b {
				best[data.Labels[j]] = d
			}
		}
		want := rankByValue(best)
		if !reflect.DeepEqual(out.Ranking[q][:R], want[:R]) {
			t.Fatalf("query %d: ranking %v, brute force %v (distances %v)", q, out.Ranking[q][:R], want[:R], best)
		}
		if len(out.Ranking[q]) != 6 || out.Pred[q] != want[0] {
			t.Fatalf("query %d: prediction %d, ranking %v", q, out.Pred[q], out.Ranking[q])
		}
	}
}

func TestNNSteinAndLogESR(t *testing.T) {
	data, train, test := syntheticData(t, 4, 3, 200, 0.2, 12)
	for _, mc := range []struct{ Name, typ, params string }{
		{"nn-stein", "nn", "metric: stein"},
		{"nn-logeuclid", "nn", "metric: logeuclid"},
		{"nn-thompson", "nn", "metric: thompson"},
		{"logE-SR", "logE-SR", "lambda: 0.01"},
		{"rsr", "rsr", "{sigma: 1, lambda: 0.01}"},
		{"rsr-ratio", "rsr", "{sigma: 1, lambda_ratio: 0.05}"},
	} {
		m := newMethod(t, mc.typ, mc.params)
		out, err := classify.Run(context.Background(), m, &classify.Split{Data: data, Train: train, Test: test, Workers: 2, Ranks: 2})
		if err != nil {
			t.Fatal(err)
		}
		acc := classify.Accuracy(out.Pred, classify.Pick(data.Labels, test))
		if acc < 80 {
			t.Errorf("%s: accuracy %.1f%% on well-separated classes", mc.Name, acc)
		}
		for q, r := range out.Ranking {
			if r[0] != out.Pred[q] || len(r) != 4 {
				t.Fatalf("%s: ranking %v vs prediction %d", mc.Name, r, out.Pred[q])
			}
		}
	}
	// nn-stein ranks classes by their nearest member's divergence,
	// computed here directly.
	div := func(i, j int) float64 {
		s, err := spd.Stein(data.Set.View(i), data.Set.View(j))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	m := newMethod(t, "nn", "metric: stein")
	out, _ := classify.Run(context.Background(), m, &classify.Split{Data: data, Train: train, Test: test[:5], Ranks: 4})
	for q, i := range test[:5] {
		type cd struct {
			c int
			d float64
		}
		best := map[int]float64{}
		for _, j := range train {
			if b, ok := best[data.Labels[j]]; !ok || div(i, j) < b {
				best[data.Labels[j]] = div(i, j)
			}
		}
		var all []cd
		for c, d := range best {
			all = append(all, cd{c, d})
		}
		sort.Slice(all, func(a, b int) bool { return all[a].d < all[b].d })
		for r := range all {
			if out.Ranking[q][r] != all[r].c {
				t.Fatalf("query %d: nn-stein ranking %v, want by distances %v", q, out.Ranking[q], all)
			}
		}
	}
}

// TestTSCSynthetic checks that tensor sparse coding classifies
// well-separated synthetic classes far above chance (25%), ranks every
// class, and gives the same outcome whatever the worker count.
func TestTSCSynthetic(t *testing.T) {
	data, train, test := syntheticData(t, 4, 3, 200, 0.2, 21)
	m := newMethod(t, "tsc", "{lambda: 0.01}")
	var outs []*classify.Outcome
	for _, w := range []int{1, 3} {
		out, err := classify.Run(context.Background(), m, &classify.Split{Data: data, Train: train, Test: test, Workers: w, Ranks: 4})
		if err != nil {
			t.Fatal(err)
		}
		outs = append(outs, out)
	}
	out := outs[0]
	if acc := classify.Accuracy(out.Pred, classify.Pick(data.Labels, test)); acc < 80 {
		t.Errorf("accuracy %.1f%% on well-separated classes", acc)
	}
	for q, r := range out.Ranking {
		if len(r) != 4 || r[0] != out.Pred[q] {
			t.Fatalf("ranking %v vs prediction %d", r, out.Pred[q])
		}
	}
	if out.Unconverged != 0 || out.Degenerate != 0 {
		t.Errorf("%d unconverged, %d degenerate codes", out.Unconverged, out.Degenerate)
	}
	if !reflect.DeepEqual(out.Params, map[string]float64{"lambda": 0.01, "ridge": 0}) {
		t.Errorf("params %v", out.Params)
	}
	if !reflect.DeepEqual(outs[0], outs[1]) {
		t.Error("outcome depends on the worker count")
	}
}

// TestTSCSelect checks that a λ list is chosen by cross-validation among
// the candidates, and that candidates without folds are refused.
func TestTSCSelect(t *testing.T) {
	data, train, test := syntheticData(t, 4, 3, 120, 0.2, 22)
	m := newMethod(t, "tsc", "{lambda: [0, 0.1], tolerance: 1e-6}")
	if c := m.Spec().Candidates; c != 2 {
		t.Errorf("%d candidates, want 2", c)
	}
	out, err := classify.Run(context.Background(), m, &classify.Split{Data: data, Train: train, Test: test, Folds: 3, Seed: 1, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if l := out.Params["lambda"]; l != 0 && l != 0.1 {
		t.Errorf("chose λ = %v", l)
	}
	if _, err := classify.Run(context.Background(), m, &classify.Split{Data: data, Train: train, Test: test, Folds: 1}); err == nil {
		t.Error("candidates without folds accepted")
	}
}

// TestSelectionNeverSeesTest checks that parameter selection depends on the
// training items only: scrambling the test labels changes nothing chosen.
func TestSelectionNeverSeesTest(t *testing.T) {
	data, train, test := syntheticData(t, 4, 3, 160, 0.8, 14)
	m := newMethod(t, "rsr", "{sigma: [0.5, 1, 4], lambda: [0.01, 0.1]}")
	split := &classify.Split{Data: data, Train: train, Test: test, Folds: 3, Seed: 5, Workers: 2}
	a, err := classify.Run(context.Background(), m, split)
	if err != nil {
		t.Fatal(err)
	}
	labels := append([]int(nil), data.Labels...)
	for _, i := range test {
		labels[i] = (labels[i] + 1) % 4
	}
	scrambled := classify.NewData(data.Set, labels, 2)
	b, err := classify.Run(context.Background(), m, &classify.Split{Data: scrambled, Train: train, Test: test, Folds: 3, Seed: 5, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a.Params, b.Params) || !reflect.DeepEqual(a.Pred, b.Pred) {
		t.Errorf("test labels influenced selection: %v vs %v", a.Params, b.Params)
	}
	if _, err := classify.Run(context.Background(), m, &classify.Split{Data: data, Train: train, Test: test, Folds: 1}); err == nil {
		t.Error("candidates without folds accepted")
	}
}

// rankByValue returns the keys ordered by ascending value, ties by key.
func rankByValue(m map[int]float64) []int {
	keys := make([]int, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(a, b int) bool {
		if m[keys[a]] != m[keys[b]] {
			return m[keys[a]] < m[keys[b]]
		}
		return keys[a] < keys[b]
	})
	return keys
}

// TestMethodParamErrors checks that each method type refuses bad
// parameters with an error saying what is wrong.
func TestMethodParamErrors(t *testing.T) {
	for _, tc := range []struct{ typ, params, want string }{
		{"rsr", "{sigma: 1, lambda: 0.1, sigmaa: 2}", `unknown key "sigmaa" in method type rsr (allowed: sigma, lambda, lambda_ratio, tolerance, rule, nonnegative, pseudo_kernel, kernel)`},
		{"rsr", "{lambda: 0.1, kernel: log-euclidean}", "missing sigma"},
		{"rsr", "{sigma: [1, 1, 2], lambda: 0.1}", "sigma lists 1 twice"},
		{"rsr", "{sigma: 1, lambda: 0.1, lambda_ratio: 0.1}", "not both"},
		{"rsr", "{sigma: 1, lambda: 0.1, rule: vote}", `unknown classification rule "vote"`},
		{"logE-SR", "{lambda: 0.1, sigma: 1}", `unknown key "sigma" in method type logE-SR`},
		{"logE-SR", "{lambda_ratio: 1}", "lambda_ratio: rsr: invalid input: lambda ratio = 1 must be in (0, 1)"},
		{"nn", "{metric: euclidean}", `unknown metric "euclidean"`},
		{"nn", "{metric: airm, sigma: 1}", `unknown key "sigma" in method type nn (allowed: metric)`},
		{"rlpp", "{sigma: 1, dim: 2}", `unknown key "dim" in method type rlpp (allowed: sigma, dims, neighbours, heat, pseudo_kernel, kernel)`},
		{"rlpp", "{dims: 2, kernel: log-euclidean}", "missing sigma"},
		{"rlpp", "{sigma: [1, 1]}", "sigma lists 1 twice"},
		{"rlpp", "{sigma: 1, dims: 0}", "dims = 0, want finite and >= 1"},
		{"rlpp", "{sigma: 1, dims: 2.5}", "dims = 2.5, want a positive integer"},
		{"rlpp", "{sigma: 1, neighbours: -3}", "neighbours = -3"},
		{"rlpp", "{sigma: 1, neighbours: [2, 2]}", "neighbours lists 2 twice"},
		{"rlpp", "{sigma: 1, heat: 0}", "heat = 0, want finite and > 0"},
		{"rlpp", "{sigma: 1, heat: .inf}", "heat = +Inf"},
		{"rlpp", "{sigma: 1, dims: abc}", "line 1: dims: want a number, got \"abc\""},
		{"stein-svm", "{sigma: 1, c: 1, lambda: 2}", `unknown key "lambda" in method type stein-svm (allowed: sigma, c, tolerance, pseudo_kernel, kernel)`},
		{"stein-svm", "{c: 1, kernel: log-euclidean}", "missing sigma"},
		{"stein-svm", "{sigma: 1}", "missing c"},
		{"stein-svm", "{sigma: 1, c: 0}", "c = 0, want finite and > 0"},
		{"stein-svm", "{sigma: 1, c: [1, -2]}", "c = -2, want finite and > 0"},
		{"stein-svm", "{sigma: 1, c: [1, 1]}", "c lists 1 twice"},
		{"stein-svm", "{sigma: -1, c: 1}", "sigma = -1"},
		{"stein-svm", "{sigma: 1, c: 1, tolerance: 1}", "tolerance = 1, want in (0, 1)"},
		{"stein-svm", "{sigma: 1, c: 1, tolerance: -1e-3}", "tolerance = -0.001"},
		{"stein-svm", "{sigma: 1, c: .inf}", "c = +Inf"},
		{"stein-svm", "{sigma: 1, c: [a]}", "line 1: c: want a number, got \"a\""},
		{"tsc", "{tolerance: 1e-6}", "missing lambda"},
		{"tsc", "{lambda: -1}", "lambda"},
		{"tsc", "{lambda: [0.1, 0.1]}", "twice"},
		{"tsc", "{lambda: 0.1, tolerance: 2}", "tolerance"},
		{"tsc", "{lambda: 0.1, sigma: 1}", "sigma"},
		{"codes", "{sigma: 1, lambda: 0.1}", "missing dictionary"},
		{"codes", "{dictionary: pca, sigma: 1, lambda: 0.1}", `dictionary "pca"`},
		{"codes", "{dictionary: random, lambda: 0.1}", "missing sigma"},
		{"codes", "{dictionary: random, sigma: 1}", "missing lambda or lambda_ratio"},
		{"codes", "{dictionary: random, sigma: 1, lambda: 0.1, distance: manhattan}", `distance "manhattan"`},
		{"codes", "{dictionary: random, sigma: 1, lambda: 0.1, kmeans: thompson}", `kmeans "thompson"`},
		{"codes", "{dictionary: learned, sigma: 1, lambda: 0.1, update: newton}", `atom update "newton"`},
		{"codes", "{dictionary: learned, sigma: 1, lambda: 0.1, learn_lambda_ratio: 1.5}", "learn_lambda_ratio"},
		{"codes", "{dictionary: learned, sigma: 1, lambda: 0.1, learn_lambda: 0.1, learn_lambda_ratio: 0.1}", "learn_lambda or learn_lambda_ratio, not both"},
		{"codes", "{dictionary: learned, sigma: 1, lambda: 0.1, init: wishart-ish}", `initialisation "wishart-ish"`},
	} {
		_, err := buildMethod(t, tc.typ, tc.params)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %s: error %v, want %q", tc.typ, tc.params, err, tc.want)
		}
	}
}

// TestCodes checks sparse codes as features on well-separated synthetic
// classes: every dictionary gives far better than chance (25%: eight
// atoms for four classes code coarsely), and the
// method refuses splits without items to learn from.
func TestCodes(t *testing.T) {
	data, train, test := syntheticData(t, 4, 3, 240, 0.2, 15)
	learn := train[:60]
	gallery := train[60:]
	for _, params := range []string{
		"{dictionary: random, sigma: 1, lambda_ratio: 0.05}",
		"{dictionary: kmeans, sigma: 1, lambda_ratio: 0.05}",
		"{dictionary: kmeans, kmeans: stein, sigma: 1, lambda_ratio: 0.05, distance: cosine}",
		"{dictionary: learned, sigma: 1, lambda_ratio: 0.05, iters: 3, keep_scale: true}",
	} {
		m := newMethod(t, "codes", params)
		out, err := classify.Run(context.Background(), m, &classify.Split{Data: data, Train: gallery, Test: test, Dictionary: &classify.Dictionary{Learn: learn, Atoms: 8}, Workers: 2, Seed: 3})
		if err != nil {
			t.Fatalf("%s: %v", params, err)
		}
		if acc := classify.Accuracy(out.Pred, classify.Pick(data.Labels, test)); acc < 40 {
			t.Errorf("%s: accuracy %.1f%%", params, acc)
		}
		if len(out.Lambdas) != len(test) || out.Params["atoms"] != 8 {
			t.Errorf("%s: %d λ, params %v", params, len(out.Lambdas), out.Params)
		}
	}
	m := newMethod(t, "codes", "{dictionary: random, sigma: 1, lambda: 0.01}")
	if _, err := classify.Run(context.Background(), m, &classify.Split{Data: data, Train: gallery, Test: test}); err == nil || !strings.Contains(err.Error(), "needs a split with items to learn a dictionary from") {
		t.Errorf("split without a dictionary part: %v", err)
	}
}

// TestEnergyCancelled checks that the energy tracer of every dictionary
// construction returns an error wrapping context.Canceled, and no
// energies, on a cancelled context.
func TestEnergyCancelled(t *testing.T) {
	data, train, _ := syntheticData(t, 4, 3, 80, 0.2, 16)
	set := data.Set.Subset(train)
	atoms := data.Set.Subset(train[:4])
	for _, dict := range []string{"random", "kmeans", "learned"} {
		m := newMethod(t, "codes", "{dictionary: "+dict+", sigma: 1, lambda_ratio: 0.05}")
		tracer := m.Spec().Energy
		curve, err := tracer.Curve(canceltest.Cancelled(t), set, 4, 2, 1, 2)
		canceltest.Check(t, dict+": Curve", err)
		if curve != nil {
			t.Errorf("%s: Curve returned %v with the error", dict, curve)
		}
		_, err = tracer.Energy(canceltest.Cancelled(t), set, atoms, 2)
		canceltest.Check(t, dict+": Energy", err)
	}
}

// TestLogEuclideanKernel checks the log-Euclidean kernel choice of rsr:
// its squared distances against spd.LogEuclidean, any σ > 0 accepted, and
// accuracy on separable classes.
func TestLogEuclideanKernel(t *testing.T) {
	data, train, test := syntheticData(t, 4, 3, 200, 0.2, 16)
	p, err := data.Pairs(classify.LogEuclideanSq{}, train)
	if err != nil {
		t.Fatal(err)
	}
	all := classify.Seq(0, data.Set.Len())
	dist, err := p.Block(context.Background(), all, all, classify.Identity)
	if err != nil {
		t.Fatal(err)
	}
	for _, ij := range [][2]int{{0, 1}, {3, 17}, {5, 5}, {10, 150}} {
		want, err := spd.LogEuclidean(data.Set.View(ij[0]), data.Set.View(ij[1]))
		if err != nil {
			t.Fatal(err)
		}
		if got := dist.At(ij[0], ij[1]); math.Abs(got-want*want) > 1e-10*(1+want*want) {
			t.Errorf("D[%d][%d] = %v, want %v", ij[0], ij[1], got, want*want)
		}
	}
	m := newMethod(t, "rsr", "{kernel: log-euclidean, sigma: 0.7, lambda_ratio: 0.05}")
	if err := m.Spec().CheckDim(3); err != nil {
		t.Errorf("σ = 0.7 refused for the log-Euclidean kernel: %v", err)
	}
	out, err := classify.Run(context.Background(), m, &classify.Split{Data: data, Train: train, Test: test, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if acc := classify.Accuracy(out.Pred, classify.Pick(data.Labels, test)); acc < 80 {
		t.Errorf("accuracy %.1f%%", acc)
	}
	if _, err := buildMethod(t, "rsr", "{kernel: rbf, sigma: 1, lambda: 0.1}"); err == nil || !strings.Contains(err.Error(), `kernel "rbf"`) {
		t.Errorf("kernel rbf: %v", err)
	}
}

// TestLogEuclideanKernelOthers checks that stein-svm and rlpp take the
// log-Euclidean kernel too, with any σ > 0.
func TestLogEuclideanKernelOthers(t *testing.T) {
	data, train, test := syntheticData(t, 4, 3, 200, 0.2, 17)
	for _, tc := range []struct{ typ, params string }{
		{"stein-svm", "{kernel: log-euclidean, sigma: 0.3, c: 10}"},
		{"rlpp", "{kernel: log-euclidean, sigma: 0.3}"},
	} {
		m := newMethod(t, tc.typ, tc.params)
		if err := m.Spec().CheckDim(3); err != nil {
			t.Errorf("%s: σ = 0.3 refused: %v", tc.typ, err)
		}
		out, err := classify.Run(context.Background(), m, &classify.Split{Data: data, Train: train, Test: test, Workers: 2})
		if err != nil {
			t.Fatal(err)
		}
		if acc := classify.Accuracy(out.Pred, classify.Pick(data.Labels, test)); acc < 80 {
			t.Errorf("%s: accuracy %.1f%%", tc.typ, acc)
		}
	}
}

// TestPCASRC checks pca-src on vectors made here: PCA on the training
// rows only, then SRC, separates well-separated Gaussian classes, and the
// method refuses data without vectors.
func TestPCASRC(t *testing.T) {
	data, train, test := syntheticData(t, 3, 3, 90, 0.2, 18)
	x := classVectors(data.Labels, 30, 3)
	m := newMethod(t, "pca-src", "{dims: 5, lambda_ratio: [0.05, 0.2]}")
	if _, err := classify.Run(context.Background(), m, &classify.Split{Data: data, Train: train, Test: test, Folds: 3, Seed: 1}); err == nil || !strings.Contains(err.Error(), "no feature vectors") {
		t.Errorf("without vectors: %v", err)
	}
	data.Vectors = map[classify.VectorRequest]*classify.Vectors{{Features: "I", Step: 1}: classify.NewVectors(x)}
	out, err := classify.Run(context.Background(), m, &classify.Split{Data: data, Train: train, Test: test, Folds: 3, Seed: 1, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if acc := classify.Accuracy(out.Pred, classify.Pick(data.Labels, test)); acc < 90 {
		t.Errorf("accuracy %.1f%%", acc)
	}
	if out.Params["dims"] != 5 {
		t.Errorf("params %v", out.Params)
	}
	if r := newMethod(t, "gsr", "{lambda: 0.01}").Spec().Vectors; r != (classify.VectorRequest{Features: "gabor", Step: 4}) {
		t.Errorf("gsr asks for %v", r)
	}
}

// TestMoreFoldsThanItems checks that cross-validation with more folds than
// training items is an error, not a panic.
func TestMoreFoldsThanItems(t *testing.T) {
	data, _, test := syntheticData(t, 2, 3, 40, 0.2, 19)
	m := newMethod(t, "rsr", "{sigma: [0.5, 1], lambda: 0.01}")
	var train []int
	for i := range data.Set.Len() {
		if len(train) < 4 {
			train = append(train, i)
		}
	}
	_, err := classify.Run(context.Background(), m, &classify.Split{Data: data, Train: train, Test: test[len(test)-5:], Folds: 5, Seed: 1})
	if err == nil || !strings.Contains(err.Error(), "a fold is empty") {
		t.Errorf("5 folds of 4 items: %v", err)
	}
}

// TestPCAGramAgainstSVD checks the dual PCA of pcaGram against PCA by the
// thin SVD of the centred training rows: the same number of components and
// the same Gram matrix of normalised projections, for more dimensions than
// training rows (the faces' case), fewer, and a rank-deficient training
// set where dims exceeds the rank.
func TestPCAGramAgainstSVD(t *testing.T) {
	for _, tc := range []struct{ n, m, train, rank, dims, want int }{
		{40, 60, 25, 60, 8, 8},
		{40, 12, 25, 12, 5, 5},
		{40, 30, 25, 6, 10, 6}, // rank-6 data: 6 components although 10 asked
	} {
		x := lowRankRows(tc.n, tc.m, tc.rank, 3, 0)
		train := classify.Seq(0, tc.train)
		gp, k, err := pcaGram(context.Background(), x, train, tc.dims)
		if err != nil {
			t.Fatal(err)
		}
		all := classify.Seq(0, tc.n)
		g, err := gp.Block(context.Background(), all, all, classify.Identity)
		if err != nil {
			t.Fatal(err)
		}
		// Reference: thin SVD of the centred training rows.
		mean := make([]float64, tc.m)
		for _, i := range train {
			for j := range tc.m {
				mean[j] += x.At(i, j) / float64(tc.train)
			}
		}
		centred := mat.NewDense(tc.n, tc.m, nil)
		for i := range tc.n {
			for j := range tc.m {
				centred.Set(i, j, x.At(i, j)-mean[j])
			}
		}
		var svd mat.SVD
		if !svd.Factorize(centred.Slice(0, tc.train, 0, tc.m), mat.SVDThin) {
			t.Fatal("reference SVD failed")
		}
		sv := svd.Values(nil)
		kr := 0
		for kr < min(tc.dims, len(sv)) && sv[kr] > 1e-7*sv[0] {
			kr++
		}
		if k != kr || k != tc.want {
			t.Errorf("%+v: %d components, SVD %d", tc, k, kr)
			continue
		}
		var v, y mat.Dense
		svd.VTo(&v)
		y.Mul(centred, v.Slice(0, tc.m, 0, kr))
		for i := range tc.n {
			row := y.RawRowView(i)
			nrm := floats.Norm(row, 2)
			floats.Scale(1/nrm, row)
		}
		var want mat.Dense
		want.Mul(&y, y.T())
		for i := range tc.n {
			for j := range tc.n {
				if math.Abs(g.At(i, j)-want.At(i, j)) > 1e-8 {
					t.Fatalf("%+v: G[%d,%d] = %v, SVD %v", tc, i, j, g.At(i, j), want.At(i, j))
				}
			}
		}
	}
}

// TestNormalisePlanes checks the per-plane standardisation of gsr's
// vectors: every block of every row has mean 0 and variance 1, a constant
// block becomes zeros, the input is untouched, and a length that does not
// split into the planes is an error.
func TestNormalisePlanes(t *testing.T) {
	x := mat.NewDense(2, 6, []float64{1, 2, 3, 10, 10, 10, -4, 0, 4, 100, 200, 600})
	orig := mat.DenseCopyOf(x)
	y, err := normalisePlanes(x, 2)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]float64{
		{-math.Sqrt(1.5), 0, math.Sqrt(1.5), 0, 0, 0},
		{-math.Sqrt(1.5), 0, math.Sqrt(1.5)},
	}
	for i, w := range want {
		for j, v := range w {
			if math.Abs(y.At(i, j)-v) > 1e-12 {
				t.Errorf("row %d: %v, want %v", i, y.RawRowView(i), w)
				break
			}
		}
	}
	b := y.RawRowView(1)[3:]
	if m, s := floats.Sum(b)/3, floats.Norm(b, 2)/math.Sqrt(3); math.Abs(m) > 1e-12 || math.Abs(s-1) > 1e-12 {
		t.Errorf("row 1 plane 1: mean %v, rms %v", m, s)
	}
	if !mat.Equal(x, orig) {
		t.Error("input changed")
	}
	if _, err := normalisePlanes(x, 4); err == nil {
		t.Error("6 values into 4 planes: no error")
	}
}

// prepare computes the pairwise quantities that m's Spec declares on the
// split, as the engine does before it runs the methods.
func prepare(t testing.TB, m classify.Method, s *classify.Split) {
	t.Helper()
	for _, q := range m.Spec().Quantities {
		if err := classify.PrepareSplit(context.Background(), s, q); err != nil {
			t.Fatal(err)
		}
	}
}

// TestContract checks what every method type declares and how it treats
// its context, fitted with its registry Example: a Spec whose Params
// record as JSON and with at least one candidate, a dictionary exactly
// with an energy tracer; and Classify on a cancelled
// context returns its error rather than a result.
func TestContract(t *testing.T) {
	data, train, test := syntheticData(t, 3, 3, 60, 0.2, 21)
	data.Vectors = map[classify.VectorRequest]*classify.Vectors{}
	for _, r := range []classify.VectorRequest{{Features: "I", Step: 1}, {Features: "gabor", Step: 4}} {
		data.Vectors[r] = classify.NewVectors(mat.NewDense(data.Set.Len(), 12, nil))
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, typ := range Names() {
		m := newMethod(t, typ, Types()[typ].Example)
		spec := m.Spec()
		if b, err := json.Marshal(spec.Params); err != nil || len(b) < 3 {
			t.Errorf("%s: Params recorded as %s, %v", typ, b, err)
		}
		if spec.Candidates < 1 {
			t.Errorf("%s: %d candidates", typ, spec.Candidates)
		}
		if spec.Dictionary != (spec.Energy != nil) {
			t.Errorf("%s: dictionary %v, energy tracer %v", typ, spec.Dictionary, spec.Energy != nil)
		}
		if len(spec.Warnings) > 0 {
			t.Errorf("%s: warnings %q for canonical parameters", typ, spec.Warnings)
		}
		split := &classify.Split{Data: data, Train: train, Test: test, Workers: 2, Folds: 3, Seed: 1,
			Dictionary: &classify.Dictionary{Learn: train[:10], Atoms: 4}}
		if out, err := classify.Run(ctx, m, split); !errors.Is(err, context.Canceled) {
			t.Errorf("%s on a cancelled context: %v, %v; want context.Canceled", typ, out, err)
		}
	}
}

// TestSharedScratch runs each method that takes kernel blocks (rsr,
// logE-SR, nn under both metrics, stein-svm) on one split twice, with
// its own block buffers and with a Scratch the split lends to them all
// (dirtied by the earlier runs), and wants the same outcomes.
func TestSharedScratch(t *testing.T) {
	data, train, test := syntheticData(t, 3, 3, 60, 0.2, 23)
	var shared classify.Scratch
	for _, c := range []struct{ typ, params string }{
		{"rsr", "{sigma: [0.5, 1], lambda: 0.05}"}, {"logE-SR", "{lambda: 0.05}"},
		{"nn", "{metric: airm}"}, {"nn", "{metric: stein}"}, {"stein-svm", "{sigma: 1, c: [1, 10]}"},
	} {
		var outs [2]*classify.Outcome
		for k, scratch := range []*classify.Scratch{nil, &shared} {
			m := newMethod(t, c.typ, c.params)
			s := &classify.Split{Data: data, Train: train, Test: test, Workers: 2, Folds: 2, Seed: 1, Scratch: scratch}
			prepare(t, m, s)
			out, err := classify.Run(context.Background(), m, s)
			if err != nil {
				t.Fatalf("%s %s: %v", c.typ, c.params, err)
			}
			outs[k] = out
		}
		// %v rather than reflect.DeepEqual: the scores' SCI is NaN for
		// methods without codes.
		if fmt.Sprintf("%+v", *outs[0]) != fmt.Sprintf("%+v", *outs[1]) {
			t.Errorf("%s %s: outcome with the shared scratch differs from its own's", c.typ, c.params)
		}
	}
}
