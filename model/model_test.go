package model_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/covpipe/covpipe/classify"
	"github.com/covpipe/covpipe/covariance"
	"github.com/covpipe/covpipe/datasets"
	"github.com/covpipe/covpipe/describe"
	"github.com/covpipe/covpipe/features"
	"github.com/covpipe/covpipe/internal/imagetest"
	"github.com/covpipe/covpipe/method"
	"github.com/covpipe/covpipe/model"
	"github.com/covpipe/covpipe/spd"
	"github.com/covpipe/covpipe/store"
	"go.yaml.in/yaml/v3"
)

// gratingAngles are the classes of gratingFolders: stripes of these
// directions (radians), far enough apart to be told apart.
var gratingAngles = map[string]float64{"a-flat": 0, "b-steep": math.Pi / 3, "c-back": 2 * math.Pi / 3}

// gratingFolders writes, under a temporary folder, the class folders
// train/CLASS and test/CLASS of 16×16 noisy gratings (train per class in
// train, test per class in test) and returns the two folders.
func gratingFolders(t testing.TB, train, test int) (trainDir, testDir string) {
	t.Helper()
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(3, 4))
	for _, class := range slices.Sorted(maps.Keys(gratingAngles)) {
		angle := gratingAngles[class]
		for i := range train + test {
			part := "train"
			if i >= train {
				part = "test"
			}
			img := imagetest.Grating(rng, 16, 16, angle+0.1*rng.NormFloat64(), 4+rng.Float64(), 0.15)
			imagetest.Write(t, filepath.Join(dir, part, class, strconv.Itoa(i)+".png"), img)
		}
	}
	return filepath.Join(dir, "train"), filepath.Join(dir, "test")
}

// open opens the folder dir as a dataset list.
func open(t testing.TB, dir string) []*datasets.List {
	t.Helper()
	l, err := datasets.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	return []*datasets.List{l}
}

// textureOptions are the extraction options of the tests: the texture
// preset (d = 5) with a trace ridge.
func textureOptions(t testing.TB) describe.Options {
	t.Helper()
	set, err := features.Parse("texture")
	if err != nil {
		t.Fatal(err)
	}
	reg, err := covariance.NewRegularization("trace-ridge", 1e-3)
	if err != nil {
		t.Fatal(err)
	}
	return describe.Options{Features: set, Reg: reg}
}

// methodCases are the methods of the tests, each with a list of
// candidates where it takes one, so that cross-validation chooses.
var methodCases = []struct {
	method string
	params map[string]any
}{
	{"rsr", map[string]any{"sigma": 0.5, "lambda_ratio": []float64{0.05, 0.2}, "tolerance": 1e-6}},
	{"logE-SR", map[string]any{"lambda": []float64{1e-3, 1e-2}, "tolerance": 1e-6}},
	{"stein-svm", map[string]any{"sigma": 0.5, "c": []float64{1, 100}}},
	{"nn", map[string]any{"metric": "airm"}},
	{"nn", map[string]any{"metric": "stein"}},
}

// collect describes the images of the folder dir with o.
func collect(t testing.TB, dir string, o describe.Options) *store.Output {
	t.Helper()
	out, err := describe.Collect(context.Background(), open(t, dir), o)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// newMethod makes the method of type typ with params, as an experiment
// file's entry gives them.
func newMethod(t testing.TB, typ string, params map[string]any) classify.Method {
	t.Helper()
	m, err := buildMethod(typ, params)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// buildMethod constructs method type typ with params, as a config entry
// gives them.
func buildMethod(typ string, params map[string]any) (classify.Method, error) {
	var node yaml.Node
	if err := node.Encode(params); err != nil {
		return nil, err
	}
	return method.Types()[typ].New(&node)
}

// saveLoad saves m into a temporary folder and loads it back.
func saveLoad(t testing.TB, m *model.Model) *model.Model {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "model")
	if err := m.Save(dir); err != nil {
		t.Fatal(err)
	}
	back, err := model.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	return back
}

// same reports whether two predictions are the same bit for bit.
func same(a, b model.Prediction) bool {
	bits := math.Float64bits
	return a.Input == b.Input && a.Path == b.Path && a.Region == b.Region && a.Index == b.Index &&
		a.Label == b.Label && a.Second == b.Second && a.Rejected == b.Rejected &&
		bits(a.Score) == bits(b.Score) && bits(a.SecondScore) == bits(b.SecondScore) && bits(a.SCI) == bits(b.SCI)
}

// TestRoundTrip fits every method on images, saves the model, loads it
// back and predicts: the loaded model answers bit for bit as the fitted
// one, whatever the worker count, and recognises the gratings' classes.
func TestRoundTrip(t *testing.T) {
	trainDir, testDir := gratingFolders(t, 6, 4)
	ctx := context.Background()
	for _, tc := range methodCases {
		t.Run(tc.method+"/"+strconv.Itoa(len(tc.params)), func(t *testing.T) {
			m, err := model.Fit(ctx, open(t, trainDir), model.Options{Method: tc.method, Params: tc.params, Seed: 7, Describe: textureOptions(t)})
			if err != nil {
				t.Fatal(err)
			}
			want, err := m.Predict(ctx, open(t, testDir), model.PredictOptions{Workers: 1})
			if err != nil {
				t.Fatal(err)
			}
			if len(want) != 4*len(gratingAngles) {
				t.Fatalf("%d predictions for %d images", len(want), 4*len(gratingAngles))
			}
			right := 0
			for _, p := range want {
				if filepath.Dir(p.Path) == p.Label {
					right++
				}
				// The SVM's label is the vote's, whose probability may be
				// below the second's; the probabilities of two classes sum
				// to at most 1.
				ordered := p.Score >= p.SecondScore || tc.method == "stein-svm" && p.Score+p.SecondScore <= 1+1e-12
				if !ordered || p.SecondScore < 0 || p.Score > 1 || p.Second == p.Label {
					t.Errorf("%s: label %s score %v, second %s score %v: want 1 >= score >= second score >= 0 of another class", p.Path, p.Label, p.Score, p.Second, p.SecondScore)
				}
				if isSRC := tc.method != "nn" && tc.method != "stein-svm"; isSRC == math.IsNaN(p.SCI) {
					t.Errorf("%s: SCI %v for %s", p.Path, p.SCI, tc.method)
				}
			}
			if right < len(want)*3/4 {
				t.Errorf("%d of %d gratings recognised, want at least 3/4", right, len(want))
			}
			back := saveLoad(t, m)
			if back.Method() != m.Method() || !slices.Equal(back.Classes(), m.Classes()) || back.Dim() != 5 {
				t.Errorf("loaded %s of %v (d %d), want %s of %v", back.Method(), back.Classes(), back.Dim(), m.Method(), m.Classes())
			}
			got, err := back.Predict(ctx, open(t, testDir), model.PredictOptions{Workers: 3})
			if err != nil {
				t.Fatal(err)
			}
			for i := range want {
				if !same(got[i], want[i]) {
					t.Errorf("item %d: loaded model %+v, fitted %+v", i, got[i], want[i])
				}
			}
		})
	}
}

// runSplit returns the split of a run whose training items are train's
// descriptors and whose test items are test's, in one Data, the training
// items first, labelled by classes, with seed's folds.
func runSplit(t *testing.T, train, test *store.Output, classes []string, seed uint64) *classify.Split {
	t.Helper()
	var labels []int
	for _, r := range slices.Concat(train.Rows, test.Rows) {
		c, _ := slices.BinarySearch(classes, r.Label)
		labels = append(labels, c)
	}
	set, err := spd.NewSetFromData(train.Meta.Dim, slices.Concat(train.Data, test.Data))
	if err != nil {
		t.Fatal(err)
	}
	n := len(train.Rows)
	data := &classify.Data{Set: set, Labels: labels, Classes: classes, Ridge: train.Meta.Ridge.Eps}
	return &classify.Split{Data: data, Train: classify.Seq(0, n), Test: classify.Seq(n, set.Len()), Seed: seed, Folds: model.DefaultFolds}
}

// TestAsRunAnswers checks that a model answers for test descriptors as
// the method answers on a split of covpipe run whose training items are
// the model's, with the same folds (seed): labels and scores bit for bit,
// and the same chosen parameters.
func TestAsRunAnswers(t *testing.T) {
	trainDir, testDir := gratingFolders(t, 6, 4)
	ctx := context.Background()
	o := textureOptions(t)
	train, test := collect(t, trainDir, o), collect(t, testDir, o)
	for _, tc := range methodCases {
		t.Run(tc.method, func(t *testing.T) {
			m, err := model.FitOutput(ctx, train, model.Options{Method: tc.method, Params: tc.params, Seed: 11})
			if err != nil {
				t.Fatal(err)
			}
			got, err := m.PredictOutput(ctx, test, model.PredictOptions{})
			if err != nil {
				t.Fatal(err)
			}
			classes := m.Classes()
			split := runSplit(t, train, test, classes, 11)
			meth := newMethod(t, tc.method, tc.params)
			out, err := classify.Run(ctx, meth, split)
			if err != nil {
				t.Fatal(err)
			}
			for k, v := range out.Params {
				if m.Chosen()[k] != v {
					t.Errorf("chosen %s = %v, the run's %v", k, m.Chosen()[k], v)
				}
			}
			for i, s := range out.Scores {
				p := got[i]
				bits := math.Float64bits
				if p.Label != classes[s.Label] || bits(p.Score) != bits(s.Score) || bits(p.SecondScore) != bits(s.SecondScore) || bits(p.SCI) != bits(s.SCI) {
					t.Errorf("item %d: model %s %v (second %v, SCI %v), run %s %v (second %v, SCI %v)",
						i, p.Label, p.Score, p.SecondScore, p.SCI, classes[s.Label], s.Score, s.SecondScore, s.SCI)
				}
			}
		})
	}
}

// TestReject checks that an answer is rejected exactly when its
// confidence (the SCI for rsr, the score for nn) is below the threshold,
// and that a threshold of zero rejects none.
func TestReject(t *testing.T) {
	trainDir, testDir := gratingFolders(t, 6, 4)
	ctx := context.Background()
	for _, tc := range methodCases {
		m, err := model.Fit(ctx, open(t, trainDir), model.Options{Method: tc.method, Params: tc.params, Describe: textureOptions(t)})
		if err != nil {
			t.Fatal(err)
		}
		all, err := m.Predict(ctx, open(t, testDir), model.PredictOptions{})
		if err != nil {
			t.Fatal(err)
		}
		conf := make([]float64, len(all))
		for i, p := range all {
			if p.Rejected {
				t.Errorf("%s: %s rejected without a threshold", tc.method, p.Path)
			}
			if want := path.Dir(p.Path); p.Truth != want {
				t.Errorf("%s: %s has true label %q, want its class folder's %q", tc.method, p.Path, p.Truth, want)
			}
			conf[i] = p.Score
			if !math.IsNaN(p.SCI) {
				conf[i] = p.SCI
			}
		}
		// The median confidence rejects about half.
		threshold := slices.Sorted(slices.Values(conf))[len(conf)/2]
		ps, err := m.Predict(ctx, open(t, testDir), model.PredictOptions{Reject: threshold})
		if err != nil {
			t.Fatal(err)
		}
		for i, p := range ps {
			if p.Rejected != (conf[i] < threshold) || p.Label != all[i].Label {
				t.Errorf("%s: %s confidence %v, threshold %v: rejected %v (label %s, was %s)", tc.method, p.Path, conf[i], threshold, p.Rejected, p.Label, all[i].Label)
			}
		}
	}
}

// TestRejectRange checks that every entry point refuses a threshold
// outside [0, 1], where the confidences lie: above 1 would reject every
// answer, NaN none.
func TestRejectRange(t *testing.T) {
	trainDir, testDir := gratingFolders(t, 3, 2)
	ctx := context.Background()
	m, err := model.Fit(ctx, open(t, trainDir), model.Options{Method: "nn", Params: map[string]any{"metric": "airm"}, Describe: textureOptions(t)})
	if err != nil {
		t.Fatal(err)
	}
	out, err := describe.Collect(ctx, open(t, testDir), textureOptions(t))
	if err != nil {
		t.Fatal(err)
	}
	set, err := spd.NewSetFromData(out.Meta.Dim, out.Data)
	if err != nil {
		t.Fatal(err)
	}
	for _, reject := range []float64{-0.5, 1.5, math.NaN(), math.Inf(1)} {
		o := model.PredictOptions{Reject: reject}
		want := fmt.Sprintf("model: rejection threshold %v: want a confidence in [0, 1]", reject)
		for name, call := range map[string]func() ([]model.Prediction, error){
			"Predict":       func() ([]model.Prediction, error) { return m.Predict(ctx, open(t, testDir), o) },
			"PredictOutput": func() ([]model.Prediction, error) { return m.PredictOutput(ctx, out, o) },
			"PredictSet":    func() ([]model.Prediction, error) { return m.PredictSet(ctx, set, o) },
		} {
			if ps, err := call(); ps != nil || err == nil || !contains(err.Error(), want) {
				t.Errorf("%s with Reject %v: %v, want %q", name, reject, err, want)
			}
		}
	}
	if _, err := m.PredictSet(ctx, set, model.PredictOptions{Reject: 1}); err != nil {
		t.Errorf("Reject 1: %v", err)
	}
}

// TestFitErrors checks that Fit refuses what it cannot fit, naming it.
func TestFitErrors(t *testing.T) {
	trainDir, _ := gratingFolders(t, 3, 0)
	ctx := context.Background()
	out, err := describe.Collect(ctx, open(t, trainDir), textureOptions(t))
	if err != nil {
		t.Fatal(err)
	}
	unlabelled := *out
	unlabelled.Rows = slices.Clone(out.Rows)
	unlabelled.Rows[2].Label = ""
	one := *out
	one.Rows = slices.Clone(out.Rows)
	for i := range one.Rows {
		one.Rows[i].Label = "x"
	}
	airm := map[string]any{"metric": "airm"}
	for _, tc := range []struct {
		name string
		out  *store.Output
		o    model.Options
		want string
	}{
		{"method", out, model.Options{Method: "nope"}, `method "nope": want one of`},
		{"parameter", out, model.Options{Method: "rsr", Params: map[string]any{"sigmaa": 1}}, "sigmaa"},
		{"theorem 1", out, model.Options{Method: "rsr", Params: map[string]any{"sigma": 1.7, "lambda": 0.1}}, "sigma"},
		{"folds", out, model.Options{Method: "rsr", Params: map[string]any{"sigma": 0.5, "lambda": []float64{0.1, 0.2}}, Folds: 1}, "folds >= 2"},
		{"negative folds", out, model.Options{Method: "nn", Folds: -2}, "-2 folds"},
		{"huge folds", out, model.Options{Method: "nn", Params: airm, Folds: 1e9}, "folds: 1000000000 cross-validation folds of 9 training items keep their items' indices, about 112 GiB, over the memory limit of 4 GiB: lower folds"},
		{"folds over the limit", out, model.Options{Method: "nn", Params: airm, Folds: 3, MaxMemory: 100}, "folds: 3 cross-validation folds"},
		{"negative limit", out, model.Options{Method: "nn", Params: airm, MaxMemory: -1}, "memory limit -1 bytes"},
		{"no label", &unlabelled, model.Options{Method: "nn", Params: airm}, "has no label"},
		{"one class", &one, model.Options{Method: "nn", Params: airm}, "want at least two classes"},
		// Stratified folds need every class in every fold.
		{"class thinner than folds", out, model.Options{Method: "rsr", Params: map[string]any{"sigma": 0.5, "lambda": []float64{0.1, 0.2}}, Folds: 4},
			`model: class "a-flat" has 3 training items, fewer than the 4 cross-validation folds that choose among the candidates, so some folds would hold none of it: lower the folds to 3`},
	} {
		_, err := model.FitOutput(ctx, tc.out, tc.o)
		if err == nil || !contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error containing %q", tc.name, err, tc.want)
		}
		if strings.HasPrefix(tc.want, "folds: ") && !errors.Is(err, describe.ErrMemory) {
			t.Errorf("%s: %v, want describe.ErrMemory", tc.name, err)
		}
	}
	// Without a choice to make, the folds do not matter.
	if _, err := model.FitOutput(ctx, out, model.Options{Method: "nn", Params: airm, Folds: 4}); err != nil {
		t.Errorf("nn with 4 folds of 3 items per class: %v", err)
	}
	// Fit refuses the folds before it extracts an image.
	_, err = model.Fit(ctx, open(t, trainDir), model.Options{Method: "nn", Params: airm, Folds: 1e9, Describe: textureOptions(t)})
	if !errors.Is(err, describe.ErrMemory) || !contains(err.Error(), "folds: 1000000000 cross-validation folds of 9 training items") {
		t.Errorf("Fit with 1e9 folds: %v, want the memory error", err)
	}
}

// contains reports whether s contains sub, as strings.Contains.
func contains(s, sub string) bool { return strings.Contains(s, sub) }
