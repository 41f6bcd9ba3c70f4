package method

import (
	"context"
	"math"
	"slices"
	"testing"

	"github.com/covpipe/covpipe/classify"
	"github.com/covpipe/covpipe/spd"
	"github.com/covpipe/covpipe/tsc"
)

// probabilityRule is how a method type's class probabilities relate to
// its answer (classify.Outcome.Probabilities), with its registry Example.
type probabilityRule struct {
	// none: the type gives no probabilities (its Spec says so).
	none bool
	// scores: the ItemScore's scores are the probabilities of its two
	// classes, bit for bit.
	scores bool
	// vote: the label is a vote's, which need not have the largest
	// probability; otherwise it has (ties included).
	vote bool
}

// probabilityRules gives the method types whose rule is not the
// default, a probability per class whose largest is the label's: those
// whose scores are probabilities, whose label is a vote, or that give
// none. A type it does not list must give probabilities by the default
// rule.
var probabilityRules = map[string]probabilityRule{
	"rsr":       {scores: true},
	"logE-SR":   {scores: true},
	"pca-src":   {scores: true},
	"gsr":       {scores: true},
	"stein-svm": {scores: true, vote: true},
	"mdm":       {scores: true},
	"fgmdm":     {scores: true},
	// the regression's probabilities, of which the scores are two
	"tangent-space": {scores: true},
	"sdalf":         {none: true},
	"hpe":           {none: true},
}

// TestProbabilities checks every method type of the registry against
// its rule: a type whose Spec gives class probabilities answers a query
// that asks for them with a row per item over the training classes
// (CostClasses), nonnegative and summing to 1 within 1e-12, whose
// largest entry is the predicted class's unless the label is a vote's,
// and which are the scores where the rule says so; its other answers are
// those of a query that does not ask, which gets none. A type without
// them gives none when asked.
func TestProbabilities(t *testing.T) {
	for typ := range probabilityRules {
		if _, ok := Types()[typ]; !ok {
			t.Errorf("probabilityRules lists %s, not a method type", typ)
		}
	}
	for _, typ := range Names() {
		rule := probabilityRules[typ]
		t.Run(typ, func(t *testing.T) {
			ctx := context.Background()
			m := newMethod(t, typ, Types()[typ].Example)
			spec := m.Spec()
			if spec.Probabilities == rule.none {
				t.Fatalf("Spec.Probabilities %v, rule %+v", spec.Probabilities, rule)
			}
			d, n, learn, test := roundTripData(t, m, typ)
			f, err := m.Fit(ctx, roundTripTrain(d, n, learn))
			if err != nil {
				t.Fatal(err)
			}
			asked, err := f.Predict(ctx, &classify.Query{Data: d, Items: test, Ranks: 3, Probabilities: true, Workers: 2})
			if err != nil {
				t.Fatal(err)
			}
			plain, err := f.Predict(ctx, &classify.Query{Data: d, Items: test, Ranks: 3, Workers: 2})
			if err != nil {
				t.Fatal(err)
			}
			if plain.Probabilities != nil {
				t.Fatal("probabilities without asking")
			}
			probs := asked.Probabilities
			asked.Probabilities = nil
			sameOutcome(t, "asking for probabilities against not", asked, plain)
			if rule.none {
				if probs != nil {
					t.Fatal("probabilities from a type whose Spec gives none")
				}
				return
			}
			if len(probs) != len(test) {
				t.Fatalf("%d probability rows for %d queries", len(probs), len(test))
			}
			classes := classify.SortedKeys(classify.ByClass(d.Labels, classify.Seq(0, n)))
			if !slices.Equal(asked.CostClasses, classes) {
				t.Fatalf("columns %v, want the training classes %v", asked.CostClasses, classes)
			}
			at := func(q, label int) float64 { return probs[q][slices.Index(classes, label)] }
			votes := 0
			for q, p := range probs {
				if len(p) != len(classes) {
					t.Fatalf("item %d: %d probabilities for %d classes", q, len(p), len(classes))
				}
				var sum float64
				for _, v := range p {
					if !(v >= 0) {
						t.Fatalf("item %d: probabilities %v", q, p)
					}
					sum += v
				}
				if math.Abs(sum-1) > 1e-12 {
					t.Fatalf("item %d: probabilities %v sum to 1%+.3g", q, p, sum-1)
				}
				if pred := at(q, asked.Pred[q]); pred != slices.Max(p) {
					if !rule.vote {
						t.Fatalf("item %d: predicted %d of probability %v, below the largest of %v", q, asked.Pred[q], pred, p)
					}
					votes++
				}
				if rule.scores {
					s := asked.Scores[q]
					if s.Score != at(q, s.Label) || s.Second >= 0 && s.SecondScore != at(q, s.Second) {
						t.Fatalf("item %d: scores %+v, probabilities %v", q, s, p)
					}
				}
			}
			if votes > 0 {
				t.Logf("%d of %d labels (votes) are not the most probable class", votes, len(test))
			}
		})
	}
}

// TestSoftmaxNeg checks softmaxNegTo against a closed form where
// exp(−sq) itself underflows: sq = 800 + (ln 2, 0, ln 4) gives
// (2, 4, 1)/7, in place too, to the rounding of 800 + ln 2 (1e−13).
func TestSoftmaxNeg(t *testing.T) {
	sq := []float64{800 + math.Ln2, 800, 800 + 2*math.Ln2}
	want := []float64{2.0 / 7, 4.0 / 7, 1.0 / 7}
	for _, inPlace := range []bool{false, true} {
		in := slices.Clone(sq)
		p := make([]float64, 3)
		if inPlace {
			p = in
		}
		softmaxNegTo(p, in)
		for c := range want {
			if math.Abs(p[c]-want[c]) > 1e-12 {
				t.Errorf("in place %v: %v, want %v", inPlace, p, want)
				break
			}
		}
	}
}

// TestNNProbabilities checks nn's class probabilities against their
// definition evaluated directly: each class's nearest training member
// under the metric by spd.Distance, d² its square (the Stein divergence
// itself for stein), p_c = exp(−d_c²) / Σ_k exp(−d_k²). The AIRM
// ranking, which prunes classes, gives none.
func TestNNProbabilities(t *testing.T) {
	data, train, test := syntheticData(t, 3, 3, 30, 0.3, 4)
	ctx := context.Background()
	for _, metric := range spd.Metrics() {
		t.Run(metric.String(), func(t *testing.T) {
			m := newMethod(t, "nn", "{metric: "+metric.String()+"}")
			f, err := m.Fit(ctx, &classify.Train{Data: data, Items: train, Workers: 2, Folds: 2, Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			out, err := f.Predict(ctx, &classify.Query{Data: data, Items: test, Probabilities: true, Workers: 2})
			if err != nil {
				t.Fatal(err)
			}
			if metric == spd.AIRMMetric {
				if m.Spec().Probabilities || out.Probabilities != nil {
					t.Fatalf("AIRM: Spec.Probabilities %v, %d rows", m.Spec().Probabilities, len(out.Probabilities))
				}
				return
			}
			for q, i := range test {
				sq := []float64{math.Inf(1), math.Inf(1), math.Inf(1)}
				for _, j := range train {
					v, err := spd.Distance(metric, data.Set.At(i), data.Set.At(j))
					if err != nil {
						t.Fatal(err)
					}
					if metric != spd.SteinMetric {
						v *= v
					}
					sq[data.Labels[j]] = math.Min(sq[data.Labels[j]], v)
				}
				softmaxOf(t, q, out.Probabilities[q], sq)
			}
		})
	}
}

// TestTSCProbabilities checks tsc's class probabilities against the
// softmax of minus the Burg residuals that package tsc gives the items'
// codes, exp(−r_c) / Σ_k exp(−r_k).
func TestTSCProbabilities(t *testing.T) {
	data, train, test := syntheticData(t, 3, 3, 30, 0.3, 6)
	ctx := context.Background()
	f, err := newMethod(t, "tsc", "{lambda: 0.01}").Fit(ctx, &classify.Train{Data: data, Items: train, Workers: 2, Folds: 2, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	out, err := f.Predict(ctx, &classify.Query{Data: data, Items: test, Probabilities: true, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	coder, err := tsc.NewCoder(data.Set.Subset(train), tsc.Options{Lambda: 0.01})
	if err != nil {
		t.Fatal(err)
	}
	ws := coder.NewWorkspace()
	x, r := make([]float64, len(train)), make([]float64, 3)
	for q, i := range test {
		if _, err := coder.SolveTo(ctx, x, data.Set.View(i), ws); err != nil {
			t.Fatal(err)
		}
		if err := coder.ClassResidualsTo(r, data.Set.View(i), x, classify.Pick(data.Labels, train), ws); err != nil {
			t.Fatal(err)
		}
		softmaxOf(t, q, out.Probabilities[q], r)
	}
}

// softmaxOf fails unless item q's probabilities p are within 1e-12 of
// exp(−sq_c) / Σ_k exp(−sq_k), evaluated as it reads.
func softmaxOf(t *testing.T, q int, p, sq []float64) {
	t.Helper()
	var sum float64
	for _, v := range sq {
		sum += math.Exp(-v)
	}
	for c, v := range sq {
		if want := math.Exp(-v) / sum; math.Abs(p[c]-want) > 1e-12 {
			t.Fatalf("item %d: probabilities %v, want %v of class %d (of %v)", q, p, want, c, sq)
		}
	}
}
