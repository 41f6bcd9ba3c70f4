package method

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/covpipe/covpipe/classify"
	"gonum.org/v1/gonum/mat"
)

// roundTripData returns items for method type typ, the n training items
// first, then items that a dictionary learns from (learn), then the
// queries.
func roundTripData(t *testing.T, m classify.Method, typ string) (d *classify.Data, n int, learn, test []int) {
	t.Helper()
	return spreadData(t, m, 0.3)
}

// spreadData is roundTripData with the synthetic classes' variance in
// the tangent space (synth.Options.Variance).
func spreadData(t *testing.T, m classify.Method, variance float64) (d *classify.Data, n int, learn, test []int) {
	t.Helper()
	r := m.Spec().Vectors
	if r.Features == sdalfFeatures {
		x, labels := drawnPeople()
		var order []int
		for i := range labels {
			if i%4 < 2 {
				order = append(order, i)
			}
		}
		n = len(order)
		for i := range labels {
			if i%4 >= 2 {
				order = append(order, i)
			}
		}
		y := mat.NewDense(len(order), x.RawMatrix().Cols, nil)
		for k, i := range order {
			y.SetRow(k, x.RawRowView(i))
		}
		d = &classify.Data{Labels: classify.Pick(labels, order), Vectors: map[classify.VectorRequest]*classify.Vectors{r: classify.NewVectors(y)}, Workers: 2}
		return d, n, nil, classify.Seq(n, len(order))
	}
	all, train, rest := syntheticData(t, 3, 3, 90, variance, 5)
	n = len(train)
	learn, test = rest[:15], rest[15:]
	if !r.IsZero() {
		rng := rand.New(rand.NewPCG(7, 1))
		x := mat.NewDense(all.Set.Len(), 20, nil)
		for i := range all.Set.Len() {
			for j := range 20 {
				x.Set(i, j, float64(all.Labels[i]*(j%3))+rng.NormFloat64())
			}
		}
		all.Vectors = map[classify.VectorRequest]*classify.Vectors{r: classify.NewVectors(x)}
	}
	return all, n, learn, test
}

// roundTripTrain is the training part of roundTripData's items: the n
// training items, and the items learn that a dictionary learns from.
func roundTripTrain(d *classify.Data, n int, learn []int) *classify.Train {
	return &classify.Train{Data: d, Items: classify.Seq(0, n), Workers: 2, Seed: 3, Folds: 3,
		Dictionary: &classify.Dictionary{Learn: learn, Atoms: 6}}
}

// trainingPart returns the training items 0..n−1 of d as a Data of their
// own, as a model folder holds them.
func trainingPart(d *classify.Data, n int) *classify.Data { return itemsOf(d, classify.Seq(0, n)) }

// TestSaveLoadRoundTrip checks every registered method type: fitted on
// training items, saved (its record through JSON), restored by its Load
// on a Data of the training items alone, the restored method answers the
// queries as the fitted one, and as the transductive Run, with the same
// labels, rankings, scores, class costs and class probabilities, bit for
// bit, and the same chosen parameters; damaged states are refused.
func TestSaveLoadRoundTrip(t *testing.T) {
	for _, typ := range Names() {
		t.Run(typ, func(t *testing.T) {
			ctx := context.Background()
			m := newMethod(t, typ, Types()[typ].Example)
			d, n, learn, test := roundTripData(t, m, typ)
			costs, probs := m.Spec().Costs, m.Spec().Probabilities
			f, err := m.Fit(ctx, roundTripTrain(d, n, learn))
			if err != nil {
				t.Fatal(err)
			}
			q := &classify.Query{Data: d, Items: test, Ranks: 3, Costs: costs, Probabilities: probs, Workers: 2}
			want, err := f.Predict(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			want.Params = f.Chosen()
			split := &classify.Split{Data: d, Train: classify.Seq(0, n), Test: test, Workers: 2, Seed: 3, Folds: 3, Ranks: 3, Costs: costs,
				Dictionary: &classify.Dictionary{Learn: learn, Atoms: 6}}
			run, err := classify.Run(ctx, m, split)
			if err != nil {
				t.Fatal(err)
			}
			// A run asks for no probabilities, and gets the same answers.
			plain := *want
			plain.Probabilities = nil
			sameOutcome(t, "Run against Fit then Predict", run, &plain)
			if probs && len(want.Probabilities) != len(test) {
				t.Fatalf("%d class probability rows for %d queries", len(want.Probabilities), len(test))
			}

			st, err := f.Save(ctx)
			if err != nil {
				t.Fatal(err)
			}
			st = reread(t, st)
			part := trainingPart(d, n)
			g, err := m.Load(ctx, st, &classify.Train{Data: part, Items: classify.Seq(0, n), Workers: 2})
			if err != nil {
				t.Fatal(err)
			}
			got, err := g.Predict(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			got.Params = g.Chosen()
			sameOutcome(t, "restored against fitted", got, want)

			damaged := *st
			damaged.Record = json.RawMessage(strings.Replace(string(st.Record), `"chosen"`, `"chosen_typo"`, 1))
			if _, err := m.Load(ctx, &damaged, &classify.Train{Data: part, Items: classify.Seq(0, n)}); err == nil {
				t.Error("a record with an unknown key is restored")
			}
			for name, a := range st.Arrays {
				damaged := *st
				damaged.Arrays = maps.Clone(st.Arrays)
				damaged.Arrays[name] = classify.Array{Shape: append([]int{a.Shape[0] + 1}, a.Shape[1:]...), Data: a.Data}
				if _, err := m.Load(ctx, &damaged, &classify.Train{Data: part, Items: classify.Seq(0, n)}); err == nil {
					t.Errorf("a state whose %s has shape %v is restored", name, damaged.Arrays[name].Shape)
				}
				delete(damaged.Arrays, name)
				if _, err := m.Load(ctx, &damaged, &classify.Train{Data: part, Items: classify.Seq(0, n)}); err == nil {
					t.Errorf("a state without %s is restored", name)
				}
			}
		})
	}
}

// reread returns st as a model folder gives it back: its record through
// JSON, its arrays copied.
func reread(t *testing.T, st *classify.State) *classify.State {
	t.Helper()
	b, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	out := &classify.State{}
	if err := json.Unmarshal(b, out); err != nil {
		t.Fatal(err)
	}
	for name, a := range st.Arrays {
		out.Put(name, slices.Clone(a.Data), a.Shape...)
	}
	return out
}

// sameOutcome fails unless two outcomes agree bit for bit on what an
// answer holds: predictions, rankings, scores, costs, probabilities and
// parameters.
func sameOutcome(t *testing.T, what string, got, want *classify.Outcome) {
	t.Helper()
	if !slices.Equal(got.Pred, want.Pred) {
		t.Fatalf("%s: predictions %v, want %v", what, got.Pred, want.Pred)
	}
	for q := range want.Ranking {
		if !slices.Equal(got.Ranking[q], want.Ranking[q]) {
			t.Fatalf("%s: item %d ranked %v, want %v", what, q, got.Ranking[q], want.Ranking[q])
		}
	}
	if fmt.Sprint(bits(scoreValues(got))) != fmt.Sprint(bits(scoreValues(want))) {
		t.Fatalf("%s: scores %v, want %v", what, got.Scores, want.Scores)
	}
	if len(got.Costs) != len(want.Costs) {
		t.Fatalf("%s: %d class costs, want %d", what, len(got.Costs), len(want.Costs))
	}
	for q := range want.Costs {
		if fmt.Sprint(bits(got.Costs[q])) != fmt.Sprint(bits(want.Costs[q])) {
			t.Fatalf("%s: item %d's costs %v, want %v", what, q, got.Costs[q], want.Costs[q])
		}
	}
	if len(got.Probabilities) != len(want.Probabilities) {
		t.Fatalf("%s: %d class probability rows, want %d", what, len(got.Probabilities), len(want.Probabilities))
	}
	for q := range want.Probabilities {
		if fmt.Sprint(bits(got.Probabilities[q])) != fmt.Sprint(bits(want.Probabilities[q])) {
			t.Fatalf("%s: item %d's probabilities %v, want %v", what, q, got.Probabilities[q], want.Probabilities[q])
		}
	}
	if !maps.Equal(got.Params, want.Params) {
		t.Fatalf("%s: parameters %v, want %v", what, got.Params, want.Params)
	}
}

func scoreValues(o *classify.Outcome) []float64 {
	var v []float64
	for _, s := range o.Scores {
		v = append(v, float64(s.Label), s.Score, float64(s.Second), s.SecondScore, s.SCI)
	}
	return v
}

func bits(v []float64) []uint64 {
	out := make([]uint64, len(v))
	for i, x := range v {
		out[i] = math.Float64bits(x)
	}
	return out
}
