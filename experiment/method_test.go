package experiment

import (
	"math"
	"reflect"
	"sort"
	"testing"

	"github.com/covpipe/covpipe/datasets"
	"github.com/covpipe/covpipe/spd"
)

func syntheticData(t testing.TB, classes, dim, samples int, variance float64, seed uint64) (*Data, []int, []int) {
	t.Helper()
	o := datasets.SyntheticOptions{Classes: classes, Dim: dim, Samples: samples, Train: 0.5, Spread: 1, Variance: variance}
	train, test, err := datasets.Synthetic(o, seed)
	if err != nil {
		t.Fatal(err)
	}
	set, err := spd.NewSet(append(train.X, test.X...))
	if err != nil {
		t.Fatal(err)
	}
	return NewData(set, append(train.Labels, test.Labels...), 2), seq(0, len(train.X)), seq(len(train.X), set.Len())
}

// TestNNAIRMExact checks the pruned search against brute force: the same
// nearest class and the same exact order of the first R classes.
func TestNNAIRMExact(t *testing.T) {
	data, train, test := syntheticData(t, 6, 4, 240, 0.6, 11)
	m, _ := NewMethod(MethodConfig{Name: "nn-airm", Type: "nn-airm"})
	const R = 4
	out, err := m.Classify(&Split{Data: data, Train: train, Test: test, Workers: 2, Ranks: R})
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
	for _, mc := range []MethodConfig{
		{Name: "nn-stein", Type: "nn-stein"},
		{Name: "logE-SR", Type: "logE-SR", Lambda: Floats{0.01}},
		{Name: "rsr", Type: "rsr", Sigma: Floats{1}, Lambda: Floats{0.01}},
	} {
		m, err := NewMethod(mc)
		if err != nil {
			t.Fatal(err)
		}
		out, err := m.Classify(&Split{Data: data, Train: train, Test: test, Workers: 2, Ranks: 2})
		if err != nil {
			t.Fatal(err)
		}
		acc := accuracy(out.Pred, pick(data.Labels, test))
		if acc < 80 {
			t.Errorf("%s: accuracy %.1f%% on well-separated classes", mc.Name, acc)
		}
		for q, r := range out.Ranking {
			if r[0] != out.Pred[q] || len(r) != 4 {
				t.Fatalf("%s: ranking %v vs prediction %d", mc.Name, r, out.Pred[q])
			}
		}
	}
	// nn-stein ranks classes by their nearest member's divergence.
	div, _ := data.SteinDivergences()
	m, _ := NewMethod(MethodConfig{Name: "nn-stein", Type: "nn-stein"})
	out, _ := m.Classify(&Split{Data: data, Train: train, Test: test[:5], Ranks: 4})
	for q, i := range test[:5] {
		type cd struct {
			c int
			d float64
		}
		best := map[int]float64{}
		for _, j := range train {
			if b, ok := best[data.Labels[j]]; !ok || div.At(i, j) < b {
				best[data.Labels[j]] = div.At(i, j)
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

// TestLogEuclideanGram checks the cosine Gram matrix of log-vectors against
// log-Euclidean distances: ‖u − v‖² = 2 − 2 G_uv for unit vectors, with
// u = vec log X/‖log X‖_F.
func TestLogEuclideanGram(t *testing.T) {
	data, _, _ := syntheticData(t, 2, 3, 8, 0.5, 13)
	g, err := data.LogEuclideanGram()
	if err != nil {
		t.Fatal(err)
	}
	for i := range 8 {
		li, _ := spd.Log(data.Set.View(i))
		for j := range 8 {
			lj, _ := spd.Log(data.Set.View(j))
			var dot, ni, nj float64
			for a := range 3 {
				for b := range 3 {
					dot += li.At(a, b) * lj.At(a, b)
					ni += li.At(a, b) * li.At(a, b)
					nj += lj.At(a, b) * lj.At(a, b)
				}
			}
			if want := dot / math.Sqrt(ni*nj); math.Abs(g.At(i, j)-want) > 1e-12 {
				t.Fatalf("G[%d][%d] = %g, want %g", i, j, g.At(i, j), want)
			}
		}
	}
}

// TestSelectionNeverSeesTest checks that parameter selection depends on the
// training items only: scrambling the test labels changes nothing chosen.
func TestSelectionNeverSeesTest(t *testing.T) {
	data, train, test := syntheticData(t, 4, 3, 160, 0.8, 14)
	m, _ := NewMethod(MethodConfig{Name: "rsr", Type: "rsr", Sigma: Floats{0.5, 1, 4}, Lambda: Floats{0.01, 0.1}})
	split := &Split{Data: data, Train: train, Test: test, Folds: 3, Seed: 5, Workers: 2}
	a, err := m.Classify(split)
	if err != nil {
		t.Fatal(err)
	}
	labels := append([]int(nil), data.Labels...)
	for _, i := range test {
		labels[i] = (labels[i] + 1) % 4
	}
	scrambled := NewData(data.Set, labels, 2)
	split2 := *split
	split2.Data = scrambled
	b, err := m.Classify(&split2)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a.Params, b.Params) || !reflect.DeepEqual(a.Pred, b.Pred) {
		t.Errorf("test labels influenced selection: %v vs %v", a.Params, b.Params)
	}
	if _, err := m.Classify(&Split{Data: data, Train: train, Test: test, Folds: 1}); err == nil {
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
