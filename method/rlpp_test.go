package method

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/covpipe/covpipe/classify"
	"github.com/covpipe/covpipe/lpp"
	"github.com/covpipe/covpipe/spd"
	"github.com/covpipe/covpipe/synth"
	"gonum.org/v1/gonum/mat"
)

// TestRLPPRanking checks the method's rankings against a projection fitted
// here on Stein kernel values evaluated matrix by matrix (not from the
// cached divergences), with classes ranked by brute force over their
// members' distances.
func TestRLPPRanking(t *testing.T) {
	data, train, test := syntheticData(t, 5, 3, 150, 0.5, 22)
	m := newMethod(t, "rlpp", "{sigma: 1, dims: 3, neighbours: 4}")
	out, err := classify.Run(context.Background(), m, &classify.Split{Data: data, Train: train, Test: test, Workers: 3, Ranks: 5})
	if err != nil {
		t.Fatal(err)
	}
	kern := spd.SteinKernel{Sigma: 1}
	gram := func(rows, cols []int) *mat.Dense {
		g := mat.NewDense(len(rows), len(cols), nil)
		for a, i := range rows {
			for b, j := range cols {
				v, err := kern.Eval(data.Set.View(i), data.Set.View(j))
				if err != nil {
					t.Fatal(err)
				}
				g.Set(a, b, v)
			}
		}
		return g
	}
	ktr := gram(train, train)
	p, err := lpp.Fit(context.Background(), mat.NewSymDense(len(train), ktr.RawMatrix().Data), classify.Pick(data.Labels, train),
		lpp.Options{Dims: 3, Neighbours: 4, Supervised: true, Center: true})
	if err != nil {
		t.Fatal(err)
	}
	ytr, _ := p.Transform(ktr)
	yte, _ := p.Transform(gram(test, train))
	agree := 0
	for q := range test {
		best := map[int]float64{}
		for a, j := range train {
			var d float64
			for c := range 3 {
				d += math.Pow(yte.At(q, c)-ytr.At(a, c), 2)
			}
			if b, ok := best[data.Labels[j]]; !ok || d < b {
				best[data.Labels[j]] = d
			}
		}
		// Kernel values from divergences and from determinants differ by
		// rounding; accept a different order only between near ties.
		want := rankByValue(best)
		if slices.Equal(out.Ranking[q], want) {
			agree++
			continue
		}
		for r := range want {
			if out.Ranking[q][r] != want[r] && math.Abs(best[out.Ranking[q][r]]-best[want[r]]) > 1e-6*(1+best[want[r]]) {
				t.Fatalf("query %d: ranking %v, brute force %v (distances %v)", q, out.Ranking[q], want, best)
			}
		}
	}
	if agree < len(test)*9/10 {
		t.Errorf("%d of %d rankings agree exactly", agree, len(test))
	}
}

// TestRLPPAccuracy checks RLPP on synthetic classes: far above chance, a
// full ranking led by the prediction, and the default dims (classes − 1)
// recorded.
func TestRLPPAccuracy(t *testing.T) {
	for _, tc := range []struct {
		classes  int
		variance float64
		params   string
		min      float64
		dims     float64
	}{
		{4, 0.2, "sigma: 1", 80, 3},
		{8, 0.6, "{sigma: 2, neighbours: 3}", 50, 7}, // chance 12.5%
		{4, 0.6, "{sigma: 0.5, dims: 2, heat: 0.5}", 50, 2},
	} {
		data, train, test := syntheticData(t, tc.classes, 3, 40*tc.classes, tc.variance, 21)
		m := newMethod(t, "rlpp", tc.params)
		out, err := classify.Run(context.Background(), m, &classify.Split{Data: data, Train: train, Test: test, Workers: 2, Ranks: tc.classes})
		if err != nil {
			t.Fatalf("%s: %v", tc.params, err)
		}
		acc := classify.Accuracy(out.Pred, classify.Pick(data.Labels, test))
		t.Logf("%s on %d classes: accuracy %.1f%%, params %v", tc.params, tc.classes, acc, out.Params)
		if acc < tc.min {
			t.Errorf("%s: accuracy %.1f%% on %d classes", tc.params, acc, tc.classes)
		}
		for q, r := range out.Ranking {
			if len(r) != tc.classes || r[0] != out.Pred[q] {
				t.Fatalf("%s: ranking %v, prediction %d", tc.params, r, out.Pred[q])
			}
		}
		if out.Params["dims"] != tc.dims || out.Params["sigma"] == 0 || !(out.Params["heat"] > 0) {
			t.Errorf("%s: params %v, want dims %v", tc.params, out.Params, tc.dims)
		}
	}
}

// TestRLPPSelect checks cross-validated choice among lists: the chosen
// values come from the lists, and the same split gives the same choice.
func TestRLPPSelect(t *testing.T) {
	data, train, test := syntheticData(t, 4, 3, 160, 0.5, 23)
	m := newMethod(t, "rlpp", "{sigma: [0.5, 2], dims: [1, 3], neighbours: [2, 6], heat: [0.5, 4]}")
	if got := m.Spec().Candidates; got != 16 {
		t.Errorf("%d candidates, want 16", got)
	}
	split := &classify.Split{Data: data, Train: train, Test: test, Folds: 3, Seed: 4, Workers: 2}
	a, err := classify.Run(context.Background(), m, split)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains([]float64{0.5, 2}, a.Params["sigma"]) || !slices.Contains([]float64{1, 3}, a.Params["dims"]) ||
		!slices.Contains([]float64{2, 6}, a.Params["neighbours"]) || !slices.Contains([]float64{0.5, 4}, a.Params["heat"]) {
		t.Errorf("chosen params %v not among the candidates", a.Params)
	}
	b, err := classify.Run(context.Background(), m, split)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(a.Pred, b.Pred) {
		t.Error("same split, different predictions")
	}
	if acc := classify.Accuracy(a.Pred, classify.Pick(data.Labels, test)); acc < 60 {
		t.Errorf("accuracy %.1f%%", acc)
	}
}

// TestRLPPSigmaAndDims checks the checks that depend on the data: σ by
// Theorem 1 on the matrix size unless pseudo_kernel, and dims against the
// training items.
func TestRLPPSigmaAndDims(t *testing.T) {
	m := newMethod(t, "rlpp", "sigma: [1, 0.7]")
	if err := m.Spec().CheckDim(3); err == nil || !strings.Contains(err.Error(), "sigma = 0.7") {
		t.Errorf("σ = 0.7 on 3×3: %v", err)
	}
	if m = newMethod(t, "rlpp", "{sigma: 0.7, pseudo_kernel: true}"); m.Spec().CheckDim(3) != nil {
		t.Error("pseudo_kernel: σ = 0.7 refused")
	}
	// Asking for more dimensions than the training items is an error
	// naming the method, not a panic.
	data, train, test := syntheticData(t, 2, 3, 8, 0.5, 24)
	m = newMethod(t, "rlpp", "{sigma: 1, dims: 9}")
	if _, err := classify.Run(context.Background(), m, &classify.Split{Data: data, Train: train, Test: test}); err == nil || !strings.Contains(err.Error(), "rlpp") {
		t.Errorf("dims 9 of 4 training items: %v", err)
	}
}

// BenchmarkRLPP fits RLPP on 320 training items of 32 classes (10 each,
// 3×3 synthetic SPD matrices, σ = 1, default dims 31) and classifies 5000
// queries by nearest neighbour in the projection; the Stein divergences
// are computed before timing, as the engine's "pairwise" stage does.
func BenchmarkRLPP(b *testing.B) {
	o := synth.Options{Classes: 32, Dim: 3, Samples: 32 * 167, Train: 10.0 / 167, Spread: 1, Variance: 0.5}
	tr, te, err := synth.Classes(o, 25)
	if err != nil {
		b.Fatal(err)
	}
	set, err := spd.NewSet(append(tr.X, te.X...))
	if err != nil {
		b.Fatal(err)
	}
	data := classify.NewData(set, append(tr.Labels, te.Labels...), 0)
	train, test := classify.Seq(0, len(tr.X)), classify.Seq(len(tr.X), len(tr.X)+5000)
	if len(train) != 320 {
		b.Fatalf("%d training items", len(train))
	}
	m := newMethod(b, "rlpp", "sigma: 1")
	prepare(b, m, &classify.Split{Data: data, Train: train, Test: test})
	for _, w := range []int{1, 0} {
		b.Run(map[int]string{1: "workers=1", 0: "workers=max"}[w], func(b *testing.B) {
			for b.Loop() {
				if _, err := classify.Run(context.Background(), m, &classify.Split{Data: data, Train: train, Test: test, Workers: w, Ranks: 10}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
