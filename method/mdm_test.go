package method

import (
	"cmp"
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/covpipe/covpipe/classify"
	"github.com/covpipe/covpipe/spd"
	"gonum.org/v1/gonum/mat"
)

// diagonalItems returns classes×2 training items, two of each class
// (labels 0, 1, ...), and queries more items, all diagonal d×d with
// log-normal entries: commuting matrices, whose means and distances have
// closed forms. It also returns each item's diagonal.
func diagonalItems(t *testing.T, classes, d, queries int, seed uint64) (*classify.Data, [][]float64) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 9))
	var ms []*mat.SymDense
	var diags [][]float64
	var labels []int
	add := func(label int, centre []float64) {
		x := make([]float64, d)
		for j := range x {
			x[j] = centre[j] * math.Exp(0.4*rng.NormFloat64())
		}
		m := mat.NewSymDense(d, nil)
		for j, v := range x {
			m.SetSym(j, j, v)
		}
		ms = append(ms, m)
		diags = append(diags, x)
		labels = append(labels, label)
	}
	centres := make([][]float64, classes)
	for c := range centres {
		centres[c] = make([]float64, d)
		for j := range d {
			centres[c][j] = math.Exp(rng.NormFloat64())
		}
	}
	for c := range classes {
		add(c, centres[c])
		add(c, centres[c])
	}
	for q := range queries {
		add(q%classes, centres[q%classes])
	}
	set, err := spd.NewSet(ms)
	if err != nil {
		t.Fatal(err)
	}
	return classify.NewData(set, labels, 2), diags
}

// TestMDMTwoPointClasses checks MDM by brute force on classes of two
// diagonal matrices A and B: under airm, log-euclidean and stein the class
// mean is their entrywise geometric mean √(a_j b_j) (exp of the mean of
// the logs for airm and log-euclidean; for stein the root of x² = ab,
// which solves x/(x+a) + x/(x+b) = 1), under wasserstein ((√a_j + √b_j)/2)²
// and under euclid (a_j + b_j)/2, and the distances of a diagonal query X
// to it are sqrt(Σ_j log²(x_j/m_j)) (airm, log-euclidean),
// sqrt(Σ_j log((x_j+m_j)/2) − ½ log(x_j m_j)) (stein),
// sqrt(Σ_j (√x_j − √m_j)²) (wasserstein) and sqrt(Σ_j (x_j − m_j)²)
// (euclid). The costs are these distances, the label their argmin, the
// ranking their order and the scores the softmax of −d².
func TestMDMTwoPointClasses(t *testing.T) {
	const classes, d, queries = 4, 3, 24
	data, diags := diagonalItems(t, classes, d, queries, 5)
	train, test := classify.Seq(0, 2*classes), classify.Seq(2*classes, 2*classes+queries)
	geometric := func(a, b float64) float64 { return math.Sqrt(a * b) }
	cases := map[string]struct {
		mean     func(a, b float64) float64
		distance func(x, m []float64) float64
	}{
		"airm":          {geometric, logDistance},
		"log-euclidean": {geometric, logDistance},
		"stein": {geometric, func(x, m []float64) float64 {
			var s float64
			for j := range x {
				s += math.Log((x[j]+m[j])/2) - 0.5*math.Log(x[j]*m[j])
			}
			return math.Sqrt(s)
		}},
		"wasserstein": {func(a, b float64) float64 { return (math.Sqrt(a) + math.Sqrt(b)) * (math.Sqrt(a) + math.Sqrt(b)) / 4 },
			func(x, m []float64) float64 {
				var s float64
				for j := range x {
					s += (math.Sqrt(x[j]) - math.Sqrt(m[j])) * (math.Sqrt(x[j]) - math.Sqrt(m[j]))
				}
				return math.Sqrt(s)
			}},
		"euclid": {func(a, b float64) float64 { return (a + b) / 2 }, func(x, m []float64) float64 {
			var s float64
			for j := range x {
				s += (x[j] - m[j]) * (x[j] - m[j])
			}
			return math.Sqrt(s)
		}},
	}
	for metric, tc := range cases {
		distance := tc.distance
		t.Run(metric, func(t *testing.T) {
			m := newMethod(t, "mdm", "{metric: "+metric+"}")
			_, out := fitPredict(t, m, data, train, test)
			if !slices.Equal(out.CostClasses, []int{0, 1, 2, 3}) {
				t.Fatalf("cost classes %v", out.CostClasses)
			}
			means := make([][]float64, classes)
			for c := range means {
				a, b := diags[2*c], diags[2*c+1]
				means[c] = make([]float64, d)
				for j := range d {
					means[c][j] = tc.mean(a[j], b[j])
				}
			}
			correct := 0
			for q, i := range test {
				want := make([]float64, classes)
				for c := range classes {
					want[c] = distance(diags[i], means[c])
				}
				for c := range classes {
					if got := out.Costs[q][c]; math.Abs(got-want[c]) > 1e-7*(1+want[c]) {
						t.Fatalf("query %d, class %d: cost %v, want the distance to the mean %v", q, c, got, want[c])
					}
				}
				order := classify.Seq(0, classes)
				slices.SortFunc(order, func(a, b int) int { return cmp.Compare(want[a], want[b]) })
				if !slices.Equal(out.Ranking[q], order) || out.Pred[q] != order[0] {
					t.Fatalf("query %d: ranking %v, prediction %d; want by the distances %v: %v", q, out.Ranking[q], out.Pred[q], want, order)
				}
				var sum float64
				for _, v := range want {
					sum += math.Exp(-v * v)
				}
				s := out.Scores[q]
				p1, p2 := math.Exp(-want[order[0]]*want[order[0]])/sum, math.Exp(-want[order[1]]*want[order[1]])/sum
				if s.Label != order[0] || s.Second != order[1] || math.Abs(s.Score-p1) > 1e-7 || math.Abs(s.SecondScore-p2) > 1e-7 || !math.IsNaN(s.SCI) {
					t.Fatalf("query %d: score %+v, want %d at %v and %d at %v with a NaN SCI", q, s, order[0], p1, order[1], p2)
				}
				if out.Pred[q] == data.Labels[i] {
					correct++
				}
			}
			if correct < queries/2 {
				t.Errorf("%d of %d queries labelled right", correct, queries)
			}
		})
	}
}

// logDistance is the AIRM and log-Euclidean distance of diagonal
// matrices, sqrt(Σ_j log²(x_j/m_j)).
func logDistance(x, m []float64) float64 {
	var s float64
	for j := range x {
		s += math.Log(x[j]/m[j]) * math.Log(x[j]/m[j])
	}
	return math.Sqrt(s)
}

// TestMDMCostsAreDistances checks MDM on full (non-commuting) matrices:
// each class cost is spd's distance from the item to the saved class mean
// (√S for stein), and the scores and class probabilities are the softmax
// of −d² over the classes;
// the log-Euclidean means are exp of the mean of spd.Log of the class's
// items.
func TestMDMCostsAreDistances(t *testing.T) {
	data, train, test := syntheticData(t, 3, 4, 60, 0.3, 8)
	for _, metric := range []spd.Metric{spd.AIRMMetric, spd.LogEuclideanMetric, spd.SteinMetric, spd.WassersteinMetric, spd.EuclidMetric} {
		t.Run(metric.String(), func(t *testing.T) {
			ctx := context.Background()
			m := newMethod(t, "mdm", "{metric: "+metric.String()+"}")
			f, out := fitPredict(t, m, data, train, test)
			st, err := f.Save(ctx)
			if err != nil {
				t.Fatal(err)
			}
			dim := data.Set.Dim()
			means, err := st.Get(meansArray, 3, dim, dim)
			if err != nil {
				t.Fatal(err)
			}
			mean := func(c int) *mat.SymDense {
				return mat.NewSymDense(dim, slices.Clone(means[c*dim*dim:(c+1)*dim*dim]))
			}
			if metric == spd.LogEuclideanMetric {
				for c, items := range classify.ByClass(data.Labels, train) {
					sum := mat.NewSymDense(dim, nil)
					for _, i := range items {
						l, err := spd.Log(data.Set.At(i))
						if err != nil {
							t.Fatal(err)
						}
						sum.AddSym(sum, l)
					}
					sum.ScaleSym(1/float64(len(items)), sum)
					want, err := spd.Exp(sum)
					if err != nil {
						t.Fatal(err)
					}
					if !mat.EqualApprox(mean(c), want, 1e-12) {
						t.Errorf("class %d: mean %v, want %v", c, mat.Formatted(mean(c)), mat.Formatted(want))
					}
				}
			}
			for q, i := range test {
				var sum float64
				sq := make([]float64, 3)
				for c := range 3 {
					v, err := spd.Distance(metric, data.Set.At(i), mean(c))
					if err != nil {
						t.Fatal(err)
					}
					want := v
					sq[c] = v * v
					if metric == spd.SteinMetric {
						want, sq[c] = math.Sqrt(v), v
					}
					if math.Abs(out.Costs[q][c]-want) > 1e-12*(1+want) {
						t.Fatalf("query %d, class %d: cost %v, want %v", q, c, out.Costs[q][c], want)
					}
					sum += math.Exp(-sq[c])
				}
				for c := range 3 {
					if p := math.Exp(-sq[c]) / sum; math.Abs(out.Probabilities[q][c]-p) > 1e-12 {
						t.Fatalf("query %d: probabilities %v, want %v of class %d", q, out.Probabilities[q], p, c)
					}
				}
				s := out.Scores[q]
				if p := math.Exp(-sq[s.Label]) / sum; math.Abs(s.Score-p) > 1e-12 {
					t.Fatalf("query %d: score %v, want the softmax of −d² %v", q, s.Score, p)
				}
				if p := math.Exp(-sq[s.Second]) / sum; math.Abs(s.SecondScore-p) > 1e-12 {
					t.Fatalf("query %d: second score %v, want %v", q, s.SecondScore, p)
				}
			}
		})
	}
}

// TestMDMMetrics checks the metric parameter: stein by default, the
// deprecated spelling warned of, and a metric without a mean refused.
func TestMDMMetrics(t *testing.T) {
	if p := newMethod(t, "mdm", "{}").Spec().Params.(mdmParams); p.Metric != "stein" {
		t.Errorf("default metric %q, want stein", p.Metric)
	}
	s := newMethod(t, "mdm", "{metric: logeuclid}").Spec()
	if s.Params.(mdmParams).Metric != "log-euclidean" || len(s.Warnings) != 1 {
		t.Errorf("logeuclid: params %+v, warnings %q", s.Params, s.Warnings)
	}
	for _, bad := range []string{"thompson", "euclidean"} {
		if _, err := buildMethod(t, "mdm", "{metric: "+bad+"}"); !errors.Is(err, spd.ErrParameter) {
			t.Errorf("metric %s: %v, want an error wrapping spd.ErrParameter", bad, err)
		}
	}
}
