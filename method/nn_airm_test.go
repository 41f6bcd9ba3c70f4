package method

import (
	"container/heap"
	"context"
	"math"
	"reflect"
	"slices"
	"testing"

	"github.com/covpipe/covpipe/classify"
	"github.com/covpipe/covpipe/spd"
	"gonum.org/v1/gonum/mat"
)

// TestNNAIRMLockstep wants the lockstep search (eight queries at a time,
// their distances by spd.AIRMPairs) to answer bit for bit as the search
// of one query at a time through Anchor.AIRM that it replaced, kept here
// as the reference: the whole ranking, the bounds' order of the tail
// included, and the scores, at d = 17 (the lanes' sizes), on more
// queries than a chunk and on one and two workers.
func TestNNAIRMLockstep(t *testing.T) {
	data, train, test := syntheticData(t, 9, 17, 700, 0.6, 21)
	m := newMethod(t, "nn", "metric: airm")
	const R = 3
	want := airmRankingOneByOne(t, data, train, test, R)
	for _, workers := range []int{1, 2} {
		out, err := classify.Run(context.Background(), m, &classify.Split{Data: data, Train: train, Test: test, Workers: workers, Ranks: R})
		if err != nil {
			t.Fatal(err)
		}
		for q := range test {
			if !reflect.DeepEqual(out.Ranking[q], want.Ranking[q]) || out.Pred[q] != want.Pred[q] {
				t.Fatalf("%d workers, query %d: ranking %v, one by one %v", workers, q, out.Ranking[q], want.Ranking[q])
			}
			g, w := out.Scores[q], want.Scores[q]
			if g.Label != w.Label || g.Second != w.Second || math.Float64bits(g.Score) != math.Float64bits(w.Score) ||
				math.Float64bits(g.SecondScore) != math.Float64bits(w.SecondScore) {
				t.Fatalf("%d workers, query %d: score %+v, one by one %+v", workers, q, g, w)
			}
		}
	}
}

// airmRankingOneByOne is the search of airmRanking one query and one
// Anchor.AIRM distance at a time, on Stein divergences from spd.Stein.
func airmRankingOneByOne(t *testing.T, d *classify.Data, train, test []int, ranks int) *classify.Outcome {
	t.Helper()
	groups := map[int][]int{}
	for a, j := range train {
		groups[d.Labels[j]] = append(groups[d.Labels[j]], a)
	}
	labels := classify.SortedKeys(groups)
	out := &classify.Outcome{Pred: make([]int, len(test)), Ranking: make([][]int, len(test)), Scores: make([]classify.ItemScore, len(test))}
	ranks = max(2, ranks)
	for qi, i := range test {
		anchor, err := spd.NewAnchor(d.Set.View(i))
		if err != nil {
			t.Fatal(err)
		}
		var q classQueue
		for _, l := range labels {
			c := &classState{label: l, dim: d.Set.Dim()}
			for _, a := range groups[l] {
				s, err := spd.Stein(d.Set.View(i), d.Set.View(train[a]))
				if err != nil {
					t.Fatal(err)
				}
				c.all = append(c.all, member{s: s, j: train[a], a: a})
			}
			c.reset()
			q = append(q, c)
		}
		heap.Init(&q)
		var ranking []int
		nearest := [2]float64{math.Inf(1), math.Inf(1)}
		for q.Len() > 0 && len(ranking) < ranks {
			c := q[0]
			if c.resolved() {
				heap.Pop(&q)
				if len(ranking) < 2 {
					nearest[len(ranking)] = c.best
				}
				ranking = append(ranking, c.label)
				continue
			}
			dist, err := anchor.AIRM(d.Set.View(train[c.pop()]))
			if err != nil {
				t.Fatal(err)
			}
			c.best = math.Min(c.best, dist)
			c.bound = c.key()
			heap.Fix(&q, 0)
		}
		for q.Len() > 0 {
			ranking = append(ranking, heap.Pop(&q).(*classState).label)
		}
		out.Ranking[qi], out.Pred[qi] = ranking, ranking[0]
		out.Scores[qi] = classify.ItemScore{Label: ranking[0], Second: ranking[1], SCI: math.NaN()}
		out.Scores[qi].Score, out.Scores[qi].SecondScore = classify.NearestScores(nearest[0], nearest[1])
	}
	return out
}

// TestMDMDistancesBitForBit wants MDM's costs, for stein and airm, bit for
// bit those of spd.Distance from each query to the saved class means (√S
// for stein), and the probabilities the softmax of their squares, at
// d = 17 with 13 classes: the means in groups of eight and four and a
// single one (spd.SteinBlockTo's lanes, spd.Anchor.AIRMTargets').
func TestMDMDistancesBitForBit(t *testing.T) {
	data, train, test := syntheticData(t, 13, 17, 260, 0.3, 9)
	for _, metric := range []spd.Metric{spd.SteinMetric, spd.AIRMMetric} {
		t.Run(metric.String(), func(t *testing.T) {
			m := newMethod(t, "mdm", "{metric: "+metric.String()+"}")
			f, out := fitPredict(t, m, data, train, test)
			st, err := f.Save(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			dim := data.Set.Dim()
			means, err := st.Get(meansArray, 13, dim, dim)
			if err != nil {
				t.Fatal(err)
			}
			w := spd.NewWorkspace(dim)
			sq := make([]float64, 13)
			for q, i := range test {
				for c := range 13 {
					mc := mat.NewSymDense(dim, slices.Clone(means[c*dim*dim:(c+1)*dim*dim]))
					v, err := w.Distance(metric, data.Set.View(i), mc)
					if err != nil {
						t.Fatal(err)
					}
					var want float64
					sq[c], want = mdmSquares(metric, v)
					if math.Float64bits(out.Costs[q][c]) != math.Float64bits(want) {
						t.Fatalf("query %d, class %d: cost %v, Distance gives %v", q, c, out.Costs[q][c], want)
					}
				}
				p := softmaxNegTo(make([]float64, 13), sq)
				if !reflect.DeepEqual(out.Probabilities[q], p) {
					t.Fatalf("query %d: probabilities %v, want %v", q, out.Probabilities[q], p)
				}
			}
		})
	}
}
