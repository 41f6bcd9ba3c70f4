package model_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/covpipe/covpipe/classify"
	"github.com/covpipe/covpipe/internal/imagetest"
	"github.com/covpipe/covpipe/method"
	"github.com/covpipe/covpipe/model"
	"github.com/covpipe/covpipe/spd"
	"github.com/covpipe/covpipe/store"
	"go.yaml.in/yaml/v3"
	"gonum.org/v1/gonum/mat"
)

// exampleParams returns the registry's example parameters of method
// type typ (method.Type.Example) as model.Options take them.
func exampleParams(t *testing.T, typ string) map[string]any {
	t.Helper()
	var p map[string]any
	if err := yaml.Unmarshal([]byte(method.Types()[typ].Example), &p); err != nil || p == nil {
		t.Fatalf("method type %s: example parameters %q: %v", typ, method.Types()[typ].Example, err)
	}
	return p
}

// everyCandidates are the candidates of the best model of the test.
var everyCandidates = []model.Candidate{
	{Name: "a", Method: "rsr", Params: map[string]any{"sigma": 0.5, "lambda_ratio": 0.1}},
	{Name: "b", Method: "nn", Params: map[string]any{"metric": "stein"}},
}

// syntheticOutputs returns training and test descriptors of three
// classes, with per-image vectors of the features spec and step (none
// for an empty spec): random SPD 3×3 matrices around a class mean, and
// for "y,R,G,B" drawn people (imagetest.PersonPlanes) whose clothes are
// their class's.
func syntheticOutputs(t *testing.T, spec string, step int) (train, test *store.Output) {
	t.Helper()
	rng := rand.New(rand.NewPCG(3, 4))
	make1 := func(per int) *store.Output {
		out := &store.Output{Meta: store.Meta{Dim: 3}}
		if spec != "" {
			out.Meta.Vectors = &store.Vectors{FeatureSpec: spec, Step: step}
		}
		for c := range 3 {
			for range per {
				a := mat.NewDense(3, 3, nil)
				for i := range 9 {
					a.Set(i/3, i%3, rng.NormFloat64()*0.3)
				}
				var s mat.SymDense
				s.SymOuterK(1, a)
				for i := range 3 {
					s.SetSym(i, i, s.At(i, i)+1+float64(c*(i+1)))
				}
				for i := range 3 {
					for j := range 3 {
						out.Data = append(out.Data, s.At(i, j))
					}
				}
				out.Rows = append(out.Rows, store.Row{Index: len(out.Rows), Path: fmt.Sprintf("c%d/%d.png", c, len(out.Rows)), Label: fmt.Sprintf("c%d", c)})
				v := vectorOf(spec, c, rng)
				out.VectorLen = len(v)
				out.Vectors = append(out.Vectors, v...)
			}
		}
		return out
	}
	return make1(8), make1(4)
}

// vectorOf returns an image vector of class c for the features spec.
func vectorOf(spec string, c int, rng *rand.Rand) []float64 {
	switch spec {
	case "":
		return nil
	case "y,R,G,B":
		return imagetest.PersonPlanes(imagetest.Clothes[c], rng.IntN(3))
	}
	v := make([]float64, 24)
	for j := range v {
		v[j] = float64(c*(j%3)) + rng.NormFloat64()
	}
	return v
}

// TestEveryMethodAsRun checks, for every method type of the registry and
// a best model, that a model fitted on training descriptors, saved and
// loaded, answers for test descriptors as covpipe run's method on a split
// whose training items are the model's (classify.Run, the same seed):
// the same labels and scores bit for bit, and the same chosen
// parameters; a method that makes a dictionary makes it from the
// training items, as a run's split whose dictionary part is its training
// items, and a model of it codes as the fitted method does
// (Model.TransformSet); without atoms it is refused; with probabilities
// asked, the same answers and each class's probability that the run's
// fitted method gives, bit for bit, or for a method that gives none a
// refusal; likewise with class costs asked.
func TestEveryMethodAsRun(t *testing.T) {
	ctx := context.Background()
	for _, typ := range model.Methods() {
		t.Run(typ, func(t *testing.T) {
			o := model.Options{Method: typ, Seed: 5}
			if typ == "best" {
				o.Candidates = everyCandidates
			} else {
				o.Params = exampleParams(t, typ)
			}
			meth, err := runMethod(typ, o)
			if err != nil {
				t.Fatal(err)
			}
			req := meth.Spec().Vectors
			train, test := syntheticOutputs(t, req.Features, req.Step)
			dict := meth.Spec().Dictionary
			if dict {
				if _, err := model.FitOutput(ctx, train, o); err == nil || !strings.Contains(err.Error(), "--atoms") {
					t.Fatalf("FitOutput without atoms: %v, want a refusal naming --atoms", err)
				}
				o.Atoms = 5
			}
			m, err := model.FitOutput(ctx, train, o)
			if err != nil {
				t.Fatal(err)
			}
			m = saveLoad(t, m)
			got, err := m.PredictOutput(ctx, test, model.PredictOptions{Workers: 2})
			if err != nil {
				t.Fatal(err)
			}
			classes := m.Classes()
			split := runSplit(t, train, test, classes, 5)
			split.Workers = 2
			if dict {
				split.Dictionary = &classify.Dictionary{Learn: split.Train, Atoms: o.Atoms}
			}
			if !req.IsZero() {
				split.Data.Vectors = map[classify.VectorRequest]*classify.Vectors{req: classify.NewVectors(mat.NewDense(split.Data.Set.Len(), train.VectorLen, slices.Concat(train.Vectors, test.Vectors)))}
			}
			out, err := classify.Run(ctx, meth, split)
			if err != nil {
				t.Fatal(err)
			}
			for k, v := range out.Params {
				if c, ok := m.Chosen()[k]; !ok || c != v {
					t.Errorf("chosen %s = %v, the run's %v", k, c, v)
				}
			}
			if m.ChosenMethod() != out.Chosen {
				t.Errorf("chose %q, the run %q", m.ChosenMethod(), out.Chosen)
			}
			bits := math.Float64bits
			for i, p := range got {
				want := classes[out.Pred[i]]
				if p.Label != want {
					t.Errorf("item %d: model %s, run %s", i, p.Label, want)
				}
				if out.Scores == nil {
					continue
				}
				s := out.Scores[i]
				if bits(p.Score) != bits(s.Score) || bits(p.SecondScore) != bits(s.SecondScore) || bits(p.SCI) != bits(s.SCI) {
					t.Errorf("item %d: model scores %v %v %v, run %v %v %v", i, p.Score, p.SecondScore, p.SCI, s.Score, s.SecondScore, s.SCI)
				}
			}
			if m.Transforms() {
				checkTransform(t, ctx, m, meth, split, test)
			} else if dict || typ == "tangent-space" {
				t.Errorf("a model of %s gives no feature vectors", typ)
			}
			// Class probabilities and class costs, each asked alone: the
			// same answers, and the run's fitted method's values bit for
			// bit, or a refusal for a method that gives none (a best
			// model's chosen candidate's Spec says).
			answering := meth.Spec()
			if typ == "best" {
				c := everyCandidates[slices.IndexFunc(everyCandidates, func(c model.Candidate) bool { return c.Name == m.ChosenMethod() })]
				chosen, err := runMethod(c.Method, model.Options{Method: c.Method, Params: c.Params})
				if err != nil {
					t.Fatal(err)
				}
				answering = chosen.Spec()
			}
			for _, kind := range []struct {
				name     string
				opts     model.PredictOptions
				gives    bool
				declared bool
			}{
				{"probabilities", model.PredictOptions{Workers: 2, Probabilities: true}, m.Probabilities(), answering.Probabilities},
				{"costs", model.PredictOptions{Workers: 2, Costs: true}, m.Costs(), answering.Costs},
			} {
				with, err := m.PredictOutput(ctx, test, kind.opts)
				if kind.gives != kind.declared {
					t.Fatalf("model gives %s %v, its method %v", kind.name, kind.gives, kind.declared)
				}
				if !kind.gives {
					if err == nil || !strings.Contains(err.Error(), "gives no class "+kind.name) {
						t.Fatalf("%s of a method without them: %v", kind.name, err)
					}
					continue
				}
				if err != nil {
					t.Fatal(err)
				}
				for i, p := range with {
					if plain := got[i]; p.Label != plain.Label || bits(p.Score) != bits(plain.Score) || plain.Probabilities != nil || plain.Costs != nil {
						t.Fatalf("item %d: with %s %+v, without %+v", i, kind.name, p, plain)
					}
				}
				sameByClass(t, with, meth, split, kind.opts.Costs)
			}
		})
	}
}

// checkTransform checks that the feature vectors of model m of method
// meth (the codes of a dictionary method, tangent vectors) for the test descriptors are those of meth fitted on
// split by Fit, bit for bit.
func checkTransform(t *testing.T, ctx context.Context, m *model.Model, meth classify.Method, split *classify.Split, test *store.Output) {
	t.Helper()
	set, err := spd.NewSetFromData(test.Meta.Dim, test.Data)
	if err != nil {
		t.Fatal(err)
	}
	got, err := m.TransformSet(ctx, set, 2)
	if err != nil {
		t.Fatal(err)
	}
	f, err := meth.Fit(ctx, split.Fitting())
	if err != nil {
		t.Fatal(err)
	}
	tf, ok := f.(classify.Transformer)
	if !ok {
		t.Fatalf("%T is no classify.Transformer", f)
	}
	want, err := tf.Transform(ctx, split.Query())
	if err != nil {
		t.Fatal(err)
	}
	if r, _ := want.Dims(); r != set.Len() {
		t.Fatalf("%d vectors, want %d", r, set.Len())
	}
	for i, v := range want.RawMatrix().Data {
		if math.Float64bits(v) != math.Float64bits(got.RawMatrix().Data[i]) {
			t.Fatalf("vector entry %d: model %v, fitted %v", i, got.RawMatrix().Data[i], v)
		}
	}
}

// sameByClass fails unless the answers ps carry, bit for bit, the class
// probabilities (or with costs, the class costs) of meth fitted on
// split's training items for its test items, each answer a value per
// class.
func sameByClass(t *testing.T, ps []model.Prediction, meth classify.Method, split *classify.Split, costs bool) {
	t.Helper()
	ctx := context.Background()
	f, err := meth.Fit(ctx, split.Fitting())
	if err != nil {
		t.Fatal(err)
	}
	q := split.Query()
	q.Probabilities, q.Costs = !costs, costs
	run, err := f.Predict(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	want := run.Probabilities
	if costs {
		want = run.Costs
	}
	for i, p := range ps {
		got := p.Probabilities
		if costs {
			got = p.Costs
		}
		if len(got) != len(run.CostClasses) || len(want[i]) != len(run.CostClasses) {
			t.Fatalf("item %d: %d values, the run's %d over classes %v", i, len(got), len(want[i]), run.CostClasses)
		}
		for k, l := range run.CostClasses {
			if math.Float64bits(got[l]) != math.Float64bits(want[i][k]) {
				t.Fatalf("item %d: model %v, run %v over classes %v", i, got, want[i], run.CostClasses)
			}
		}
	}
}

// runMethod constructs the method that a run would for o: its type with
// its parameters, or a best method of the candidates.
func runMethod(typ string, o model.Options) (classify.Method, error) {
	if typ != "best" {
		return buildMethod(typ, o.Params)
	}
	b := &classify.Best{OneSE: true}
	for _, c := range o.Candidates {
		m, err := buildMethod(c.Method, c.Params)
		if err != nil {
			return nil, err
		}
		b.Names, b.Methods = append(b.Names, c.Name), append(b.Methods, m)
	}
	return b, nil
}

// TestBestChosenProbabilities checks that a best model gives class
// probabilities when its chosen candidate does, whatever the others: of
// nn with the Stein and the AIRM metrics (which gives none), the first
// listed is chosen (one standard error), and with probabilities asked
// the model answers, or refuses naming the chosen candidate.
func TestBestChosenProbabilities(t *testing.T) {
	ctx := context.Background()
	train, test := syntheticOutputs(t, "", 0)
	stein := model.Candidate{Name: "stein", Method: "nn", Params: map[string]any{"metric": "stein"}}
	airm := model.Candidate{Name: "airm", Method: "nn", Params: map[string]any{"metric": "airm"}}
	for _, tc := range []struct {
		candidates []model.Candidate
		gives      bool
	}{
		{[]model.Candidate{stein, airm}, true},
		{[]model.Candidate{airm, stein}, false},
	} {
		m, err := model.FitOutput(ctx, train, model.Options{Method: "best", Candidates: tc.candidates, Seed: 5})
		if err != nil {
			t.Fatal(err)
		}
		m = saveLoad(t, m)
		if m.ChosenMethod() != tc.candidates[0].Name {
			t.Fatalf("chose %q, want the first listed, %q", m.ChosenMethod(), tc.candidates[0].Name)
		}
		ps, err := m.PredictOutput(ctx, test, model.PredictOptions{Probabilities: true})
		switch {
		case m.Probabilities() != tc.gives:
			t.Errorf("chosen %s: Probabilities %v", m.ChosenMethod(), m.Probabilities())
		case tc.gives && (err != nil || len(ps) != len(test.Rows) || len(ps[0].Probabilities) != 3):
			t.Errorf("chosen %s: %d answers, %v", m.ChosenMethod(), len(ps), err)
		case !tc.gives && (err == nil || !strings.Contains(err.Error(), `chosen candidate "airm" (nn) gives no class probabilities`)):
			t.Errorf("chosen %s: %v, want a refusal naming it", m.ChosenMethod(), err)
		}
	}
}
