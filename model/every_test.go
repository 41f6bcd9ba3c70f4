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
	"github.com/covpipe/covpipe/model"
	"github.com/covpipe/covpipe/store"
	"gonum.org/v1/gonum/mat"
)

// everyParams gives each method type that a model fits parameters with
// candidates where it takes them; TestEveryMethodAsRun requires one for
// every type of the registry.
var everyParams = map[string]map[string]any{
	"rsr":           {"sigma": []float64{0.5, 1}, "lambda_ratio": []float64{0.05, 0.2}},
	"logE-SR":       {"lambda": []float64{1e-3, 1e-2}},
	"mdm":           {"metric": "airm"},
	"tangent-space": {"c": []float64{0.5, 5}},
	"fgmdm":         {"reference": "mean"},
	"nn":            {"metric": "airm"},
	"rlpp":          {"sigma": []float64{0.5, 1}},
	"stein-svm":     {"sigma": 0.5, "c": []float64{1, 100}},
	"tsc":           {"lambda": []float64{0.01, 0.1}},
	"pca-src":       {"dims": 5, "lambda_ratio": []float64{0.05, 0.2}},
	"gsr":           {"dims": 5, "lambda_ratio": 0.1},
	"sdalf":         {"mask": "border", "step": 1},
	"hpe":           {"mask": "border", "step": 1, "locals": 3},
	"codes":         {"dictionary": "kmeans", "sigma": 1, "lambda_ratio": 0.05},
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
// parameters; a method that learns a dictionary from a set of its own is
// refused, naming covpipe learn.
func TestEveryMethodAsRun(t *testing.T) {
	ctx := context.Background()
	for _, typ := range model.Methods() {
		t.Run(typ, func(t *testing.T) {
			o := model.Options{Method: typ, Params: everyParams[typ], Seed: 5}
			if typ == "best" {
				o.Candidates = everyCandidates
			} else if o.Params == nil {
				t.Fatalf("method type %s has no parameters here", typ)
			}
			meth, err := runMethod(typ, o)
			if err != nil {
				t.Fatal(err)
			}
			req := meth.Spec().Vectors
			train, test := syntheticOutputs(t, req.Features, req.Step)
			m, err := model.FitOutput(ctx, train, o)
			if meth.Spec().Dictionary {
				if err == nil || !strings.Contains(err.Error(), "covpipe learn") {
					t.Fatalf("FitOutput: %v, want a refusal naming covpipe learn", err)
				}
				return
			}
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
			if !req.IsZero() {
				split.Data.Vectors = map[classify.VectorRequest]*mat.Dense{req: mat.NewDense(split.Data.Set.Len(), train.VectorLen, slices.Concat(train.Vectors, test.Vectors))}
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
		})
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
